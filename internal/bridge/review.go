package bridge

import (
	"net/http"
	"os"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/claudestate"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/review"
)

// startReview sets up the record of turns (an observer of the model's tool calls) and the
// sessions' states; a hook's Stop ends the running turn, its UserPromptSubmit starts one.
func (b *Bridge) startReview(cfg Config) error {
	b.State = claudestate.New()
	b.State.Changed = cfg.StateChanged
	if cfg.Review == nil {
		return nil
	}
	rc := *cfg.Review
	rc.Folders = b.Model.Folders
	if rc.Log == nil {
		rc.Log = b.log
	}
	t, err := review.New(rc)
	if err != nil {
		return err
	}
	b.Review = t
	b.Model.SetObserver(t)
	b.State.Event = func(ev claudestate.Event) {
		switch ev.Name {
		case "UserPromptSubmit":
			t.Prompt()
		case "Stop", "StopFailure":
			t.EndTurn()
		}
	}
	return nil
}

func (b *Bridge) reviewHandler() http.Handler {
	if b.Review == nil {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "this bridge keeps no record of turns", http.StatusConflict)
		})
	}
	return review.Handler(b.Review)
}

// writeHookSettings writes the --settings file whose hooks run this binary's `hook` command.
func writeHookSettings(dir string, port int) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		exe = "claude-ide-bridge"
	}
	return discovery.WriteHookSettings(dir, port, claudestate.Settings(exe, port))
}
