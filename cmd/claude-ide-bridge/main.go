// Command claude-ide-bridge is a Claude Code IDE server for any editor.
//
//	claude-ide-bridge serve [--workspace DIR] [--ide-name NAME] [--port N] [--auto accept|reject]
//	claude-ide-bridge serve --stdio            (run by an editor plugin)
//	claude-ide-bridge env [--workspace DIR]    (exports for the terminal running claude)
//	claude-ide-bridge locks [--clean]
//	claude-ide-bridge mcp-config [--workspace DIR | --port N] [--json | --path]
//	claude-ide-bridge mention PATH[:START[-END]]  (an @-mention from the shell)
//	claude-ide-bridge select PATH[:START[-END]]   (the current selection, from the shell)
//	claude-ide-bridge review [--turn N] [--json] [--revert PATH]  (what a turn of Claude changed)
//	claude-ide-bridge hook --port N   (run by Claude Code's hooks: its state reaches the bridge)
//	claude-ide-bridge probe [--port N | --lock FILE] [--checks LIST] [--diff] [--timeout D]
//	claude-ide-bridge doctor [--cwd DIR]   (why claude started here does not see the editor)
//	claude-ide-bridge trust [DIR | --shared DIR | --list | --revoke DIR | --check DIR]  (let language servers run in DIR)
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

const usage = `claude-ide-bridge connects the Claude Code CLI to any editor.

Usage:
  claude-ide-bridge serve [flags]     run an IDE server; review diffs in this terminal
  claude-ide-bridge serve --stdio     run as an editor plugin's sidecar (docs/editor-protocol.md)
  claude-ide-bridge env [flags]       print the exports for the terminal running claude
  claude-ide-bridge locks [--clean]   list IDE lock files; --clean removes stale ones
  claude-ide-bridge mcp-config        print the --mcp-config of a running bridge's code tools
  claude-ide-bridge mention PATH[:START[-END]]
                                      @-mention a file or lines (1-based) in Claude
  claude-ide-bridge select PATH[:START[-END]]
                                      make those lines the selection Claude sees
  claude-ide-bridge review [--turn N] [--json] [--revert PATH]
                                      what Claude's last turn (or turn N) changed; undo a file
  claude-ide-bridge probe [flags]     check any IDE server against the protocol
  claude-ide-bridge doctor [--cwd D]  explain why claude started here would not see the editor
  claude-ide-bridge trust [DIR]       trust a folder: let language servers run there
                                      (--shared DIR, --list, --revoke DIR, --check DIR)
  claude-ide-bridge version

Run "claude-ide-bridge <command> -h" for a command's flags.
`

func main() {
	ignoreSIGPIPE()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		args = []string{"serve"}
	}
	// SIGHUP (the terminal window closed) and SIGQUIT (Ctrl-\) end the bridge as SIGTERM does,
	// removing its lock and .mcp.json; SIGQUIT's goroutine dump is given up for that.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer stop()
	var err error
	switch args[0] {
	case "serve":
		err = cmdServe(ctx, args[1:], stdin, stdout, stderr)
	case "env":
		err = cmdEnv(args[1:], stdout, stderr)
	case "locks":
		err = cmdLocks(args[1:], stdout, stderr)
	case "mcp-config":
		err = cmdMCPConfig(args[1:], stdout, stderr)
	case "mention", "select":
		err = cmdMention(ctx, args[0], args[1:], stdout, stderr)
	case "review":
		err = cmdReview(ctx, args[1:], stdout, stderr)
	case "hook":
		err = cmdHook(ctx, args[1:], stdin, stdout, stderr)
	case "probe":
		err = cmdProbe(ctx, args[1:], stdout, stderr)
	case "doctor":
		err = cmdDoctor(args[1:], stdout, stderr)
	case "trust":
		err = cmdTrust(args[1:], stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, "claude-ide-bridge", version)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
	default:
		fmt.Fprintf(stderr, "unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	if err != nil {
		if err == errUsage {
			return 2
		}
		if err == errFindings {
			return 1
		}
		fmt.Fprintln(stderr, "claude-ide-bridge:", err)
		return 1
	}
	return 0
}

// version is the bridge's one version, stamped by make build and make dist (-ldflags "-X
// main.version=..."): `version`, initialize's result and both MCP servers' serverInfo say it.
// The default is the plugins' version, which TestVersionMatchesPlugins keeps in step.
var version = "0.1.0"

func newLogger(w io.Writer, verbose, quiet bool) *slog.Logger {
	level := slog.LevelInfo
	switch {
	case verbose:
		level = slog.LevelDebug
	case quiet:
		level = slog.LevelWarn
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}
