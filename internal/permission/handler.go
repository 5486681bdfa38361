package permission

import (
	"encoding/json"
	"net/http"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/transport"
)

// MaxBody bounds the hook's request: the CLI's input may be large, the editor sees MaxInput.
const MaxBody = 1 << 20

// Answer is the handler's reply to the hook: Output is what the hook prints (the CLI's
// answer); empty: print nothing, the terminal decides.
type Answer struct {
	Output json.RawMessage `json:"output,omitempty"`
}

// Handler serves remote.PathPermission (the caller has authenticated the request): seen is told
// of the request first (the session's state), then the request waits in b for as long as the
// hook's connection stays open.
func Handler(b *Broker, seen func(HookInput)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in HookInput
		if !transport.DecodePost(w, r, MaxBody, false, &in) { // the CLI's input, as it comes
			return
		}
		if in.Event != "PermissionRequest" || in.SessionID == "" {
			http.Error(w, "not a PermissionRequest", http.StatusBadRequest)
			return
		}
		if seen != nil {
			seen(in)
		}
		var a Answer
		if d, sugg, ok := b.Ask(r.Context(), in); ok {
			a.Output = HookOutput(d, sugg)
		}
		transport.ReplyJSON(w, a)
	})
}
