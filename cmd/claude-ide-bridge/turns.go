package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/remote"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/review"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/termtext"
)

// cmdReview is `review [--turn N] [--json] [--revert PATH]`: what a turn of Claude changed, from
// the bridge serving the current directory (found and authenticated as `mention` does).
func cmdReview(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("review", flag.ContinueOnError)
	fs.SetOutput(stderr)
	turn := fs.Int("turn", 0, "the turn to show (numbers as listed; default: the last turn that changed a file)")
	asJSON := fs.Bool("json", false, "print the turn as JSON (files, status, +/- counts, unified diffs)")
	revert := fs.String("revert", "", "put this file back as it was at the turn's start (a file Claude created is removed)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() != 0 {
		fmt.Fprintln(stderr, "usage: claude-ide-bridge review [--turn N] [--json] [--revert PATH]")
		return errUsage
	}
	dir, err := remote.Resolve(".")
	if err != nil {
		return err
	}
	b, err := remote.Find(discovery.Dirs(), dir)
	if errors.Is(err, remote.ErrNoBridge) {
		return fmt.Errorf("no running claude-ide-bridge serves %s: start `claude-ide-bridge serve` here, or open it in an editor with the plugin", termtext.Line(dir))
	}
	if err != nil {
		return err
	}
	req := review.Request{Turn: *turn}
	if path := *revert; path != "" {
		// A relative path is the current directory's when it names a file there, else the
		// workspace's, as review lists it (issue 39 item 10: the listing's sub/a.txt, typed from
		// sub/, was refused).
		if !filepath.IsAbs(path) {
			if _, err := os.Lstat(path); err != nil {
				path = filepath.Join(b.Folder, path)
			}
		}
		// The path as the bridge has it (absolute, symlinks resolved); a removed file's
		// folder is resolved instead.
		p, err := remote.Resolve(path)
		if err != nil {
			if p, err = resolveMissing(path); err != nil {
				return err
			}
		}
		req.Revert = p
	}
	var a review.Answer
	if err := remote.Post(ctx, b, remote.PathReview, req, &a, 1<<30); err != nil {
		return errors.New(termtext.Line(err.Error()))
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(a)
	}
	printReview(stdout, a, b.Folder)
	return nil
}

// resolveMissing resolves the folder of a path that does not exist (any more).
func resolveMissing(p string) (string, error) {
	dir, err := remote.Resolve(filepath.Dir(p))
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.Base(p)), nil
}

// printReview prints a turn for a person: its summary, a line per file, then the diffs. Every
// path and line of text is escaped (termtext): a file can hold anything.
func printReview(w io.Writer, a review.Answer, folder string) {
	r := a.Report
	if a.Reverted != "" {
		if _, err := os.Lstat(a.Reverted); errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(w, "removed %s (Claude created it in turn %d)\n\n", termtext.Line(shortPath(a.Reverted, folder)), r.Turn)
		} else {
			fmt.Fprintf(w, "reverted %s to its text at the start of turn %d\n\n", termtext.Line(shortPath(a.Reverted, folder)), r.Turn)
		}
	}
	state := "ended"
	if r.Running {
		state = "running"
	}
	fmt.Fprintf(w, "turn %d (%s): %s\n", r.Turn, state, r.Summary)
	for _, f := range r.Files {
		note := f.By
		if f.By == "other" {
			note = "other means; earlier text: " + string(f.From)
		}
		extra := ""
		switch {
		case f.Binary:
			extra = " binary, not diffed"
		case f.TooBig:
			extra = " too big to keep, not diffed"
		}
		fmt.Fprintf(w, "  %-8s %s  +%d -%d  (%s)%s\n", f.Status, termtext.Line(shortPath(f.Path, folder)), f.Added, f.Deleted, note, extra)
	}
	if r.Dropped > 0 {
		fmt.Fprintf(w, "  ... and %s more, not recorded\n", review.Files(r.Dropped))
	}
	for _, f := range r.Files {
		if f.Diff != "" {
			fmt.Fprintf(w, "\n%s", termtext.Text(f.Diff))
		}
	}
	if len(a.Turns) > 1 {
		fmt.Fprintf(w, "\nturns kept:")
		for _, s := range a.Turns {
			fmt.Fprintf(w, " %d (%s, +%d -%d)", s.Turn, review.Files(s.Files), s.Added, s.Deleted)
		}
		fmt.Fprintln(w)
	}
}
