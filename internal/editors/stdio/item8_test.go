package stdio_test

import (
	"strings"
	"testing"
)

// Issue 15 item 8: initialize took pid 2^62 (and wrote it to the lock).
func TestInitializeRefusesImpossiblePID(t *testing.T) {
	t.Parallel()
	s := startSidecar(t, "line")
	p := s.initParams()
	p["pid"] = int64(1) << 62
	err := s.call(t, "initialize", p, nil)
	if err == nil || !strings.Contains(err.Error(), "pid") {
		t.Fatalf("initialize with pid 2^62: %v, want a refusal", err)
	}
	s.initialize(t, nil) // a good one still works
}
