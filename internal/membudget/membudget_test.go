package membudget

import (
	"errors"
	"strings"
	"sync"
	"testing"
)

func TestTakeRelease(t *testing.T) {
	b := New(10 << 20)
	g1, err := b.Take(6<<20, "a proposal for a.go")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Take(5<<20, "a proposal for b.go"); !errors.Is(err, ErrOver) || !strings.Contains(err.Error(), "a proposal for b.go needs 5 MiB, but the bridge already holds 6 MiB of its 10 MiB") {
		t.Fatalf("Take over the limit: %v", err)
	}
	g1.Release()
	g1.Release() // twice: once
	if b.Used() != 0 {
		t.Fatalf("Used after release = %d", b.Used())
	}
	g2, err := b.Take(10<<20, "all of it")
	if err != nil {
		t.Fatal(err)
	}
	f := b.Force(1 << 20)
	if b.Used() != 11<<20 {
		t.Fatalf("Force: Used = %d", b.Used())
	}
	if _, err := b.Take(1, "one byte"); !errors.Is(err, ErrOver) {
		t.Fatalf("Take past a Force: %v", err)
	}
	g2.Release()
	f.Release()
	var nilGrant *Grant
	nilGrant.Release()
	if b.Used() != 0 {
		t.Fatalf("Used = %d", b.Used())
	}
}

// Issue 35 item 5: a grant lives as long as what it counts. It grows with each read and copy
// its holder makes (Add), a growth past the budget fails and leaves it as it was, and Release
// gives back all of it once, however many times or from however many goroutines it is called.
// After Release it counts nothing more.
func TestGrantLifetime(t *testing.T) {
	b := New(10 << 20)
	g := b.NewGrant()
	if err := g.Add(3<<20, "reading a.go"); err != nil {
		t.Fatal(err)
	}
	if err := g.Add(3<<20, "a copy of a.go"); err != nil {
		t.Fatal(err)
	}
	if g.Held() != 6<<20 || b.Used() != 6<<20 {
		t.Fatalf("held %d, used %d; want both 6 MiB", g.Held(), b.Used())
	}
	other, err := b.Take(3<<20, "a proposal")
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Add(2<<20, "reading b.go"); !errors.Is(err, ErrOver) || !strings.Contains(err.Error(), "reading b.go needs 2 MiB, but the bridge already holds 9 MiB") {
		t.Fatalf("Add past the budget: %v", err)
	}
	if g.Held() != 6<<20 || b.Used() != 9<<20 {
		t.Fatalf("a refused Add counted: held %d, used %d", g.Held(), b.Used())
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() { defer wg.Done(); g.Release() }()
	}
	wg.Wait()
	if b.Used() != 3<<20 || g.Held() != 0 {
		t.Fatalf("after Release: used %d, held %d; want only the proposal's 3 MiB", b.Used(), g.Held())
	}
	if err := g.Add(1, "late"); err == nil || b.Used() != 3<<20 {
		t.Fatalf("Add on a released grant: %v, used %d", err, b.Used())
	}
	other.Release()
	if b.Used() != 0 {
		t.Fatalf("used %d", b.Used())
	}
}
