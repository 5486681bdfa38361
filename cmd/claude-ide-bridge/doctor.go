package main

import (
	"errors"
	"flag"
	"io"
	"os"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/doctor"
)

// errFindings makes doctor exit 1 after a report with a failure (already printed).
var errFindings = errors.New("doctor found problems")

// cmdDoctor explains, on the machine where claude runs, why claude would not see the editor.
func cmdDoctor(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cwd := fs.String("cwd", "", "the directory claude starts in (default: the current directory)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if doctor.Print(stdout, doctor.Check(doctor.Env{Dirs: discovery.Dirs(), Cwd: *cwd, Getenv: os.Getenv, Agents: doctor.AgentsHere()})) {
		return errFindings
	}
	return nil
}
