package harness

import (
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/e2e/fakeapi"
)

// CLIWorld is what an editor's test with the real Claude Code CLI starts from: the CLI, a fake
// model API, and a project, config dir (seeded, the project trusted) and home of their own.
type CLIWorld struct {
	Bin             string
	API             *fakeapi.Server
	Proj, Cfg, Home string
}

// NewCLIWorld makes one; without the CLI the test skips (or fails in CI) saying that what is not
// running, as ClaudeBin does. The API closes when the test ends.
func NewCLIWorld(t testing.TB, what string) *CLIWorld {
	t.Helper()
	w := &CLIWorld{Bin: ClaudeBin(t, what), API: fakeapi.New()}
	t.Cleanup(w.API.Close)
	d := Dirs(t, "proj", "cfg", "home")
	w.Proj, w.Cfg, w.Home = d[0], d[1], d[2]
	SeedConfig(t, w.Cfg, w.Proj)
	return w
}

// Env is the editor's environment for the CLI it starts: offline against the fake API, with
// the world's home and config dir, then more.
func (w *CLIWorld) Env(more ...string) []string {
	return append(append(OfflineEnv(w.API.URL), "HOME="+w.Home, "CLAUDE_CONFIG_DIR="+w.Cfg), more...)
}
