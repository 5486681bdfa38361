package discovery

import (
	"errors"
	"net"
	"syscall"
	"testing"
)

// tcpPort returns the port ln listens on and fails unless it is bound to 127.0.0.1.
func tcpPort(t *testing.T, ln net.Listener) int {
	t.Helper()
	a := ln.Addr().(*net.TCPAddr)
	if !a.IP.Equal(net.IPv4(127, 0, 0, 1)) {
		t.Fatalf("listening on %v, want 127.0.0.1 only", a)
	}
	return a.Port
}

// Spec: "The extension starts a WebSocket server on a random port (10000-65535)";
// facts: the CLI dials ws://127.0.0.1:<port>/.
func TestListenRandom(t *testing.T) {
	t.Parallel()
	for range 20 {
		ln, err := Listen(0)
		if err != nil {
			t.Fatal(err)
		}
		p := tcpPort(t, ln)
		ln.Close()
		if p < 10000 || p > 65535 {
			t.Errorf("port %d outside 10000-65535", p)
		}
	}
}

func TestListenFixed(t *testing.T) {
	t.Parallel()
	p := freePort(t)
	ln, err := Listen(p)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if got := tcpPort(t, ln); got != p {
		t.Fatalf("Listen(%d) bound %d", p, got)
	}
	// The same port again is taken: an error, never another port.
	if ln2, err := Listen(p); err == nil {
		ln2.Close()
		t.Fatalf("Listen(%d) twice succeeded", p)
	} else if !errors.Is(err, syscall.EADDRINUSE) {
		t.Errorf("err = %v, want EADDRINUSE", err)
	}
}

func TestListenBadPort(t *testing.T) {
	t.Parallel()
	for _, p := range []int{-1, 65536} {
		if ln, err := Listen(p); err == nil {
			ln.Close()
			t.Errorf("Listen(%d) succeeded", p)
		}
	}
}

// freePort returns a port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return tcpPort(t, ln)
}

// picker returns a pick func for listenPicking that returns ports in turn (repeating the last),
// and its count of calls.
func picker(ports ...int) (func() int, *int) {
	calls := 0
	return func() int {
		p := ports[min(calls, len(ports)-1)]
		calls++
		return p
	}, &calls
}

func TestListenRetriesTakenPort(t *testing.T) {
	t.Parallel()
	taken, err := Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	free := freePort(t)
	pick, calls := picker(tcpPort(t, taken), tcpPort(t, taken), free)

	ln, err := listenPicking(0, pick)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if got := tcpPort(t, ln); got != free || *calls != 3 {
		t.Errorf("bound %d after %d picks, want %d after 3", got, *calls, free)
	}
}

func TestListenGivesUp(t *testing.T) {
	t.Parallel()
	taken, err := Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	pick, calls := picker(tcpPort(t, taken))

	if ln, err := listenPicking(0, pick); err == nil {
		ln.Close()
		t.Fatal("Listen(0) succeeded with every port taken")
	}
	if *calls != 50 {
		t.Errorf("tried %d ports, want 50", *calls)
	}
}
