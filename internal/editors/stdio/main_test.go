package stdio_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"go.uber.org/goleak"
)

// bin is the claude-ide-bridge binary under test, built once for the package. The tests drive
// `serve --stdio` as a child process, the way an editor plugin does.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "stdio-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "claude-ide-bridge")
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race") // the child's races end it with status 66 and a report
	}
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	cmd := exec.Command(goTool, append(args, "github.com/claude-ide-bridge/claude-ide-bridge/cmd/claude-ide-bridge")...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the binary:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) { os.RemoveAll(dir) }))
}
