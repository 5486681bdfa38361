package attach

import (
	"context"
	"net"
)

// Listener is not available on Windows (a named pipe with the user's ACL would be the channel).
type Listener struct{}

// Listen is not supported on Windows.
func Listen(string) (*Listener, error) { return nil, ErrUnsupported }

// Path is "".
func (*Listener) Path() string { return "" }

// Accept is not supported on Windows.
func (*Listener) Accept(func(int, error)) (net.Conn, error) { return nil, ErrUnsupported }

// Close does nothing.
func (*Listener) Close() error { return nil }

// Dial is not supported on Windows.
func Dial(context.Context, string) (net.Conn, error) { return nil, ErrUnsupported }

// RemoveStale is not supported on Windows (there are no attach sockets).
func RemoveStale(string) (bool, error) { return false, ErrUnsupported }
