package probe

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/termtext"
)

// Target is an IDE server to check.
type Target struct {
	Port    int
	Token   string
	IDEName string // for the report
	Lock    string // the lock file it came from, for the report
}

// Status is a check's outcome.
type Status string

const (
	Pass Status = "pass"
	Fail Status = "FAIL"
	Skip Status = "skip"
)

// Result is one check's outcome with a short detail.
type Result struct {
	Name   string
	Status Status
	Detail string
}

// Options select and shape the checks.
type Options struct {
	// Checks are the names to run (see Checks); empty runs every check but open-diff.
	Checks []string
	// Diff adds open-diff, for servers that answer diffs by themselves (serve --auto accept).
	Diff bool
	// DiffDir holds open-diff's temporary file (default: os.TempDir()).
	DiffDir string
	// Timeout bounds each check (default 10s).
	Timeout time.Duration
}

// Check names, in the order they run.
var Checks = []string{
	"auth-no-token", "auth-wrong-token", "origin-refused", "subprotocol", "initialize",
	"tools-list", "getWorkspaceFolders", "getLatestSelection", "getCurrentSelection",
	"getOpenEditors", "close-tab-unknown", "close-all-diff-tabs", "unknown-method", "open-diff",
}

// SupportedVersions are the protocol versions the CLI accepts in initialize's answer (facts file).
var SupportedVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"}

// CLITools are the tools the CLI calls by name (facts file); the diff ones must be listed.
var CLITools = []string{"openDiff", "close_tab", "closeAllDiffTabs"}

// errSkip marks a check that does not apply to this server.
type errSkip string

func (e errSkip) Error() string { return string(e) }

// Run runs the selected checks against t, in order, and returns one Result each. It fails only
// for an unknown check name; a server that cannot be reached fails its checks instead.
func Run(ctx context.Context, t Target, o Options) ([]Result, error) {
	names := o.Checks
	if len(names) == 0 {
		names = Checks[:len(Checks)-1]
		if o.Diff {
			names = Checks
		}
	}
	for _, n := range names {
		if !slices.Contains(Checks, n) {
			return nil, fmt.Errorf("probe: unknown check %q (checks: %s)", n, strings.Join(Checks, ", "))
		}
	}
	o.Timeout = cmp.Or(o.Timeout, 10*time.Second)
	p := &prober{t: t, o: o}
	defer p.close()
	var out []Result
	for _, name := range Checks { // the fixed order: later checks reuse the session
		if !slices.Contains(names, name) {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, o.Timeout)
		detail, err := checkFuncs[name](cctx, p)
		cancel()
		r := Result{Name: name, Status: Pass, Detail: detail}
		var skip errSkip
		switch {
		case errors.As(err, &skip):
			r.Status, r.Detail = Skip, skip.Error()
		case err != nil:
			r.Status, r.Detail = Fail, err.Error()
		}
		out = append(out, r)
	}
	return out, nil
}

// Failed reports whether any check failed.
func Failed(rs []Result) bool {
	return slices.ContainsFunc(rs, func(r Result) bool { return r.Status == Fail })
}

// WriteTable prints results as an aligned table. A detail holds what the server said (its name
// and version, its error messages): untrusted text, escaped (termtext.Line) before it reaches
// the terminal.
func WriteTable(w io.Writer, rs []Result) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CHECK\tRESULT\tDETAIL")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Name, r.Status, termtext.Line(r.Detail))
	}
	tw.Flush()
}

// prober holds the one session the checks after the handshake share.
type prober struct {
	t       Target
	o       Options
	c       *Client
	initRes json.RawMessage
	err     error // why there is no session
	tools   map[string]json.RawMessage
	listErr error
	dialed  bool
}

func (p *prober) close() {
	if p.c != nil {
		p.c.Close()
	}
}

// session dials once and sends initialize; notifications/initialized and ide_connected follow
// as the CLI sends them.
func (p *prober) session(ctx context.Context) (*Client, error) {
	if p.dialed {
		return p.c, p.err
	}
	p.dialed = true
	c, _, err := Dial(ctx, p.t.Port, p.t.Token, nil)
	if err != nil {
		p.err = fmt.Errorf("cannot connect: %w", err)
		return nil, p.err
	}
	p.c = c
	if p.err = c.open(ctx, "claude-ide-bridge probe", os.Getpid(), &p.initRes); p.err != nil {
		return nil, p.err
	}
	return c, nil
}

// listed returns the tools/list answer by name (fetched once).
func (p *prober) listed(ctx context.Context) (map[string]json.RawMessage, error) {
	if p.tools != nil || p.listErr != nil {
		return p.tools, p.listErr
	}
	c, err := p.session(ctx)
	if err != nil {
		p.listErr = err
		return nil, err
	}
	var res struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := c.Call(ctx, "tools/list", nil, &res); err != nil {
		p.listErr = fmt.Errorf("tools/list: %w", err)
		return nil, p.listErr
	}
	p.tools = map[string]json.RawMessage{}
	for _, raw := range res.Tools {
		var t struct {
			Name string `json:"name"`
		}
		json.Unmarshal(raw, &t)
		p.tools[t.Name] = raw
	}
	return p.tools, nil
}

var checkFuncs = map[string]func(context.Context, *prober) (string, error){
	"auth-no-token": func(ctx context.Context, p *prober) (string, error) {
		return refused(ctx, p.t.Port, "", &DialOptions{NoToken: true}, http.StatusUnauthorized)
	},
	"auth-wrong-token": func(ctx context.Context, p *prober) (string, error) {
		return refused(ctx, p.t.Port, wrongToken(p.t.Token), nil, http.StatusUnauthorized)
	},
	// A browser page sends Origin; with the right token it must still be refused.
	"origin-refused": func(ctx context.Context, p *prober) (string, error) {
		return refused(ctx, p.t.Port, p.t.Token, &DialOptions{Header: http.Header{"Origin": {"https://evil.example"}}}, 0)
	},
	// Facts file: without "Sec-WebSocket-Protocol: mcp" in the answer the CLI fails with
	// "Missing client protocol" and never retries.
	"subprotocol": func(ctx context.Context, p *prober) (string, error) {
		c, err := p.session(ctx)
		if c == nil {
			return "", err
		}
		if c.Subprotocol != "mcp" {
			return "", fmt.Errorf("answered subprotocol %q, want \"mcp\" (the CLI fails with \"Missing client protocol\")", c.Subprotocol)
		}
		return `"mcp"`, nil
	},
	"initialize": func(ctx context.Context, p *prober) (string, error) {
		if _, err := p.session(ctx); err != nil {
			return "", err
		}
		var res struct {
			ProtocolVersion string `json:"protocolVersion"`
			Capabilities    struct {
				Tools json.RawMessage `json:"tools"`
			} `json:"capabilities"`
			ServerInfo struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"serverInfo"`
		}
		if err := json.Unmarshal(p.initRes, &res); err != nil {
			return "", fmt.Errorf("result is not an object: %s", p.initRes)
		}
		if !slices.Contains(SupportedVersions, res.ProtocolVersion) {
			return "", fmt.Errorf("protocolVersion %q is none the CLI accepts (%s)", res.ProtocolVersion, strings.Join(SupportedVersions, ", "))
		}
		if len(res.Capabilities.Tools) == 0 || string(res.Capabilities.Tools) == "null" {
			return "", errors.New("no capabilities.tools: the CLI will not ask tools/list")
		}
		return fmt.Sprintf("%s, server %s %s", res.ProtocolVersion, res.ServerInfo.Name, res.ServerInfo.Version), nil
	},
	"tools-list": func(ctx context.Context, p *prober) (string, error) {
		tools, err := p.listed(ctx)
		if err != nil {
			return "", err
		}
		var problems []string
		for _, name := range CLITools {
			if tools[name] == nil {
				problems = append(problems, name+" not listed")
			}
		}
		for name, raw := range tools {
			if err := validToolSchema(raw); err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", name, err))
			}
		}
		slices.Sort(problems)
		if len(problems) > 0 {
			return "", errors.New(strings.Join(problems, "; "))
		}
		return fmt.Sprintf("%d tools", len(tools)), nil
	},
	"getWorkspaceFolders": shapeCheck("getWorkspaceFolders", listShape([]string{"success", "folders", "rootPath"}, "folders", "folder", "name", "uri", "path")),
	"getLatestSelection":  shapeCheck("getLatestSelection", selectionShape),
	"getCurrentSelection": shapeCheck("getCurrentSelection", selectionShape),
	"getOpenEditors":      shapeCheck("getOpenEditors", listShape([]string{"tabs"}, "tabs", "tab", "uri", "isActive", "label", "languageId", "isDirty")),
	// Spec 000 close_tab: "The answer is TAB_CLOSED in all three cases", including "no diff has
	// that name".
	"close-tab-unknown": answersOne("close_tab", map[string]any{"tab_name": "claude-ide-bridge probe: no such tab"},
		regexp.MustCompile(`^TAB_CLOSED$`), "TAB_CLOSED"),
	"close-all-diff-tabs": answersOne("closeAllDiffTabs", nil, regexp.MustCompile(`^CLOSED_[0-9]+_DIFF_TABS$`), "CLOSED_<n>_DIFF_TABS"),
	"unknown-method": func(ctx context.Context, p *prober) (string, error) {
		c, err := p.session(ctx)
		if err != nil {
			return "", err
		}
		err = c.Call(ctx, "claude-ide-bridge/probe-unknown", nil, nil)
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeMethodNotFound {
			return "", fmt.Errorf("answered %v, want error -32601", err)
		}
		return "-32601", nil
	},
	"open-diff": openDiffCheck,
}

// answersOne calls tool and wants one text block that matches re (want shows it).
func answersOne(tool string, args any, re *regexp.Regexp, want string) func(context.Context, *prober) (string, error) {
	return func(ctx context.Context, p *prober) (string, error) {
		texts, err := p.call(ctx, tool, args)
		if err != nil {
			return "", err
		}
		if len(texts) != 1 || !re.MatchString(texts[0]) {
			return "", fmt.Errorf("answered %q, want [%s]", texts, want)
		}
		return texts[0], nil
	}
}

// call calls a tool and returns its texts; an isError result is an error.
func (p *prober) call(ctx context.Context, tool string, args any) ([]string, error) {
	c, err := p.session(ctx)
	if err != nil {
		return nil, err
	}
	r, err := c.Tool(ctx, tool, args)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tool, err)
	}
	if r.IsError {
		return nil, fmt.Errorf("%s: isError: %q", tool, r.Texts())
	}
	return r.Texts(), nil
}

// refused dials and wants the upgrade refused: with status want, or any 4xx when want is 0.
func refused(ctx context.Context, port int, token string, o *DialOptions, want int) (string, error) {
	c, resp, err := Dial(ctx, port, token, o)
	if err == nil {
		c.Close()
		return "", errors.New("the connection was accepted")
	}
	if resp == nil {
		return "", fmt.Errorf("no HTTP answer: %v", err)
	}
	ok, wantText := resp.StatusCode/100 == 4, "4xx"
	if want != 0 {
		ok, wantText = resp.StatusCode == want, fmt.Sprint(want)
	}
	if !ok {
		return "", fmt.Errorf("status %d, want %s", resp.StatusCode, wantText)
	}
	return fmt.Sprintf("status %d", resp.StatusCode), nil
}

// wrongToken is a token of the same shape that differs from token.
func wrongToken(token string) string {
	if strings.HasPrefix(token, "0") {
		return strings.Repeat("1", 32)
	}
	return strings.Repeat("0", 32)
}

// validToolSchema checks that a tools/list entry has an inputSchema the CLI can use: a JSON
// Schema of type object whose "required" names are properties.
func validToolSchema(raw json.RawMessage) error {
	var t struct {
		InputSchema *struct {
			Type       any                        `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		} `json:"inputSchema"`
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return fmt.Errorf("bad entry: %v", err)
	}
	if t.InputSchema == nil {
		return errors.New("no inputSchema")
	}
	if t.InputSchema.Type != "object" {
		return fmt.Errorf("inputSchema type %v, want \"object\"", t.InputSchema.Type)
	}
	for _, r := range t.InputSchema.Required {
		if _, ok := t.InputSchema.Properties[r]; !ok {
			return fmt.Errorf("required %q is not a property", r)
		}
	}
	return nil
}

// shapeCheck calls a tool without arguments and checks its one JSON text block; a tool the
// server does not list is skipped.
func shapeCheck(tool string, check func(any) error) func(context.Context, *prober) (string, error) {
	return func(ctx context.Context, p *prober) (string, error) {
		tools, err := p.listed(ctx)
		if err != nil {
			return "", err
		}
		if tools[tool] == nil {
			return "", errSkip("not listed")
		}
		texts, err := p.call(ctx, tool, nil)
		if err != nil {
			return "", err
		}
		if len(texts) != 1 {
			return "", fmt.Errorf("%d content blocks, want 1", len(texts))
		}
		var v any
		if err := json.Unmarshal([]byte(texts[0]), &v); err != nil {
			return "", fmt.Errorf("text is not JSON: %.80q", texts[0])
		}
		if err := check(v); err != nil {
			return "", fmt.Errorf("%v in %.120s", err, texts[0])
		}
		return "shape ok", nil
	}
}

// object checks that v is an object with at least these keys.
func object(v any, keys ...string) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("not an object")
	}
	var missing []string
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("missing %s", strings.Join(missing, ", "))
	}
	return m, nil
}

// listShape: an object with keys, whose list is an array of objects (each one) with item's keys.
func listShape(keys []string, list, one string, item ...string) func(any) error {
	return func(v any) error {
		m, err := object(v, keys...)
		if err != nil {
			return err
		}
		xs, ok := m[list].([]any)
		if !ok {
			return fmt.Errorf("%q is not an array", list)
		}
		for _, x := range xs {
			if _, err := object(x, item...); err != nil {
				return fmt.Errorf("%s: %w", one, err)
			}
		}
		return nil
	}
}

// selectionShape: {success: false, message} or {success: true, text, filePath, selection:
// {start: {line, character}, end: {line, character}}} (spec 000 getCurrentSelection).
func selectionShape(v any) error {
	m, err := object(v, "success")
	if err != nil {
		return err
	}
	if m["success"] == false {
		_, err := object(v, "message")
		return err
	}
	if _, err := object(v, "text", "filePath", "selection"); err != nil {
		return err
	}
	sel, err := object(m["selection"], "start", "end")
	if err != nil {
		return fmt.Errorf("selection: %w", err)
	}
	for _, k := range []string{"start", "end"} {
		if _, err := object(sel[k], "line", "character"); err != nil {
			return fmt.Errorf("selection.%s: %w", k, err)
		}
	}
	return nil
}

// openDiffCheck proposes a change to a temporary file and wants one of the CLI's answers
// (facts file): FILE_SAVED + text, TAB_CLOSED, or DIFF_REJECTED + tab_name; and the file on disk
// unchanged ("The server must NOT write it"). The server must answer by itself.
func openDiffCheck(ctx context.Context, p *prober) (string, error) {
	c, err := p.session(ctx)
	if err != nil {
		return "", err
	}
	dir := p.o.DiffDir
	dir = cmp.Or(dir, os.TempDir())
	f, err := os.CreateTemp(dir, "claude-ide-bridge-probe-*.txt")
	if err != nil {
		return "", err
	}
	path := f.Name()
	defer os.Remove(path)
	const original, proposal = "probe: original\n", "probe: proposed change\n"
	_, err = f.WriteString(original)
	f.Close()
	if err != nil {
		return "", err
	}
	tab := "✻ [Claude Code] " + filepath.Base(path) + " (probe) ⧉"
	r, callErr := c.Tool(ctx, "openDiff", map[string]any{
		"old_file_path": path, "new_file_path": path, "new_file_contents": proposal, "tab_name": tab,
	})
	// Like the CLI: close the tab after the answer (and settle it if there was none).
	cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	c.Tool(cctx, "close_tab", map[string]any{"tab_name": tab})
	cancel()
	disk, _ := os.ReadFile(path)
	switch {
	case errors.Is(callErr, context.DeadlineExceeded):
		return "", errors.New("no answer in time; does the server answer diffs by itself (serve --auto accept)?")
	case callErr != nil:
		return "", fmt.Errorf("openDiff: %w", callErr)
	case r.IsError:
		return "", fmt.Errorf("openDiff: isError: %q", r.Texts())
	case string(disk) != original:
		return "", fmt.Errorf("the server wrote the file (it holds %.40q); the CLI writes it", disk)
	}
	texts := r.Texts()
	switch {
	case len(texts) == 2 && texts[0] == "FILE_SAVED":
		return "FILE_SAVED with the final text; file untouched", nil
	case len(texts) == 2 && texts[0] == "DIFF_REJECTED" && texts[1] == tab:
		return "DIFF_REJECTED with the tab name; file untouched", nil
	case len(texts) == 1 && texts[0] == "TAB_CLOSED":
		return "TAB_CLOSED (accepted as proposed); file untouched", nil
	}
	return "", fmt.Errorf("answered %.80q, want [FILE_SAVED, text], [TAB_CLOSED] or [DIFF_REJECTED, tab_name]", texts)
}
