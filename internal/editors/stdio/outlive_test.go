package stdio_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
	"github.com/coder/websocket"
)

// docs/editor-protocol.md, "Attaching": "When the editor goes (stdin EOF, its pid dies) while a
// Claude is connected, the bridge stays: ... the lock names the bridge's own process, Claude
// stays connected, and the bridge listens on the workspace's attach socket. The next
// `serve --stdio` for that workspace relays its editor to it: initialize answers
// "attached": true with the same port."

// second starts another editor of s's workspace, with s's CLAUDE_CONFIG_DIR.
func (s *sidecar) second(t *testing.T, framing string, args ...string) *sidecar {
	t.Helper()
	return startSidecarIn(t, filepath.Dir(s.cfgDir), s.ws, nil, framing, args...)
}

type attachResult struct {
	initResult
	Attached bool `json:"attached"`
}

func (s *sidecar) initializeAttach(t *testing.T) attachResult {
	t.Helper()
	var r attachResult
	if err := s.call(t, "initialize", s.initParams(), &r); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return r
}

// waitLockPID waits until the lock names pid (the bridge rewrites it when its editor goes).
func waitLockPID(t *testing.T, path string, pid int) {
	t.Helper()
	deadline := time.Now().Add(testbin.Bound)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(path); err == nil {
			var l struct{ PID int }
			if json.Unmarshal(data, &l) == nil && l.PID == pid {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the lock %s never named pid %d", path, pid)
}

func TestOutliveAndAttach(t *testing.T) {
	t.Parallel()
	a := startSidecar(t, "line")
	ra := a.initializeAttach(t)
	if ra.Attached {
		t.Error("the first editor's initialize says attached")
	}
	c := claude(t, ra.initResult)
	a.next(t, "clientConnected")
	path := a.writeFile(t, "x.txt", "x\n")
	shown := openDiff(t, c, path, "shown to the first editor\n", "tab-1")
	first := nextShowDiff(t, a)
	a.settle(t)
	a.notify(t, "selectionChanged", map[string]any{"text": "x", "filePath": path,
		"selection": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 1}, "isEmpty": false}})
	if m, err := c.Next(testbin.Ctx(t), "selection_changed"); err != nil || !json.Valid(m.Params) {
		t.Fatalf("selection: %v", err)
	}

	// The editor quits: the bridge stays for Claude.
	a.stdin.Close()
	waitLockPID(t, ra.LockPath, a.cmd.Process.Pid)
	select {
	case <-a.exited:
		t.Fatal("the bridge ended with its editor while Claude was connected")
	case <-c.Done():
		t.Fatal("Claude was disconnected")
	default:
	}
	// "the selection Claude sees is cleared": an empty selection of no file.
	m, err := c.Next(testbin.Ctx(t), "selection_changed")
	if err != nil {
		t.Fatal(err)
	}
	var sel struct {
		Text     string `json:"text"`
		FilePath string `json:"filePath"`
	}
	json.Unmarshal(m.Params, &sel)
	if sel.Text != "" || sel.FilePath != "" {
		t.Errorf("selection after the editor went = %s, want empty", m.Params)
	}
	// getDiagnostics answers, empty, without an editor (never an error or a timeout).
	d := tool(t, c, "getDiagnostics", map[string]any{"uri": "file://" + path})
	if d.IsError || len(d.Texts()) != 1 {
		t.Errorf("getDiagnostics without an editor = %+v", d)
	} else {
		var files []struct {
			URI         string `json:"uri"`
			Diagnostics []any  `json:"diagnostics"`
		}
		if err := json.Unmarshal([]byte(d.Texts()[0]), &files); err != nil || len(files) != 1 || len(files[0].Diagnostics) != 0 {
			t.Errorf("getDiagnostics without an editor = %s", d.Texts()[0])
		}
	}
	// A proposal while no editor is attached stays pending.
	held := openDiff(t, c, path, "proposed while no editor\n", "tab-2")

	// The next editor attaches: same bridge, every pending proposal shown in order.
	b := a.second(t, "header", "--verbose")
	rb := b.initializeAttach(t)
	if !rb.Attached || rb.Port != ra.Port || rb.LockPath != ra.LockPath {
		t.Fatalf("second editor: %+v, want attached to port %d", rb, ra.Port)
	}
	// Told the Claude already connected, then shown every pending proposal in order.
	var cc struct{ ClientID, Clients int }
	json.Unmarshal(b.next(t, "clientConnected").Params, &cc)
	if cc.ClientID != 1 || cc.Clients != 1 {
		t.Errorf("the attached editor was told clientConnected %+v, want client 1 of 1", cc)
	}
	got := []showDiff{nextShowDiff(t, b), nextShowDiff(t, b)}
	if got[0].TabName != "tab-1" || got[0].Proposal != first.Proposal || got[0].NewContents != "shown to the first editor\n" ||
		got[1].TabName != "tab-2" || got[1].NewContents != "proposed while no editor\n" {
		t.Errorf("shown to the attached editor: %+v", got)
	}
	select {
	case r := <-shown:
		t.Fatalf("tab-1 settled while no editor was attached: %+v", r)
	case r := <-held:
		t.Fatalf("tab-2 settled while no editor was attached: %+v", r)
	default:
	}
	if err := b.call(t, "diffAccepted", map[string]any{"tabName": "tab-2", "proposal": got[1].Proposal}, nil); err != nil {
		t.Fatal(err)
	}
	if r := await(t, held); !slices.Equal(r.Texts(), []string{"FILE_SAVED", "proposed while no editor\n"}) {
		t.Errorf("tab-2 accepted in the attached editor: %+v", r)
	}
	if err := b.call(t, "diffRejected", map[string]any{"tabName": "tab-1", "proposal": got[0].Proposal}, nil); err != nil {
		t.Fatal(err)
	}
	if r := await(t, shown); len(r.Texts()) == 0 || r.Texts()[0] != "DIFF_REJECTED" {
		t.Errorf("tab-1 rejected in the attached editor: %+v", r)
	}
	if st := b.status(t); st.Port != ra.Port || st.Clients != 1 {
		t.Errorf("status of the attached editor: %+v", st)
	}

	// The attached editor goes too, then Claude: the bridge ends after the grace, lock removed.
	b.stdin.Close()
	b.waitExit(t)
	if _, err := os.Stat(ra.LockPath); err != nil {
		t.Fatalf("the lock went with the attached editor: %v", err)
	}
	c.Close()
	a.waitExit(t)
	if _, err := os.Stat(ra.LockPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock left behind: %v", err)
	}
}

// "With no Claude connected it ends with the editor, as before": even with a long grace.
func TestNoClaudeEndsWithEditor(t *testing.T) {
	t.Parallel()
	s := startSidecar(t, "line", "--outlive", "10m")
	r := s.initialize(t, nil)
	s.stdin.Close()
	s.waitExit(t)
	if _, err := os.Stat(r.LockPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock left behind: %v", err)
	}
}

// shutdown ends the bridge for real, Claude connected or not, and from an attached editor too.
func TestShutdownEndsForReal(t *testing.T) {
	t.Parallel()
	t.Run("started", func(t *testing.T) {
		t.Parallel()
		s := startSidecar(t, "line", "--outlive", "10m")
		r := s.initialize(t, nil)
		c, diff := pendingDiff(t, s, r)
		checkShutdown(t, s, c, diff, r.LockPath, func() {
			if err := s.call(t, "shutdown", map[string]any{}, nil); err != nil {
				t.Errorf("shutdown: %v", err)
			}
		})
	})
	t.Run("attached", func(t *testing.T) {
		t.Parallel()
		a := startSidecar(t, "line", "--outlive", "10m")
		r := a.initialize(t, nil)
		c := claude(t, r)
		a.next(t, "clientConnected")
		a.stdin.Close()
		waitLockPID(t, r.LockPath, a.cmd.Process.Pid)
		b := a.second(t, "line")
		if rb := b.initializeAttach(t); !rb.Attached {
			t.Fatalf("not attached: %+v", rb)
		}
		b.notify(t, "shutdown", map[string]any{})
		b.waitExit(t)
		a.waitExit(t)
		select {
		case <-c.Done():
		case <-time.After(testbin.Bound):
			t.Fatal("Claude was not disconnected")
		}
		if got := c.CloseStatus(); got != websocket.StatusGoingAway {
			t.Errorf("Claude closed with %v, want 1001", got)
		}
		if _, err := os.Stat(r.LockPath); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("lock left behind: %v", err)
		}
	})
}

// "A second editor while one holds the bridge gets a bridge of its own": only a bridge without
// an editor listens for attaches.
func TestSecondEditorGetsItsOwnBridge(t *testing.T) {
	t.Parallel()
	a := startSidecar(t, "line")
	ra := a.initializeAttach(t)
	c := claude(t, ra.initResult)
	a.next(t, "clientConnected")
	b := a.second(t, "line")
	rb := b.initializeAttach(t)
	if rb.Attached || rb.Port == ra.Port {
		t.Errorf("second editor while the first holds the bridge: %+v (first on %d)", rb, ra.Port)
	}
	// The first goes, a third attaches to its bridge; a fourth, meanwhile, gets its own.
	a.stdin.Close()
	waitLockPID(t, ra.LockPath, a.cmd.Process.Pid)
	third := a.second(t, "line")
	if r := third.initializeAttach(t); !r.Attached || r.Port != ra.Port {
		t.Errorf("third editor: %+v, want attached to %d", r, ra.Port)
	}
	fourth := a.second(t, "line")
	if r := fourth.initializeAttach(t); r.Attached || r.Port == ra.Port {
		t.Errorf("fourth editor while the third holds the bridge: %+v", r)
	}
	c.Close()
}
