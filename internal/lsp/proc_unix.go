//go:build unix

package lsp

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the server in a process group of its own, so that kill also ends the
// helpers it started (typescript-language-server's tsserver).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killProcess(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	cmd.Process.Kill()
}
