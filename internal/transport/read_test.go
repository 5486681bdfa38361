package transport

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// chunkReader returns at most n bytes per Read, as a socket does.
type chunkReader struct {
	r io.Reader
	n int
}

func (c chunkReader) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

// message is a JSON-RPC message of n bytes (at least 30) with one big string, different for
// each k.
func message(n, k int) []byte {
	head := fmt.Sprintf(`{"k":%d,"t":"`, k)
	body := strings.Repeat(`ab\"cé\n`, n/9+1)[:max(0, n-len(head)-2)]
	return []byte(head + strings.TrimRight(body, `\`) + `"}`)
}

// TestReadMessageExact: every size, read in any pieces, comes back exact and in its own buffer,
// which the next message does not overwrite.
func TestReadMessageExact(t *testing.T) {
	var prev, prevWant []byte
	for _, n := range []int{30, 4095, 4096, 4097, 64<<10 - 1, 64 << 10, 64<<10 + 1, 1<<20 + 7, 3 << 20, 100} {
		for _, chunk := range []int{1000, 4096, 65536, 1 << 20, 1 << 30} {
			want := message(n, n+chunk)
			got, err := readMessage(chunkReader{bytes.NewReader(want), chunk})
			if err != nil || !bytes.Equal(got, want) || cap(got) != len(want) {
				t.Fatalf("%d bytes in pieces of %d: got %d (cap %d), %v", len(want), chunk, len(got), cap(got), err)
			}
			if prev != nil && !bytes.Equal(prev, prevWant) {
				t.Fatalf("%d bytes in pieces of %d: the message before changed", len(want), chunk)
			}
			prev, prevWant = got, bytes.Clone(want)
		}
	}
}

type failingReader struct{ n int }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errors.New("connection reset")
	}
	m := min(len(p), f.n)
	f.n -= m
	return m, nil
}

func TestReadMessageError(t *testing.T) {
	if msg, err := readMessage(&failingReader{100 << 10}); msg != nil || err == nil {
		t.Fatalf("readMessage = %d bytes, %v, want nil and the error", len(msg), err)
	}
	want := message(200<<10, 1)
	if got, err := readMessage(bytes.NewReader(want)); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("after an error: %d bytes, %v", len(got), err)
	}
}

// TestReadMessageConcurrent: clients read at the same time; each gets its own bytes (run with
// -race).
func TestReadMessageConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for k := range 20 {
				want := message(1000+(g*20+k)*9000, g*100+k)
				got, err := readMessage(chunkReader{bytes.NewReader(want), 8192})
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("reader %d, message %d: %d bytes, %v, want %d", g, k, len(got), err, len(want))
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestReadMessageAgainAllocatesOnce: a big message like the last one is read into one buffer of
// about its size, the one returned, once it has reached an eighth of it (doubling from 4 KiB all
// the way allocated ~24 MB for a 13 MB message); a much smaller one after it is not given as much.
func TestReadMessageAgainAllocatesOnce(t *testing.T) {
	msg := message(10<<20, 1)
	if _, err := readMessage(chunkReader{bytes.NewReader(msg), 64 << 10}); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := readMessage(chunkReader{bytes.NewReader(msg), 64 << 10}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if a := after.TotalAlloc - before.TotalAlloc; float64(a) > 1.6*float64(len(msg)) {
		t.Errorf("reading a %d-byte message again allocated %d bytes (%.2fx)", len(msg), a, float64(a)/float64(len(msg)))
	}
	small := message(300<<10, 2)
	runtime.ReadMemStats(&before)
	if _, err := readMessage(chunkReader{bytes.NewReader(small), 64 << 10}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if a := after.TotalAlloc - before.TotalAlloc; a > 4*uint64(len(small)) {
		t.Errorf("a %d-byte message after a %d-byte one allocated %d bytes", len(small), len(msg), a)
	}
}

// BenchmarkReadMessage reads a new 10 MiB message (one byte changed each time) in 64 KiB
// pieces, as from a socket: reading and copying out.
func BenchmarkReadMessage(b *testing.B) {
	msg := message(10<<20, 1)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n++
		msg[20] = 'a' + byte(n%26)
		if _, err := readMessage(chunkReader{bytes.NewReader(msg), 64 << 10}); err != nil {
			b.Fatal(err)
		}
	}
}
