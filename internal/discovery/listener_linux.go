//go:build linux

package discovery

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// uidsKnown: this OS shows who owns a socket (Live refuses a port whose owner it cannot see).
const uidsKnown = true

// listenerUID returns the uid owning the TCP socket listening on port on a loopback or wildcard
// address, read from /proc/net/tcp and /proc/net/tcp6 (the kernel's table: uid is the socket's
// owner). It is how the bridge tells its own listener from another local user's on a freed port
// without sending the token anywhere. ok is false when no listener is found or /proc is absent.
func listenerUID(port int) (uid int, ok bool) {
	return scanSockets(func(state string, local, remote int) bool {
		return state == "0A" && local == port // 0A: TCP_LISTEN
	})
}

// peerUID returns the uid owning the socket that accepted (or is accepting) our connection from
// 127.0.0.1:from to port: the server's end, listed with local port port and remote port from.
// An accepted socket, and one still in the handshake, are listed with its listener's uid.
func peerUID(port, from int) (uid int, ok bool) {
	return scanSockets(func(state string, local, remote int) bool {
		// The server's end: established (01), in the handshake (03), or closing after our
		// end did (08). A TIME_WAIT entry (06) shows uid 0 and belongs to no one.
		return (state == "01" || state == "03" || state == "08") && local == port && remote == from
	})
}

// scanSockets returns the uid of the first socket on a loopback or wildcard local address, in
// /proc/net/tcp then /proc/net/tcp6, that match accepts (state in hex, ports as numbers).
func scanSockets(match func(state string, local, remote int) bool) (int, bool) {
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		uid, ok := scanTable(f, match)
		f.Close()
		if ok {
			return uid, true
		}
	}
	return 0, false
}

func scanTable(f *os.File, match func(state string, local, remote int) bool) (int, bool) {
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 8 {
			continue
		}
		laddr, lp, ok1 := strings.Cut(fields[1], ":")
		_, rp, ok2 := strings.Cut(fields[2], ":")
		if !ok1 || !ok2 || !loopbackOrAny(laddr) {
			continue
		}
		l, err1 := strconv.ParseUint(lp, 16, 16)
		r, err2 := strconv.ParseUint(rp, 16, 16)
		if err1 != nil || err2 != nil || !match(fields[3], int(l), int(r)) {
			continue
		}
		if uid, err := strconv.Atoi(fields[7]); err == nil {
			return uid, true
		}
	}
	return 0, false
}

// loopbackOrAny: the hex local address (little-endian words) is 127.x.x.x, 0.0.0.0, ::1, :: or
// ::ffff:127.x.x.x; every one of them takes a connection to 127.0.0.1 or ::1.
func loopbackOrAny(hex string) bool {
	switch len(hex) {
	case 8:
		return strings.HasSuffix(hex, "7F") || hex == "00000000"
	case 32:
		return hex == "00000000000000000000000001000000" || hex == "00000000000000000000000000000000" ||
			(strings.HasPrefix(hex, "0000000000000000FFFF0000") && strings.HasSuffix(hex, "7F"))
	}
	return false
}
