package discovery

import (
	"crypto/rand"
	"errors"
	"io"
	"strings"
	"testing"
)

// Spec: "authToken": 32-char lowercase hex token (128 bits) from the OS CSPRNG.
func TestNewToken(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 1000 {
		tok, err := NewToken()
		if err != nil {
			t.Fatal(err)
		}
		if len(tok) != 32 || strings.Trim(tok, "0123456789abcdef") != "" {
			t.Fatalf("token %q is not 32 lowercase hex chars", tok)
		}
		if seen[tok] {
			t.Fatalf("token %q repeated", tok)
		}
		seen[tok] = true
	}
}

type failReader struct{}

func (failReader) Read([]byte) (int, error) { return 0, errors.New("entropy gone") }

func TestNewTokenRandFailure(t *testing.T) {
	t.Parallel()
	for name, r := range map[string]io.Reader{
		"error": failReader{},
		"short": io.LimitReader(rand.Reader, 8),
	} {
		t.Run(name, func(t *testing.T) {
			tok, err := newToken(r)
			if err == nil || tok != "" {
				t.Fatalf("NewToken() = %q, %v; want an error and no token", tok, err)
			}
		})
	}
}

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
		if got := TokenEqual(tc.got, tc.want); got != tc.ok {
			t.Errorf("TokenEqual(%q, %q) = %v, want %v", tc.got, tc.want, got, tc.ok)
		}
	}
}
