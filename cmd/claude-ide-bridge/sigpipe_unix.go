//go:build unix

package main

import (
	"os/signal"
	"syscall"
)

// ignoreSIGPIPE makes a write to a closed stdout or stderr fail with EPIPE instead of killing
// the process: Go's default kills a program whose write to fd 1 or 2 meets a broken pipe. When
// Neovim quits it closes the pipe, then sends SIGTERM; the bridge must live to remove its lock
// (issue 15 item 9; internal/editors/stdio TestQuitWithStdoutGone).
func ignoreSIGPIPE() { signal.Ignore(syscall.SIGPIPE) }
