package claudews

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// stampConn is a client's TCP connection that asks the kernel for the receive time of what it
// reads (SO_TIMESTAMPNS). On loopback a segment is received inside the sender's write(2), so
// that time is when the sidecar wrote the message, before the driver's own goroutines and
// threads are scheduled to read it. Sixteen clients share this one process (2 Ps): in the
// fan-out, a reader goroutine often ran milliseconds after the sidecar's write because the
// driver's other readers had the CPU (per-sample timelines: about a third of the bridge's top
// 1 % of samples, docs/performance.md), which is the harness's delay, not the sidecar's.
type stampConn struct {
	*net.TCPConn
	rc   syscall.RawConn
	oob  []byte
	last atomic.Int64 // Unix ns of the newest data returned by Read; 0 if unknown
}

// dialStamped dials addr and enables receive timestamps; a socket that refuses them is used
// without (rxTime then reports none).
func dialStamped(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c, nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return c, nil
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
	}); err != nil || serr != nil {
		return c, nil
	}
	return &stampConn{TCPConn: tc, rc: rc, oob: make([]byte, 128)}, nil
}

// Read is recvmsg with the timestamp control message; deadlines apply as to the TCPConn's own
// Read (RawConn.Read waits in the runtime's poller).
func (c *stampConn) Read(p []byte) (int, error) {
	var (
		n, oobn int
		rerr    error
	)
	err := c.rc.Read(func(fd uintptr) bool {
		n, oobn, _, _, rerr = unix.Recvmsg(int(fd), p, c.oob, 0)
		return rerr != unix.EAGAIN
	})
	if err == nil {
		err = rerr
	}
	if err != nil {
		return 0, err
	}
	if n == 0 && len(p) > 0 {
		return 0, io.EOF
	}
	if msgs, perr := unix.ParseSocketControlMessage(c.oob[:oobn]); perr == nil {
		for _, m := range msgs {
			if m.Header.Level == unix.SOL_SOCKET && m.Header.Type == unix.SCM_TIMESTAMPNS && len(m.Data) >= 16 {
				// struct timespec on a 64-bit Linux: two native-endian int64s.
				sec := int64(binary.NativeEndian.Uint64(m.Data[0:8]))
				nsec := int64(binary.NativeEndian.Uint64(m.Data[8:16]))
				c.last.Store(sec*1e9 + nsec)
			}
		}
	}
	return n, nil
}

// rxTime is when the kernel received the newest data c's reader has read, if known.
func rxTime(c net.Conn) (time.Time, bool) {
	sc, ok := c.(*stampConn)
	if !ok {
		return time.Time{}, false
	}
	ns := sc.last.Load()
	return time.Unix(0, ns), ns != 0
}
