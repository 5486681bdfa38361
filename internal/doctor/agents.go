package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/attach"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/codexctx"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/companion"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/termtext"
)

// Agents is where the other agents' CLIs find an IDE (docs/gemini.md, docs/codex.md).
type Agents struct {
	GeminiDir   string // companion.GeminiDir()
	QwenDir     string // companion.QwenDir(); "": Qwen Code is not set up for this user
	CodexSocket string // codexctx.SocketPath()
}

// AgentsHere is Agents as this process sees them.
func AgentsHere() *Agents {
	q, _ := companion.QwenDir()
	return &Agents{GeminiDir: companion.GeminiDir(), QwenDir: q, CodexSocket: codexctx.SocketPath()}
}

// agents explains each agent's discovery: the files the bridge writes for Gemini and Qwen (live
// or stale, their mode and owner, ours or another program's) and Codex's socket. Problems there
// are warnings (Claude does not need them), except a file or socket another user holds.
func agents(a *Agents) []Finding {
	var out []Finding
	add := func(l Level, format string, args ...any) { out = append(out, Finding{l, fmt.Sprintf(format, args...)}) }
	esc := termtext.Line
	files := func(agent, dir string, name func(string) (int, int, bool)) {
		if _, err := os.Stat(dir); err != nil {
			add(OK, "%s: no discovery folder %s: no bridge serves it now", agent, esc(dir))
			return
		}
		if err := discovery.AgentDirSafe(dir); err != nil {
			add(Fail, "%s: %s: the bridge writes no discovery file there (remove the folder; the bridge makes it 0700)", agent, esc(err.Error()))
		}
		found := discovery.AgentFiles(dir, name)
		if len(found) == 0 {
			add(OK, "%s: no discovery file in %s: no bridge serves it now", agent, esc(dir))
		}
		for _, f := range found {
			desc := fmt.Sprintf("%s: %s (pid %d, port %d, mode %04o, folders %s)", agent, esc(f.Path), f.PID, f.Port, f.Mode,
				escList(filepath.SplitList(f.Workspace)))
			switch {
			case f.Owner != -1 && f.Owner != os.Geteuid():
				add(Fail, "%s is owned by uid %d: another user's file, which the CLI may read; remove it", desc, f.Owner)
			case f.Mode&0o077 != 0:
				add(Warn, "%s may be read by others: its token is not secret", desc)
			case !f.Live():
				add(Warn, "%s is stale: its pid is dead and nothing answers on its port; the next bridge to start removes it if it is one of its own", desc)
			case !f.Bridge:
				add(OK, "%s is another program's (an editor's own companion), live", desc)
			default:
				add(OK, "%s is a live bridge's: %s started in one of its folders connects to it", desc, agent)
			}
		}
	}
	files("Gemini CLI", a.GeminiDir, companion.GeminiName)
	if a.QwenDir == "" {
		add(OK, "Qwen Code: not set up (no $QWEN_HOME, no ~/.qwen), so no bridge writes its lock")
	} else {
		files("Qwen Code", a.QwenDir, companion.QwenName)
	}

	p := esc(a.CodexSocket)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	c, err := attach.Dial(ctx, a.CodexSocket)
	switch {
	case err == nil:
		c.Close()
		add(OK, "Codex: %s answers, a process of yours (a bridge started with --codex-ide, or a Codex editor extension): /ide in Codex connects to it", p)
	case errors.Is(err, fs.ErrNotExist):
		add(OK, "Codex: no socket at %s: /ide in Codex finds no IDE (start the bridge with --codex-ide)", p)
	case errors.Is(err, syscall.ECONNREFUSED):
		add(Warn, "Codex: %s is stale, nothing answers: a bridge started with --codex-ide replaces it", p)
	case errors.Is(err, attach.ErrUnsafe):
		add(Fail, "Codex: %s: Codex may talk to it, the bridge will not; remove it", esc(err.Error()))
	default:
		add(Warn, "Codex: %s: %s", p, esc(err.Error()))
	}
	return out
}
