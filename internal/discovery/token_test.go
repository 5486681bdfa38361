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
