package stdio_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// The editor's machine sees the workspace as localWS; the bridge (and Claude) as a temporary
// folder of this machine. The LOCAL side need not exist here: it is the other machine's.
const localWS = "/Users/me/app"

func remoteWS(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestPathMapEveryMessage: "Every path crossing the editor protocol is translated: in both
// directions, in every message (selections, mentions, showDiff, openFile, open editors,
// diagnostics URIs, workspace folders ...). A path with no mapping is an error to the side that
// sent it, never passed through silently. The lock's workspaceFolders are REMOTE paths; its pid
// is the bridge's own." (issue 19)
func TestPathMapEveryMessage(t *testing.T) {
	t.Parallel()
	forBoth(t, func(t *testing.T, framing string) {
		rws := remoteWS(t)
		other := remoteWS(t)
		s := startSidecar(t, framing, "--path-map", localWS+"="+rws, "--path-map", "/Users/me/other="+other)
		p := s.initParams()
		p["workspaceFolders"] = []string{localWS}
		p["trackSelection"] = true
		r := s.initialize(t, p)

		lock := readLock(t, r.LockPath)
		if len(lock.WorkspaceFolders) != 1 || lock.WorkspaceFolders[0] != rws {
			t.Errorf("lock workspaceFolders = %q, want the REMOTE %q", lock.WorkspaceFolders, rws)
		}
		if lock.PID != s.cmd.Process.Pid {
			t.Errorf("lock pid = %d, want the bridge's own %d (the editor's %d means nothing where Claude runs)", lock.PID, s.cmd.Process.Pid, os.Getpid())
		}

		c := claude(t, r)
		s.next(t, "clientConnected")
		remoteFile := filepath.Join(rws, "dir with space", "日本.go")
		localFile := localWS + "/dir with space/日本.go"
		if err := os.MkdirAll(filepath.Dir(remoteFile), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(remoteFile, []byte("package main\n"), 0o644); err != nil {
			t.Fatal(err)
		}

		t.Run("selectionChanged", func(t *testing.T) {
			s.notify(t, "selectionChanged", map[string]any{"text": "x", "filePath": localFile, "selection": map[string]any{
				"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 1}, "isEmpty": false}})
			m, err := c.Next(testbin.Ctx(t), "selection_changed")
			if err != nil {
				t.Fatal(err)
			}
			var got struct{ FilePath, FileURL string }
			json.Unmarshal(m.Params, &got)
			if got.FilePath != remoteFile || got.FileURL != "file://"+remoteFile {
				t.Errorf("selection_changed = %s, want the REMOTE %s", m.Params, remoteFile)
			}
			// Unmapped: dropped (a notification cannot be answered), never passed through.
			s.notify(t, "selectionChanged", map[string]any{"text": "y", "filePath": "/etc/hosts", "selection": map[string]any{
				"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 1}, "isEmpty": false}})
			// Notifications are handled concurrently: wait for the drop to be logged.
			waitStderr(t, s, "/etc/hosts")
			if cur := textJSON(t, tool(t, c, "getLatestSelection", nil)); cur["filePath"] != remoteFile {
				t.Errorf("after an unmapped selection, the latest = %v", cur)
			}
		})
		t.Run("atMentioned", func(t *testing.T) {
			if err := s.call(t, "atMentioned", map[string]any{"filePath": localFile}, nil); err != nil {
				t.Fatal(err)
			}
			m, err := c.Next(testbin.Ctx(t), "at_mentioned")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(m.Params), `"filePath":"`+remoteFile+`"`) {
				t.Errorf("at_mentioned = %s, want %s", m.Params, remoteFile)
			}
			for _, bad := range []string{"/etc/hosts", localWS + "/../secret", "relative.go"} {
				err := s.call(t, "atMentioned", map[string]any{"filePath": bad}, nil)
				if rpcCode(err) != -32602 || !strings.Contains(err.Error(), "path map") {
					t.Errorf("atMentioned %q: %v, want -32602 naming the path map", bad, err)
				}
			}
		})
		t.Run("openFile", func(t *testing.T) {
			tool(t, c, "openFile", map[string]any{"filePath": remoteFile})
			if got := s.next(t, "openFile"); !strings.Contains(string(got.Params), `"filePath":"`+localFile+`"`) {
				t.Errorf("openFile request = %s, want the LOCAL %s", got.Params, localFile)
			}
			// A file Claude sees outside the map: a tool error, the editor is not asked.
			outside := filepath.Join(remoteWS(t), "x.go")
			os.WriteFile(outside, []byte("x"), 0o644)
			if res := tool(t, c, "openFile", map[string]any{"filePath": outside}); !res.IsError || !strings.Contains(res.Texts()[0], "path map") {
				t.Errorf("openFile outside the map = %+v, want a tool error", res)
			}
			s.noCall(t, "openFile")
		})
		t.Run("showDiff", func(t *testing.T) {
			tab := "✻ [Claude Code] 日本.go (aa) ⧉"
			res := openDiff(t, c, remoteFile, "package x\n", tab)
			sd := nextShowDiff(t, s)
			if sd.FilePath != localFile || sd.NewFilePath != localFile {
				t.Errorf("showDiff = %+v, want the LOCAL %s", sd, localFile)
			}
			st := s.status(t)
			if len(st.Diffs) != 1 || st.Diffs[0].FilePath != localFile {
				t.Errorf("status = %+v, want the diff's LOCAL path", st)
			}
			if err := s.call(t, "diffAccepted", map[string]any{"tabName": tab, "proposal": sd.Proposal, "contents": "package y\n"}, nil); err != nil {
				t.Fatal(err)
			}
			if r := await(t, res); r.IsError || r.Texts()[0] != "FILE_SAVED" {
				t.Errorf("openDiff = %+v", r)
			}
			var all struct{ Restored []string }
			if err := s.call(t, "closeAllDiffs", map[string]any{}, &all); err != nil {
				t.Fatal(err)
			}
			if len(all.Restored) != 1 || all.Restored[0] != localFile {
				t.Errorf("closeAllDiffs restored %q, want the LOCAL %s", all.Restored, localFile)
			}
			if setText := s.next(t, "setBufferText"); !strings.Contains(string(setText.Params), `"filePath":"`+localFile+`"`) {
				t.Errorf("setBufferText = %s", setText.Params)
			}
		})
		t.Run("getOpenEditors", func(t *testing.T) {
			s.reply("getOpenEditors", `{"editors":[{"filePath":"`+localFile+`","isActive":true,"label":"a"},{"filePath":"/home/me/.config/nvim/init.lua","label":"init.lua"}]}`)
			res := textJSON(t, tool(t, c, "getOpenEditors", nil))
			tabs, _ := res["tabs"].([]any)
			if len(tabs) != 1 || tabs[0].(map[string]any)["uri"] != "file://"+remoteFile {
				t.Errorf("getOpenEditors = %v, want only the mapped file, REMOTE", res)
			}
		})
		t.Run("getDiagnostics", func(t *testing.T) {
			s.reply("getDiagnostics", `{"files":[{"filePath":"`+localFile+`","diagnostics":[{"message":"m","severity":"Error","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}}}]},{"filePath":"/tmp/elsewhere.go","diagnostics":[]}]}`)
			res := tool(t, c, "getDiagnostics", map[string]any{"uri": "file://" + remoteFile})
			if got := s.next(t, "getDiagnostics"); string(got.Params) != `{"filePath":"`+localFile+`"}` {
				t.Errorf("getDiagnostics request = %s, want the LOCAL path", got.Params)
			}
			var files []struct{ URI string }
			if err := json.Unmarshal([]byte(res.Texts()[0]), &files); err != nil || len(files) != 1 || files[0].URI != "file://"+remoteFile {
				t.Errorf("getDiagnostics = %q, want one file with the REMOTE uri", res.Texts())
			}
		})
		t.Run("checkDocumentDirty and saveDocument", func(t *testing.T) {
			for _, m := range []string{"checkDocumentDirty", "saveDocument"} {
				tool(t, c, m, map[string]any{"filePath": remoteFile})
				if got := s.next(t, m); !strings.Contains(string(got.Params), `"filePath":"`+localFile+`"`) {
					t.Errorf("%s request = %s", m, got.Params)
				}
			}
		})
		t.Run("getCurrentSelection", func(t *testing.T) {
			// Asked of the editor only with trackSelection false; see TestPathMapWindows.
		})
		t.Run("workspaceFoldersChanged", func(t *testing.T) {
			s.notify(t, "workspaceFoldersChanged", map[string]any{"folders": []string{localWS, "/Users/me/other"}})
			deadline := time.Now().Add(testbin.Bound)
			for l := readLock(t, r.LockPath); len(l.WorkspaceFolders) != 2 || l.WorkspaceFolders[1] != other; l = readLock(t, r.LockPath) {
				if time.Now().After(deadline) {
					t.Fatalf("lock folders = %q, want both REMOTE", l.WorkspaceFolders)
				}
				time.Sleep(20 * time.Millisecond)
			}
			// One unmapped folder: the whole change is refused (logged), the lock keeps the last good one.
			s.notify(t, "workspaceFoldersChanged", map[string]any{"folders": []string{"/nowhere"}})
			waitStderr(t, s, "/nowhere")
			if l := readLock(t, r.LockPath); len(l.WorkspaceFolders) != 2 {
				t.Errorf("lock folders = %q after an unmapped change", l.WorkspaceFolders)
			}
		})
	})
}

// TestPathMapInitializeRefused: an unmapped workspace folder is an error to the editor.
func TestPathMapInitializeRefused(t *testing.T) {
	t.Parallel()
	s := startSidecar(t, "line", "--path-map", localWS+"="+remoteWS(t))
	p := s.initParams()
	p["workspaceFolders"] = []string{"/somewhere/else"}
	err := s.call(t, "initialize", p, nil)
	if rpcCode(err) != -32602 || !strings.Contains(err.Error(), "/somewhere/else") {
		t.Fatalf("initialize with an unmapped folder: %v, want -32602 naming it", err)
	}
	p["workspaceFolders"] = []string{localWS} // "A failed initialize may be retried."
	s.initialize(t, p)
}

// TestPathMapWindows: a WSL mapping written the Windows way, drive letters in either case.
func TestPathMapWindows(t *testing.T) {
	t.Parallel()
	rws := remoteWS(t)
	s := startSidecar(t, "header", "--path-map", `C:\src\app=`+rws)
	p := s.initParams()
	p["workspaceFolders"] = []string{`c:/src/app`}
	p["trackSelection"] = false
	r := s.initialize(t, p)
	if l := readLock(t, r.LockPath); len(l.WorkspaceFolders) != 1 || l.WorkspaceFolders[0] != rws {
		t.Errorf("lock folders = %q", l.WorkspaceFolders)
	}
	c := claude(t, r)
	f := filepath.Join(rws, "x.go")
	os.WriteFile(f, []byte("x\n"), 0o644)
	tool(t, c, "openFile", map[string]any{"filePath": f})
	var of struct{ FilePath string }
	json.Unmarshal(s.next(t, "openFile").Params, &of)
	if of.FilePath != `C:\src\app\x.go` {
		t.Errorf("openFile filePath = %q, want C:\\src\\app\\x.go", of.FilePath)
	}
	s.reply("getCurrentSelection", `{"selection":{"text":"x","filePath":"C:\\src\\app\\x.go","selection":{"start":{"line":0,"character":0},"end":{"line":0,"character":1},"isEmpty":false}}}`)
	if cur := textJSON(t, tool(t, c, "getCurrentSelection", nil)); cur["filePath"] != f {
		t.Errorf("getCurrentSelection = %v, want %s", cur, f)
	}
	s.reply("getCurrentSelection", `{"selection":{"text":"x","filePath":"D:\\other.go","selection":{"start":{"line":0,"character":0},"end":{"line":0,"character":1},"isEmpty":false}}}`)
	if res := tool(t, c, "getCurrentSelection", nil); !res.IsError {
		t.Errorf("a selection outside the map reached Claude: %v", res.Texts())
	}
}

// TestPathMapIgnoresEditorPID: in remote mode the editor's pid names nothing where the bridge
// runs; a bridge that polled it would end at once (or never). It ends with its stdin instead.
func TestPathMapIgnoresEditorPID(t *testing.T) {
	t.Parallel()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip(err)
	}
	s := startSidecar(t, "line", "--path-map", localWS+"="+remoteWS(t))
	p := s.initParams()
	p["workspaceFolders"] = []string{localWS}
	p["pid"] = dead.Process.Pid
	s.initialize(t, p)
	select {
	case <-s.exited:
		t.Fatal("the bridge exited: it watched the editor's pid, which lives on another machine")
	case <-time.After(1500 * time.Millisecond): // three pid polls
	}
	s.status(t)
}

func TestPathMapFlagErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"serve", "--stdio", "--path-map", "relative=/x"},
		{"serve", "--stdio", "--path-map", "/a"},
		{"serve", "--path-map", "/a=/b"},
	} {
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "path-map") {
			t.Errorf("%q: %v %s, want a usage error naming --path-map", args, err, out)
		}
	}
}

// waitStderr waits until the bridge has logged sub (a dropped notification).
func waitStderr(t *testing.T, s *sidecar, sub string) {
	t.Helper()
	deadline := time.Now().Add(testbin.Bound)
	for !strings.Contains(s.stderr.String(), sub) {
		if time.Now().After(deadline) {
			t.Fatalf("the bridge never logged %q:\n%s", sub, s.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Issue 25 item 4: the path-map layer read the editor's params loosely (the last of two
// "filePath" members won), translated them and re-encoded them without the duplicate, so the
// strict reader every channel uses never saw it. Now it reads them with that reader: the same
// -32602 naming the duplicate as without a path map, and the channel goes on.
func TestPathMapStrictParams(t *testing.T) {
	t.Parallel()
	rws := remoteWS(t)
	c := startRaw(t, t.TempDir(), "--path-map", localWS+"="+rws)
	c.initialize(t, localWS, 0)
	for _, tc := range []stdioBadInput{
		{"selectionChanged duplicate filePath", `{"jsonrpc":"2.0","id":1,"method":"selectionChanged","params":{"filePath":"/Users/me/app/a.go","filePath":"/Users/me/app/b.go"}}`, -32602, "1", `duplicate key "filePath"`},
		{"selectionChanged duplicate line deep", `{"jsonrpc":"2.0","id":2,"method":"selectionChanged","params":{"filePath":"/Users/me/app/a.go","selection":{"start":{"line":1,"line":2}}}}`, -32602, "2", `duplicate key "line"`},
		{"atMentioned duplicate lineStart", `{"jsonrpc":"2.0","id":3,"method":"atMentioned","params":{"filePath":"/Users/me/app/a.go","lineStart":1,"lineStart":2,"lineEnd":3}}`, -32602, "3", `duplicate key "lineStart"`},
		{"workspaceFoldersChanged duplicate folders", `{"jsonrpc":"2.0","id":4,"method":"workspaceFoldersChanged","params":{"folders":["/Users/me/app"],"folders":["/Users/me/app"]}}`, -32602, "4", `duplicate key "folders"`},
		{"a name that leaves LOCAL on the other side", `{"jsonrpc":"2.0","id":5,"method":"selectionChanged","params":{"filePath":"/Users/me/app/x\u0000y"}}`, -32602, "5", "filePath"},
		{"a good one", `{"jsonrpc":"2.0","id":6,"method":"selectionChanged","params":{"filePath":"/Users/me/app/a.go"}}`, 0, "6", ""},
	} {
		t.Run(tc.name, func(t *testing.T) { checkStdio(t, c, tc) })
	}
}
