package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/claudecmd"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/claudestate"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/companion"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/editors/slot"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/editors/stdio"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/editors/terminal"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/exclude"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/ide"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/lsp"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/pathmap"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/permission"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/review"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/termtext"
)

var errUsage = errors.New("usage")

func cmdServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		useStdio   = fs.Bool("stdio", false, "speak the editor protocol on stdin/stdout (for editor plugins)")
		workspace  = fs.String("workspace", "", "workspace folder (default: the current directory)")
		ideName    = fs.String("ide-name", "Terminal", "the IDE name Claude shows")
		port       = fs.Int("port", 0, "port to listen on (default: a random free port in 10000-65535)")
		auto       = fs.String("auto", "", "answer diffs without asking: accept or reject")
		perms      = fs.String("permissions", "all", "Claude's permission prompts asked here as well as in Claude's terminal: all, none, or tool names separated by commas (Bash,WebFetch,mcp__*); the others stay in Claude's terminal alone")
		trace      = fs.String("trace", "", "append every WebSocket frame to this file, one JSON line each")
		logFile    = fs.String("log-file", "", "write logs to this file (default: stderr)")
		verbose    = fs.Bool("verbose", false, "debug logging")
		keepalive  = fs.Duration("keepalive", 30*time.Second, "WebSocket ping interval; a client that does not answer within it is closed")
		maxClients = fs.Int("max-clients", 64, "most Claude connections at once; more are refused with 503")
		openCmd    = fs.String("open-cmd", "", "run this to open the files Claude opens, e.g. 'hx {file}:{line}' ({file}, {line}, {column}; split into words, never run by a shell); default from $VISUAL when set; '' to only print them")
		edTimeout  = fs.Duration("editor-timeout", 10*time.Second, "with --stdio: how long to wait for the editor's answer (showDiff 3x, executeCode 10x)")
		agents     = fs.String("agents", "gemini,qwen", "other CLIs served as an IDE companion beside Claude (docs/gemini.md): gemini, qwen (only when $QWEN_HOME is set or ~/.qwen exists), comma-separated; none: Claude only")
		outlive    = fs.Duration("outlive", 30*time.Second, "with --stdio: when the editor goes while Claude is connected, the bridge stays for the next editor of this workspace to attach, until this long after the last Claude left; 0: it ends with the editor")
		codexIDE   = fs.Bool("codex-ide", false, "answer the Codex CLI's /ide with the editor's active file, selection and open tabs, on $TMPDIR/codex-ipc/ipc-<uid>.sock (never taken from a program already answering there; docs/codex.md)")
		lspFlags   stringList
		pathMaps   stringList
		excludes   stringList
	)
	fs.Var(&excludes, "exclude", "glob of files whose selections, mentions, open editors, diagnostics and code-tool answers never reach Claude, also through a symlink (repeatable; replaces the default "+strings.Join(exclude.Default, " ")+"; none: share everything; with --stdio the editor's initialize may give its own)")
	fs.Var(&lspFlags, "lsp", "language server for getDiagnostics: EXT=COMMAND (repeatable, e.g. .go=gopls), auto (the common ones on $PATH) or none; default without --stdio: auto")
	fs.Var(&pathMaps, "path-map", "with --stdio: LOCAL=REMOTE, the editor's path prefix and the same folder here (repeatable; longest prefix wins; docs/remote.md)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	logw := stderr
	if *logFile != "" {
		f, err := openLogFile(*logFile)
		if err != nil {
			return err
		}
		defer f.Close()
		logw = f
	}
	// In the terminal mode the terminal is the UI: only warnings interrupt it, unless --verbose
	// or a log file was asked for.
	quiet := !*useStdio && *logFile == "" && !*verbose
	log := newLogger(logw, *verbose, quiet)
	var traceW io.Writer
	if *trace != "" {
		f, err := openLogFile(*trace)
		if err != nil {
			return err
		}
		defer f.Close()
		traceW = f
	}
	servers, err := lspServers(lspFlags, !*useStdio, *workspace)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return errUsage
	}
	pm, err := pathmap.Parse(pathMaps)
	if err != nil {
		fmt.Fprintln(stderr, "--path-map:", err)
		return errUsage
	}
	if !pm.Empty() && !*useStdio {
		fmt.Fprintln(stderr, "--path-map needs --stdio: the terminal mode runs where Claude runs")
		return errUsage
	}
	excl, err := excludeSet(excludes)
	if err != nil {
		fmt.Fprintln(stderr, "--exclude:", err)
		return errUsage
	}
	ags, err := parseAgents(*agents)
	if err != nil {
		fmt.Fprintln(stderr, "--agents:", err)
		return errUsage
	}
	asm := assembly{Port: *port, Trace: traceW, Log: log, Keepalive: *keepalive, MaxClients: *maxClients, LSP: servers, Agents: ags, CodexIDE: *codexIDE}
	if *useStdio {
		return serveStdio(ctx, asm, *outlive, stdin, stdout, stdio.Options{Log: log, EditorTimeout: *edTimeout, PathMap: pm, Exclude: excl})
	}
	switch terminal.Auto(*auto) {
	case terminal.Ask, terminal.Accept, terminal.Reject:
	default:
		fmt.Fprintf(stderr, "--auto must be accept or reject, not %q\n", *auto)
		return errUsage
	}
	askTools, err := permission.ParseTools(*perms)
	if err != nil {
		fmt.Fprintln(stderr, "--permissions:", err)
		return errUsage
	}
	var folders []string
	if *workspace != "" {
		folders = []string{*workspace}
	}
	root, err := lspRoot(folders) // the folder languageServers' trust gate asks about
	if err != nil {
		return err
	}
	trustWorkspace(root, servers, stdin, stdout) // before the reviewer reads stdin
	ed := terminal.New(stdin, stdout, terminal.Auto(*auto), isTerminal(stdout))
	defer ed.Close()
	ed.AskAbout(askTools)
	openSet := false
	fs.Visit(func(f *flag.Flag) { openSet = openSet || f.Name == "open-cmd" })
	tmpl := *openCmd
	if !openSet {
		tmpl = terminal.VisualOpenCmd(os.Getenv("VISUAL"))
	}
	if tmpl != "" {
		o, err := terminal.ParseOpenCmd(tmpl)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return errUsage
		}
		ed.SetOpener(o, isCharDevice(stdout))
		fmt.Fprintf(stdout, "claude-ide-bridge: files Claude opens are opened with: %s\n", tmpl)
	}
	info := terminal.Info(*ideName)
	info.Exclude = excl
	b, err := asm.start(stdio.Hello{Editor: ed, Info: info, Folders: folders,
		TurnEnded: func(s review.Summary) { ed.Notice(s.String()) },
		Events: ide.Events{DiffsSkipped: func(_ ide.ClientID, path string) {
			ed.Notice("note: " + termtext.Line(ide.SkippedNotice(filepath.Base(path))))
		}},
		StateChanged: func(s claudestate.Session) { ed.Notice(stateLine(s)) },
		Asker:        ed.Asker})
	if _, ok := err.(lspError); ok {
		fmt.Fprintln(stderr, err.(lspError).err)
		return errUsage
	}
	if err != nil {
		return err
	}
	defer b.Close()
	ed.Bind(b.Model)
	ed.BindPermissions(b.Permissions.Decide)
	c, err := claudeCommand(b, claudecmd.Request{})
	// Escaped as `locks` prints it: a folder on $PATH may hold any byte.
	line := termtext.Line(c.Display)
	if err != nil { // claude only in the workspace, or nowhere: say so rather than a line that runs it
		line = termtext.Line(err.Error())
	}
	fmt.Fprintf(stdout, "claude-ide-bridge: %s IDE on 127.0.0.1:%d for %v\nlock file: %s\n\nIn the terminal where you run claude (--mcp-config adds the code tools):\n\n%s\n  %s\n\n",
		*ideName, b.Port(), b.Model.Folders(), b.LockPath(), indent(discovery.ExportLines(b.Port())), line)
	if c.Notice != "" {
		fmt.Fprintf(stdout, "note: %s\n\n", termtext.Line(c.Notice))
	}
	fmt.Fprintf(stdout, "language servers (getDiagnostics): %s\n\n", describeServers(servers, root))
	fmt.Fprint(stdout, agentLines(b, ags))
	ed.Run(ctx)
	fmt.Fprintln(stdout, "\nclaude-ide-bridge: stopping")
	return nil
}

// claudeCommand is how to start claude against b (claudecmd.Compose): serve's banner and
// every editor's claudeCommand request, for claude or an agent b serves.
func claudeCommand(b *running, r claudecmd.Request) (claudecmd.Command, error) {
	folders := b.Model.Folders()
	cwd := ""
	if len(folders) > 0 {
		cwd = folders[0]
	}
	agents := map[string]int{}
	for _, c := range b.agents() {
		agents[string(c.Agent())] = c.Port()
	}
	return claudecmd.Compose(r, claudecmd.Bridge{Env: b.Env(), Cwd: cwd, Folders: folders, Hooks: b.HookSettingsPath(), MCPConfig: b.MCPConfigPath(), Agents: agents})
}

// agentLines is serve's banner for the other agents asked for (--agents): where each is
// served and the line that starts it against this bridge, from claudeCommand as an editor's
// (its port variable picks this bridge when several serve the folder); or, in one line, why
// there is none: not served, or its program not found (what to install).
func agentLines(b *running, asked []companion.Agent) string {
	if len(asked) == 0 {
		return "Gemini and Qwen: not served (--agents none)\n\n"
	}
	served := map[companion.Agent]*companion.Server{}
	for _, c := range b.agents() {
		served[c.Agent()] = c
	}
	var out strings.Builder
	for _, a := range asked {
		c, err := claudeCommand(b, claudecmd.Request{Agent: string(a)})
		s := served[a]
		switch {
		case s == nil || err != nil:
			where := ""
			if s != nil {
				where = "served at " + s.URL() + ", but "
			}
			fmt.Fprintf(&out, "%s: %s%s\n\n", a.Title(), where, termtext.Line(err.Error()))
		default:
			fmt.Fprintf(&out, "%s: served at %s (%s); in the terminal where you run it (IDE mode on: /ide enable once):\n\n  %s\n\n",
				a.Title(), s.URL(), termtext.Line(s.Path()), termtext.Line(c.Shell))
		}
	}
	return out.String()
}

// stateLine is serve's line for a session's new state; the reason is the CLI's text, escaped.
func stateLine(s claudestate.Session) string {
	id := s.ID
	if len(id) > 8 {
		id = id[:8]
	}
	line := "Claude " + termtext.Line(id) + ": "
	switch s.State {
	case claudestate.Waiting:
		line += "waiting for you"
	case claudestate.Working:
		line += "working"
	case claudestate.Idle:
		line += "idle"
	case claudestate.Ended:
		line += "session ended"
	}
	if s.Reason != "" {
		line += " (" + termtext.Line(s.Reason) + ")"
	}
	return line
}

// lspServers turns the --lsp values into servers: EXT=COMMAND as given, "auto" adds the common
// servers found on $PATH for the extensions not given, "none" none at all. Without a value,
// auto when detect is set (serve in a terminal), none otherwise (--stdio: the editor says). The
// servers auto finds are kept only for languages with a file in dir (the current directory when
// "").
func lspServers(values []string, detect bool, dir string) ([]lsp.ServerConfig, error) {
	var explicit []lsp.ServerConfig
	auto, none := len(values) == 0 && detect, false
	for _, v := range values {
		switch v {
		case "auto":
			auto = true
		case "none":
			none = true
		default:
			s, err := lsp.ParseServer(v)
			if err != nil {
				return nil, err
			}
			explicit = append(explicit, s)
		}
	}
	if none {
		if len(values) > 1 {
			return nil, errors.New("--lsp none cannot be combined with other --lsp values")
		}
		return nil, nil
	}
	if auto {
		if dir == "" {
			dir, _ = os.Getwd()
		}
		return lsp.Merge(explicit, lsp.WithFiles(lsp.Detect(nil), dir)), nil
	}
	return explicit, nil
}

// serveStdio speaks the editor protocol on stdin/stdout (an editor plugin's sidecar). With
// outliving on (grace > 0, no path map) it first attaches the editor to a bridge that outlived
// its own editor for that workspace, if one listens, and otherwise keeps its own bridge after
// the editor went while Claude is connected (outlive.go).
func serveStdio(ctx context.Context, asm assembly, grace time.Duration, stdin io.Reader, stdout io.Writer, opt stdio.Options) error {
	// stdout belongs to the protocol: nothing else may write there.
	w, ok := stdout.(io.WriteCloser)
	if !ok {
		w = nopCloser{stdout}
	}
	outliving := grace > 0 && opt.PathMap.Empty()
	var r *running
	if !outliving {
		opt.Start = func(h stdio.Hello) (stdio.Bridge, error) {
			var err error
			if r, err = asm.start(h); err != nil {
				return nil, startError(err)
			}
			return editorBridge{r}, nil
		}
		err := stdio.Serve(ctx, stdin, w, opt)
		if r != nil {
			r.Close()
		}
		return err
	}
	first, err := readFirst(ctx, stdin)
	if err != nil {
		if errors.Is(err, io.EOF) || ctx.Err() != nil {
			return nil
		}
		return err
	}
	if first.isInit {
		if sock := socketFor(first.folders); sock != "" {
			if attached, err := relay(ctx, sock, first.raw, stdin, w, asm.Log); attached {
				return err
			}
		}
	}
	opt.Prefix = first.raw
	seat := slot.New()
	wb := &workspaceBridge{slot: seat, opt: opt, grace: grace, log: asm.Log, asm: asm}
	wb.opt.Prefix = nil
	opt.Shutdown = func() { wb.stopped.Store(true) }
	opt.Start = func(h stdio.Hello) (stdio.Bridge, error) {
		seat.Attach(slot.Editor{Editor: h.Editor, Info: h.Info, Code: h.Code, Events: h.Events})
		var err error
		wb.hello.Store(&h)
		r, err = asm.start(stdio.Hello{Editor: seat, Info: h.Info, Folders: h.Folders, PID: h.PID, Code: seat.Code(), Events: seat.Events(),
			TurnEnded: wb.turnEnded, StateChanged: wb.stateChanged, Asker: wb.asker, CodexIDE: h.CodexIDE})
		if err != nil {
			seat.Detach(nil)
			return nil, startError(err)
		}
		return editorBridge{r}, nil
	}
	err = stdio.Serve(ctx, stdin, w, opt)
	if r == nil {
		return err
	}
	w.Close() // that editor's session is over, whatever the bridge does now: it sees EOF
	wb.r = r
	wb.outlive(ctx)
	r.Close()
	if wb.away != nil {
		wb.away.Close()
	}
	return err
}

// indent puts two spaces before each line of s: serve's banner shows env's export lines
// (discovery.ExportLines, shell-quoted) as a block.
func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n  ") + "\n"
}

// parseAgents reads --agents: names of companion.Agent, comma-separated, or none.
func parseAgents(s string) ([]companion.Agent, error) {
	var out []companion.Agent
	for _, f := range strings.Split(s, ",") {
		switch a := companion.Agent(strings.TrimSpace(f)); a {
		case "", "none":
		case companion.Gemini, companion.Qwen:
			out = append(out, a)
		default:
			return nil, fmt.Errorf("unknown agent %q (gemini, qwen or none)", f)
		}
	}
	return out, nil
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, " ") }

func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0 && os.Getenv("NO_COLOR") == ""
}

// isCharDevice reports whether w is a terminal (whatever NO_COLOR says).
func isCharDevice(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// excludeSet compiles the --exclude flags: none given, the default; "none", nothing.
func excludeSet(globs []string) (*exclude.Set, error) {
	if len(globs) == 0 {
		return exclude.New(nil)
	}
	if len(globs) == 1 && globs[0] == "none" {
		return exclude.New([]string{})
	}
	return exclude.New(globs)
}
