// Package membudget is the bridge's one memory budget for what others make it hold: the text of
// pending proposals (openDiff), file reads in flight (tools, language servers) and the
// diagnostics language servers publish. They share Default, 512 MiB, so that no mix of ~100
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

// Grant is bytes taken from a Budget, given back by Release. The zero Grant (or a nil one)
// holds nothing.
type Grant struct {
	b *Budget
	n int64
}

// Take reserves n bytes for what (a few words: "a proposal for a.go") or fails with ErrOver,
// naming what and the budget, when that would exceed the limit.
func (b *Budget) Take(n int64, what string) (*Grant, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > 0 && b.used+n > b.limit {
		return nil, fmt.Errorf("%s needs %s, but the bridge already holds %s of its %s for pending proposals, file reads and diagnostics: %w",
			what, mib(n), mib(b.used), mib(b.limit), ErrOver)
	}
	b.used += n
	return &Grant{b: b, n: n}, nil
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
	g.b.used -= g.n
	g.b.mu.Unlock()
	g.b, g.n = nil, 0
}

func mib(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KiB", (n+1023)>>10)
	}
	return fmt.Sprintf("%d MiB", (n+1<<19)>>20) // to the nearest
}
