package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
)

// codexBin returns $CODEX_BIN (scripts/ensure-agent-clis) or skips the test.
func codexBin(t testing.TB) string {
	return harness.AgentBin(t, "CODEX_BIN", "the Codex /ide test")
}

// responsesAPI is a fake OpenAI Responses API on loopback: every POST /v1/responses is kept and
// answered with one assistant message, streamed as the real API does (facts §4).
type responsesAPI struct {
	*httptest.Server
	reply string

	mu      sync.Mutex
	bodies  [][]byte
	changed chan struct{}
}

func newResponsesAPI(t *testing.T, reply string) *responsesAPI {
	a := &responsesAPI{reply: reply, changed: make(chan struct{})}
	a.Server = httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(a.Close)
	return a
}

func (a *responsesAPI) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		http.NotFound(w, r)
		return
	}
	a.mu.Lock()
	a.bodies = append(a.bodies, body)
	close(a.changed)
	a.changed = make(chan struct{})
	a.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(typ string, v map[string]any) {
		v["type"] = typ
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
	}
	event("response.created", map[string]any{"response": map[string]any{"id": "resp_1"}})
	event("response.output_item.done", map[string]any{"output_index": 0, "item": map[string]any{
		"type": "message", "role": "assistant", "id": "msg_1",
		"content": []any{map[string]any{"type": "output_text", "text": a.reply}}}})
	event("response.completed", map[string]any{"response": map[string]any{"id": "resp_1",
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}}})
}

// userTexts waits for a request with a user text for which ok holds and returns that text.
func (a *responsesAPI) userText(ctx context.Context, t *testing.T, ok func(string) bool) string {
	t.Helper()
	for {
		a.mu.Lock()
		bodies, ch := a.bodies, a.changed
		a.mu.Unlock()
		for _, b := range bodies {
			var req struct {
				Input []struct {
					Role    string `json:"role"`
					Content []struct {
						Type, Text string
					} `json:"content"`
				} `json:"input"`
			}
			_ = json.Unmarshal(b, &req)
			for _, in := range req.Input {
				for _, c := range in.Content {
					if in.Role == "user" && ok(c.Text) {
						return c.Text
					}
				}
			}
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("no model request with the user text: %v\nrequests:\n%s", ctx.Err(), a.dump())
		}
	}
}

func (a *responsesAPI) dump() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var b strings.Builder
	for _, body := range a.bodies {
		fmt.Fprintf(&b, "%s\n", short(string(body)))
	}
	return b.String()
}

// startCodex runs the real Codex CLI in a pty, in project, against api.
func startCodex(t *testing.T, api *responsesAPI, project, tmp string) *cli {
	bin := codexBin(t)
	home, chome := realDir(t), realDir(t)
	config := fmt.Sprintf(`model = "fake-model"
model_provider = "fake"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "%s/v1"
env_key = "FAKE_API_KEY"
wire_api = "responses"

[projects.%q]
trust_level = "trusted"
`, api.URL, project)
	if err := os.WriteFile(filepath.Join(chome, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--no-daemon")
	cmd.Dir = project
	cmd.Env = []string{"HOME=" + home, "CODEX_HOME=" + chome, "TMPDIR=" + tmp, "FAKE_API_KEY=fake",
		"PATH=" + os.Getenv("PATH"), "TERM=xterm-256color", "LANG=C.UTF-8",
		"no_proxy=127.0.0.1,localhost", "NO_PROXY=127.0.0.1,localhost"}
	return runInPTY(t, cmd, api.dump)
}

// Issue 38 item 3 with the real Codex 0.171.0: a bridge whose editor asked for it answers
// Codex's context socket, so after /ide the model's request starts with "# Context from my IDE
// setup:" and names the editor's file and selected text. Bridge and Codex share a private
// 0700 TMPDIR (Codex's socket is $TMPDIR/codex-ipc/ipc-<uid>.sock).
func TestCodexIDEContext(t *testing.T) {
	codexBin(t)
	t.Parallel()
	tmp := realDir(t)
	project := realDir(t)
	poem := filepath.Join(project, "poem.txt")
	if err := os.WriteFile(poem, []byte("line one\nline two\nline three\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The editor asks for it in initialize (serve --codex-ide does the same: TestServeCodexIDE).
	ed := startEditorWith(t, realDir(t), project, editorOptions{Env: []string{"TMPDIR=" + tmp}, Init: map[string]any{"codexIde": true}})
	ed.Answer("getOpenEditors", func(json.RawMessage) (any, error) {
		return map[string]any{"editors": []any{
			map[string]any{"filePath": poem, "isActive": true, "label": "poem.txt"},
			map[string]any{"filePath": filepath.Join(project, ".env"), "label": ".env"}}}, nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	sel := map[string]any{"start": map[string]any{"line": 1, "character": 0}, "end": map[string]any{"line": 1, "character": 8}, "isEmpty": false}
	ed.Notify(ctx, "selectionChanged", map[string]any{"text": "line two", "filePath": poem, "selection": sel})
	sock := filepath.Join(tmp, "codex-ipc", fmt.Sprintf("ipc-%d.sock", os.Getuid()))
	if err := waitFor(ctx, func() bool { _, err := os.Lstat(sock); return err == nil }); err != nil {
		t.Fatalf("the bridge never made %s: %v", sock, err)
	}

	api := newResponsesAPI(t, "CODEX SAW IT")
	c := startCodex(t, api, project, tmp)
	c.WaitText(ctx, "fake-model")
	c.Type("/ide")
	c.WaitText(ctx, "IDE context is on")
	c.Type("what did I select")
	text := api.userText(ctx, t, func(s string) bool { return strings.Contains(s, "what did I select") })
	if !strings.HasPrefix(text, "# Context from my IDE setup:") || !strings.Contains(text, "poem.txt") ||
		!strings.Contains(text, "line two") {
		t.Fatalf("the model's user text lacks the IDE context:\n%s", text)
	}
	if strings.Contains(text, ".env") {
		t.Errorf("an excluded file reached the model:\n%s", text)
	}
	t.Logf("sent to the model: %q", firstLines(text, 12))
	c.WaitText(ctx, "CODEX SAW IT")
}
