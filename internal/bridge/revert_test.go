package bridge_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/bridge"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/remote"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/review"
)

// Issue 35 items 3 and 6 through the entry point editors use (Neovim's :ClaudeCodeReviewRevert
// sends the recorded path to the review endpoint): Claude's getDiagnostics records a workspace
// file and names an outside one; the outside one is not recorded, and a revert after the
// workspace file was swapped for a link to the outside file is refused with a clear message,
// leaving the outside file as it was.
func TestReviewRevertOverLoopbackFollowsNoLink(t *testing.T) {
	t.Parallel()
	b, _ := startWith(t, func(c *bridge.Config) { c.Review = &review.Config{} })
	ws := b.Model.Folders()[0]
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	secret := filepath.Join(outside, "secret.txt")
	os.WriteFile(secret, []byte("outside\n"), 0o600)
	a := filepath.Join(ws, "a.txt")
	os.WriteFile(a, []byte("snapshot\n"), 0o644)

	c := connect(t, b)
	tool(t, c, "closeAllDiffTabs", map[string]any{})
	tool(t, c, "getDiagnostics", map[string]any{"uri": "file://" + a})
	tool(t, c, "getDiagnostics", map[string]any{"uri": "file://" + secret})
	os.WriteFile(a, []byte("changed\n"), 0o644)
	os.WriteFile(secret, []byte("outside, changed\n"), 0o600)
	b.Review.EndTurn()
	os.Remove(a)
	os.Symlink(secret, a)

	post := func(body string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:"+strconv.Itoa(b.Port())+remote.PathReview, strings.NewReader(body))
		req.Header.Set(remote.AuthHeader, b.Token())
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(out)
	}
	if code, body := post(`{"revert":"` + a + `"}`); code != 400 || !strings.Contains(body, "not reverted: "+a+" is a symbolic link") {
		t.Errorf("revert through the swapped link: %d %s", code, body)
	}
	if code, body := post(`{"revert":"` + secret + `"}`); code != 400 || !strings.Contains(body, "did not change") {
		t.Errorf("revert of the outside file the model named: %d %s", code, body)
	}
	if got, _ := os.ReadFile(secret); string(got) != "outside, changed\n" {
		t.Errorf("the outside file after the reverts: %q", got)
	}
}
