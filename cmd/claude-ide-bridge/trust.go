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

// sharedWarning says what accepting folders other users can write means, for the prompt, the
// command's refusal and its usage.
const sharedWarning = "Language servers also search the folders above it for node_modules and toolchain files (go.work, tsconfig.json,\n" +
	"pyrightconfig.json ...): what another user puts in a folder they can write would run as you."

// cmdTrust is `claude-ide-bridge trust [DIR]` (status 1, naming them, when DIR or a folder above
// it is one other users can write), `trust --shared DIR` (accepting those), `trust --list`,
// `trust --revoke DIR` and `trust --check DIR` (status 0 when servers may start, 1 not).
func cmdTrust(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("trust", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: claude-ide-bridge trust [DIR]          trust DIR (default: the current directory) and the folders below it\n"+
			"       claude-ide-bridge trust --list          list the trusted folders\n"+
			"       claude-ide-bridge trust --revoke DIR    trust DIR no longer\n"+
			"       claude-ide-bridge trust --shared DIR    trust DIR although other users can write it or a folder above it\n"+
			"       claude-ide-bridge trust --check DIR     status 0 when language servers may start in DIR, 1 when not\n\n%s\n%s\n", trustEnables, sharedWarning)
	}
	var (
		list   = fs.Bool("list", false, "list the trusted folders")
		revoke = fs.Bool("revoke", false, "trust DIR no longer")
		check  = fs.Bool("check", false, "status 0 when language servers may start in DIR, 1 when not")
		shared = fs.Bool("shared", false, "trust DIR although other users can write it or a folder above it (the folders are named)")
	)
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	n := 0
	for _, b := range []bool{*list, *revoke, *check, *shared} {
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
			for _, x := range e.Shared {
				fmt.Fprintf(stdout, "\taccepting what other users put in %s\n", termtext.Line(x.Path))
			}
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
		by, err := s.Check(real)
		if err == nil {
			fmt.Fprintf(stdout, "trusted: %s (through %s)\n", termtext.Line(real), termtext.Line(by))
			return nil
		}
		fmt.Fprintf(stdout, "not trusted: %s\n%s\n", termtext.Line(real), termtext.Line(err.Error()))
		return errFindings
	}
	real, err := trust.Resolve(dir)
	if err != nil {
		return err
	}
	exposed, err := trust.Exposed(real)
	if err != nil {
		return err
	}
	if len(exposed) > 0 && !*shared {
		fmt.Fprintf(stderr, "not trusted: %s\n%s\n%s\n", termtext.Line(real), sharedWarning, listExposed(exposed))
		fmt.Fprintf(stderr, "If you accept that: claude-ide-bridge trust --shared %s\n", termtext.Line(real))
		return errFindings
	}
	real, err = s.Trust(real, exposed...)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "trusted: %s and the folders below it\n%s\n", termtext.Line(real), trustEnables)
	if len(exposed) > 0 {
		fmt.Fprintf(stdout, "Accepted, while they stay as they are now (another owner, folder or mode asks again):\n%s\n", listExposed(exposed))
	}
	if home, err := os.UserHomeDir(); err == nil && isAncestorOrSelf(real, home) {
		fmt.Fprintf(stdout, "warning: %s holds your home folder: every project under it is trusted now (revoke: claude-ide-bridge trust --revoke %s)\n", termtext.Line(real), termtext.Line(real))
	}
	return nil
}

// listExposed is one line per folder other users can write, for the terminal.
func listExposed(exposed []trust.Exposure) string {
	lines := make([]string, len(exposed))
	for i, x := range exposed {
		lines[i] = "  " + termtext.Line(x.Why)
	}
	return strings.Join(lines, "\n")
}

// isAncestorOrSelf reports whether dir is p or a folder above it (p resolved when it can be).
func isAncestorOrSelf(dir, p string) bool {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return userfile.Within(dir, p)
}

// trustWorkspace decides, before serve starts its language servers in root, whether they may
// start (trust.Gate). If not, and with stdin and stdout a terminal, it asks (default No), naming
// the folders above root that other users can write and why an earlier trust no longer holds,
// and records a yes with those folders accepted. It never asks otherwise (--auto, a pipe, a
// script): servers then stay off, which the "language servers" line and one log line say.
func trustWorkspace(root string, servers []lsp.ServerConfig, stdin io.Reader, stdout io.Writer) {
	if len(servers) == 0 {
		return
	}
	refused := trust.Gate(root)()
	if refused == nil {
		return
	}
	in, ok := stdin.(*os.File)
	if !ok || !isCharDevice(in) || !isCharDevice(stdout) {
		return
	}
	exposed, err := trust.Exposed(root)
	if err != nil {
		fmt.Fprintf(stdout, "claude-ide-bridge: language servers stay off: %s\n\n", termtext.Line(err.Error()))
		return
	}
	var r *trust.Refusal
	errors.As(refused, &r)
	names := make([]string, 0, len(servers))
	for _, s := range servers {
		names = append(names, s.Name())
	}
	fmt.Fprint(stdout, trustQuestion(root, names, r, exposed))
	answer, _ := readLine(in)
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		s, err := trust.Open("")
		if err == nil {
			_, err = s.Trust(root, exposed...)
		}
		if err != nil {
			fmt.Fprintf(stdout, "claude-ide-bridge: not trusted: %s\n", termtext.Line(err.Error()))
			return
		}
		fmt.Fprintf(stdout, "trusted (revoke: claude-ide-bridge trust --revoke %s)\n\n", termtext.Line(root))
	default:
		later := "claude-ide-bridge trust "
		if len(exposed) > 0 {
			later += "--shared "
		}
		fmt.Fprintf(stdout, "not trusted: language servers stay off (later: %s%s)\n\n", later, termtext.Line(root))
	}
}

// trustQuestion is what serve asks on a terminal before it starts in an untrusted folder where
// it found language servers (the README shows it: readme_test.go): why it asks (r, nil for a
// folder never trusted) and the folders other users can write that a yes accepts (exposed).
func trustQuestion(root string, servers []string, r *trust.Refusal, exposed []trust.Exposure) string {
	var b strings.Builder
	if r != nil && r.By != "" {
		fmt.Fprintf(&b, "claude-ide-bridge: %s is trusted, but other users can write folders its language servers search.\n", termtext.Line(root))
	} else {
		fmt.Fprintf(&b, "claude-ide-bridge: %s is not a trusted folder.\n", termtext.Line(root))
	}
	if r != nil {
		for _, why := range r.Changed {
			fmt.Fprintf(&b, "%s.\n", termtext.Line(why))
		}
	}
	fmt.Fprintf(&b, "%s\n", trustEnables)
	question := "Trust " + termtext.Line(root) + "? [y/N] "
	if len(exposed) > 0 {
		fmt.Fprintf(&b, "%s\n%s\n", sharedWarning, listExposed(exposed))
		question = "Trust " + termtext.Line(root) + ", and what other users put in the folders named above? [y/N] "
	}
	fmt.Fprintf(&b, "Language servers found: %s.\n%s", termtext.Line(strings.Join(servers, ", ")), question)
	return b.String()
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
// root is trusted, or while other users can write a folder they search.
func describeServers(servers []lsp.ServerConfig, root string) string {
	d := lsp.Describe(servers)
	if len(servers) == 0 {
		return d
	}
	err := trust.Gate(root)()
	if err == nil {
		return d
	}
	var r *trust.Refusal
	if errors.As(err, &r) && len(r.Exposed) > 0 {
		return "off while other users can write " + termtext.Line(r.Exposed[0].Path) + " (" + termtext.Line(r.Command()) + "): " + d
	}
	return "off until this folder is trusted (claude-ide-bridge trust " + termtext.Line(root) + "): " + d
}
