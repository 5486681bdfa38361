package testbin

import (
	"context"
	"testing"
	"time"
)

// Ctx ends at Bound at the latest, and as soon as the test that asked for it ends.
func TestCtx(t *testing.T) {
	var ctx, short context.Context
	t.Run("inner", func(t *testing.T) {
		before := time.Now()
		ctx = Ctx(t)
		dl, ok := ctx.Deadline()
		if !ok || dl.Before(before.Add(Bound)) || dl.After(time.Now().Add(Bound)) {
			t.Errorf("deadline %v (set %v), want now+%v", dl, ok, Bound)
		}
		short = CtxFor(t, time.Millisecond)
		<-short.Done() // a test stuck here is the rule broken
		if ctx.Err() != nil {
			t.Errorf("Ctx ended early: %v", ctx.Err())
		}
	})
	if ctx.Err() != context.Canceled {
		t.Errorf("after the test: %v, want canceled", ctx.Err())
	}
	if short.Err() != context.DeadlineExceeded {
		t.Errorf("CtxFor: %v, want deadline exceeded", short.Err())
	}
}
