package terminal

import (
	"sync"

	"golang.org/x/term"
)

// keyMode switches a terminal between raw mode (one key answers, while a question waits) and the
// mode it had (echo, line editing, "\n" printed as "\r\n"). The key reader and the question
// both switch it: a read can outlive its question (a proposal closed by Claude while a key is
// awaited), and the terminal must be cooked again as soon as the question is gone, not when the
// next key comes (issue 39 item 1: every later line started where the last one ended).
type keyMode struct {
	fd int

	mu    sync.Mutex
	saved *term.State // the mode before raw; nil while cooked
}

// raw puts the terminal in raw mode; a no-op when it is already.
func (k *keyMode) raw() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.saved != nil {
		return nil
	}
	st, err := term.MakeRaw(k.fd)
	if err != nil {
		return err
	}
	k.saved = st
	return nil
}

// cooked gives the terminal back its mode; a no-op when it is not raw.
func (k *keyMode) cooked() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.saved != nil {
		term.Restore(k.fd, k.saved)
		k.saved = nil
	}
}
