package stdio_test

import (
	"syscall"
	"testing"
)

// TestPipesGrown: the bridge enlarges its stdio pipes to 1 MiB (F_SETPIPE_SZ), so a 10 MiB
// openDiff crosses in ~10 wake-ups instead of ~160 (docs/performance.md).
func TestPipesGrown(t *testing.T) {
	t.Parallel()
	s := startSidecar(t, "line")
	s.initialize(t, s.initParams())
	rc, err := s.stdin.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var size uintptr
	var errno syscall.Errno
	rc.Control(func(fd uintptr) {
		const fGetPipeSz = 1032 // F_GETPIPE_SZ
		size, _, errno = syscall.Syscall(syscall.SYS_FCNTL, fd, fGetPipeSz, 0)
	})
	if errno != 0 {
		t.Fatal(errno)
	}
	if size != 1<<20 {
		t.Errorf("stdin pipe is %d bytes, want 1 MiB", size)
	}
}
