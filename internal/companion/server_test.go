package companion

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
)

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"streamable-http-client","version":"0.61.0"}}}`

// A request without the right token, or from a page (Origin) or a rebinding name (Host), gets
// its status and nothing else: no session, no MCP answer.
func TestGateRefuses(t *testing.T) {
	f := newFixture(t, Gemini)
	host := fmt.Sprintf("127.0.0.1:%d", f.srv.Port())
	cases := []struct {
		name   string
		header map[string]string
		host   string
		want   int
	}{
		{"no token", nil, host, http.StatusUnauthorized},
		{"wrong token", map[string]string{"Authorization": "Bearer " + strings.Repeat("0", 32)}, host, http.StatusUnauthorized},
		{"token without Bearer", map[string]string{"Authorization": f.srv.Token()}, host, http.StatusUnauthorized},
		{"Claude's header", map[string]string{"X-Claude-Code-Ide-Authorization": f.srv.Token()}, host, http.StatusUnauthorized},
		{"Origin", map[string]string{"Authorization": "Bearer " + f.srv.Token(), "Origin": "http://evil.example"}, host, http.StatusForbidden},
		{"Host", map[string]string{"Authorization": "Bearer " + f.srv.Token()}, fmt.Sprintf("evil.example:%d", f.srv.Port()), http.StatusForbidden},
		{"Host of another port", map[string]string{"Authorization": "Bearer " + f.srv.Token()}, "127.0.0.1:1", http.StatusForbidden},
	}
	for _, c := range cases {
		req, _ := http.NewRequest("POST", f.srv.URL(), strings.NewReader(initBody))
		req.Host = c.host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range c.header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s: status %d, want %d", c.name, resp.StatusCode, c.want)
		}
		if resp.Header.Get("Mcp-Session-Id") != "" || strings.Contains(string(body), "jsonrpc") {
			t.Errorf("%s: refused request was served: %q", c.name, body)
		}
	}
	f.srv.mu.Lock()
	n := len(f.srv.sessions)
	f.srv.mu.Unlock()
	if n != 0 {
		t.Errorf("%d sessions after refused requests", n)
	}
	if f.model.Clients() != 0 {
		t.Errorf("model has %d clients after refused requests", f.model.Clients())
	}
}

// The CLI uses diffs only when tools/list has both openDiff and closeDiff.
func TestToolsListHasBothDiffTools(t *testing.T) {
	f := newFixture(t, Gemini)
	cs, _ := f.connect(t)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, tool := range res.Tools {
		have[tool.Name] = true
	}
	if !have["openDiff"] || !have["closeDiff"] {
		t.Fatalf("tools/list: %v, want openDiff and closeDiff", have)
	}
}

// openDiff answers at once with no content; the editor shows the proposal through the model;
// the user's accept (with an edit) reaches the CLI as ide/diffAccepted with the editor's text,
// and the file on disk is untouched by the bridge (the CLI writes it).
func TestOpenDiffAccept(t *testing.T) {
	f := newFixture(t, Gemini)
	path := f.write(t, "a.txt", "old\n")
	cs, n := f.connect(t)
	res := callTool(t, cs, "openDiff", map[string]any{"filePath": path, "newContent": "proposed\n"})
	if res.IsError || len(res.Content) != 0 {
		t.Fatalf("openDiff answered %+v, want no content", res)
	}
	p := f.shown(t)
	if p.FilePath != path || p.NewContents.String() != "proposed\n" {
		t.Fatalf("editor shown %q %q", p.FilePath, p.NewContents.String())
	}
	if p.Agent != "gemini" {
		t.Fatalf("showDiff's agent %q, want gemini", p.Agent)
	}
	if err := f.model.Decide(p.Seq, ide.Decision{Accept: true, Text: ide.TextOf("proposed, edited\n")}); err != nil {
		t.Fatal(err)
	}
	got := n.next(t, "ide/diffAccepted")
	if got["filePath"] != path || got["content"] != "proposed, edited\n" {
		t.Fatalf("ide/diffAccepted %v", got)
	}
	if b, _ := os.ReadFile(path); string(b) != "old\n" {
		t.Fatalf("the bridge wrote the file: %q", b)
	}
	if tab := f.closedTab(t); tab != p.TabName {
		t.Fatalf("closed %q, want the accepted diff %q", tab, p.TabName)
	}
	if len(f.model.Diffs()) != 0 {
		t.Fatalf("diffs left open: %+v", f.model.Diffs())
	}
}

func TestOpenDiffReject(t *testing.T) {
	f := newFixture(t, Qwen)
	path := f.write(t, "a.txt", "old\n")
	cs, n := f.connect(t)
	p := f.propose(t, cs, path, "proposed\n")
	if p.Agent != "qwen" {
		t.Fatalf("showDiff's agent %q, want qwen", p.Agent)
	}
	if err := f.model.Decide(p.Seq, ide.Decision{}); err != nil {
		t.Fatal(err)
	}
	if got := n.next(t, "ide/diffRejected"); got["filePath"] != path {
		t.Fatalf("ide/diffRejected %v", got)
	}
}

// One pending diff per file: a second proposal for the same file replaces the first, which is
// settled as rejected.
func TestSecondProposalReplacesFirst(t *testing.T) {
	f := newFixture(t, Gemini)
	path := f.write(t, "a.txt", "old\n")
	cs, n := f.connect(t)
	first := f.propose(t, cs, path, "one\n")
	callTool(t, cs, "openDiff", map[string]any{"filePath": path, "newContent": "two\n"})
	if got := n.next(t, "ide/diffRejected"); got["filePath"] != path {
		t.Fatalf("ide/diffRejected %v", got)
	}
	second := f.shown(t)
	if f.model.Pending(first.Seq) || !f.model.Pending(second.Seq) {
		t.Fatal("the first proposal is still pending, or the second is not")
	}
	if err := f.model.Decide(second.Seq, ide.Decision{Accept: true}); err != nil {
		t.Fatal(err)
	}
	if got := n.next(t, "ide/diffAccepted"); got["content"] != "two\n" {
		t.Fatalf("ide/diffAccepted %v", got)
	}
}

// closeDiff (the user answered in the CLI's terminal) closes the diff and answers one text block
// whose text is JSON {"content": text}: the CLI parses it and writes that text, the editor's view
// as it is now (the user's edits kept). With suppressNotification the closed diff's outcome is
// not sent.
func TestCloseDiffAnswersContentJSON(t *testing.T) {
	f := newFixture(t, Gemini)
	path := f.write(t, "a.txt", "old\n")
	other := f.write(t, "b.txt", "old\n")
	cs, n := f.connect(t)
	p := f.propose(t, cs, path, "proposed\n")
	f.editor.edit(p.TabName, "proposed, edited in the view\n")
	res := callTool(t, cs, "closeDiff", map[string]any{"filePath": path, "suppressNotification": true})
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("closeDiff answered %+v", res)
	}
	var got struct{ Content *string }
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &got); err != nil || got.Content == nil || *got.Content != "proposed, edited in the view\n" {
		t.Fatalf("closeDiff text %q (%v), want JSON content", res.Content[0].(*mcp.TextContent).Text, err)
	}
	if f.model.Pending(p.Seq) {
		t.Fatal("the diff is still pending after closeDiff")
	}
	if tab := f.closedTab(t); tab != p.TabName {
		t.Fatalf("closed %q, want %q", tab, p.TabName)
	}
	// The next notification is the outcome of the next diff, not the closed one's rejection.
	q := f.propose(t, cs, other, "x\n")
	f.model.Decide(q.Seq, ide.Decision{})
	for r := range n.ch {
		if r.Method == "ide/contextUpdate" {
			continue
		}
		if r.Method != "ide/diffRejected" || !strings.Contains(string(r.Params), "b.txt") {
			t.Fatalf("got %s %s, want the rejection of b.txt only", r.Method, r.Params)
		}
		break
	}
	// A file with no diff answers content null.
	res = callTool(t, cs, "closeDiff", map[string]any{"filePath": path})
	if txt := res.Content[0].(*mcp.TextContent).Text; txt != `{"content":null}` {
		t.Fatalf("closeDiff of no diff: %q", txt)
	}
}

// A session that goes away settles its pending diff (never as an accept).
func TestDisconnectSettlesDiff(t *testing.T) {
	f := newFixture(t, Gemini)
	path := f.write(t, "a.txt", "old\n")
	cs, _ := f.connect(t)
	p := f.propose(t, cs, path, "proposed\n")
	cs.Close()
	f.closedTab(t)
	if f.model.Pending(p.Seq) {
		t.Fatal("pending after the session left")
	}
}

// The first contextUpdate goes out once the CLI's GET stream is open and carries what was
// selected before: the active file, the cursor 1-based, the selected text. An excluded file
// never appears, neither from the open editors nor when selected.
func TestContextUpdate(t *testing.T) {
	f := newFixture(t, Gemini)
	a := f.write(t, "a.go", "package a\n")
	env := f.write(t, ".env", "SECRET=1\n")
	f.editor.setFiles(ide.OpenEditor{FilePath: env}, ide.OpenEditor{FilePath: a, IsActive: true})
	f.model.SelectionChanged(ide.Selection{Text: "package", FilePath: a, Selection: ide.SelectionPos{Start: ide.Position{Line: 0, Character: 0}, End: ide.Position{Line: 0, Character: 7}}})
	_, n := f.connect(t)
	st := n.next(t, "ide/contextUpdate")
	files := st["workspaceState"].(map[string]any)["openFiles"].([]any)
	if len(files) != 1 {
		t.Fatalf("openFiles %v, want a.go only", files)
	}
	first := files[0].(map[string]any)
	if first["path"] != a || first["isActive"] != true || first["selectedText"] != "package" {
		t.Fatalf("active file %v", first)
	}
	if c := first["cursor"].(map[string]any); c["line"] != float64(1) || c["character"] != float64(8) {
		t.Fatalf("cursor %v, want 1-based line 1 character 8", c)
	}
	// Selecting in the excluded file sends nothing that names it; the next selection is sent.
	f.model.SelectionChanged(ide.Selection{Text: "SECRET", FilePath: env, Selection: ide.SelectionPos{End: ide.Position{Character: 6}}})
	f.model.SelectionChanged(ide.Selection{Text: "a", FilePath: a, Selection: ide.SelectionPos{Start: ide.Position{Character: 8}, End: ide.Position{Character: 9}}})
	for {
		st = n.next(t, "ide/contextUpdate")
		b, _ := json.Marshal(st)
		if strings.Contains(string(b), ".env") || strings.Contains(string(b), "SECRET") {
			t.Fatalf("excluded file in a contextUpdate: %s", b)
		}
		if strings.Contains(string(b), `"selectedText":"a"`) {
			break
		}
	}
}

// The cursor's column goes out in UTF-16 code units (VS Code's, the CLIs' reference companion),
// whatever the editor counts in: here bytes (Neovim's), with non-ASCII text before the cursor on
// the file's second line. "héllo 🙂 " is 12 bytes and 9 UTF-16 units: character 10, 1-based.
func TestContextUpdateCursorInUTF16(t *testing.T) {
	f := newFixture(t, Gemini)
	if enc := f.model.Info().Encoding; enc != ide.UTF8 {
		t.Fatalf("the fixture's editor counts in %q, want bytes", enc)
	}
	a := f.write(t, "a.txt", "première ligne\nhéllo 🙂 wörld\n")
	f.editor.setFiles(ide.OpenEditor{FilePath: a, IsActive: true})
	at := ide.Position{Line: 1, Character: len("héllo 🙂 ")}
	f.model.SelectionChanged(ide.Selection{FilePath: a, Selection: ide.SelectionPos{Start: at, End: at, IsEmpty: true}})
	_, n := f.connect(t)
	st := n.next(t, "ide/contextUpdate")
	c := st["workspaceState"].(map[string]any)["openFiles"].([]any)[0].(map[string]any)["cursor"].(map[string]any)
	if c["line"] != float64(2) || c["character"] != float64(10) {
		t.Fatalf("cursor %v, want line 2 character 10 (1-based, UTF-16 units)", c)
	}
}

// While sharing is paused no contextUpdate is sent, not even an empty one.
func TestContextUpdatePaused(t *testing.T) {
	f := newFixture(t, Gemini)
	a := f.write(t, "a.go", "package a\n")
	b := f.write(t, "b.go", "package b\n")
	f.editor.setFiles(ide.OpenEditor{FilePath: a, IsActive: true})
	f.model.SetPaused(true)
	cs, n := f.connect(t)
	f.model.SelectionChanged(ide.Selection{Text: "paused", FilePath: a, Selection: ide.SelectionPos{End: ide.Position{Character: 6}}})
	// A diff's round trip on the same stream: what the session sent meanwhile arrives before it.
	callTool(t, cs, "openDiff", map[string]any{"filePath": b, "newContent": "x\n"})
	f.model.Decide(f.shown(t).Seq, ide.Decision{})
	for r := range n.ch {
		if r.Method == "ide/diffRejected" {
			break
		}
		t.Fatalf("sent while paused: %s %s", r.Method, r.Params)
	}
	f.model.SetPaused(false)
	f.model.SelectionChanged(ide.Selection{Text: "resumed", FilePath: b, Selection: ide.SelectionPos{End: ide.Position{Character: 7}}})
	st := n.next(t, "ide/contextUpdate")
	got, _ := json.Marshal(st)
	if strings.Contains(string(got), "paused") || !strings.Contains(string(got), "resumed") {
		t.Fatalf("first contextUpdate %s, want the one after resuming", got)
	}
}

// Gemini's discovery file: 0600 in a 0700 folder, the fields the CLI reads, removed at Close.
func TestGeminiDiscoveryFile(t *testing.T) {
	f := newFixture(t, Gemini)
	fi, err := os.Stat(f.srv.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v", fi.Mode().Perm())
	}
	if di, _ := os.Stat(f.disc); di.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v", di.Mode().Perm())
	}
	if di, _ := os.Stat(filepath.Dir(f.disc)); di.Mode().Perm() != 0o700 {
		t.Errorf("parent mode %v", di.Mode().Perm())
	}
	want := fmt.Sprintf("gemini-ide-server-%d-%d.json", os.Getpid(), f.srv.Port())
	if filepath.Base(f.srv.Path()) != want {
		t.Errorf("name %s, want %s", filepath.Base(f.srv.Path()), want)
	}
	var got geminiFile
	b, _ := os.ReadFile(f.srv.Path())
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Port != f.srv.Port() || got.AuthToken != f.srv.Token() || got.WorkspacePath != f.dir ||
		got.IDEInfo.Name != "testeditor" || got.IDEInfo.DisplayName != "Test Editor" {
		t.Errorf("file %s", b)
	}
	f.srv.Close()
	if _, err := os.Stat(f.srv.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("file left after Close: %v", err)
	}
}

func TestQwenLockFile(t *testing.T) {
	f := newFixture(t, Qwen)
	var got qwenFile
	b, _ := os.ReadFile(f.srv.Path())
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if filepath.Base(f.srv.Path()) != fmt.Sprint(f.srv.Port())+".lock" || got.PPID != os.Getpid() ||
		got.IDEName != "Test Editor" || got.IDEInfo.DisplayName != "Test Editor" || got.AuthToken != f.srv.Token() {
		t.Errorf("lock %s at %s", b, f.srv.Path())
	}
	if fi, _ := os.Stat(f.srv.Path()); fi.Mode().Perm() != 0o600 {
		t.Errorf("lock mode %v", fi.Mode().Perm())
	}
}

// A discovery folder (or its parent) that others can write may hold what they planted: it is
// refused, never used or tightened, and the companion does not start.
func TestDiscoveryRefusesFolderOthersCanWrite(t *testing.T) {
	for _, which := range []string{"dir", "parent"} {
		root := t.TempDir()
		dir := filepath.Join(root, "gemini", "ide")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		open := dir
		if which == "parent" {
			open = filepath.Dir(dir)
		}
		if err := os.Chmod(open, 0o777); err != nil {
			t.Fatal(err)
		}
		m := ide.New(newTestEditor(), ide.EditorInfo{Name: "Test"}, []string{root}, ide.Events{}, nil)
		s, err := Start(Config{Agent: Gemini, Model: m, Dir: dir})
		if err == nil {
			s.Close()
			t.Fatalf("%s 0777: started", which)
		}
		if !errors.Is(err, discovery.ErrUnsafeDir) {
			t.Errorf("%s 0777: %v, want ErrUnsafeDir", which, err)
		}
		if fi, _ := os.Stat(open); fi.Mode().Perm() != 0o777 {
			t.Errorf("%s was changed to %v", which, fi.Mode().Perm())
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("%s 0777: wrote %v", which, ents)
		}
		m.Close()
	}
}

// A symlink where the discovery folder should be is refused.
func TestDiscoveryRefusesSymlinkedFolder(t *testing.T) {
	root := t.TempDir()
	target := filepath.Join(root, "elsewhere")
	os.Mkdir(target, 0o700)
	os.MkdirAll(filepath.Join(root, "gemini"), 0o700)
	dir := filepath.Join(root, "gemini", "ide")
	if err := os.Symlink(target, dir); err != nil {
		t.Fatal(err)
	}
	m := ide.New(newTestEditor(), ide.EditorInfo{Name: "Test"}, []string{root}, ide.Events{}, nil)
	defer m.Close()
	if s, err := Start(Config{Agent: Gemini, Model: m, Dir: dir}); !errors.Is(err, discovery.ErrUnsafeDir) {
		if s != nil {
			s.Close()
		}
		t.Fatalf("symlinked dir: %v", err)
	}
}

// These CLIs have no @-mentions: the mentions held while no Claude is connected stay held when
// an agent connects, and one made while only an agent is connected is held too, not counted as
// delivered to the agent (and lost).
func TestMentionHeldForClaude(t *testing.T) {
	f := newFixture(t, Gemini)
	a := f.write(t, "a.go", "package a\n")
	if _, held, err := f.model.AtMentioned(ide.Mention{FilePath: a}); err != nil || !held {
		t.Fatalf("AtMentioned with no client: held %v, %v", held, err)
	}
	f.connect(t)
	deadline := time.Now().Add(10 * time.Second)
	for f.model.Listeners() != 1 { // initialized and the GET stream open
		if time.Now().After(deadline) {
			t.Fatal("the session never listens")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n, _ := f.model.HeldMentions(); n != 1 {
		t.Fatalf("%d mentions held after the agent connected, want 1", n)
	}
	delivered, held, err := f.model.AtMentioned(ide.Mention{FilePath: a})
	if err != nil || delivered != 0 || !held {
		t.Fatalf("AtMentioned: delivered %d, held %v, %v; want held for Claude", delivered, held, err)
	}
	if n, _ := f.model.HeldMentions(); n != 2 {
		t.Fatalf("%d mentions held, want 2", n)
	}
}

// A Gemini discovery file of a bridge that was killed (its pid dead, nothing on its port) is
// removed when the next bridge starts; another program's file, and one whose pid lives, stay.
func TestStaleGeminiFilesSwept(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gemini", "ide")
	os.MkdirAll(dir, 0o700)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	plant := func(pid, port int, marker string) string {
		p := filepath.Join(dir, fmt.Sprintf("gemini-ide-server-%d-%d.json", pid, port))
		os.WriteFile(p, []byte(`{"port":1,"authToken":"x","bridge":"`+marker+`"}`), 0o600)
		return p
	}
	stale := plant(dead.Process.Pid, closed, discovery.BridgeMarker)
	live := plant(os.Getpid(), closed, discovery.BridgeMarker)
	foreign := plant(dead.Process.Pid, closed+1, "")
	m := ide.New(newTestEditor(), ide.EditorInfo{Name: "Test"}, []string{dir}, ide.Events{}, nil)
	defer m.Close()
	s, err := Start(Config{Agent: Gemini, Model: m, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale file of a dead bridge kept: %v", err)
	}
	for _, p := range []string{live, foreign, s.Path()} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", filepath.Base(p), err)
		}
	}
}

type claudeClient struct{}

func (claudeClient) Send([]byte)       {}
func (claudeClient) SendLatest([]byte) {}

// A Claude and a Gemini session on one bridge at once, proposing for the same file: each diff is
// its own (one pending per file and agent), and each session hears only of its own.
func TestClaudeAndGeminiEachGetTheirOwnDiff(t *testing.T) {
	f := newFixture(t, Gemini)
	path := f.write(t, "a.txt", "old\n")
	claude := f.model.Connect(claudeClient{})
	f.model.Ready(claude)
	defer f.model.Disconnect(claude)
	args, _ := json.Marshal(map[string]any{"old_file_path": path, "new_file_path": path, "new_file_contents": "from claude\n", "tab_name": "✻ [Claude Code] a.txt ⧉"})
	claudeDone := make(chan []ide.Content, 1)
	go func() {
		res, err := f.model.CallTool(t.Context(), claude, "openDiff", args)
		if err != nil {
			t.Error(err)
			claudeDone <- nil
			return
		}
		claudeDone <- res.Content
	}()
	cp := f.shown(t)
	if cp.Agent != "claude" {
		t.Fatalf("Claude's diff says agent %q", cp.Agent)
	}
	cs, n := f.connect(t)
	gp := f.propose(t, cs, path, "from gemini\n")
	if !f.model.Pending(cp.Seq) || !f.model.Pending(gp.Seq) {
		t.Fatal("Gemini's proposal replaced Claude's for the same file")
	}
	if err := f.model.Decide(gp.Seq, ide.Decision{Accept: true}); err != nil {
		t.Fatal(err)
	}
	if got := n.next(t, "ide/diffAccepted"); got["content"] != "from gemini\n" {
		t.Fatalf("Gemini heard %v", got)
	}
	if !f.model.Pending(cp.Seq) {
		t.Fatal("Gemini's accept settled Claude's diff")
	}
	if err := f.model.Decide(cp.Seq, ide.Decision{}); err != nil {
		t.Fatal(err)
	}
	if c := <-claudeDone; len(c) == 0 || c[0].Text != "DIFF_REJECTED" {
		t.Fatalf("Claude's openDiff answered %+v", c)
	}
	for {
		select {
		case r := <-n.ch:
			if r.Method != "ide/contextUpdate" {
				t.Fatalf("Gemini heard of Claude's diff: %s %s", r.Method, r.Params)
			}
			continue
		default:
		}
		break
	}
}

// The discovery file follows the editor's folders (the CLI matches its folder against them).
func TestDiscoveryFollowsFolders(t *testing.T) {
	f := newFixture(t, Gemini)
	other := realTemp(t)
	f.model.SetFolders([]string{f.dir, other})
	f.srv.FoldersChanged()
	var got geminiFile
	b, _ := os.ReadFile(f.srv.Path())
	json.Unmarshal(b, &got)
	if got.WorkspacePath != f.dir+string(os.PathListSeparator)+other {
		t.Fatalf("workspacePath %q", got.WorkspacePath)
	}
	f.srv.Close()
	f.srv.FoldersChanged() // closed: never written again
	if _, err := os.Stat(f.srv.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("written after Close: %v", err)
	}
}

func realTemp(t *testing.T) string {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// An editor that does not say what its view holds: closeDiff answers the proposal.
func TestCloseDiffWithoutViewText(t *testing.T) {
	f := newFixture(t, Gemini)
	path := f.write(t, "a.txt", "old\n")
	cs, _ := f.connect(t)
	callTool(t, cs, "openDiff", map[string]any{"filePath": path, "newContent": "proposed\n"})
	f.shown(t)
	res := callTool(t, cs, "closeDiff", map[string]any{"filePath": path, "suppressNotification": true})
	if txt := res.Content[0].(*mcp.TextContent).Text; txt != `{"content":"proposed\n"}` {
		t.Fatalf("closeDiff %q", txt)
	}
}

// The editor is told which CLI connected (clientConnected's agent), so it never says "Claude
// connected" for a Gemini or a Qwen.
func TestClientConnectedNamesTheAgent(t *testing.T) {
	for _, agent := range []Agent{Gemini, Qwen} {
		t.Run(string(agent), func(t *testing.T) {
			f := newFixture(t, agent)
			got := make(chan string, 1)
			f.events.ClientConnected = func(_ ide.ClientID, a string, _ ide.Agents) { got <- a }
			f.connect(t)
			select {
			case a := <-got:
				if a != string(agent) {
					t.Fatalf("clientConnected's agent %q, want %q", a, agent)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no clientConnected")
			}
		})
	}
}

// A CLI killed without its DELETE leaves only its GET stream's end: with no stream open for the
// grace, the session is closed, so the editor stops counting it. A CLI that holds its stream
// open stays, however long it is idle.
func TestSessionWithoutStreamCloses(t *testing.T) {
	f := newFixture(t, Gemini)
	f.srv.Close()
	var err error
	if f.srv, err = Start(Config{Agent: Gemini, Model: f.model, Dir: f.disc, Version: "test", Orphan: 300 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	gone := make(chan ide.ClientID, 4)
	f.events.ClientDisconnected = func(id ide.ClientID, _ string, _ ide.Agents) { gone <- id }

	// Alive: the SDK's client holds its GET stream open; it outlives the grace five times over.
	f.connect(t)
	select {
	case id := <-gone:
		t.Fatalf("client %d with its stream open was closed", id)
	case <-time.After(1500 * time.Millisecond):
	}

	// Killed: initialize, initialized, a GET stream, then the process is gone (the stream ends,
	// no DELETE).
	req := func(ctx context.Context, method, id, body string) *http.Request {
		r, _ := http.NewRequestWithContext(ctx, method, f.srv.URL(), strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+f.srv.Token())
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		if id != "" {
			r.Header.Set("Mcp-Session-Id", id)
			r.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		return r
	}
	post := func(id, body string) string {
		t.Helper()
		resp, err := http.DefaultClient.Do(req(context.Background(), http.MethodPost, id, body))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.Header.Get("Mcp-Session-Id")
	}
	id := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"gemini-cli-mcp-client","version":"0.61.0"}}}`)
	if id == "" {
		t.Fatal("no session id")
	}
	post(id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	ctx, kill := context.WithCancel(context.Background())
	defer kill()
	resp, err := http.DefaultClient.Do(req(ctx, http.MethodGet, id, ""))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %s", resp.Status)
	}
	kill()
	resp.Body.Close()
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the session of a CLI gone without DELETE was never closed")
	}
}
