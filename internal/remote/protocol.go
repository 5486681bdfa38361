package remote

// The two paths on the bridge's listener. Everything else there is the WebSocket endpoint.
const (
	PathMention = "/claude-ide-bridge/v1/mention"
	PathSelect  = "/claude-ide-bridge/v1/select"
)

// Request is the JSON body of both paths.
type Request struct {
	FilePath string `json:"filePath"` // absolute
	// Lines is [start, end], 1-based and inclusive; empty for the whole file (mention) or the
	// cursor at the file's start (select).
	Lines []int `json:"lines,omitempty"`
}

// Reply is the JSON answer of a request that was carried out (HTTP 200). A refused request gets
// a 4xx status and a one-line text/plain reason.
type Reply struct {
	// Sessions is how many Claude sessions were sent the mention or selection now.
	Sessions int `json:"sessions"`
	// Held: no session was connected, the mention is held (ide.MentionHold) for the first one.
	Held bool `json:"held,omitempty"`
}

// maxBody bounds a request body; a real one is a path and two numbers.
const maxBody = 64 << 10

// MaxSelection bounds the text of a selection read from a file (select).
const MaxSelection = 1 << 20

// The paths of `claude-ide-bridge review` and of the CLI's hooks (`claude-ide-bridge hook`),
// gated like PathMention.
const (
	PathReview = "/claude-ide-bridge/v1/review"
	PathHook   = "/claude-ide-bridge/v1/hook"
	// PathPermission is the PermissionRequest hook's: its request waits for the editor's
	// decision (internal/permission).
	PathPermission = "/claude-ide-bridge/v1/permission"
)
