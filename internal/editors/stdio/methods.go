package stdio

import (
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/claudecmd"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/permission"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/review"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/userfile"
)

// Bridge is what the editor protocol needs of the bridge it speaks for; cmd/claude-ide-bridge
// adapts *bridge.Bridge to it. Every rule is the bridge's: this package only translates.
type Bridge interface {
	Model() *ide.Model
	// Session is what initialize and status tell the editor about the bridge.
	Session() Session
	// ClaudeCommand is how to start claude (internal/claudecmd).
	ClaudeCommand(claudecmd.Request) (claudecmd.Command, error)
	// Review answers a review request (docs/review.md); an error when the bridge keeps no
	// record of turns.
	Review(review.Request) (review.Answer, error)
	// UserSaved: the user saved path (a revert in the editor's review); the bridge reads it.
	UserSaved(path string)
	// Permissions holds the permission prompts this editor is asked (askPermission).
	Permissions() *permission.Broker
}

// Session is the bridge as initialize's result describes it.
type Session struct {
	Port      int               `json:"port"`
	LockPath  string            `json:"lockPath"`
	Version   string            `json:"version"`
	Env       map[string]string `json:"env"`
	MCPConfig string            `json:"mcpConfig"`
}

// handlerFunc answers one editor request or notification once initialize succeeded.
type handlerFunc func(s *server, b Bridge, req *jsonrpc.Request) (any, error)

// decoded is a method whose params decode into P (one strict decode for every method).
func decoded[P any](f func(b Bridge, p P) (any, error)) handlerFunc {
	return func(_ *server, b Bridge, req *jsonrpc.Request) (any, error) {
		var p P
		if err := jsonrpc.UnmarshalParams(req.Params, &p); err != nil {
			return nil, err
		}
		return f(b, p)
	}
}

// bare is a method without params: whatever params come are not read.
func bare(f func(b Bridge) (any, error)) handlerFunc {
	return func(_ *server, b Bridge, _ *jsonrpc.Request) (any, error) { return f(b) }
}

// methods is the editor protocol after initialize (docs/editor-protocol.md, "editor → bridge").
var methods = map[string]handlerFunc{
	"selectionChanged": decoded(func(b Bridge, sel ide.Selection) (any, error) {
		if sel.FilePath == "" {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, `invalid params: "filePath" is required`)
		}
		b.Model().SelectionChanged(sel)
		return nil, nil
	}),
	"workspaceFoldersChanged": decoded(func(b Bridge, p struct {
		Folders []string `json:"folders"`
	}) (any, error) {
		b.Model().SetFolders(userfile.CleanFolders(p.Folders))
		return nil, nil
	}),
	"atMentioned": decoded(func(b Bridge, p ide.Mention) (any, error) {
		n, held, err := b.Model().AtMentioned(p)
		if err != nil {
			return nil, err
		}
		return map[string]any{"delivered": n, "held": held}, nil
	}),
	// Every decision names its proposal (showDiff's "proposal"): a decision on a proposal that
	// a same-name openDiff replaced, or that was closed or answered, is -32001 and never lands
	// on another (issue 25 item 6). A decision without the number is refused: the bridge cannot
	// tell which proposal the user saw.
	"diffAccepted": decoded(func(b Bridge, p struct {
		TabName  string   `json:"tabName"`
		Contents ide.Text `json:"contents"` // passed to Claude as it came
		// Proposal: the number of the proposal decided on. Without contents, the user
		// accepted it unedited; Claude gets its text as it sent it.
		Proposal *uint64 `json:"proposal"`
	}) (any, error) {
		if p.Proposal == nil {
			return nil, errNoProposal("diffAccepted")
		}
		return nil, b.Model().Decide(*p.Proposal, ide.Decision{Accept: true, Text: p.Contents})
	}),
	"diffRejected": decoded(func(b Bridge, p struct {
		TabName  string  `json:"tabName"`
		Proposal *uint64 `json:"proposal"`
	}) (any, error) {
		if p.Proposal == nil {
			return nil, errNoProposal("diffRejected")
		}
		return nil, b.Model().Decide(*p.Proposal, ide.Decision{})
	}),
	"closeAllDiffs": bare(func(b Bridge) (any, error) {
		closed, restored, err := b.Model().CloseAllDiffs()
		if err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeServerError, "%v", err)
		}
		if restored == nil {
			restored = []string{}
		}
		return map[string]any{"closed": closed, "restored": restored}, nil
	}),
	// A request (answered first) or a notification (an editor that is quitting).
	"shutdown": func(s *server, _ Bridge, req *jsonrpc.Request) (any, error) {
		end := func() {
			if s.opt.Shutdown != nil {
				s.opt.Shutdown()
			}
			s.conn.Close()
		}
		if !req.IsCall() {
			end()
			return nil, nil
		}
		return jsonrpc.Then{Result: struct{}{}, After: end}, nil
	},
	"claudeCommand": decoded(func(b Bridge, p claudecmd.Request) (any, error) {
		c, err := b.ClaudeCommand(p)
		if err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeServerError, "%v", err)
		}
		return c, nil
	}),
	"review": decoded(func(b Bridge, p review.Request) (any, error) {
		a, err := b.Review(p)
		if err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeServerError, "%v", err)
		}
		return a, nil
	}),
	// The user saved a file (a revert in the editor's review): a watch event that finds this
	// text is not Claude's.
	"userWrote": decoded(func(b Bridge, p struct {
		FilePath string `json:"filePath"`
	}) (any, error) {
		b.UserSaved(p.FilePath)
		return nil, nil
	}),
	// The user's decision on askPermission's request id: one no longer pending (answered in
	// Claude's terminal, withdrawn, decided) is -32001 and decides nothing.
	"permissionDecided": decoded(func(b Bridge, p struct {
		ID *uint64 `json:"id"`
		permission.Decision
	}) (any, error) {
		if p.ID == nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, `invalid params: "id" (askPermission's) is required`)
		}
		return nil, b.Permissions().Decide(*p.ID, p.Decision)
	}),
	"status": bare(func(b Bridge) (any, error) {
		m, s := b.Model(), b.Session()
		now := m.Agents()
		return map[string]any{"port": s.Port, "lockPath": s.LockPath, "clients": now.Total(), "agents": now, "clientsLine": now.Line(), "diffs": m.Diffs(), "sharing": m.Sharing()}, nil
	}),
	// Pause or resume sharing (internal/ide/sharing.go); answers what is shared now.
	"setSharing": decoded(func(b Bridge, p struct {
		Paused *bool `json:"paused"`
	}) (any, error) {
		if p.Paused == nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, `invalid params: "paused" (true or false) is required`)
		}
		return b.Model().SetPaused(*p.Paused), nil
	}),
	// The editor closed the file: a latest selection in it is never sent later.
	"fileClosed": decoded(func(b Bridge, p struct {
		FilePath string `json:"filePath"`
	}) (any, error) {
		b.Model().FileClosed(p.FilePath)
		return nil, nil
	}),
}

func errNoProposal(method string) error {
	return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, `invalid params: %s needs "proposal", the number of the showDiff decided on`, method)
}
