// Package doctor explains why a Claude Code CLI started on this machine would not see an IDE:
// the checks of `claude-ide-bridge doctor`, and where the other agents' CLIs (Gemini, Qwen,
// Codex) find one (agents.go). Each check follows what the CLI does
// (../shared/claude-cli-facts.md, "Discovery"): it scans $CLAUDE_CONFIG_DIR/ide and
// ~/.claude/ide for *.lock, deletes locks whose pid is dead in its own process namespace,
// matches a lock by CLAUDE_CODE_SSE_PORT or by its symlink-resolved cwd lying in a workspace
// folder, connects only when exactly one matches, and honours http_proxy unless no_proxy holds
// the loopback address.
//
// Everything read from lock files is untrusted and printed through termtext.Line.
package doctor

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/permmode"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/termtext"
)

// Level grades a finding.
type Level int

const (
	OK Level = iota
	Warn
	Fail
)

func (l Level) String() string {
	return [...]string{"ok  ", "warn", "FAIL"}[l]
}

// Finding is one line of the report.
type Finding struct {
	Level Level
	Text  string // already escaped
}

// Env is what the checks look at: the CLI's view of this machine.
type Env struct {
	Dirs   []string // lock directories the CLI scans (discovery.Dirs())
	Cwd    string   // where claude would start ("": the current directory)
	Getenv func(string) string
	// ManagedSettings is the administrator's Claude settings file ("": permmode.ManagedSettings).
	ManagedSettings string
	// Agents, when set: the other agents' discovery is explained too (AgentsHere).
	Agents *Agents
}

// Check runs every check. It only reads: it never removes a lock.
func Check(e Env) []Finding {
	var out []Finding
	add := func(l Level, format string, a ...any) { out = append(out, Finding{l, fmt.Sprintf(format, a...)}) }
	esc := termtext.Line
	if r, err := discovery.Resolve(e.Cwd); err == nil {
		e.Cwd = r // the CLI's cwd is absolute, symlinks resolved
	}
	cwd := e.Cwd

	out = append(out, proxy(e.Getenv)...)
	out = append(out, permissionMode(e))
	if e.Agents != nil {
		out = append(out, agents(e.Agents)...)
	}

	ssePort := 0
	if s := e.Getenv("CLAUDE_CODE_SSE_PORT"); s != "" {
		p, err := strconv.Atoi(s)
		if err != nil {
			add(Fail, "CLAUDE_CODE_SSE_PORT=%s is not a port number", esc(s))
		}
		ssePort = p
	} else {
		add(Warn, "CLAUDE_CODE_SSE_PORT is not set: claude connects at start only with it (or with --ide); else type /ide in claude")
	}

	locks, err := discovery.ListLocks(e.Dirs)
	if err != nil {
		add(Warn, "reading lock directories: %s", esc(err.Error()))
	}
	dirs := make([]string, len(e.Dirs))
	for i, d := range e.Dirs {
		dirs[i] = esc(d)
	}
	if len(locks) == 0 {
		add(Fail, "no lock file in %s: no IDE server runs for claude on this machine. The bridge must run where claude runs "+
			"(remote editors: start it through the remote command); bridge and claude must see the same CLAUDE_CONFIG_DIR",
			strings.Join(dirs, " or "))
		return out
	}
	var matching []discovery.LockInfo
	for _, li := range locks {
		name := fmt.Sprintf("lock %s", esc(li.Path))
		if li.ParseErr != nil {
			add(Fail, "%s is unreadable (%s): claude deletes it", name, esc(li.ParseErr.Error()))
			continue
		}
		l := li.Lock
		desc := fmt.Sprintf("%s (%s, port %d, pid %d, folders %s)", name, esc(l.IDEName), li.Port, l.PID, escList(l.WorkspaceFolders))
		live := true
		if li.Port == 0 {
			add(Fail, "%s: the name is not <port>.lock, claude cannot take a port from it", desc)
			live = false
		}
		if l.PID <= 0 || !li.PIDAlive {
			add(Fail, "%s: pid %d is not alive here, claude deletes this lock at start. Most often the bridge was killed "+
				"or crashed: `claude-ide-bridge locks --clean` removes the lock. A pid of another machine or container "+
				"means the bridge runs there: run it where claude runs", desc, l.PID)
			live = false
		}
		if li.Port != 0 && !li.PortAnswering {
			add(Fail, "%s: nothing answers on 127.0.0.1:%d: the bridge died (a lock naming a live editor's pid); restart it "+
				"from the editor, and `claude-ide-bridge locks --clean` removes the lock", desc, li.Port)
			live = false
		}
		// The one liveness check of every command that sends or hands out a token
		// (discovery.Live): a port another user took over is never "ok".
		if why := li.Live(); live && why != nil {
			add(Fail, "%s: %s; claude would send it the token. Stop what holds the port, or restart the editor's bridge", desc, esc(why.Error()))
			live = false
		}
		if l.Transport != "ws" {
			add(Warn, "%s: transport %s, not \"ws\": claude takes it for the old HTTP+SSE protocol", desc, esc(l.Transport))
		}
		match := ssePort != 0 && li.Port == ssePort
		for _, f := range l.WorkspaceFolders {
			match = match || discovery.InFolder(cwd, f)
		}
		if !match {
			add(Warn, "%s: does not serve %s (neither CLAUDE_CODE_SSE_PORT nor a workspace folder holding it)", desc, esc(cwd))
			continue
		}
		if live {
			add(OK, "%s serves %s", desc, esc(cwd))
			matching = append(matching, li)
		}
	}
	if ssePort != 0 {
		found := false
		for _, li := range locks {
			found = found || li.Port == ssePort
		}
		if !found {
			add(Fail, "CLAUDE_CODE_SSE_PORT=%d but no lock file has that port in %s: a bridge on another machine "+
				"or with another CLAUDE_CONFIG_DIR", ssePort, strings.Join(dirs, " or "))
		}
	}
	switch len(matching) {
	case 0:
		add(Fail, "no live IDE server serves %s: claude started here will not see the editor", esc(cwd))
	case 1:
		add(OK, "claude started in %s connects to %s on port %d", esc(cwd), esc(matching[0].Lock.IDEName), matching[0].Port)
	default:
		add(Warn, "%d live IDE servers serve %s: claude connects at start only when exactly one does (set CLAUDE_CODE_SSE_PORT)", len(matching), esc(cwd))
	}
	return out
}

func escList(ss []string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = termtext.Line(s)
	}
	return "[" + strings.Join(out, ", ") + "]"
}

// proxy: "the CLI honours http_proxy; set no_proxy/NO_PROXY to include 127.0.0.1,localhost,::1".
func proxy(getenv func(string) string) []Finding {
	var set []string
	for _, k := range []string{"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"} {
		if getenv(k) != "" {
			set = append(set, k)
		}
	}
	if len(set) == 0 {
		return nil
	}
	entries := strings.Split(getenv("no_proxy")+","+getenv("NO_PROXY"), ",")
	for _, e := range entries {
		switch strings.TrimSpace(e) {
		case "127.0.0.1", "*", "127.0.0.0/8":
			return []Finding{{OK, fmt.Sprintf("%s set, and no_proxy holds 127.0.0.1", strings.Join(set, ", "))}}
		}
	}
	return []Finding{{Fail, fmt.Sprintf("%s set but no_proxy/NO_PROXY lacks 127.0.0.1: claude would send its IDE connection to the proxy; "+
		"export no_proxy=127.0.0.1,localhost,::1 NO_PROXY=127.0.0.1,localhost,::1", strings.Join(set, ", "))}}
}

// Print writes the findings, one a line, and reports whether any failed.
func Print(w io.Writer, fs []Finding) (failed bool) {
	for _, f := range fs {
		fmt.Fprintf(w, "%s  %s\n", f.Level, f.Text)
		failed = failed || f.Level == Fail
	}
	return failed
}

// permissionMode: facts, "In auto mode (and in acceptEdits, bypassPermissions, dontAsk) Edit and
// Write are approved by the CLI itself and written to disk: openDiff is not called". A mode set
// by a settings file in force is a warning; none set is fine for the bridge's own command lines
// (they add --permission-mode default), which a plain `claude` needs too.
func permissionMode(e Env) Finding {
	d := permmode.Decide(nil, permmode.Env{Cwd: e.Cwd, Home: e.Getenv("HOME"), ConfigDir: e.Getenv("CLAUDE_CONFIG_DIR"), Managed: e.ManagedSettings})
	esc := termtext.Line
	for _, p := range d.Problems {
		return Finding{Warn, "Claude settings " + esc(p)}
	}
	switch {
	case d.SkipsDiffs:
		return Finding{Warn, esc(d.Warning())}
	case d.Add != nil:
		return Finding{OK, "no permission mode in Claude's settings: :ClaudeCode, Nova's command and serve's printed line start claude with " +
			"--permission-mode default, so each edit is a diff; a plain `claude` starts in auto mode and shows none"}
	}
	return Finding{OK, fmt.Sprintf("permission mode %s (set by %s): each edit is shown as a diff", esc(d.Mode), esc(d.Source))}
}
