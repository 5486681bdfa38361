package doctor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/attach"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
)

func agentFile(t *testing.T, dir, name string, v map[string]any) string {
	t.Helper()
	b, _ := json.Marshal(v)
	p, err := discovery.WriteAgentFile(dir, name, b)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func runAgents(a *Agents) (string, bool) {
	var b bytes.Buffer
	failed := Print(&b, agents(a))
	return b.String(), failed
}

// Issue 38 item 4: "`claude-ide-bridge doctor` explains each agent's discovery": each Gemini file
// live or stale, its mode, a bridge's or another program's; Qwen's locks (pid from "ppid") or
// Qwen not set up; Codex's socket answering, missing, stale, or not this user's alone.
func TestAgentsDiscovery(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	gem := filepath.Join(root, "gemini", "ide")
	live, dead := listen(t), closedPort(t)
	agentFile(t, gem, fmt.Sprintf("gemini-ide-server-%d-%d.json", os.Getpid(), live), map[string]any{"bridge": discovery.BridgeMarker,
		"workspacePath": "/a/proj" + string(os.PathListSeparator) + "/b/\x1b[31mred"})
	agentFile(t, gem, fmt.Sprintf("gemini-ide-server-%d-%d.json", deadPID(t), dead), map[string]any{"bridge": discovery.BridgeMarker})
	other := agentFile(t, gem, fmt.Sprintf("gemini-ide-server-%d-%d.json", deadPID(t), live), map[string]any{"port": live})
	open := agentFile(t, gem, fmt.Sprintf("gemini-ide-server-%d-%d.json", os.Getpid(), closedPort(t)), map[string]any{"bridge": discovery.BridgeMarker})
	os.Chmod(open, 0o644)
	os.WriteFile(filepath.Join(gem, "notes.txt"), []byte("not a discovery file"), 0o600)

	codexDir := filepath.Join(root, "codex-ipc")
	os.Mkdir(codexDir, 0o700)
	ln, err := attach.Listen(filepath.Join(codexDir, "ipc.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()

	out, failed := runAgents(&Agents{GeminiDir: gem, CodexSocket: ln.Path()})
	expect(t, out, failed, false,
		fmt.Sprintf("ok    Gemini CLI: %s (pid %d, port %d, mode 0600, folders [/a/proj, /b/\\x1b[31mred]) is a live bridge's", filepath.Join(gem, fmt.Sprintf("gemini-ide-server-%d-%d.json", os.Getpid(), live)), os.Getpid(), live),
		fmt.Sprintf("port %d, mode 0600, folders []) is stale", dead),
		other+" (pid ", "is another program's",
		open+" (pid ", "mode 0644, folders []) may be read by others",
		"Qwen Code: not set up",
		"Codex: "+ln.Path()+" answers")
	if bytes.Contains([]byte(out), []byte("notes.txt")) {
		t.Errorf("a file not named like Gemini's is reported:\n%s", out)
	}
	// `claude-ide-bridge doctor` (Env.Agents) reports them with Claude's checks.
	var b bytes.Buffer
	Print(&b, Check(Env{Dirs: []string{filepath.Join(root, "ide")}, Cwd: root, Getenv: func(string) string { return "" },
		Agents: &Agents{GeminiDir: gem, CodexSocket: ln.Path()}}))
	expect(t, b.String(), true, true, "is a live bridge's", "Codex: "+ln.Path()+" answers", "no lock file in")

	qwen := filepath.Join(root, "qwen", "ide")
	lock := agentFile(t, qwen, fmt.Sprintf("%d.lock", live), map[string]any{"ppid": os.Getpid(), "bridge": discovery.BridgeMarker})
	// A stale Codex socket: its file left, nothing listening.
	stale := filepath.Join(codexDir, "stale.sock")
	ul, err := net.ListenUnix("unix", &net.UnixAddr{Name: stale, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ul.SetUnlinkOnClose(false)
	ul.Close()
	os.Chmod(stale, 0o600)
	out, failed = runAgents(&Agents{GeminiDir: filepath.Join(root, "none"), QwenDir: qwen, CodexSocket: stale})
	expect(t, out, failed, false,
		"Gemini CLI: no discovery folder "+filepath.Join(root, "none"),
		fmt.Sprintf("Qwen Code: %s (pid %d, port %d, mode 0600, folders []) is a live bridge's", lock, os.Getpid(), live),
		"Codex: "+stale+" is stale")

	// A socket folder others may enter: refused (Fail), as the bridge refuses it.
	os.Chmod(codexDir, 0o755)
	out, failed = runAgents(&Agents{GeminiDir: gem, CodexSocket: ln.Path()})
	expect(t, out, failed, true, "Codex: attach: unsafe socket")
	out, failed = runAgents(&Agents{GeminiDir: gem, CodexSocket: filepath.Join(root, "nothing", "ipc.sock")})
	expect(t, out, failed, false, "Codex: no socket at "+filepath.Join(root, "nothing", "ipc.sock"))
}
