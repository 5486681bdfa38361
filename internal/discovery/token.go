package discovery

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"io"
)

// randReader is the token entropy source; tests swap it to exercise the failure path.
var randReader io.Reader = rand.Reader

// NewToken returns 128 bits from the OS CSPRNG as 32 lowercase hex characters.
// It fails rather than fall back to weaker randomness.
func NewToken() (string, error) {
	var b [16]byte
	if _, err := io.ReadFull(randReader, b[:]); err != nil {
		return "", fmt.Errorf("discovery: read random token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// TokenEqual reports whether got equals want in constant time.
// An empty want never matches, so an unset token cannot authorise anyone.
func TokenEqual(got, want string) bool {
	if want == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
