package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/lsp"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/termtext"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/trust"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/userfile"
)

// trustEnables says what trusting a folder lets run, for the prompt and the command.
const trustEnables = "Trusting a folder lets the bridge start language servers there (getDiagnostics and the code tools);\n" +
	"they read the folder's toolchain files, node_modules and build scripts, so they can run code it contains."

// cmdTrust is `claude-ide-bridge trust [DIR]`, `trust --list`, `trust --revoke DIR` and
// `trust --check DIR` (status 0 trusted, 1 not).
func cmdTrust(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("trust", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: claude-ide-bridge trust [DIR]          trust DIR (default: the current directory) and the folders below it\n"+
			"       claude-ide-bridge trust --list          list the trusted folders\n"+
			"       claude-ide-bridge trust --revoke DIR    trust DIR no longer\n"+
			"       claude-ide-bridge trust --check DIR     status 0 when DIR is trusted, 1 when not\n\n%s\n", trustEnables)
	}
	var (
		list   = fs.Bool("list", false, "list the trusted folders")
		revoke = fs.Bool("revoke", false, "trust DIR no longer")
		check  = fs.Bool("check", false, "status 0 when DIR is trusted, 1 when not")
	)
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	n := 0
	for _, b := range []bool{*list, *revoke, *check} {
		if b {
			n++
		}
	}
	if n > 1 || fs.NArg() > 1 || (*list && fs.NArg() > 0) {
		fs.Usage()
		return errUsage
	}
	dir := fs.Arg(0)
	if dir == "" {
		dir = "."
	}
	s, err := trust.Open("")
	if err != nil {
		return err
	}
	switch {
	case *list:
		es, err := s.List()
		if err != nil {
			return err
		}
		if len(es) == 0 {
			fmt.Fprintf(stdout, "no trusted folders (store: %s)\n", termtext.Line(s.Path()))
		}
		for _, e := range es {
			fmt.Fprintf(stdout, "%s\t(since %s)\n", termtext.Line(e.Path), e.Trusted.Local().Format("2006-01-02 15:04"))
		}
		return nil
	case *revoke:
		real, err := s.Revoke(dir)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "no longer trusted: %s (language servers already running there stop when their bridge does)\n", termtext.Line(real))
		return nil
	case *check:
		real, err := trust.Resolve(dir)
		if err != nil {
			return err
		}
		if by, ok := s.Trusted(real); ok {
			fmt.Fprintf(stdout, "trusted: %s (through %s)\n", termtext.Line(real), termtext.Line(by))
			return nil
		}
		fmt.Fprintf(stdout, "not trusted: %s\n", termtext.Line(real))
		return errFindings
	}
	real, err := s.Trust(dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "trusted: %s and the folders below it\n%s\n", termtext.Line(real), trustEnables)
	if home, err := os.UserHomeDir(); err == nil && isAncestorOrSelf(real, home) {
		fmt.Fprintf(stdout, "warning: %s holds your home folder: every project under it is trusted now (revoke: claude-ide-bridge trust --revoke %s)\n", termtext.Line(real), termtext.Line(real))
	}
	return nil
}

// isAncestorOrSelf reports whether dir is p or a folder above it (p resolved when it can be).
func isAncestorOrSelf(dir, p string) bool {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return userfile.Within(dir, p)
}

// trustWorkspace decides, before serve starts its language servers in root, whether root is
// trusted. Untrusted, and with stdin and stdout a terminal, it asks (default No) and records a
// yes. It never asks otherwise (--auto, a pipe, a script): servers then stay off, which the
// "language servers" line and one log line say.
func trustWorkspace(root string, servers []lsp.ServerConfig, stdin io.Reader, stdout io.Writer) {
	if len(servers) == 0 || trust.Gate(root)() == nil {
		return
	}
	in, ok := stdin.(*os.File)
	if !ok || !isCharDevice(in) || !isCharDevice(stdout) {
		return
	}
	names := make([]string, 0, len(servers))
	for _, s := range servers {
		names = append(names, s.Name())
	}
	fmt.Fprintf(stdout, "claude-ide-bridge: %s is not a trusted folder.\n%s\nLanguage servers found: %s.\nTrust %s? [y/N] ",
		termtext.Line(root), trustEnables, termtext.Line(strings.Join(names, ", ")), termtext.Line(root))
	answer, _ := readLine(in)
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		s, err := trust.Open("")
		if err == nil {
			_, err = s.Trust(root)
		}
		if err != nil {
			fmt.Fprintf(stdout, "claude-ide-bridge: not trusted: %s\n", termtext.Line(err.Error()))
			return
		}
		fmt.Fprintf(stdout, "trusted (revoke: claude-ide-bridge trust --revoke %s)\n\n", termtext.Line(root))
	default:
		fmt.Fprintf(stdout, "not trusted: language servers stay off (later: claude-ide-bridge trust %s)\n\n", termtext.Line(root))
	}
}

// readLine reads one line a byte at a time: the terminal reviewer reads stdin next, and a
// buffered reader would keep what it read ahead.
func readLine(r io.Reader) (string, error) {
	var b []byte
	one := make([]byte, 1)
	for len(b) < 256 {
		n, err := r.Read(one)
		if n == 1 {
			if one[0] == '\n' {
				break
			}
			b = append(b, one[0])
		}
		if err != nil {
			if errors.Is(err, io.EOF) && len(b) > 0 {
				break
			}
			return string(b), err
		}
	}
	return string(b), nil
}

// describeServers is serve's "language servers" line: the servers, or that they are off until
// root is trusted.
func describeServers(servers []lsp.ServerConfig, root string) string {
	d := lsp.Describe(servers)
	if len(servers) == 0 || trust.Gate(root)() == nil {
		return d
	}
	return "off until this folder is trusted (claude-ide-bridge trust " + termtext.Line(root) + "): " + d
}

// workspaceRoot is the absolute workspace folder: dir, or the current directory.
func workspaceRoot(dir string) (string, error) {
	if dir == "" {
		return os.Getwd()
	}
	return filepath.Abs(dir)
}
