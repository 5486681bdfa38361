package discovery

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
)

// NewToken returns 128 bits from the OS CSPRNG as 32 lowercase hex characters.
// It fails rather than fall back to weaker randomness.
func NewToken() (string, error) { return newToken(rand.Reader) }

// newToken is NewToken reading entropy from r (a test gives a failing one).
func newToken(r io.Reader) (string, error) {
	var b [16]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return "", fmt.Errorf("discovery: read random token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}
