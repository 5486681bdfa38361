package transport

import (
	"sync"
	"time"
)

// pacer sends the latest-wins messages that clients hold back (see SendLatest) when their
// interval has passed, from one timer for all clients. In a flood every client is then written
// on the same tick: one wake-up per interval instead of one timer and two goroutine wake-ups per
// client.
type pacer struct {
	mu      sync.Mutex
	waiting []held
	timer   *time.Timer
	when    time.Time // when timer fires; zero while it is not set
}

type held struct {
	c   *Client
	due time.Time
}

// paceSlack lets a tick take clients due a little later, so that clients written on one tick
// stay on one tick.
const paceSlack = 2 * time.Millisecond

func (p *pacer) hold(c *Client, due time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.waiting = append(p.waiting, held{c, due})
	if p.when.IsZero() || due.Before(p.when) {
		p.arm(due)
	}
}

func (p *pacer) arm(when time.Time) {
	p.when = when
	if p.timer == nil {
		p.timer = time.AfterFunc(time.Until(when), p.tick)
	} else {
		p.timer.Reset(time.Until(when))
	}
}

func (p *pacer) tick() {
	now := time.Now()
	p.mu.Lock()
	var due []*Client
	keep := p.waiting[:0]
	var next time.Time
	for _, h := range p.waiting {
		if h.due.Before(now.Add(paceSlack)) {
			due = append(due, h.c)
			continue
		}
		keep = append(keep, h)
		if next.IsZero() || h.due.Before(next) {
			next = h.due
		}
	}
	clear(p.waiting[len(keep):])
	p.waiting = keep
	p.when = time.Time{}
	if !next.IsZero() {
		p.arm(next)
	}
	p.mu.Unlock()
	for _, c := range due {
		c.deliverLatest(now)
	}
}
