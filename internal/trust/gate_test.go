package trust_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/trust"
)

// BenchmarkGate is the cost of one trust check (made once per server start, not per request):
// a folder 10 levels below a temp dir, trusted through its ancestor 3 levels up, and an
// untrusted one (every ancestor up to / looked up); both stat every folder up to / (Exposed).
func BenchmarkGate(b *testing.B) {
	base, _ := filepath.EvalSymlinks(b.TempDir())
	deep := filepath.Join(append([]string{base}, strings.Split("a/b/c/d/e/f/g/h/i/j", "/")...)...)
	if err := mkdirAll(deep); err != nil {
		b.Fatal(err)
	}
	b.Setenv("XDG_CONFIG_HOME", filepath.Join(base, "xdg"))
	s, _ := trust.Open("")
	top := filepath.Join(base, "a", "b", "c", "d", "e", "f", "g")
	shared, _ := trust.Exposed(top) // /tmp, unless TMPDIR is private: accepted, as trust --shared does
	if _, err := s.Trust(top, shared...); err != nil {
		b.Fatal(err)
	}
	other := filepath.Join(base, "z", "y")
	mkdirAll(other)
	b.Run("trusted", func(b *testing.B) {
		gate := trust.Gate(deep)
		for b.Loop() {
			if gate() != nil {
				b.Fatal("not trusted")
			}
		}
	})
	b.Run("untrusted", func(b *testing.B) {
		gate := trust.Gate(other)
		for b.Loop() {
			if gate() == nil {
				b.Fatal("trusted")
			}
		}
	})
}
