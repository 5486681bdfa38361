package stdio_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

func TestSelectionChanged(t *testing.T) {
	t.Parallel()
	forBoth(t, func(t *testing.T, framing string) {
		s := startSidecar(t, framing)
		c := claude(t, s.initialize(t, nil))
		s.next(t, "clientConnected")
		path := filepath.Join(s.ws, "a.txt")
		sel := map[string]any{"text": "日本", "filePath": path, "selection": map[string]any{
			"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 6}, "isEmpty": false}}
		s.notify(t, "selectionChanged", sel)

		m, err := c.Next(testbin.Ctx(t), "selection_changed")
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Text, FilePath, FileURL string
			Selection               struct {
				Start, End struct{ Line, Character int }
				IsEmpty    bool
			}
		}
		json.Unmarshal(m.Params, &got)
		// "The bridge passes selection and diagnostic positions to Claude unchanged" and adds
		// fileUrl, which the CLI's selection_changed carries.
		if got.Text != "日本" || got.FilePath != path || got.FileURL != "file://"+path ||
			got.Selection.End.Character != 6 || got.Selection.IsEmpty {
			t.Errorf("selection_changed = %s", m.Params)
		}
		// getCurrentSelection with trackSelection true answers from the reported selection.
		cur := textJSON(t, tool(t, c, "getCurrentSelection", nil))
		if cur["success"] != true || cur["text"] != "日本" || cur["fileUrl"] != "file://"+path {
			t.Errorf("getCurrentSelection = %v", cur)
		}
		s.noCall(t, "getCurrentSelection")
		if l := textJSON(t, tool(t, c, "getLatestSelection", nil)); l["text"] != "日本" {
			t.Errorf("getLatestSelection = %v", l)
		}
	})
}

func TestWorkspaceFoldersChanged(t *testing.T) {
	t.Parallel()
	forBoth(t, func(t *testing.T, framing string) {
		s := startSidecar(t, framing)
		r := s.initialize(t, nil)
		c := claude(t, r)
		other, _ := filepath.EvalSymlinks(t.TempDir())
		link := filepath.Join(t.TempDir(), "link")
		if err := os.Symlink(other, link); err != nil {
			t.Fatal(err)
		}
		// "the bridge rewrites the lock file"; "workspaceFolders: absolute; the bridge resolves symlinks"
		s.notify(t, "workspaceFoldersChanged", map[string]any{"folders": []string{s.ws, link}})
		want := []string{s.ws, other}
		deadline := time.Now().Add(testbin.Bound)
		for !slices.Equal(readLock(t, r.LockPath).WorkspaceFolders, want) {
			if time.Now().After(deadline) {
				t.Fatalf("lock folders = %v, want %v", readLock(t, r.LockPath).WorkspaceFolders, want)
			}
			time.Sleep(20 * time.Millisecond)
		}
		wf := textJSON(t, tool(t, c, "getWorkspaceFolders", nil))
		if folders, _ := wf["folders"].([]any); len(folders) != 2 {
			t.Errorf("getWorkspaceFolders = %v", wf)
		}
	})
}

func TestAtMentioned(t *testing.T) {
	t.Parallel()
	forBoth(t, func(t *testing.T, framing string) {
		s := startSidecar(t, framing)
		r := s.initialize(t, nil)
		path := filepath.Join(s.ws, "f.go")
		type result struct {
			Delivered int  `json:"delivered"`
			Held      bool `json:"held"`
		}
		// "with none connected the mention is held for 30 s and delivered to the first client
		// that completes its handshake (held: true)"
		var res result
		if err := s.call(t, "atMentioned", map[string]any{"filePath": path, "lineStart": 9, "lineEnd": 19}, &res); err != nil {
			t.Fatal(err)
		}
		if res.Delivered != 0 || !res.Held {
			t.Errorf("with no client: %+v, want held", res)
		}
		c := claude(t, r)
		m, err := c.Next(testbin.Ctx(t), "at_mentioned")
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			FilePath           string
			LineStart, LineEnd *int
		}
		json.Unmarshal(m.Params, &got)
		if got.FilePath != path || got.LineStart == nil || *got.LineStart != 9 || got.LineEnd == nil || *got.LineEnd != 19 {
			t.Errorf("held at_mentioned = %s", m.Params)
		}
		// "delivered counts connected clients"; "omit both for a whole file"
		if err := s.call(t, "atMentioned", map[string]any{"filePath": path}, &res); err != nil {
			t.Fatal(err)
		}
		if res.Delivered != 1 || res.Held {
			t.Errorf("with one client: %+v", res)
		}
		m, err = c.Next(testbin.Ctx(t), "at_mentioned")
		if err != nil {
			t.Fatal(err)
		}
		var whole map[string]any
		json.Unmarshal(m.Params, &whole)
		if _, ok := whole["lineStart"]; ok || whole["filePath"] != path {
			t.Errorf("whole-file at_mentioned = %s", m.Params)
		}
		err = s.call(t, "atMentioned", map[string]any{"filePath": path, "lineStart": 3}, nil)
		if rpcCode(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("lineStart without lineEnd: %v, want -32602", err)
		}
		err = s.call(t, "atMentioned", map[string]any{"filePath": path, "lineStart": "3", "lineEnd": 4}, nil)
		if rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "lineStart") {
			t.Errorf("string lineStart: %v, want -32602 naming lineStart", err)
		}
	})
}

func TestClientNotifications(t *testing.T) {
	t.Parallel()
	forBoth(t, func(t *testing.T, framing string) {
		s := startSidecar(t, framing)
		r := s.initialize(t, nil)
		type note struct {
			ClientID int            `json:"clientId"`
			Clients  int            `json:"clients"`
			Agent    string         `json:"agent"`
			Agents   map[string]int `json:"agents"`
		}
		parse := func(c call) note {
			var n note
			json.Unmarshal(c.Params, &n)
			return n
		}
		// "a Claude CLI finished (or ended) its connection; clients is the number connected now"
		c1 := claude(t, r)
		n1 := parse(s.next(t, "clientConnected"))
		c2 := claude(t, r)
		n2 := parse(s.next(t, "clientConnected"))
		if n1.Clients != 1 || n2.Clients != 2 || n1.ClientID == n2.ClientID || n1.Agent != "claude" ||
			n1.Agents["claude"] != 1 || n2.Agents["claude"] != 2 || len(n2.Agents) != 1 {
			t.Errorf("connected: %+v then %+v", n1, n2)
		}
		// status says who they are, counted and for people (ide.Agents.Line).
		var st struct {
			Clients     int
			Agents      map[string]int
			ClientsLine string
		}
		if s.call(t, "status", nil, &st); st.Clients != 2 || st.Agents["claude"] != 2 || len(st.Agents) != 1 || st.ClientsLine != "2 clients (Claude 2)" {
			t.Errorf("status with two Claudes: %+v", st)
		}
		c1.Close()
		if d := parse(s.next(t, "clientDisconnected")); d.ClientID != n1.ClientID || d.Clients != 1 || d.Agent != "claude" || d.Agents["claude"] != 1 {
			t.Errorf("disconnected: %+v, want Claude client %d and 1 left", d, n1.ClientID)
		}
		c2.Close()
		if d := parse(s.next(t, "clientDisconnected")); d.ClientID != n2.ClientID || d.Clients != 0 || len(d.Agents) != 0 {
			t.Errorf("disconnected: %+v, want client %d and 0 left", d, n2.ClientID)
		}
		// A connection that never finishes its handshake is no client of the editor's.
		raw := dial(t, r)
		raw.Close()
		s.call(t, "status", nil, &st)
		if st.Clients != 0 || st.ClientsLine != "no clients" {
			t.Errorf("status with a raw connection only: %+v", st)
		}
		s.noCall(t, "clientConnected")
	})
}
