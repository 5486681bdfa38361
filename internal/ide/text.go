package ide

import "github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"

// Text is a file's text as the rules see it: opaque, its size known (EncodedLen, the size it
// takes in a message) and decoded only where a rule needs the characters (String). It is kept
// as it arrived and put into the outgoing messages by the layers that send it (internal/mcp for
// openDiff's FILE_SAVED answer, internal/editors/stdio for showDiff), not by this package.
type Text = jsonrpc.Text

// TextOf returns s as a Text.
func TextOf(s string) Text { return jsonrpc.TextOf(s) }
