// Package membudget is the bridge's one memory budget for what others make it hold: the text of
// pending proposals (openDiff), file texts a tool call keeps (and their copies) until it is
// answered, the documents the bridge's language servers have open, the diagnostics they
// publish and the mentions held for Claude. They share Default, 512 MiB, so that no mix of ~100
// unsettled 15 MiB proposals, parallel 30 MiB reads and a server publishing for 300,000 files
// takes the bridge past what a 3 GiB address-space limit allows (issue 25 item 5). A call that
// would go over gets a clear error (ErrOver) and nothing already held is dropped.
package membudget

import (
	"errors"
	"fmt"
	"sync"
)

// DefaultLimit is Default's size: 512 MiB, room for 34 pending proposals of the 15 MiB the CLI
// can send; with the Go runtime's garbage collector the process then peaks near twice that.
const DefaultLimit = 512 << 20

// Default is the process's budget.
var Default = New(DefaultLimit)

// ErrOver is the error of a Take that would exceed the budget.
var ErrOver = errors.New("over the bridge's memory budget")

// Budget counts bytes held against a limit. Its zero value is not usable; see New.
type Budget struct {
	mu    sync.Mutex
	limit int64
	used  int64
}

// New returns a budget of limit bytes.
func New(limit int64) *Budget { return &Budget{limit: limit} }

// Grant is bytes taken from a Budget, given back by Release. It is the one way to hold part of
// the budget, and it lives as long as what it counts: a read's bytes and every copy made of
// them (issue 35 item 5). Whoever keeps the bytes keeps the grant; a tool call's grant grows
// with each read and copy (Add) and is released when the call has its answer. The zero Grant
// (or a nil one) holds nothing.
type Grant struct {
	b        *Budget // set at creation, never changed
	n        int64   // under b.mu
	released bool    // under b.mu
}

// NewGrant returns an empty grant of b, for Add to grow.
func (b *Budget) NewGrant() *Grant { return &Grant{b: b} }

// Take reserves n bytes for what (a few words: "a proposal for a.go") or fails with ErrOver,
// naming what and the budget, when that would exceed the limit.
func (b *Budget) Take(n int64, what string) (*Grant, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.take(n, what); err != nil {
		return nil, err
	}
	return &Grant{b: b, n: n}, nil
}

// take adds n to used, or fails with ErrOver; b.mu is held.
func (b *Budget) take(n int64, what string) error {
	if n > 0 && b.used+n > b.limit {
		return fmt.Errorf("%s needs %s, but the bridge already holds %s of its %s for pending proposals, file reads and diagnostics: %w",
			what, mib(n), mib(b.used), mib(b.limit), ErrOver)
	}
	b.used += n
	return nil
}

// Add grows g by n bytes for what, or fails with ErrOver (g unchanged) when that would exceed
// its budget. On a released grant it fails: its holder has said it holds nothing more.
func (g *Grant) Add(n int64, what string) error {
	if g == nil || g.b == nil {
		return fmt.Errorf("%s: no memory grant to count it in", what)
	}
	g.b.mu.Lock()
	defer g.b.mu.Unlock()
	if g.released {
		return fmt.Errorf("%s: the memory grant was already released", what)
	}
	if err := g.b.take(n, what); err != nil {
		return err
	}
	g.n += n
	return nil
}

// Held returns the bytes g holds.
func (g *Grant) Held() int64 {
	if g == nil || g.b == nil {
		return 0
	}
	g.b.mu.Lock()
	defer g.b.mu.Unlock()
	return g.n
}

// Force reserves n bytes even past the limit: for what must not be refused because it is
// already in memory and losing it would lose the user's work (an accepted text). Later Takes
// fail until enough is released.
func (b *Budget) Force(n int64) *Grant {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used += n
	return &Grant{b: b, n: n}
}

// Used returns the bytes held.
func (b *Budget) Used() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Limit returns the budget's size.
func (b *Budget) Limit() int64 { return b.limit }

// Release gives the grant's bytes back; later calls do nothing.
func (g *Grant) Release() {
	if g == nil || g.b == nil {
		return
	}
	g.b.mu.Lock()
	defer g.b.mu.Unlock()
	if !g.released {
		g.b.used -= g.n
		g.n, g.released = 0, true
	}
}

func mib(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KiB", (n+1023)>>10)
	}
	return fmt.Sprintf("%d MiB", (n+1<<19)>>20) // to the nearest
}
