package membudget

import (
	"errors"
	"strings"
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
