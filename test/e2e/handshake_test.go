package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/coder/websocket"
)

// (a) The CLI finds the lock, connects with subprotocol "mcp" and completes
// the handshake: initialize, notifications/initialized, ide_connected.
func TestHandshake(t *testing.T) {
	t.Parallel()
	s := newSession(t, nil)

	// Facts: "Lock files: $CLAUDE_CONFIG_DIR/ide/*.lock ... The port is taken
	// from the file name only" and "write real, absolute, symlink-resolved paths".
	wantLock := filepath.Join(s.Config, "ide", strconv.Itoa(s.Ed.Init.Port)+".lock")
	if s.Ed.Init.LockPath != wantLock {
		t.Errorf("lockPath %q, want %q", s.Ed.Init.LockPath, wantLock)
	}
	var lock struct {
		PID              int      `json:"pid"`
		WorkspaceFolders []string `json:"workspaceFolders"`
		IDEName          string   `json:"ideName"`
		Transport        string   `json:"transport"`
		AuthToken        string   `json:"authToken"`
	}
	if err := json.Unmarshal([]byte(readFile(t, wantLock)), &lock); err != nil {
		t.Fatalf("lock file: %v", err)
	}
	if lock.PID != os.Getpid() || lock.Transport != "ws" || lock.IDEName != "E2E" ||
		len(lock.WorkspaceFolders) != 1 || lock.WorkspaceFolders[0] != s.Project {
		t.Errorf("lock %+v", lock)
	}
	// Spec: "authToken": "32-char lowercase hex token (128 bits)".
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(lock.AuthToken) {
		t.Errorf("authToken %q is not 32 lowercase hex digits", lock.AuthToken)
	}

	fs := waitTrace(s.bound(stepBound), t, s.Ed.bridge.Trace, "ide_connected", func(fs []frame) bool {
		return hasMethod(fs, "in", "ide_connected")
	})
	// Facts: handshake "in this order": initialize, notifications/initialized, ide_connected.
	order := map[string]int{}
	for i, f := range fs {
		if f.Dir == "in" && f.m.Method != "" {
			if _, ok := order[f.m.Method]; !ok {
				order[f.m.Method] = i
			}
		}
	}
	iInit, ok1 := order["initialize"]
	iDone, ok2 := order["notifications/initialized"]
	iConn := order["ide_connected"]
	if !ok1 || !ok2 || !(iInit < iDone && iDone < iConn) {
		t.Errorf("handshake order initialize=%d initialized=%d ide_connected=%d", iInit, iDone, iConn)
	}
	init := fs[iInit]
	resp, ok := response(fs, init)
	if !ok {
		t.Fatalf("no answer to %s", init)
	}
	var res struct {
		ProtocolVersion string         `json:"protocolVersion"`
		Capabilities    map[string]any `json:"capabilities"`
	}
	_ = json.Unmarshal(resp.m.Result, &res)
	// Facts: "The result's protocolVersion must be one of 2025-11-25,
	// 2025-06-18, 2025-03-26, 2024-11-05, 2024-10-07."
	switch res.ProtocolVersion {
	case "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07":
	default:
		t.Errorf("initialize answered protocolVersion %q", res.ProtocolVersion)
	}
	var conn struct {
		PID int `json:"pid"`
	}
	_ = json.Unmarshal(fs[iConn].m.Params, &conn)
	if conn.PID != s.CLI.cmd.Process.Pid {
		t.Errorf("ide_connected pid %d, CLI pid %d", conn.PID, s.CLI.cmd.Process.Pid)
	}

	// Facts: "The server MUST answer with Sec-WebSocket-Protocol: mcp;
	// otherwise the CLI fails with "Missing client protocol"".
	url := "ws://127.0.0.1:" + strconv.Itoa(s.Ed.Init.Port) + "/"
	h := http.Header{}
	h.Set("X-Claude-Code-Ide-Authorization", lock.AuthToken)
	ws, _, err := websocket.Dial(s.bound(stepBound), url, &websocket.DialOptions{Subprotocols: []string{"mcp"}, HTTPHeader: h})
	if err != nil {
		t.Fatalf("dial with the lock's token: %v", err)
	}
	if ws.Subprotocol() != "mcp" {
		t.Errorf("subprotocol %q, want mcp", ws.Subprotocol())
	}
	ws.Close(websocket.StatusNormalClosure, "")

	// Spec: "If the token doesn't match, the connection is rejected."
	h.Set("X-Claude-Code-Ide-Authorization", "00000000000000000000000000000000")
	ws, r, err := websocket.Dial(s.bound(stepBound), url, &websocket.DialOptions{Subprotocols: []string{"mcp"}, HTTPHeader: h})
	if err == nil {
		ws.Close(websocket.StatusNormalClosure, "")
		t.Fatalf("dial with a wrong token succeeded")
	}
	if r == nil || r.StatusCode != http.StatusUnauthorized {
		t.Errorf("wrong token: %v (response %v), want 401", err, r)
	}
}
