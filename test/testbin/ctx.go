package testbin

import (
	"context"
	"testing"
	"time"
)

// Bound is how long one step of a test (a request, an editor's answer, a process start) may
// take before the test fails instead of hanging: generous, since the suites run on loaded
// machines and under -race; a step that works takes milliseconds.
const Bound = 20 * time.Second

// Ctx is a context that ends after Bound, or when t and its cleanups end.
func Ctx(t testing.TB) context.Context { return CtxFor(t, Bound) }

// CtxFor is Ctx with d instead of Bound, for a step known to take longer.
func CtxFor(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
