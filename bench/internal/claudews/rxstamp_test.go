package claudews

import (
	"context"
	"net"
	"runtime"
	"testing"
	"time"
)

// The fan-out's receipt is the kernel's receive time of the client's socket: after the
// sidecar's write began, and no later than the reader's own clock.
func TestStampedConnReportsTheKernelReceiveTime(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := dialStamped(ctx, "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	srv, ok := <-accepted
	if !ok {
		t.Fatal("accept failed")
	}
	defer srv.Close()

	if _, ok := rxTime(c); ok {
		t.Fatal("a receive time before anything was read")
	}
	// Linux turns receive timestamps on for the whole stack a moment after the first socket asks
	// (a deferred static key): until then segments carry none. The driver's clients ask long
	// before the fan-out; here, warm up (bounded) first.
	if runtime.GOOS == "linux" {
		buf := make([]byte, 64)
		for deadline := time.Now().Add(5 * time.Second); ; {
			if _, err := srv.Write([]byte("warm-up")); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Read(buf); err != nil {
				t.Fatal(err)
			}
			if _, ok := rxTime(c); ok {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("no receive timestamps within 5 s")
			}
			time.Sleep(time.Millisecond)
		}
	}
	for i := range 3 {
		before := time.Now()
		if _, err := srv.Write([]byte("selection")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond) // the data waits in the socket: the reader is late
		buf := make([]byte, 64)
		n, err := c.Read(buf)
		if err != nil || string(buf[:n]) != "selection" {
			t.Fatalf("read %q, %v", buf[:n], err)
		}
		after := time.Now()
		rx, ok := rxTime(c)
		if runtime.GOOS != "linux" {
			if ok {
				t.Fatal("a receive time where none is read")
			}
			return
		}
		if !ok {
			t.Fatalf("write %d: no receive time", i)
		}
		// The kernel stamped the data when it arrived, not when it was read 20 ms later.
		if rx.Before(before) || !rx.Before(after.Add(-10*time.Millisecond)) {
			t.Fatalf("write %d: receive time %v not between the write (%v) and the late read (%v)", i, rx, before, after)
		}
	}
}
