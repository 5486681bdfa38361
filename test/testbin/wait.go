package testbin

import (
	"os/exec"
	"testing"
	"time"
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
