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
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		if uid, ok := scanListeners(table, port); ok {
			return uid, true
		}
	}
	return 0, false
}

// peerUID returns the uid owning the socket that accepted (or is accepting) our connection from
// 127.0.0.1:from to port: the server's end, listed with local port port and remote port from.
// An accepted socket, and one still in the handshake, are listed with its listener's uid.
func peerUID(port, from int) (uid int, ok bool) {
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		if uid, ok := scanPeers(table, port, from); ok {
			return uid, true
		}
	}
	return 0, false
}

func scanPeers(table string, port, from int) (int, bool) {
	f, err := os.Open(table)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		// The server's end: established (01), in the handshake (03), or closing after our
		// end did (08). A TIME_WAIT entry (06) shows uid 0 and belongs to no one.
		if len(fields) < 8 || (fields[3] != "01" && fields[3] != "03" && fields[3] != "08") {
			continue
		}
		laddr, lp, ok1 := strings.Cut(fields[1], ":")
		_, rp, ok2 := strings.Cut(fields[2], ":")
		if !ok1 || !ok2 || !loopbackOrAny(laddr) {
			continue
		}
		l, err1 := strconv.ParseUint(lp, 16, 16)
		r, err2 := strconv.ParseUint(rp, 16, 16)
		if err1 != nil || err2 != nil || int(l) != port || int(r) != from {
			continue
		}
		if uid, err := strconv.Atoi(fields[7]); err == nil {
			return uid, true
		}
	}
	return 0, false
}

func scanListeners(table string, port int) (int, bool) {
	f, err := os.Open(table)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 8 || fields[3] != "0A" { // 0A: TCP_LISTEN
			continue
		}
		addr, p, found := strings.Cut(fields[1], ":")
		if !found {
			continue
		}
		lp, err := strconv.ParseUint(p, 16, 16)
		if err != nil || int(lp) != port || !loopbackOrAny(addr) {
			continue
		}
		uid, err := strconv.Atoi(fields[7])
		if err != nil {
			continue
		}
		return uid, true
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
