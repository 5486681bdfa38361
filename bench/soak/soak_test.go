//go:build linux

package soak

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/bench/internal/procstat"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// sample is the bridge's use of the machine after a turn.
type sample struct {
	turn       int
	anonKiB    int // RssAnon + RssShmem after a GC that returned freed memory
	fds        int
	goroutines int
	heapKiB    int
}

// fault is one injected fault and what the user saw.
type fault struct {
	name, saw string
}

type soak struct {
	t                  *testing.T
	bin, ws, cfg, lock string
	wsFS, cfgFS        string // tmpfs mounts ("" without root)
	env                []string
	stats              string
	bridge             *editor // the first editor: its process is the bridge
	bridgeLog          *testbin.Buffer
	pid, port          int
	token              string
	ed                 *editor
	cl                 *claude
	session            int
	files              []string
	text               map[string]string // what each file holds
	samples            []sample
	faults             []fault
	notes              []string
}

type claude struct {
	c  *probe.Client
	id string // session id of its hooks
}

func TestSoak(t *testing.T) {
	turns := soakTurns()
	s := newSoak(t)
	s.start()
	for i := 1; i <= turns; i++ {
		s.turn(i)
		if i == 20 || i == 50 || i%100 == 0 || i == turns {
			s.measure(i)
		}
	}
	s.shutdown()
	s.report(turns)
	s.judge(turns)
}

// soakTurns is $SOAK_TURNS, 60 by default (the smoke).
func soakTurns() int {
	if v := os.Getenv("SOAK_TURNS"); v != "" {
		n, _ := strconv.Atoi(v)
		return n
	}
	return 60
}

func newSoak(t *testing.T) *soak {
	root := t.TempDir()
	s := &soak{t: t, text: map[string]string{}, bridgeLog: &testbin.Buffer{}}
	s.bin = os.Getenv("SOAK_BIN")
	if s.bin == "" {
		s.bin = filepath.Join(root, "claude-ide-bridge")
		goTool := "go" // go test puts its own toolchain's bin first on $PATH
		out, err := exec.Command(goTool, "build", "-tags", "soakstats", "-o", s.bin,
			"github.com/claude-ide-bridge/claude-ide-bridge/cmd/claude-ide-bridge").CombinedOutput()
		if err != nil {
			t.Fatalf("building the bridge: %v\n%s", err, out)
		}
	}
	s.wsFS, s.cfgFS = filepath.Join(root, "wsfs"), filepath.Join(root, "cfgfs")
	os.Mkdir(s.wsFS, 0o700)
	os.Mkdir(s.cfgFS, 0o700)
	if os.Geteuid() == 0 {
		// The workspace and the lock directory each on a small file system of its own, to fill.
		for _, m := range []struct{ dir, size string }{{s.wsFS, "16m"}, {s.cfgFS, "1m"}} {
			if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+m.size+",mode=0700", "tmpfs", m.dir).CombinedOutput(); err != nil {
				t.Logf("SKIPPING the disk-full faults: mount tmpfs: %v %s", err, out)
				s.wsFS, s.cfgFS = "", ""
				break
			}
			dir := m.dir
			t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
		}
	} else {
		t.Log("SKIPPING the disk-full faults: they mount a small tmpfs, which needs root")
		s.wsFS, s.cfgFS = "", ""
	}
	base := root
	if s.wsFS != "" {
		base = s.wsFS
	}
	s.ws = filepath.Join(base, "ws")
	s.cfg = filepath.Join(root, "cfgfs")
	s.lock = filepath.Join(s.cfg, "ide")
	s.stats = filepath.Join(root, "stats")
	os.MkdirAll(filepath.Join(s.ws, "src"), 0o755)
	os.MkdirAll(filepath.Join(s.ws, "gen"), 0o755)
	home, tmp := filepath.Join(root, "home"), filepath.Join(root, "tmp")
	os.Mkdir(home, 0o700)
	os.Mkdir(tmp, 0o700) // the killed probe's temporary file stays there
	s.env = append(os.Environ(), "CLAUDE_CONFIG_DIR="+s.cfg, "HOME="+home, "TMPDIR="+tmp, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(home, ".state"), "CLAUDE_IDE_BRIDGE_SOAKSTATS="+s.stats)
	for i := range 8 {
		p := filepath.Join(s.ws, "src", fmt.Sprintf("f%d.go", i))
		s.put(p, body(i, 0, 4<<10))
		s.files = append(s.files, p)
	}
	s.put(filepath.Join(s.ws, "src", "revert.txt"), body(80, 0, 48<<10))
	return s
}

// body is a file text of about n bytes, different for each (file, version).
func body(file, version, n int) string {
	var b strings.Builder
	for line := 0; b.Len() < n; line++ {
		fmt.Fprintf(&b, "// file %d version %d line %d: the quick brown fox jumps over the lazy dog\n", file, version, line)
	}
	return b.String()
}

func (s *soak) put(path, text string) {
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		s.t.Fatalf("writing %s: %v", path, err)
	}
	s.text[path] = text
}

// writeAsCLI writes an accepted text as the CLI does after FILE_SAVED; a write that cannot
// complete leaves the file as it was (temp file and rename) and is returned.
func (s *soak) writeAsCLI(path, text string) error {
	tmp := path + ".claude-tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	s.text[path] = text
	return nil
}

func ctxT(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}

func (s *soak) start() {
	e, err := startEditor(s.bin, s.ws, s.env, s.bridgeLog)
	if err != nil {
		s.t.Fatalf("starting the bridge: %v\n%s", err, s.bridgeLog)
	}
	s.bridge, s.ed, s.pid, s.port = e, e, e.cmd.Process.Pid, e.init.Port
	data, err := os.ReadFile(e.init.LockPath)
	if err != nil {
		s.t.Fatal(err)
	}
	var l struct {
		AuthToken string `json:"authToken"`
	}
	json.Unmarshal(data, &l)
	s.token = l.AuthToken
	s.t.Cleanup(func() {
		if s.bridge.cmd.ProcessState == nil {
			s.bridge.kill()
		}
	})
	s.connect()
	s.hook("SessionStart", "")
}

// connect starts a new Claude session: a connection, its handshake and ide_connected.
func (s *soak) connect() {
	ctx, cancel := ctxT(20 * time.Second)
	defer cancel()
	c, _, err := probe.Dial(ctx, s.port, s.token, nil)
	if err != nil {
		s.t.Fatalf("Claude connecting: %v", err)
	}
	if _, err := c.Handshake(ctx); err != nil {
		s.t.Fatalf("handshake: %v", err)
	}
	c.Notify(ctx, "ide_connected", map[string]any{"pid": os.Getpid()})
	s.session++
	s.cl = &claude{c: c, id: fmt.Sprintf("soak-session-%d", s.session)}
}

// renew ends the Claude connection as a restarted CLI (clean) or a dropped one does, and
// starts the next session.
func (s *soak) renew(clean bool) {
	if clean {
		s.hook("SessionEnd", "")
		s.cl.c.Close()
	} else {
		s.cl.c.WS.CloseNow() // no close frame, no SessionEnd: a dropped connection
		<-s.cl.c.Done()
	}
	s.connect()
	s.hook("SessionStart", "")
}

func (s *soak) tool(name string, args any) []string {
	ctx, cancel := ctxT(20 * time.Second)
	defer cancel()
	r, err := s.cl.c.Tool(ctx, name, args)
	if err != nil {
		s.t.Fatalf("%s: %v", name, err)
	}
	return r.Texts()
}

// hook runs `claude-ide-bridge hook` as the CLI runs it for the bridge's --settings hooks.
func (s *soak) hook(event, tool string) {
	in, _ := json.Marshal(map[string]string{"hook_event_name": event, "session_id": s.cl.id, "cwd": s.ws, "tool_name": tool})
	cmd := exec.Command(s.bin, "hook", "--port", strconv.Itoa(s.port))
	cmd.Env, cmd.Stdin = s.env, bytes.NewReader(in)
	if out, err := cmd.CombinedOutput(); err != nil {
		s.t.Fatalf("hook %s: %v %s", event, err, out)
	}
}

// openDiff proposes text for path and returns the channel of its answer.
func (s *soak) openDiff(path, text, tab string) <-chan []string {
	ch := make(chan []string, 1)
	c := s.cl.c
	go func() {
		ctx, cancel := ctxT(60 * time.Second)
		defer cancel()
		r, err := c.Tool(ctx, "openDiff", map[string]any{"old_file_path": path, "new_file_path": path, "new_file_contents": text, "tab_name": tab})
		if err != nil {
			ch <- []string{"error", err.Error()}
			return
		}
		ch <- r.Texts()
	}()
	return ch
}

func recv[T any](s *soak, ch <-chan T, what string) T {
	s.t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		s.t.Fatalf("no %s within 30s\nbridge log:\n%s", what, tail(s.bridgeLog.String()))
	}
	panic("unreachable")
}

// scrub takes out what differs between runs and fault instances: paths, times, numbers of
// temporary files and byte counts of varying texts.
func (s *soak) scrub(t string) string {
	t = strings.ReplaceAll(t, s.ws, "<ws>")
	t = strings.ReplaceAll(t, s.lock, "<lockdir>")
	t = regexp.MustCompile(`time=\S+ `).ReplaceAllString(t, "")
	t = regexp.MustCompile(`\.[0-9]+\.[0-9]+\.tmp`).ReplaceAllString(t, ".<port>.<n>.tmp")
	t = regexp.MustCompile(`accepted [0-9]+ bytes`).ReplaceAllString(t, "accepted text (64 KiB)")
	return t
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func tail(s string) string {
	if len(s) > 4000 {
		return s[len(s)-4000:]
	}
	return s
}

func (s *soak) accept(d showDiff) {
	ctx, cancel := ctxT(20 * time.Second)
	defer cancel()
	if err := s.ed.call(ctx, "diffAccepted", map[string]any{"tabName": d.TabName, "proposal": d.Proposal}, nil); err != nil {
		s.t.Fatalf("diffAccepted: %v", err)
	}
}

// turn plays one turn of Claude.
func (s *soak) turn(i int) {
	s.hook("UserPromptSubmit", "")
	s.tool("closeAllDiffTabs", nil)
	f := s.files[i%len(s.files)]
	ctx, cancel := ctxT(20 * time.Second)
	defer cancel()
	s.ed.notify("selectionChanged", map[string]any{"filePath": f, "text": "fox", "selection": map[string]any{
		"start": map[string]any{"line": 1, "character": 2}, "end": map[string]any{"line": 1, "character": 5}, "isEmpty": false}})
	if i%3 == 0 {
		if err := s.ed.call(ctx, "atMentioned", map[string]any{"filePath": f, "lineStart": 0, "lineEnd": 2}, nil); err != nil {
			s.t.Fatalf("atMentioned: %v", err)
		}
	}
	// Edit in acceptEdits: the CLI asks for diagnostics, writes, asks again.
	before := s.text[f]
	s.hook("PreToolUse", "Edit")
	s.tool("getDiagnostics", map[string]any{"uri": "file://" + f})
	s.put(f, body(i%len(s.files), i, 4<<10+i%7*512))
	s.tool("getDiagnostics", nil)
	s.hook("PostToolUse", "Edit")
	if i%5 == 0 {
		s.diffTurn(i)
	}
	// Bash: a generated file rewritten, and now and then one created and removed.
	s.hook("PreToolUse", "Bash")
	s.put(filepath.Join(s.ws, "gen", fmt.Sprintf("out%d.txt", i%4)), body(100+i%4, i, 2<<10))
	if i%4 == 0 {
		tmp := filepath.Join(s.ws, "gen", fmt.Sprintf("tmp%d.txt", i))
		s.put(tmp, "scratch\n")
		os.Remove(tmp)
		delete(s.text, tmp)
	}
	s.hook("PostToolUse", "Bash")
	switch {
	case i%100 == 23:
		s.claudeKilled(i)
	case i%100 == 33:
		s.editorKilled(i)
	case i%100 == 43:
		s.diskFullAccept(i)
	case i%100 == 47:
		s.diskFullRevert(i)
	case i%100 == 53:
		s.diskFullLock(i)
	}
	s.hook("Stop", "")
	if i%7 == 0 {
		// The user undoes this turn's Edit from the shell.
		s.revert(f, before)
	}
	if i%50 == 0 {
		s.editorSwap()
	}
	if i == 2 {
		// The first editor quits with Claude connected: from now on the bridge runs alone and
		// each editor attaches to it, which lets an editor be killed without the bridge.
		s.editorSwap()
	}
}

// diffTurn: an Edit reviewed in the editor (openDiff, accepted there). Every 10th turn the
// Claude connection is renewed right after the accept, before its close_tab: a restarted CLI
// (every 20th) or a dropped connection.
func (s *soak) diffTurn(i int) {
	path := filepath.Join(s.ws, "src", "big.txt")
	text := body(50, i, 96<<10+i%13*1024)
	tab := fmt.Sprintf("✻ [Claude Code] big.txt (%06x) ⧉", i)
	ans := s.openDiff(path, text, tab)
	d := recv(s, s.ed.shown, "showDiff")
	s.accept(d)
	got := recv(s, ans, "openDiff answer")
	if len(got) != 2 || got[0] != "FILE_SAVED" || got[1] != text {
		s.t.Fatalf("turn %d: openDiff answered %.80q, want FILE_SAVED with the text", i, got)
	}
	if err := s.writeAsCLI(path, text); err != nil {
		s.t.Fatal(err)
	}
	if i%10 == 0 {
		s.renew(i%20 == 0)
		return
	}
	s.tool("close_tab", map[string]any{"tab_name": tab})
	s.tool("close_tab", map[string]any{"tab_name": tab})
}

// revert runs `review --revert path` and wants path back to before.
func (s *soak) revert(path, before string) {
	out, err := s.review(path)
	if err != nil {
		s.t.Fatalf("review --revert %s: %v\n%s", path, err, out)
	}
	if got, _ := os.ReadFile(path); string(got) != before {
		s.t.Fatalf("after review --revert, %s holds %d bytes, want the %d it had before the turn", path, len(got), len(before))
	}
	s.text[path] = before
}

func (s *soak) review(path string) (string, error) {
	cmd := exec.Command(s.bin, "review", "--revert", path)
	cmd.Env, cmd.Dir = s.env, s.ws
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// editorSwap: the editor quits (Claude stays connected, so the bridge stays) and another
// attaches.
func (s *soak) editorSwap() {
	if err := s.ed.leave(s.ed == s.bridge); err != nil {
		s.t.Fatal(err)
	}
	s.attach()
}

// attach starts an editor once the bridge listens on its attach socket.
func (s *soak) attach() {
	deadline := time.Now().Add(20 * time.Second)
	for {
		socks, _ := filepath.Glob(filepath.Join(s.lock, "ws-*.sock"))
		if len(socks) == 1 {
			break
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the bridge never listened for an editor to attach\n%s", tail(s.bridgeLog.String()))
		}
		time.Sleep(10 * time.Millisecond)
	}
	e, err := startEditor(s.bin, s.ws, s.env, s.bridgeLog)
	if err != nil {
		s.t.Fatal(err)
	}
	if !e.init.Attached || e.init.Port != s.port {
		e.kill()
		s.t.Fatalf("a new editor got its own bridge (attached %v, port %d, want %d)", e.init.Attached, e.init.Port, s.port)
	}
	s.ed = e
}

// claudeKilled: a Claude process (`claude-ide-bridge probe --diff`, a separate client) is
// killed with SIGKILL while its openDiff waits in the editor.
func (s *soak) claudeKilled(i int) {
	for len(s.ed.closed) > 0 {
		<-s.ed.closed
	}
	cmd := exec.Command(s.bin, "probe", "--port", strconv.Itoa(s.port), "--checks", "open-diff", "--diff", "--timeout", "60s")
	cmd.Env, cmd.Dir = s.env, s.ws
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	d := recv(s, s.ed.shown, "the killed Claude's showDiff")
	cmd.Process.Kill()
	cmd.Wait()
	saw := "the diff view was closed"
	for closed := false; !closed; {
		select {
		case tab := <-s.ed.closed:
			closed = tab == d.TabName
		case <-time.After(10 * time.Second):
			saw = "NO closeDiff: the diff stayed on the editor's screen"
			s.notes = append(s.notes, fmt.Sprintf("turn %d: the killed Claude's diff was never closed in the editor", i))
			closed = true
		}
	}
	ctx, cancel := ctxT(10 * time.Second)
	defer cancel()
	err := s.ed.call(ctx, "diffAccepted", map[string]any{"tabName": d.TabName, "proposal": d.Proposal}, nil)
	if err == nil {
		s.t.Fatalf("turn %d: accepting the killed Claude's diff succeeded", i)
	}
	s.faults = append(s.faults, fault{"Claude (`probe --diff`, its own process) killed with SIGKILL while its openDiff waits in the editor",
		fmt.Sprintf("%s; an accept sent after it: %q", saw, strings.Replace(err.Error(), d.TabName, "<tab>", 1))})
}

// editorKilled: the editor is killed (SIGKILL) while a diff is on screen; the next editor gets
// the proposal again and the user accepts it there.
func (s *soak) editorKilled(i int) {
	path := filepath.Join(s.ws, "src", "killed.txt")
	text := body(60, i, 32<<10)
	tab := fmt.Sprintf("✻ [Claude Code] killed.txt (%06x) ⧉", i)
	ans := s.openDiff(path, text, tab)
	d := recv(s, s.ed.shown, "showDiff")
	s.ed.kill()
	s.attach()
	again := recv(s, s.ed.shown, "the pending proposal shown to the next editor")
	if again.TabName != d.TabName || again.Proposal != d.Proposal {
		s.t.Fatalf("the next editor was shown %+v, want %+v", again, d)
	}
	s.accept(again)
	got := recv(s, ans, "openDiff answer")
	if len(got) != 2 || got[0] != "FILE_SAVED" || got[1] != text {
		s.t.Fatalf("turn %d: %.80q", i, got)
	}
	s.writeAsCLI(path, text)
	s.tool("close_tab", map[string]any{"tab_name": tab})
	s.tool("close_tab", map[string]any{"tab_name": tab})
	s.faults = append(s.faults, fault{"the editor killed (SIGKILL) with a diff on screen",
		"the next editor to start was shown the same proposal (same number); accepted there, Claude got FILE_SAVED with the text"})
}

// fill takes every free byte of the file system dir is on and returns the filler's path.
func (s *soak) fill(dir string) string {
	p := filepath.Join(dir, "filler")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		s.t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				s.t.Fatal(err)
			}
			return p
		}
	}
}

// diskFullAccept: the disk is full when the CLI writes an accepted text, and the CLI dies
// before its close_tab. The accepted text must survive in the bridge until the user's "close
// all diffs" puts it into the editor's buffer.
func (s *soak) diskFullAccept(i int) {
	if s.wsFS == "" {
		s.notes = append(s.notes, "disk full during an accept: SKIPPED (not root)")
		return
	}
	path := filepath.Join(s.ws, "src", "full.txt")
	s.put(path, "old\n")
	filler := s.fill(s.wsFS)
	text := body(70, i, 64<<10)
	tab := fmt.Sprintf("✻ [Claude Code] full.txt (%06x) ⧉", i)
	ans := s.openDiff(path, text, tab)
	d := recv(s, s.ed.shown, "showDiff")
	s.accept(d)
	recv(s, ans, "openDiff answer")
	werr := s.writeAsCLI(path, text)
	if werr == nil {
		s.t.Fatal("the CLI's write succeeded on a full disk")
	}
	s.renew(false) // the CLI died
	os.Remove(filler)
	s.tool("closeAllDiffTabs", nil) // the next session's prompt
	ctx, cancel := ctxT(10 * time.Second)
	defer cancel()
	// The user closes that diff (only that one: "close all diffs" would also let go of what a
	// bridge that leaks accepted diffs holds, and hide it).
	if err := s.ed.call(ctx, "diffRejected", map[string]any{"tabName": d.TabName, "proposal": d.Proposal}, nil); err != nil {
		s.t.Fatalf("closing the accepted diff: %v", err)
	}
	buf, ok := s.ed.bufferText(path)
	disk, _ := os.ReadFile(path)
	if !ok || buf != text || string(disk) != "old\n" {
		s.t.Fatalf("after a failed write: buffer %v (%d bytes, want %d), disk %q", ok, len(buf), len(text), disk)
	}
	s.faults = append(s.faults, fault{"disk full when the CLI writes an accepted text (the CLI then dies)",
		fmt.Sprintf("the CLI's write failed (%v); the file kept its old text; the accepted diff stayed open through the next session's prompt; when the user closed it, the accepted %d bytes went into the editor's buffer as unsaved changes", werr, len(text))})
}

// diskFullRevert: `review --revert` on a full disk.
func (s *soak) diskFullRevert(i int) {
	if s.wsFS == "" {
		s.notes = append(s.notes, "disk full during a revert: SKIPPED (not root)")
		return
	}
	path := filepath.Join(s.ws, "src", "revert.txt") // 48 KiB since the start
	before := s.text[path]
	s.tool("getDiagnostics", map[string]any{"uri": "file://" + path}) // the snapshot before the Edit
	s.put(path, "shrunk\n")
	s.tool("getDiagnostics", nil)
	filler := s.fill(s.wsFS)
	out, err := s.review(path)
	now, _ := os.ReadFile(path)
	os.Remove(filler)
	state := "its text from before the revert"
	switch {
	case string(now) == before:
		state = "the reverted text, whole"
	case string(now) != "shrunk\n":
		state = fmt.Sprintf("HALF-WRITTEN: %d of the %d bytes", len(now), len(before))
	}
	saw := fmt.Sprintf("`review --revert` exit %v: %q; the file held %s", err, firstLine(out), state)
	if out2, err2 := s.review(path); err2 != nil {
		saw += fmt.Sprintf("; again with room: %v %q", err2, firstLine(out2))
	} else if got, _ := os.ReadFile(path); string(got) == before {
		saw += "; again with room: reverted"
	}
	s.text[path], _ = func() (string, error) { b, err := os.ReadFile(path); return string(b), err }()
	s.faults = append(s.faults, fault{"disk full during `review --revert`", saw})
}

// diskFullLock: the lock directory's disk is full when the bridge rewrites its lock (the
// editor's folders change, the editor quits and the lock is made to name the bridge).
func (s *soak) diskFullLock(i int) {
	if s.cfgFS == "" {
		s.notes = append(s.notes, "disk full during a lock write: SKIPPED (not root)")
		return
	}
	locks, _ := filepath.Glob(filepath.Join(s.lock, "*.lock"))
	if len(locks) != 1 {
		s.t.Fatalf("lock files %v, want one", locks)
	}
	oldLock, _ := os.ReadFile(locks[0])
	logBefore := len(s.bridgeLog.String())
	filler := s.fill(s.cfgFS)
	s.ed.notify("workspaceFoldersChanged", map[string]any{"folders": []string{s.ws}})
	s.editorSwap()
	time.Sleep(200 * time.Millisecond)
	now, _ := os.ReadFile(locks[0])
	tmps, _ := filepath.Glob(filepath.Join(s.lock, ".*.tmp"))
	os.Remove(filler)
	var l struct {
		AuthToken string `json:"authToken"`
	}
	if json.Unmarshal(now, &l) != nil || l.AuthToken != s.token {
		s.t.Fatalf("the lock after a failed rewrite: %q (was %q)", now, oldLock)
	}
	if len(tmps) > 0 {
		s.t.Fatalf("temporary lock files left: %v", tmps)
	}
	var warned []string
	for _, line := range strings.Split(s.bridgeLog.String()[logBefore:], "\n") {
		if strings.Contains(line, "lock") && (strings.Contains(line, "WARN") || strings.Contains(line, "level=WARN")) {
			warned = append(warned, strings.TrimSpace(line))
		}
	}
	s.faults = append(s.faults, fault{"lock directory's disk full when the bridge rewrites its lock (folders changed; the editor quit and another attached)",
		fmt.Sprintf("the lock kept its old content, whole (%s); no temporary file left; the bridge's log: %q", map[bool]string{true: "unchanged", false: "rewritten"}[bytes.Equal(now, oldLock)], warned)})
}

// measure samples the bridge after turn i.
func (s *soak) measure(i int) {
	want := len(s.samples) + 1
	syscall.Kill(s.pid, syscall.SIGUSR1)
	var line []byte
	deadline := time.Now().Add(20 * time.Second)
	for {
		line, _ = os.ReadFile(s.stats)
		if f := strings.Fields(string(line)); len(f) >= 3 && f[0] == strconv.Itoa(want) {
			break
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("no stats from the bridge (built without -tags soakstats?): %q", line)
		}
		time.Sleep(10 * time.Millisecond)
	}
	f := strings.Fields(string(line))
	g, _ := strconv.Atoi(f[1])
	heap, _ := strconv.Atoi(f[2])
	m, err := procstat.ReadMemory(s.pid)
	if err != nil {
		s.t.Fatal(err)
	}
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", s.pid))
	s.samples = append(s.samples, sample{turn: i, anonKiB: m.Private(), fds: len(fds), goroutines: g, heapKiB: heap >> 10})
	extra := ""
	if len(f) == 7 {
		kib := func(s string) int { n, _ := strconv.Atoi(s); return n >> 10 }
		extra = fmt.Sprintf(" (runtime: mapped and not released %d KiB, stacks %d, spans %d, GC metadata %d)", kib(f[3]), kib(f[4]), kib(f[5]), kib(f[6]))
	}
	s.t.Logf("turn %d: RssAnon+RssShmem %d KiB, heap in use %d KiB, fds %d, goroutines %d%s", i, m.Private(), heap>>10, len(fds), g, extra)
}

// shutdown ends the session and the editor (shutdown), and checks what is left.
func (s *soak) shutdown() {
	ctx, cancel := ctxT(10 * time.Second)
	defer cancel()
	// Every diff was answered and its file written: none may still be held (a gone
	// connection's accepted diffs were, on 59dbe19, for the bridge's life).
	var st struct {
		Clients int `json:"clients"`
		Diffs   []struct {
			TabName string `json:"tabName"`
			State   string `json:"state"`
		} `json:"diffs"`
	}
	if err := s.ed.call(ctx, "status", map[string]any{}, &st); err != nil {
		s.t.Fatalf("status: %v", err)
	}
	if len(st.Diffs) > 0 {
		s.notes = append(s.notes, fmt.Sprintf("%d diffs still held by the bridge after every one was answered and written (first: %s, %s)", len(st.Diffs), st.Diffs[0].State, st.Diffs[0].TabName))
	}
	if st.Clients != 1 {
		s.notes = append(s.notes, fmt.Sprintf("the bridge counts %d Claude clients, want 1", st.Clients))
	}
	s.hook("SessionEnd", "")
	s.ed.call(ctx, "shutdown", nil, nil)
	s.cl.c.Close()
	select {
	case <-s.bridge.done: // its stdout closed: it ended
	case <-time.After(10 * time.Second):
		s.t.Fatalf("the bridge did not end within 10s of shutdown")
	}
	s.bridge.cmd.Wait()
	if s.ed != s.bridge {
		s.ed.leave(false)
	}
	left, _ := os.ReadDir(s.lock)
	for _, e := range left {
		s.notes = append(s.notes, "left in the lock directory: "+e.Name())
	}
	for _, p := range append([]string{}, s.files...) {
		if got, _ := os.ReadFile(p); string(got) != s.text[p] {
			s.notes = append(s.notes, "a file does not hold what was last written or accepted: "+p)
		}
	}
	stray, _ := filepath.Glob(filepath.Join(s.ws, "src", "*.claude-tmp"))
	for _, p := range stray {
		s.notes = append(s.notes, "left in the workspace: "+p)
	}
}

func (s *soak) report(turns int) {
	var b strings.Builder
	fmt.Fprintf(&b, "| after turn | RssAnon+RssShmem KiB | heap in use KiB | open fds | goroutines |\n| ---: | ---: | ---: | ---: | ---: |\n")
	for _, m := range s.samples {
		fmt.Fprintf(&b, "| %d | %d | %d | %d | %d |\n", m.turn, m.anonKiB, m.heapKiB, m.fds, m.goroutines)
	}
	// Each fault once, with how often it was played and how often the user saw something else.
	fmt.Fprintf(&b, "\n| fault | times | what the user saw |\n| --- | ---: | --- |\n")
	var order []string
	seen := map[string][]string{}
	for _, f := range s.faults {
		if seen[f.name] == nil {
			order = append(order, f.name)
		}
		seen[f.name] = append(seen[f.name], s.scrub(f.saw))
	}
	for _, name := range order {
		saws := seen[name]
		saw, other, n := saws[0], "", 0
		for _, o := range saws[1:] {
			if o != saws[0] {
				other, n = o, n+1
			}
		}
		if n > 0 {
			saw += fmt.Sprintf(" (%d of %d times otherwise, e.g.: %s)", n, len(saws), other)
		}
		fmt.Fprintf(&b, "| %s | %d | %s |\n", name, len(saws), strings.ReplaceAll(saw, "|", "\\|"))
	}
	for _, n := range s.notes {
		fmt.Fprintf(&b, "\nnote: %s\n", n)
	}
	s.t.Logf("%d turns, %d Claude sessions\n%s", turns, s.session, b.String())
	if p := os.Getenv("SOAK_REPORT"); p != "" {
		os.WriteFile(p, []byte(b.String()), 0o644)
	}
}

// judge: from the first sample (turn 20 or 50) to the last, memory, fds and goroutines grow by
// at most 10 %; nothing left behind. The smoke (60 turns) checks fds and goroutines only: the
// memory of 40 turns is within noise.
func (s *soak) judge(turns int) {
	for _, n := range s.notes {
		if !strings.Contains(n, "SKIPPED") {
			s.t.Error(n)
		}
	}
	if len(s.samples) < 2 {
		return
	}
	first := s.samples[0]
	if turns >= 100 {
		first = s.samples[1] // turn 50
	}
	last := s.samples[len(s.samples)-1]
	grew := func(what string, a, b int) {
		if float64(b) > float64(a)*1.10 {
			s.t.Errorf("%s grew from %d after turn %d to %d after turn %d (over 10 %%)", what, a, first.turn, b, last.turn)
		}
	}
	grew("open fds", first.fds, last.fds)
	grew("goroutines", first.goroutines, last.goroutines)
	if turns >= 100 {
		grew("memory the kernel cannot drop (KiB)", first.anonKiB, last.anonKiB)
	}
	for _, f := range s.faults {
		if !strings.Contains(f.saw, "HALF-WRITTEN") {
			continue
		}
		// Found by this soak on 59dbe19: review.Revert's os.WriteFile truncates, then fails.
		// Revert's writes are being rewritten for issue 35 item 3 (no link followed); until
		// that lands this is reported, not failed. SOAK_STRICT=1 fails it.
		if os.Getenv("SOAK_STRICT") != "" {
			s.t.Errorf("%s: %s", f.name, f.saw)
		} else {
			s.t.Logf("FINDING (revert, issue 35 item 3; SOAK_STRICT=1 fails it): %s: %s", f.name, f.saw)
			break // once is enough: the report counts them
		}
	}
}
