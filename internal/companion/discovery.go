package companion

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
)

// Where each CLI looks for its IDE (facts §1 and §2):
//   - Gemini CLI: $TMPDIR/gemini/ide/gemini-ide-server-<pid>-<port>.json, always written (a
//     file in the temporary folder creates nothing in the user's home);
//   - Qwen Code: $QWEN_HOME/ide/<port>.lock, or ~/.qwen/ide/<port>.lock, written only when
//     $QWEN_HOME is set or ~/.qwen exists: a user who does not use Qwen gets no dot-folder.
//
// Both hold the token, are 0600 in a folder of the user's that no one else can write
// (discovery.WriteAgentFile) and are removed when the bridge closes.

// GeminiDir is the Gemini CLI's discovery folder.
func GeminiDir() string { return filepath.Join(os.TempDir(), "gemini", "ide") }

// QwenDir is Qwen Code's discovery folder, and false when Qwen Code is not set up for this user.
func QwenDir() (string, bool) {
	if h := os.Getenv("QWEN_HOME"); h != "" {
		return filepath.Join(h, "ide"), true
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", false
	}
	if fi, err := os.Stat(filepath.Join(home, ".qwen")); err != nil || !fi.IsDir() {
		return "", false
	}
	return filepath.Join(home, ".qwen", "ide"), true
}

// ideInfo names the editor, so that the CLI accepts it whatever its terminal (facts §1, the
// detection gate).
type ideInfo struct {
	Name        string `json:"name"`
	DisplayName string `json:"displayName"`
}

// geminiFile is Gemini's discovery file; Qwen's lock holds the same and two fields more.
type geminiFile struct {
	Port          int     `json:"port"`
	WorkspacePath string  `json:"workspacePath"`
	AuthToken     string  `json:"authToken"`
	IDEInfo       ideInfo `json:"ideInfo"`
	Bridge        string  `json:"bridge"`
}

type qwenFile struct {
	geminiFile
	PPID    int    `json:"ppid"` // live: the CLI deletes a lock whose ppid is dead
	IDEName string `json:"ideName"`
}

func (s *Server) info() ideInfo {
	name := s.model().Info().Name
	return ideInfo{Name: strings.ToLower(strings.ReplaceAll(name, " ", "")), DisplayName: name}
}

// writeDiscovery writes the agent's file and returns its path.
func (s *Server) writeDiscovery() (string, error) {
	file := geminiFile{Port: s.port, WorkspacePath: strings.Join(s.model().Folders(), string(os.PathListSeparator)),
		AuthToken: s.token, IDEInfo: s.info(), Bridge: discovery.BridgeMarker}
	var name string
	var data any
	dir := s.cfg.Dir
	switch s.cfg.Agent {
	case Gemini:
		dir = cmp.Or(dir, GeminiDir())
		pid := s.cfg.PID
		pid = cmp.Or(pid, os.Getpid())
		name = fmt.Sprintf("gemini-ide-server-%d-%d.json", pid, s.port)
		data = file
	case Qwen:
		if dir == "" {
			var ok bool
			if dir, ok = QwenDir(); !ok {
				return "", errors.New("companion: Qwen Code is not set up here (no $QWEN_HOME, no ~/.qwen)")
			}
		}
		name = strconv.Itoa(s.port) + ".lock"
		data = qwenFile{file, os.Getpid(), s.model().Info().Name}
	default:
		return "", fmt.Errorf("companion: unknown agent %q", s.cfg.Agent)
	}
	b, err := json.Marshal(data)
	if err != nil {
		return "", err
	}
	path, err := discovery.WriteAgentFile(dir, name, b)
	if err == nil && s.cfg.Agent == Gemini {
		// Qwen removes a lock whose ppid is dead itself; Gemini keeps trying dead files.
		if gone := discovery.SweepAgentFiles(dir, GeminiName); len(gone) > 0 {
			s.log.Info("removed stale Gemini discovery files", "paths", gone)
		}
	}
	return path, err
}

// GeminiName reads a Gemini discovery file's name: gemini-ide-server-<pid>-<port>.json.
func GeminiName(n string) (pid, port int, ok bool) {
	rest, found := strings.CutPrefix(n, "gemini-ide-server-")
	rest, found2 := strings.CutSuffix(rest, ".json")
	a, b, found3 := strings.Cut(rest, "-")
	if !found || !found2 || !found3 {
		return 0, 0, false
	}
	pid, err1 := strconv.Atoi(a)
	port, err2 := strconv.Atoi(b)
	return pid, port, err1 == nil && err2 == nil && pid > 0 && port > 0 && port < 65536
}

// QwenName reads a Qwen Code lock's name: <port>.lock (its pid is the file's "ppid").
func QwenName(n string) (pid, port int, ok bool) {
	p, found := strings.CutSuffix(n, ".lock")
	port, err := strconv.Atoi(p)
	return 0, port, found && err == nil && port > 0 && port < 65536
}

func (s *Server) removeDiscovery() {
	if s.path == "" {
		return
	}
	if err := os.Remove(s.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.log.Warn("companion: removing the discovery file", "path", s.path, "err", err)
	}
}
