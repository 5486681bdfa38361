package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/remote"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/termtext"
)

// cmdMention is `mention PATH[:START[-END]]` and `select PATH[:START[-END]]`: it finds the bridge
// serving PATH's workspace through the lock files and asks it to send an @-mention (mention) or to
// make those lines the current selection (select). No bridge: an error, so exit status 1.
func cmdMention(ctx context.Context, verb string, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet(verb, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: claude-ide-bridge %s PATH[:START[-END]]   (lines are 1-based, as editors show them)\n", verb)
	}
	quiet := fs.Bool("q", false, "print nothing on success")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	t, err := remote.ParseTarget(fs.Arg(0))
	if err != nil {
		return err
	}
	path, err := remote.Resolve(t.Path)
	if err != nil {
		return err
	}
	b, err := remote.Find(discovery.Dirs(), path)
	if errors.Is(err, remote.ErrNoBridge) {
		why := ""
		if err != remote.ErrNoBridge { // locks skipped, and why (e.g. a port another user holds)
			why = " (" + termtext.Line(strings.TrimPrefix(err.Error(), remote.ErrNoBridge.Error()+" (")) + ""
		}
		return fmt.Errorf("no running claude-ide-bridge serves %s: start `claude-ide-bridge serve` in its workspace, or open it in an editor with the plugin%s", termtext.Line(path), why)
	}
	if err != nil {
		return err
	}
	req := remote.Request{FilePath: path}
	if t.Start > 0 {
		req.Lines = []int{t.Start, t.End}
	}
	// Paths and the lock's ideName are shown escaped (termtext): a file name can hold anything.
	where := termtext.Line(remote.Target{Path: shortPath(path, b.Folder), Start: t.Start, End: t.End}.String())
	endpoint := remote.PathMention
	if verb == "select" {
		endpoint = remote.PathSelect
	}
	reply, err := remote.Send(ctx, b, endpoint, req)
	if err != nil {
		return errors.New(termtext.Line(err.Error())) // the bridge's reason names the path
	}
	if *quiet {
		return nil
	}
	switch {
	case reply.Held:
		fmt.Fprintf(stdout, "mentioned %s: no Claude session is connected to %s yet; it is held for 30 s\n", where, termtext.Line(b.IDE))
	case verb == "mention":
		fmt.Fprintf(stdout, "mentioned %s to %d Claude session(s)\n", where, reply.Sessions)
	default:
		fmt.Fprintf(stdout, "selected %s (%d Claude session(s) listening)\n", where, reply.Sessions)
	}
	return nil
}

// shortPath is path relative to the workspace folder, for messages.
func shortPath(path, folder string) string {
	if rel, err := filepath.Rel(folder, path); err == nil {
		return rel
	}
	return path
}
