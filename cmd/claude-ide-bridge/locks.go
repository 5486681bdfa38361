package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/attach"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/claudecmd"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/termtext"
)

func cmdLocks(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("locks", flag.ContinueOnError)
	fs.SetOutput(stderr)
	clean := fs.Bool("clean", false, "remove stale lock files (dead pid, or ours with a closed port, or a port held by another user); only <digits>.lock regular files in a real directory, never one whose port answers; and dead bridges' attach sockets (ws-*.sock of this user on which nothing listens)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	dirs := discovery.Dirs()
	if *clean {
		removed, err := discovery.CleanLocks(dirs)
		// A killed bridge also leaves its attach socket (issue 39 item 10).
		for _, d := range dirs {
			socks, _ := attach.CleanStale(d)
			removed = append(removed, socks...)
		}
		for _, p := range removed {
			fmt.Fprintln(stdout, "removed", termtext.Line(p))
		}
		if len(removed) == 0 {
			fmt.Fprintln(stdout, "no stale lock files or sockets")
		}
		// What --clean may never touch is reported, so the user can look at it.
		left, _ := discovery.ListLocks(dirs)
		for _, li := range left {
			if li.Foreign != "" {
				fmt.Fprintf(stdout, "left alone: %s (%s)\n", termtext.Line(li.Path), li.Foreign)
			}
		}
		return err
	}
	locks, err := discovery.ListLocks(dirs)
	discovery.FormatLocks(stdout, locks)
	return err
}

// cmdEnv prints the exports of the live bridge serving the current directory (or --workspace).
func cmdEnv(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("env", flag.ContinueOnError)
	fs.SetOutput(stderr)
	workspace := fs.String("workspace", "", "directory to find a bridge for (default: the current directory)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	li, dir, err := findBridge(*workspace, 0)
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, discovery.ExportLines(li.Port))
	for _, f := range li.Lock.WorkspaceFolders {
		if discovery.InFolder(dir, f) {
			fmt.Fprint(stdout, claudeLineComment(li, f))
			break
		}
	}
	return nil
}

// claudeLineComment is serve's claude line for the bridge of li (claudecmd.Compose) as shell
// comments, so that `eval "$(claude-ide-bridge env)"` still only exports: a claude started
// without the bridge's flags may write its edits without diffs (issue 39). Escaped: a newline in
// a path must not end the comment.
func claudeLineComment(li discovery.LockInfo, folder string) string {
	dir := filepath.Dir(li.Path)
	b := claudecmd.Bridge{Env: discovery.Env(li.Port), Cwd: folder, Folders: li.Lock.WorkspaceFolders}
	if p := discovery.HookSettingsPath(dir, li.Port); regularFile(p) {
		b.Hooks = p
	}
	if p := discovery.MCPConfigPath(dir, li.Port); regularFile(p) {
		b.MCPConfig = p
	}
	c, err := claudecmd.Compose(claudecmd.Request{}, b)
	if err != nil { // only the workspace has a claude: say so, print no line to run it
		return "# " + termtext.Line(err.Error()) + "\n"
	}
	out := "# start claude with the bridge's flags (Edit/Write as diffs, its hooks, the code tools):\n# " + termtext.Line(c.Display) + "\n"
	if c.Notice != "" {
		out += "# note: " + termtext.Line(c.Notice) + "\n"
	}
	return out
}

func regularFile(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode().IsRegular()
}
