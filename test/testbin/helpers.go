package testbin

// What tests wait for and read alike: a channel's next value, a child's exit, a lock file, a
// tool's answer, a server's answer to a stalled request.

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
)

// Recv returns the next value on ch, or fails the test saying what never came when none comes
// within Bound.
func Recv[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(Bound):
		t.Fatalf("%s (waited %v)", what, Bound)
		var zero T
		return zero
	}
}

// Start starts cmd, failing the test if it cannot, and returns a channel closed once cmd has
// exited (its Wait returned).
func Start(t testing.TB, cmd *exec.Cmd) <-chan struct{} {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	return exited
}

// Reap waits up to Bound for exited (which sends or closes once cmd's Wait returned), else
// kills cmd and waits for it. It reports whether the child ended on its own, for the caller to
// say what it should have ended on.
func Reap[T any](cmd *exec.Cmd, exited <-chan T) bool {
	select {
	case <-exited:
		return true
	case <-time.After(Bound):
		cmd.Process.Kill()
		<-exited
		return false
	}
}

// ReadLock reads the lock file at path; a missing or malformed one fails the test.
func ReadLock(t testing.TB, path string) discovery.Lock {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var l discovery.Lock
	if err := json.Unmarshal(data, &l); err != nil {
		t.Fatalf("lock %s: %v", path, err)
	}
	return l
}

// Tool calls a tool as Claude does and fails the test on a protocol error; a tool's error comes
// back as its result.
func Tool(t testing.TB, c *probe.Client, name string, args any) *probe.ToolResult {
	t.Helper()
	r, err := c.Tool(Ctx(t), name, args)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

// WriteFile writes content to the file name in dir and returns its path; an error fails the test.
func WriteFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// StalledPost sends addr a POST to path whose body stops after its first bytes (its
// Content-Length says 1000) and returns what the server answered before it closed the
// connection. The test fails when the connection is still open after 30 s.
func StalledPost(t testing.TB, addr, path string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"a\"", path)
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	b, err := io.ReadAll(c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the stalled request was still open after 30 s (read %q)", b)
	}
	return string(b)
}

// Set sets *p to v until the test ends (a package's tunable, such as a timeout).
func Set[T any](t testing.TB, p *T, v T) {
	old := *p
	*p = v
	t.Cleanup(func() { *p = old })
}
