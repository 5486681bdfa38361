//go:build !linux

package claudews

import (
	"context"
	"net"
	"time"
)

// dialStamped is a plain dial where the kernel's receive timestamps are not read (see the Linux
// version); fan-out samples then use the reader's own clock.
func dialStamped(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

func rxTime(net.Conn) (time.Time, bool) { return time.Time{}, false }
