package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/termtext"
)

// cmdMCPConfig prints how to give a CLI started elsewhere the code tools of the live bridge
// serving the current directory (or --workspace, or the one on --port): the --mcp-config JSON,
// and the file holding it (not a `claude mcp add`, which outlives the bridge). The token is read from that file
// (0600, next to the bridge's lock file; docs/security.md).
func cmdMCPConfig(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcp-config", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		workspace = fs.String("workspace", "", "directory to find a bridge for (default: the current directory)")
		port      = fs.Int("port", 0, "the bridge on this port, whatever its workspace")
		jsonOnly  = fs.Bool("json", false, "print only the JSON (for --mcp-config '<json>' or a file)")
		pathOnly  = fs.Bool("path", false, "print only the config file's path (for --mcp-config <path>)")
	)
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	li, _, err := findBridge(*workspace, *port)
	if err != nil {
		return err
	}
	dir := filepath.Dir(li.Path)
	c, err := discovery.ReadMCPConfig(dir, li.Port)
	if err != nil {
		return err
	}
	path := discovery.MCPConfigPath(dir, li.Port)
	data, _ := json.MarshalIndent(c, "", "  ")
	switch {
	case *pathOnly:
		fmt.Fprintln(stdout, path)
		return nil
	case *jsonOnly:
		fmt.Fprintln(stdout, string(data))
		return nil
	}
	fmt.Fprintf(stdout, "%s\n\nStart claude with the code tools of the bridge on port %d (the file is 0600 and\ngoes away with the bridge; the token stays off the command line):\n\n  claude --mcp-config %s\n",
		data, li.Port, termtext.ShellQuote(path))
	// No `claude mcp add` advice (issue 25 item 7): it would keep this port and token in
	// claude's config after the bridge is gone, and another local user who then listens on
	// the port would get the model's tool calls and answer them.
	fmt.Fprintf(stdout, "\nNot `claude mcp add`: it would keep this port in claude's config after the bridge is gone,\nwhere another local user could serve it.\n")
	return nil
}

// findBridge is the live bridge on port, else the newest live one whose workspace holds dir
// (default: the current directory), with dir resolved.
func findBridge(dir string, port int) (discovery.LockInfo, string, error) {
	locks, err := discovery.ListLocks(discovery.Dirs())
	if err != nil && len(locks) == 0 {
		return discovery.LockInfo{}, "", err
	}
	if port != 0 {
		for _, li := range locks {
			if li.Port != port {
				continue
			}
			if why := li.Live(); why != nil {
				return discovery.LockInfo{}, "", fmt.Errorf("no running IDE server on port %d: %s: %v", port, li.Path, why)
			}
			return li, "", nil
		}
		return discovery.LockInfo{}, "", fmt.Errorf("no running IDE server on port %d", port)
	}
	dir, err = discovery.Resolve(dir) // "": the current directory
	if err != nil {
		return discovery.LockInfo{}, "", err
	}
	if li, ok := discovery.Serving(locks, dir); ok {
		return li, dir, nil
	}
	return discovery.LockInfo{}, "", errors.New("no running IDE server serves " + dir + ` (start one with "claude-ide-bridge serve")`)
}
