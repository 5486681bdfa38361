package stdio

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/modeltools"
)

// lspTimeout bounds one lspRequest: the editor may have to load the file, wait for its
// language server to attach and the server to load the project.
const lspTimeout = 30 * time.Second

// lspAnswer is the editor's answer to lspRequest (docs/editor-protocol.md).
type lspAnswer struct {
	Result   json.RawMessage `json:"result"`
	Encoding string          `json:"encoding"`
	Loaded   bool            `json:"loaded"`   // the editor loaded the file into a hidden buffer
	NoServer string          `json:"noServer"` // why the editor has no language server for it
}

// Request makes the editor's language servers a modeltools.Source (lspRequest). The params'
// position, when there is one, is also sent in every encoding ("position"), so the editor can
// give its server the unit it negotiated without converting.
func (e remote) Request(ctx context.Context, path, method string, params, result any) (modeltools.Answer, error) {
	ctx, cancel := context.WithTimeout(ctx, lspTimeout)
	defer cancel()
	req := map[string]any{"filePath": path, "method": method, "params": params}
	if pu, ok := params.(modeltools.PositionUnits); ok && pu.Units() != nil {
		req["position"] = pu.Units()
	}
	var a lspAnswer
	if err := e.call(ctx, "lspRequest", req, &a); err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return modeltools.Answer{}, fmt.Errorf("the editor's language server did not answer %s in %s", method, lspTimeout)
		}
		return modeltools.Answer{}, fmt.Errorf("the editor's language server: %w", err)
	}
	if a.NoServer != "" {
		return modeltools.Answer{}, &modeltools.NoServerError{Source: "the editor", Reason: a.NoServer}
	}
	if result != nil && len(a.Result) > 0 {
		if err := json.Unmarshal(a.Result, result); err != nil {
			return modeltools.Answer{}, fmt.Errorf("the editor's lspRequest answer: %w", err)
		}
	}
	ans := modeltools.Answer{Encoding: a.Encoding}
	if a.Loaded {
		ans.Note = "the editor loaded " + path + " into a hidden buffer to ask its language server"
	}
	return ans, nil
}
