package main

import (
	"runtime"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/testbin"
)

// bin is this command, built once: serve runs until a signal, so tests run it as a child.
var bin string

func TestMain(m *testing.M) { testbin.Main(m, &bin) }

// TestLendProcs: while big texts are checked in pieces the process runs on more Ps, and back on
// one when the last check ends, however the checks overlap.
func TestLendProcs(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("one CPU")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	a := lendProcs(2)
	b := lendProcs(2)
	if got := runtime.GOMAXPROCS(0); got != 2 {
		t.Fatalf("lent: GOMAXPROCS = %d, want 2", got)
	}
	a()
	if got := runtime.GOMAXPROCS(0); got != 2 {
		t.Fatalf("one check still running: GOMAXPROCS = %d, want 2", got)
	}
	b()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("all returned: GOMAXPROCS = %d, want 1", got)
	}
}
