//go:build !linux

package transport

import "net"

// sendQueue: elsewhere every message goes through the client's writer goroutine.
func sendQueue(net.Conn) func() bool { return nil }
