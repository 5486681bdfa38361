package ide

import (
	"context"
	"errors"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/exclude"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/permission"
)

// Editor is what an editor provides to the bridge: primitive facts and UI actions, no protocol
// rules. The Model calls its methods concurrently from tool calls; each call should return
// promptly (ShowDiff once the diff is on screen, not when the user decides). The user's decisions
// and other editor events flow back through the Model's methods (Decide, SelectionChanged,
// ...). Methods for capabilities the editor did not declare are never called.
//
// A method whose editor has gone away (its connection ended) returns an error wrapping
// ErrEditorGone.
type Editor interface {
	OpenFile(ctx context.Context, p OpenFileParams) (OpenFileResult, error)
	ShowDiff(ctx context.Context, p ShowDiffParams) error
	// CloseDiff closes the view of a diff (and anything staged for it). Unknown names are no-ops.
	CloseDiff(ctx context.Context, tabName string) error
	// SetBufferText puts text into the file's buffer as unsaved changes. Never saves.
	SetBufferText(ctx context.Context, path, text string) error
	OpenEditors(ctx context.Context) ([]OpenEditor, error)
	CurrentSelection(ctx context.Context) (*Selection, error)
	CheckDirty(ctx context.Context, path string) (DocState, error)
	Save(ctx context.Context, path string) (DocState, error)
	// Diagnostics for one file, or all files when path is "".
	Diagnostics(ctx context.Context, path string) ([]FileDiagnostics, error)
	ExecuteCode(ctx context.Context, code string) ([]Content, error)
}

// ErrEditorGone: the editor's connection ended, so no answer will come. A diff being shown when
// it happens is settled as rejected, like at shutdown: the user can no longer accept it.
var ErrEditorGone = errors.New("the editor has gone away")

// Capabilities says which Editor methods an editor serves.
type Capabilities struct {
	OpenFile         bool `json:"openFile"`
	ShowDiff         bool `json:"showDiff"`
	CanCloseTabs     bool `json:"canCloseTabs"`
	OpenEditors      bool `json:"getOpenEditors"`
	CurrentSelection bool `json:"getCurrentSelection"`
	CheckDirty       bool `json:"checkDocumentDirty"`
	Save             bool `json:"saveDocument"`
	Diagnostics      bool `json:"getDiagnostics"`
	ExecuteCode      bool `json:"executeCode"`
	SetBufferText    bool `json:"setBufferText"`
	// LSPRequest: the editor answers lspRequest with its own language servers (the model's
	// code tools, internal/modeltools); the ide.Editor interface does not carry it.
	LSPRequest bool `json:"lspRequest"`
	// AskPermission: the tools whose permission prompts the editor shows (askPermission:
	// true, false or a list of names; internal/permission); the ide.Editor interface does
	// not carry it.
	AskPermission permission.Tools `json:"askPermission"`
	// DiffText: the editor answers diffText, a diff view's text now (DiffTexter).
	DiffText bool `json:"diffText"`
}

// DiffTexter is an Editor that can say what a diff view holds now: the proposal with the user's
// edits. ok is false when it shows no diff of that name. An editor wrapping another forwards it.
type DiffTexter interface {
	DiffText(ctx context.Context, tab string) (text string, ok bool, err error)
}

// Encoding is the unit of Position.Character: of an editor, of a language server's answer, of
// the CLI (UTF-16). Units and ByteOffset in position.go convert between it and byte offsets.
type Encoding string

const (
	UTF8  Encoding = "utf-8"  // byte offsets (Neovim)
	UTF16 Encoding = "utf-16" // UTF-16 code units (VS Code, Nova, the CLI, LSP's default; also "")
	UTF32 Encoding = "utf-32" // code points (runes); a language server may pick it
)

// EditorInfo describes an editor to the Model.
type EditorInfo struct {
	Name           string
	Caps           Capabilities
	Encoding       Encoding
	TrackSelection bool // the editor reports selections; getCurrentSelection answers from them
	// Timeout bounds each editor call (default 10s); showing a diff may take three times as long.
	Timeout time.Duration
	// Exclude: files whose selections, mentions, open-editor entries, diagnostics and code-tool
	// answers never reach Claude (sharing.go, Model.Excluded). Nil: exclude.Default.
	Exclude *exclude.Set
}

// Position is 0-based; Character counts in the editor's Encoding.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range has an exclusive End.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// OpenFileParams asks the editor to open (and optionally select in) a file.
type OpenFileParams struct {
	FilePath      string `json:"filePath"`
	Preview       bool   `json:"preview"`
	MakeFrontmost bool   `json:"makeFrontmost"`
	Selection     *Range `json:"selection,omitempty"`
}

// OpenFileResult is what the editor knows about the opened file; zero values are filled in.
type OpenFileResult struct {
	LanguageID string `json:"languageId,omitempty"`
	LineCount  int    `json:"lineCount,omitempty"`
}

// ShowDiffParams asks the editor to show a proposal, editable.
type ShowDiffParams struct {
	TabName     string `json:"tabName"`
	FilePath    string `json:"filePath"`
	NewFilePath string `json:"newFilePath"`
	NewContents Text   `json:"newContents"`
	FileExists  bool   `json:"fileExists"`
	// Seq numbers this proposal among all openDiff calls (showDiff's "proposal"): a decision
	// names it (Decide), so it settles exactly the proposal displayed, never a same-name one
	// that replaced it meanwhile.
	Seq uint64 `json:"-"`
	// Owner is the client whose openDiff this is (sent to editors as clientId).
	Owner ClientID `json:"-"`
	// Agent is the CLI that proposes it: "claude", or what the client's Agent method says
	// (internal/companion: "gemini", "qwen"). Sent to editors as agent.
	Agent string `json:"-"`
}

// AgentTitle is an agent's name for people ("gemini" → "Gemini"; "" → "Claude").
func AgentTitle(agent string) string {
	switch agent {
	case "", "claude":
		return "Claude"
	case "gemini":
		return "Gemini"
	case "qwen":
		return "Qwen"
	}
	return agent
}

// OpenEditor is one open tab.
type OpenEditor struct {
	FilePath   string `json:"filePath"`
	IsActive   bool   `json:"isActive"`
	IsDirty    bool   `json:"isDirty"`
	LanguageID string `json:"languageId"`
	Label      string `json:"label"`
}

// DocState answers checkDocumentDirty and saveDocument.
type DocState struct {
	IsOpen     bool `json:"isOpen"`
	IsDirty    bool `json:"isDirty"`
	IsUntitled bool `json:"isUntitled"`
	Saved      bool `json:"saved"`
}

// FileDiagnostics are one file's diagnostics.
type FileDiagnostics struct {
	FilePath    string       `json:"filePath"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// Diagnostic has the CLI's shape; Severity is Error, Warning, Info or Hint.
type Diagnostic struct {
	Message  string `json:"message"`
	Severity string `json:"severity"`
	Range    Range  `json:"range"`
	Source   string `json:"source,omitempty"`
	Code     any    `json:"code,omitempty"`
}

// Content is an MCP content block.
type Content struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
	// File is a file's text passed through as it came (openDiff's FILE_SAVED answer carries the
	// accepted file), the block's text when not zero (Text is then empty). The MCP layer writes
	// it; encoding/json leaves it out.
	File Text `json:"-"`
}

// Selection is a selection as the spec's selection_changed carries it.
type Selection struct {
	Text      string       `json:"text"`
	FilePath  string       `json:"filePath"`
	FileURL   string       `json:"fileUrl,omitempty"`
	Selection SelectionPos `json:"selection"`
}

// SelectionPos is a Range with isEmpty.
type SelectionPos struct {
	Start   Position `json:"start"`
	End     Position `json:"end"`
	IsEmpty bool     `json:"isEmpty"`
}

// Mention is an at_mentioned: 0-based lines, LineEnd inclusive, both nil for a whole file.
type Mention struct {
	FilePath  string `json:"filePath"`
	LineStart *int   `json:"lineStart,omitempty"`
	LineEnd   *int   `json:"lineEnd,omitempty"`
}
