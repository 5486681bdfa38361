package terminal

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"runtime"

	"golang.org/x/term"
)

// screen reports whether out is a terminal and its height in lines (24 when unknown).
func screen(out io.Writer) (isTerm bool, rows int) {
	f, ok := out.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return false, 24
	}
	if _, h, err := term.GetSize(int(f.Fd())); err == nil && h > 0 {
		return true, h
	}
	return true, 24
}

// pagerArgv is the pager, as git chooses it: $PAGER when set (run by the shell: it is the
// user's own setting; the diff goes to its stdin, never into its command line), else
// `less -FRX` (quit if it fits, keep colours, leave the screen as it is). nil: no pager
// ($PAGER empty or "cat", or no shell).
func pagerArgv() []string {
	p, set := os.LookupEnv("PAGER")
	switch {
	case !set:
		return []string{"less", "-FRX"}
	case p == "" || p == "cat":
		return nil
	case runtime.GOOS == "windows":
		return []string{p}
	}
	return []string{"sh", "-c", p}
}

// showDiff shows a proposal's diff: through the pager when out is a terminal and the diff is
// longer than the screen (less two lines for the summary and the question), else directly. A
// pager that cannot start or fails is replaced by printing.
func (e *Editor) showDiff(p proposal) {
	isTerm, rows := screen(e.out)
	argv := pagerArgv()
	if !isTerm || argv == nil || p.lines() <= rows-2 {
		p.render(e.out, 0, e.paint)
		return
	}
	var buf bytes.Buffer
	p.render(&buf, 0, e.paint)
	cmd, err := e.command(context.Background(), argv[0], argv[1:]...)
	if err != nil { // not found outside the workspace: print instead
		e.out.Write(buf.Bytes())
		return
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = &buf, e.out, os.Stderr
	if os.Getenv("LESS") == "" && argv[0] != "less" {
		cmd.Env = append(cmd.Env, "LESS=FRX") // as git does, for a $PAGER that runs less
	}
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok { // did not start: print instead
			e.out.Write(buf.Bytes())
		}
	}
}
