package main

import (
	"os"
	"syscall"
)

// growPipe gives a relay pipe the 1 MiB the bridge asks for its own (F_SETPIPE_SZ).
func growPipe(f *os.File) {
	if rc, err := f.SyscallConn(); err == nil {
		rc.Control(func(fd uintptr) { syscall.Syscall(syscall.SYS_FCNTL, fd, 1031 /* F_SETPIPE_SZ */, 1<<20) })
	}
}
