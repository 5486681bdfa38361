package discovery

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"syscall"
)

// The spec: "a WebSocket server on a random port (10000-65535)".
const (
	minPort    = 10000
	maxPort    = 65535
	portTries  = 50
	listenHost = "127.0.0.1"
)

// randomPort returns a candidate port in [minPort, maxPort].
func randomPort() int { return minPort + rand.IntN(maxPort-minPort+1) }

// Listen binds TCP on 127.0.0.1 only (IPv4: the CLI dials ws://127.0.0.1:<port>/).
// port > 0 binds exactly that port and fails if it is taken. port == 0 tries random
// ports in 10000-65535, retrying only on EADDRINUSE, up to 50 times.
func Listen(port int) (net.Listener, error) { return listenPicking(port, randomPort) }

// listenPicking is Listen with the candidate ports of port 0 from pick (a test forces
// collisions with it).
func listenPicking(port int, pick func() int) (net.Listener, error) {
	if port < 0 || port > maxPort {
		return nil, fmt.Errorf("discovery: port %d out of range", port)
	}
	if port > 0 {
		ln, err := listen(port)
		if err != nil {
			return nil, fmt.Errorf("discovery: listen: %w", err)
		}
		return ln, nil
	}
	var last error
	for range portTries {
		ln, err := listen(pick())
		if err == nil {
			return ln, nil
		}
		if !errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("discovery: listen: %w", err)
		}
		last = err
	}
	return nil, fmt.Errorf("discovery: no free port in %d-%d after %d tries: %w", minPort, maxPort, portTries, last)
}

func listen(port int) (net.Listener, error) {
	return net.Listen("tcp4", net.JoinHostPort(listenHost, strconv.Itoa(port)))
}
