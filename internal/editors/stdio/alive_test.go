package stdio

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
)

// processGone tells a living process (this one) from one that has exited and been reaped.
func TestProcessGone(t *testing.T) {
	t.Parallel()
	if processGone(os.Getpid()) {
		t.Fatal("this process is reported gone")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	if runtime.GOOS == "windows" {
		cmd = exec.Command("cmd", "/c", "exit")
	}
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if !processGone(cmd.Process.Pid) {
		t.Fatalf("pid %d of an exited child is reported alive", cmd.Process.Pid)
	}
}
