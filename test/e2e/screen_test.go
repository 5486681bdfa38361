package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// screen is a minimal terminal emulator: enough cursor movement and erasing
// to reconstruct what the CLI's TUI shows, which positions words with
// absolute column moves rather than spaces. Lines scrolled off the top are
// kept in history.
type screen struct {
	mu       sync.Mutex
	rows     int
	cols     int
	grid     [][]rune
	row, col int
	history  []string // lines scrolled off the top
	pending  []byte   // an incomplete escape sequence or UTF-8 rune
	changed  chan struct{}
	done     bool // the pty reached EOF
}

func newScreen(rows, cols int) *screen {
	s := &screen{rows: rows, cols: cols, changed: make(chan struct{})}
	s.clear()
	return s
}

func (s *screen) clear() {
	s.grid = make([][]rune, s.rows)
	for i := range s.grid {
		s.grid[i] = blank(s.cols)
	}
}

func blank(n int) []rune {
	r := make([]rune, n)
	for i := range r {
		r[i] = ' '
	}
	return r
}

func (s *screen) write(p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	buf := append(s.pending, p...)
	s.pending = nil
	for len(buf) > 0 {
		n := s.step(buf)
		if n == 0 { // incomplete: wait for more bytes
			s.pending = append([]byte(nil), buf...)
			break
		}
		buf = buf[n:]
	}
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *screen) eof() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = true
	close(s.changed)
	s.changed = make(chan struct{})
}

// step consumes one rune, control byte or escape sequence from b and
// returns how many bytes it used, 0 when b holds an incomplete sequence.
func (s *screen) step(b []byte) int {
	switch c := b[0]; {
	case c == 0x1b:
		return s.escape(b)
	case c == '\r':
		s.col = 0
	case c == '\n':
		s.lineFeed()
	case c == '\b':
		if s.col > 0 {
			s.col--
		}
	case c == '\t':
		s.col = min((s.col/8+1)*8, s.cols-1)
	case c < 0x20 || c == 0x7f:
	default:
		r, n := decodeRune(b)
		if n == 0 {
			return 0
		}
		s.put(r)
		return n
	}
	return 1
}

func (s *screen) put(r rune) {
	if s.col >= s.cols {
		s.col = 0
		s.lineFeed()
	}
	s.grid[s.row][s.col] = r
	s.col++
}

func (s *screen) lineFeed() {
	if s.row < s.rows-1 {
		s.row++
		return
	}
	s.history = append(s.history, strings.TrimRight(string(s.grid[0]), " "))
	copy(s.grid, s.grid[1:])
	s.grid[s.rows-1] = blank(s.cols)
}

func (s *screen) escape(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '[':
		for i := 2; i < len(b); i++ {
			if b[i] >= 0x40 && b[i] <= 0x7e {
				s.csi(string(b[2:i]), b[i])
				return i + 1
			}
		}
		return 0
	case ']', 'P', '_', '^': // OSC, DCS, APC, PM: up to BEL or ST
		for i := 2; i < len(b); i++ {
			if b[i] == 0x07 {
				return i + 1
			}
			if b[i] == 0x1b && i+1 < len(b) && b[i+1] == '\\' {
				return i + 2
			}
		}
		return 0
	case '(', ')', '#', '%':
		if len(b) < 3 {
			return 0
		}
		return 3
	}
	return 2
}

func (s *screen) csi(params string, final byte) {
	private := strings.HasPrefix(params, "?") || strings.HasPrefix(params, ">") || strings.HasPrefix(params, "=")
	if private {
		if final == 'h' || final == 'l' {
			if params == "?1049" || params == "?47" || params == "?1047" {
				s.clear()
				s.row, s.col = 0, 0
			}
		}
		return
	}
	var args []int
	for _, f := range strings.Split(params, ";") {
		n := 0
		fmt.Sscanf(f, "%d", &n)
		args = append(args, n)
	}
	arg := func(i, def int) int {
		if i < len(args) && args[i] > 0 {
			return args[i]
		}
		return def
	}
	clampRow := func(r int) int { return max(0, min(r, s.rows-1)) }
	clampCol := func(c int) int { return max(0, min(c, s.cols-1)) }
	switch final {
	case 'A':
		s.row = clampRow(s.row - arg(0, 1))
	case 'B', 'e':
		s.row = clampRow(s.row + arg(0, 1))
	case 'C', 'a':
		s.col = clampCol(s.col + arg(0, 1))
	case 'D':
		s.col = clampCol(s.col - arg(0, 1))
	case 'E':
		s.row, s.col = clampRow(s.row+arg(0, 1)), 0
	case 'F':
		s.row, s.col = clampRow(s.row-arg(0, 1)), 0
	case 'G', '`':
		s.col = clampCol(arg(0, 1) - 1)
	case 'd':
		s.row = clampRow(arg(0, 1) - 1)
	case 'H', 'f':
		s.row, s.col = clampRow(arg(0, 1)-1), clampCol(arg(1, 1)-1)
	case 'J':
		switch arg(0, 0) {
		case 0:
			s.eraseLine(s.row, s.col, s.cols)
			for r := s.row + 1; r < s.rows; r++ {
				s.grid[r] = blank(s.cols)
			}
		case 1:
			for r := 0; r < s.row; r++ {
				s.grid[r] = blank(s.cols)
			}
			s.eraseLine(s.row, 0, s.col+1)
		default:
			s.clear()
		}
	case 'K':
		switch arg(0, 0) {
		case 0:
			s.eraseLine(s.row, s.col, s.cols)
		case 1:
			s.eraseLine(s.row, 0, s.col+1)
		default:
			s.eraseLine(s.row, 0, s.cols)
		}
	case 'X':
		s.eraseLine(s.row, s.col, s.col+arg(0, 1))
	}
}

func (s *screen) eraseLine(r, from, to int) {
	for c := max(0, from); c < min(to, s.cols); c++ {
		s.grid[r][c] = ' '
	}
}

// decodeRune decodes one UTF-8 rune; n is 0 when b ends mid-rune.
func decodeRune(b []byte) (rune, int) {
	need := 1
	switch c := b[0]; {
	case c >= 0xf0:
		need = 4
	case c >= 0xe0:
		need = 3
	case c >= 0xc0:
		need = 2
	}
	if len(b) < need {
		return 0, 0
	}
	r := []rune(string(b[:need]))
	return r[0], need
}

// textLocked renders the visible screen, rows trimmed and joined by newlines.
func (s *screen) textLocked() string {
	lines := make([]string, len(s.grid))
	for i, r := range s.grid {
		lines[i] = strings.TrimRight(string(r), " ")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// Text returns the visible screen.
func (s *screen) Text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.textLocked()
}

// Dump returns the screen with some history, for failure messages.
func (s *screen) Dump() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.history[max(0, len(s.history)-40):]
	return strings.Join(h, "\n") + "\n======== visible screen ========\n" + s.textLocked()
}

// contains reports whether want is on the visible screen, also when the TUI
// wrapped it over several rows.
func (s *screen) containsLocked(want string) bool {
	if strings.Contains(s.textLocked(), want) {
		return true
	}
	var flat strings.Builder
	for _, r := range s.grid {
		flat.WriteString(string(r))
	}
	return strings.Contains(flat.String(), want)
}

// waitFor waits until cond holds for the visible screen.
func (s *screen) waitFor(ctx context.Context, what string, cond func(s *screen) bool) error {
	for {
		s.mu.Lock()
		ok, ch, done := cond(s), s.changed, s.done
		s.mu.Unlock()
		if ok {
			return nil
		}
		if done {
			return fmt.Errorf("terminal closed while waiting for %s", what)
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s on screen: %w", what, ctx.Err())
		}
	}
}
