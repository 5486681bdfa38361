package jsonrpc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// forgetBig empties the process-wide cache of big strings (scan.go).
func forgetBig() {
	bigMu.Lock()
	bigSeen, bigNext = [len(bigSeen)]bigEntry{}, 0
	bigMu.Unlock()
}

func cacheEmpty() bool {
	bigMu.Lock()
	defer bigMu.Unlock()
	return bigSeen == [len(bigSeen)]bigEntry{}
}

// feedIn feeds msg to a new Prescan the way a reader does: a growing buffer, n(k) bytes more
// each time (at least one), sometimes in a new buffer.
func feedIn(msg []byte, n func(k int) int) *Prescan {
	p := new(Prescan)
	var buf []byte
	for k := 0; len(buf) < len(msg); k++ {
		m := min(max(n(k), 1), len(msg)-len(buf))
		buf = append(buf, msg[len(buf):len(buf)+m]...)
		p.Feed(buf)
	}
	return p
}

// chunkings are the ways the tests below split a message.
var chunkings = map[string]func(k int) int{
	"1":      func(int) int { return 1 },
	"7":      func(int) int { return 7 },
	"4096":   func(int) int { return 4096 },
	"65536":  func(int) int { return 65536 },
	"random": func(k int) int { return 1 + int(uint32(k)*2654435761>>19) }, // 1 to 8192, scrambled
	"whole":  func(int) int { return 1 << 30 },
}

// bigText is a file text with escapes throughout and raw UTF-8 of two, three and four bytes,
// which the chunkings cut everywhere.
var bigText = strings.Repeat(`ab\"c\\\n\u00e9 é日😀 `, 6<<10)

func diffAccepted(text string) ([]byte, int) {
	msg := []byte(`{"jsonrpc":"2.0","method":"diffAccepted","params":{"contents":"` + text + `"}}`)
	return msg, bytes.Index(msg, []byte(`"contents":`)) + len(`"contents":`)
}

func TestPrescanRemembersBigString(t *testing.T) {
	msg, at := diffAccepted(bigText)
	end, err := checkString(msg, at)
	if err != nil {
		t.Fatal(err)
	}
	for name, n := range chunkings {
		forgetBig()
		if p := feedIn(msg, n); p.stopped || p.in {
			t.Errorf("chunks of %s: stopped %v, in a string %v", name, p.stopped, p.in)
		}
		if e, ok := seenAt(msg, at); !ok || e != end {
			t.Errorf("chunks of %s: seenAt = %d, %v, want %d, true", name, e, ok, end)
		}
	}
	forgetBig()
}

// TestPrescanNeverRemembersInvalid: the cases of TestBigStringCheckedAgainAfterAnyChange, and
// invalid UTF-8, in every chunking.
func TestPrescanNeverRemembersInvalid(t *testing.T) {
	msg, at := diffAccepted(bigText)
	mid := bytes.IndexByte(msg[len(msg)/2:], 'a') + len(msg)/2
	for _, bad := range []string{"\x01", "\n", `\x`, `\u00g9`, `\u00é`, "\xff", "\xc3(", "\xed\xa0\x80", "\xc0\xaf", "\x80", "\xf0\x9f\x98a", "\xf4\x90\x80\x80"} {
		for _, where := range []int{at + 1, mid, len(msg) - 6} {
			m := bytes.Clone(msg)
			m = append(m[:where:where], append([]byte(bad), m[where:]...)...)
			if _, err := checkString(m, at); err == nil {
				t.Fatalf("%q at %d: checkString accepts it", bad, where)
			}
			for name, n := range chunkings {
				forgetBig()
				feedIn(m, n)
				if !cacheEmpty() {
					t.Errorf("%q at %d, chunks of %s: remembered", bad, where, name)
				}
			}
		}
	}
	forgetBig()
}

func TestPrescanDoesNotAllocate(t *testing.T) {
	msg, _ := diffAccepted(bigText)
	var p Prescan
	if a := testing.AllocsPerRun(10, func() {
		p = Prescan{}
		for n := 4096; n < len(msg); n += 4096 {
			p.Feed(msg[:n])
		}
		p.Feed(msg)
	}); a != 0 {
		t.Errorf("%v allocations per message", a)
	}
	forgetBig()
}

// FuzzPrescan: with every string "big", whatever bytes arrive in whatever chunks, a string the
// Prescan remembers is one checkString accepts (else the scanner would let it through unchecked:
// valid would disagree with encoding/json), and valid JSON is read to its end without stopping.
func FuzzPrescan(f *testing.F) {
	for _, s := range []string{
		`"abc"`, `{"a":"\u00e9\"x\\","b":["", "é日😀"]}`, `"\u12"`, "\"\xed\xa0\x80\"", `"a\`, `"a\"`,
		"\"a\x01\"", `"\q"`, `x"y"z"`, `["a" "b"]`, "\"é\xc3\"", `"\uD83D\uDE00"`,
	} {
		f.Add([]byte(s), []byte{1, 2, 3})
		f.Add([]byte(s), []byte{0x41, 0x80})
	}
	f.Add([]byte("\"\xe1\""), []byte("A")) // found when a cut sequence's high bit was forgotten
	saved := bigString
	bigString = 2 // every string, even ""
	f.Cleanup(func() { bigString = saved; forgetBig() })
	f.Fuzz(func(t *testing.T, data, chunks []byte) {
		forgetBig()
		p := new(Prescan)
		var buf []byte
		for k := 0; len(buf) < len(data); k++ {
			c := byte(1)
			if len(chunks) > 0 {
				c = chunks[k%len(chunks)]
			}
			if c&0x40 != 0 {
				buf = bytes.Clone(buf) // the reader grew its buffer
			}
			m := min(int(c&0x3f)+1, len(data)-len(buf))
			buf = append(buf, data[len(buf):len(buf)+m]...)
			p.Feed(buf)
			if c&0x80 != 0 {
				p.Feed(buf) // nothing new arrived
			}
		}
		for i := range data {
			if end, ok := seenAt(data, i); ok {
				if e, err := checkString(data, i); err != nil || e != end {
					t.Fatalf("remembered %q, which checkString finds %d, %v", data[i:end], e, err)
				}
			}
		}
		if utf8.Valid(data) && json.Valid(data) && (p.stopped || p.in) {
			t.Fatalf("valid JSON %q: stopped %v, in a string %v", data, p.stopped, p.in)
		}
		err := valid(data)
		if !utf8.Valid(data) {
			if err == nil {
				t.Fatalf("valid(%q) accepted invalid UTF-8", data)
			}
			return
		}
		if strings.Contains(string(data), strings.Repeat("[", 250)) || strings.Contains(string(data), strings.Repeat("{", 250)) {
			return // deep nesting: refused by design
		}
		if want := json.Valid(data); (err == nil) != want {
			t.Fatalf("valid(%q) = %v, encoding/json valid = %v", data, err, want)
		}
	})
}
