package transport_test

import (
	"net/http"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/transport"
)

// CheckBearer refuses a peer that is not on loopback, even with the token and a loopback Host
// (defence in depth: the listener is loopback only), and takes the scheme in any case.
func TestCheckBearerPeer(t *testing.T) {
	const tok = "0123456789abcdef0123456789abcdef"
	r, _ := http.NewRequest("POST", "http://127.0.0.1:4000/mcp", nil)
	r.Header.Set("Authorization", "bearer "+tok)
	r.RemoteAddr = "127.0.0.1:5555"
	if s, why := transport.CheckBearer(r, 4000, tok); s != 0 {
		t.Fatalf("loopback peer refused: %d %s", s, why)
	}
	r.RemoteAddr = "192.0.2.7:5555"
	if s, _ := transport.CheckBearer(r, 4000, tok); s != http.StatusForbidden {
		t.Fatalf("non-loopback peer: %d, want 403", s)
	}
	r.RemoteAddr = "[::1]:5555"
	r.Header.Set("Authorization", "Bearer "+tok+"x")
	if s, _ := transport.CheckBearer(r, 4000, tok); s != http.StatusUnauthorized {
		t.Fatalf("longer token: %d, want 401", s)
	}
}

// The token comparison of every gate: constant time, and an unset token admits nobody.
func TestTokenEqual(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		got, want string
		ok        bool
	}{
		{"a3f1c2d4e5f60718293a4b5c6d7e8f90", "a3f1c2d4e5f60718293a4b5c6d7e8f90", true},
		{"a3f1c2d4e5f60718293a4b5c6d7e8f91", "a3f1c2d4e5f60718293a4b5c6d7e8f90", false},
		{"a3f1c2d4e5f60718293a4b5c6d7e8f9", "a3f1c2d4e5f60718293a4b5c6d7e8f90", false},
		{"A3F1C2D4E5F60718293A4B5C6D7E8F90", "a3f1c2d4e5f60718293a4b5c6d7e8f90", false},
		{"", "a3f1c2d4e5f60718293a4b5c6d7e8f90", false},
		{"", "", false}, // an unset token must not let an empty header in
		{"x", "", false},
	} {
		if got := transport.TokenEqual(tc.got, tc.want); got != tc.ok {
			t.Errorf("TokenEqual(%q, %q) = %v, want %v", tc.got, tc.want, got, tc.ok)
		}
	}
}
