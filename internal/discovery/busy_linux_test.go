//go:build linux

package discovery

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// A bridge that cannot answer a connect within dialTimeout (its backlog full, or a machine too
// loaded to run the prober in time) is still running: its lock is not stale, and the next
// bridge's SweepOwn keeps it. Only a refused connect means nothing listens.
func TestBusyListenerNotStale(t *testing.T) {
	t.Parallel()
	port := fullListener(t)
	dir := t.TempDir()
	if _, err := WriteLock(dir, port, Lock{PID: os.Getpid(), AuthToken: "t", Bridge: BridgeMarker}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, strconv.Itoa(port)+".lock")
	if li := InspectLock(path); !li.PortAnswering || li.Stale() {
		t.Errorf("a listener that times out: PortAnswering %v, Stale %v; want true, false", li.PortAnswering, li.Stale())
	}
	if removed, err := SweepOwn([]string{dir}); err != nil || len(removed) != 0 {
		t.Fatalf("SweepOwn removed %v (%v): the lock of a running bridge", removed, err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}

// fullListener is a loopback port whose listener (backlog 0) never accepts, its queue filled:
// a connect to it times out, as one to a live listener does on a loaded machine.
func fullListener(t *testing.T) int {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	port := sa.(*syscall.SockaddrInet4).Port
	for range 8 {
		c, err := net.DialTimeout("tcp4", "127.0.0.1:"+strconv.Itoa(port), dialTimeout)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return port
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
	}
	t.Fatal("the listener's queue never filled: connects still succeed")
	return 0
}
