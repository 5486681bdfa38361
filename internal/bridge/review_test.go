package bridge_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/bridge"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/claudestate"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/permission"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/remote"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/review"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// The review endpoint (which can write a file back: --revert) and the hooks' endpoint have the
// gate of mention and select: the lock's token, no Origin, a loopback Host (docs/security.md,
// "Mentions from the shell").
func TestReviewAndHookNeedTheToken(t *testing.T) {
	t.Parallel()
	b, _ := startWith(t, func(c *bridge.Config) { c.LockDir = t.TempDir(); c.Review = &review.Config{} })
	a := filepath.Join(b.Model.Folders()[0], "a.txt")
	os.WriteFile(a, []byte("old\n"), 0o644)
	b.Review.Prompt()
	b.Review.Touch(a)
	os.WriteFile(a, []byte("new\n"), 0o644)
	b.Review.EndTurn()
	revert := `{"revert":"` + a + `"}`
	for _, path := range []string{remote.PathReview, remote.PathHook} {
		body := revert
		if path == remote.PathHook {
			body = `{"hook_event_name":"Stop","session_id":"s"}`
		}
		for _, tc := range refusedShell(b) {
			if got, _ := postShell(t, b, path, body, tc.mod); got != tc.want {
				t.Errorf("%s %s: status %d, want %d", path, tc.name, got, tc.want)
			}
		}
	}
	if data, _ := os.ReadFile(a); string(data) != "new\n" {
		t.Fatalf("a refused request reverted the file: %q", data)
	}
	// With the token: the revert is done, and a path the turn did not change is refused.
	code, body := postShell(t, b, remote.PathReview, revert, func(*http.Request) {})
	var ans review.Answer
	if code != 200 || json.Unmarshal([]byte(body), &ans) != nil || ans.Reverted != a {
		t.Fatalf("revert: %d %s", code, body)
	}
	if data, _ := os.ReadFile(a); string(data) != "old\n" {
		t.Errorf("after the revert: %q", data)
	}
	if code, body := postShell(t, b, remote.PathReview, `{"revert":"/etc/passwd"}`, func(*http.Request) {}); code != 400 || !strings.Contains(body, "did not change") {
		t.Errorf("revert of another file: %d %s", code, body)
	}
}

// Issue 39 item 5: "Claude's state stays "waiting" after a rejected diff until the next prompt".
// A reject in the editor aborts Claude's turn with no hook after it (facts: DIFF_REJECTED
// "denied; the turn is aborted"): the session waiting on the edit's permission is idle again.
// Claude closing the diff (close_tab: answered in its terminal, maybe accepted) changes nothing:
// PostToolUse follows an accept.
func TestRejectedDiffEndsTheWait(t *testing.T) {
	t.Parallel()
	b, ed := startWith(t, func(c *bridge.Config) { c.LockDir = t.TempDir() })
	var seen []string
	b.State.Changed = func(s claudestate.Session) { seen = append(seen, string(s.State)+":"+s.Reason) }
	path, _ := writeFile(t, b, "f.txt", "old\n")
	c := connect(t, b)
	for _, tab := range []string{"closed", "rejected"} {
		b.State.Hook(claudestate.Event{Name: "PermissionRequest", SessionID: "s", ToolName: "Edit"})
		ans := openDiffAsync(testbin.Ctx(t), c, path, "new\n", tab)
		shown := recv(t, ed.shown, "showDiff")
		if tab == "closed" {
			wantText("TAB_CLOSED")(t, tool(t, c, "close_tab", map[string]any{"tab_name": tab}))
		} else if err := b.Model.Decide(shown.Seq, ide.Decision{}); err != nil {
			t.Fatal(err)
		}
		recv(t, ans, "openDiff answer")
		recv(t, ed.closed, "closeDiff")
	}
	if got, want := strings.Join(seen, " "), "waiting:permission for Edit idle:"; got != want {
		t.Fatalf("states %q, want %q", got, want)
	}
	if ss := b.State.Sessions(); len(ss) != 1 || ss[0].State != claudestate.Idle {
		t.Fatalf("sessions %+v", ss)
	}
}

// Every POST endpoint of the shell answers by transport.DecodePost, on the real listener and
// with the token: another method is 405 with Allow, a body past its bound 413.
func TestShellEndpointsPostRule(t *testing.T) {
	t.Parallel()
	b, _ := startWith(t, func(c *bridge.Config) { c.LockDir = t.TempDir(); c.Review = &review.Config{} })
	over := strings.Repeat(" ", permission.MaxBody+1) // past every endpoint's bound
	for _, path := range []string{remote.PathMention, remote.PathSelect, remote.PathReview, remote.PathHook, remote.PathPermission} {
		for _, tc := range []struct {
			method, body string
			status       int
			allow        string
		}{{http.MethodGet, "", 405, "POST"}, {http.MethodPost, over, 413, ""}} {
			req, _ := http.NewRequest(tc.method, "http://127.0.0.1:"+strconv.Itoa(b.Port())+path, strings.NewReader(tc.body))
			req.Header.Set(remote.AuthHeader, b.Token())
			resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.status || resp.Header.Get("Allow") != tc.allow {
				t.Errorf("%s %s: %d, Allow %q; want %d, %q", tc.method, path, resp.StatusCode, resp.Header.Get("Allow"), tc.status, tc.allow)
			}
		}
	}
}
