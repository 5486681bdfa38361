package discovery

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"
)

// Live is the one liveness check of every command that sends a lock's token, or hands it to
// someone who will (mention, select, doctor, probe, env, mcp-config): nil when the lock leads to
// a running IDE server of this user, else an error saying why not. Live means: the lock was read,
// it names a port and a pid, the pid is alive, something answers on the port, and (Linux) the
// socket listening there belongs to this user. A port another user holds (the bridge died and
// they took it) is never live, whatever the pid: the token would go to them (issue 25 item 3).
// Who owns the socket is the check, not which pid: a stdio bridge's lock names its editor's pid,
// not its own, and a process of the same user can read the lock anyway.
func (li LockInfo) Live() error {
	switch {
	case li.ParseErr != nil:
		return fmt.Errorf("unreadable: %w", li.ParseErr)
	case li.Foreign != "":
		return errors.New(li.Foreign)
	case li.Port == 0:
		return errors.New("the name is not <port>.lock")
	case li.Lock.PID <= 0 || !li.PIDAlive:
		return fmt.Errorf("pid %d is not alive here", li.Lock.PID)
	case li.PortForeign:
		return fmt.Errorf("port %d is held by another user (uid %d), not by the IDE that wrote the lock: nothing is sent to it", li.Port, li.PortUID)
	case !li.PortAnswering:
		return fmt.Errorf("nothing answers on 127.0.0.1:%d", li.Port)
	case uidsKnown && !li.PortUIDKnown:
		return fmt.Errorf("no listener of this user found on port %d", li.Port)
	}
	return nil
}

// ErrPortForeign is DialOwn's refusal of a connection accepted by another user's socket.
var ErrPortForeign = errors.New("held by another user")

// DialOwn connects to 127.0.0.1:port and, where the OS shows socket owners (Linux), makes sure
// the socket that accepted the connection belongs to this user before anything is written on it:
// Live checked the listener a moment before, and this closes the gap in which the server could
// die and another user take its port. The connection is closed and ErrPortForeign returned
// otherwise; no byte has been sent.
func DialOwn(ctx context.Context, port int) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp4", net.JoinHostPort(listenHost, strconv.Itoa(port)))
	if err != nil || !uidsKnown {
		return c, err
	}
	from := c.LocalAddr().(*net.TCPAddr).Port
	// The server's end is listed once the handshake is done, which on loopback is before
	// connect returns; a few retries cover a slow softirq.
	for i := 0; ; i++ {
		uid, ok := peerUID(port, from)
		if ok && uid == os.Geteuid() {
			return c, nil
		}
		if ok || i == 20 {
			c.Close()
			if ok {
				return nil, fmt.Errorf("127.0.0.1:%d is %w (uid %d): nothing sent", port, ErrPortForeign, uid)
			}
			return nil, fmt.Errorf("127.0.0.1:%d: the accepting socket is not listed: nothing sent", port)
		}
		time.Sleep(time.Millisecond)
	}
}

// DialOwnAddr is DialOwn as an http.Transport's DialContext (addr is 127.0.0.1:port).
func DialOwnAddr(ctx context.Context, _, addr string) (net.Conn, error) {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		return nil, err
	}
	return DialOwn(ctx, port)
}
