package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/termtext"
)

// cmdProbe checks any IDE server (this bridge, claudecode.nvim, VS Code...) against the
// protocol, through its lock file as the CLI finds it. It fails when a check fails.
func cmdProbe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("probe", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		port    = fs.Int("port", 0, "probe the server of <lock dir>/<port>.lock")
		lock    = fs.String("lock", "", "probe the server of this lock file")
		checks  = fs.String("checks", "", "comma-separated checks to run (default: all but open-diff): "+strings.Join(probe.Checks, ","))
		diff    = fs.Bool("diff", false, "also send an openDiff on a temporary file; only for servers that answer by themselves (serve --auto accept)")
		timeout = fs.Duration("timeout", 10*time.Second, "time limit per check")
	)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: claude-ide-bridge probe [--port N | --lock FILE] [--checks LIST] [--diff]\n\nWithout --port or --lock: the newest live IDE server whose workspace contains the current directory.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 || (*port != 0 && *lock != "") {
		if err == nil {
			fs.Usage()
		}
		return errUsage
	}
	var (
		target probe.Target
		err    error
	)
	switch {
	case *lock != "":
		target, err = probe.FromLock(*lock)
	default:
		wd, _ := os.Getwd()
		target, err = probe.FindTarget(discovery.Dirs(), *port, wd)
	}
	if err != nil {
		return err
	}
	var names []string
	for _, n := range strings.Split(*checks, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	results, err := probe.Run(ctx, target, probe.Options{Checks: names, Diff: *diff, Timeout: *timeout})
	if err != nil {
		return err
	}
	// The lock's ideName is any IDE's text: escaped, as every lock field printed (termtext).
	fmt.Fprintf(stdout, "probed %s on 127.0.0.1:%d (%s)\n\n", termtext.Line(target.IDEName), target.Port, termtext.Line(target.Lock))
	probe.WriteTable(stdout, results)
	failed := 0
	for _, r := range results {
		if r.Status == probe.Fail {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d checks failed", failed, len(results))
	}
	return nil
}
