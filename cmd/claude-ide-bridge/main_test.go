package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"go.uber.org/goleak"
)

// bin is this command, built once: serve runs until a signal, so tests run it as a child.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cmd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "claude-ide-bridge")
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	cmd := exec.Command(goTool, "build", "-o", bin, ".")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the binary:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) { os.RemoveAll(dir) }))
}
