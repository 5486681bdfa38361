package jsonrpc_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
)

// chunkReader returns at most n bytes per Read, as a pipe does.
type chunkReader struct {
	r io.Reader
	n int
}

func (c chunkReader) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

// lineOf is a JSON line of about n bytes, different for each k.
func lineOf(n, k int) string {
	head := fmt.Sprintf(`{"k":%d,"t":"`, k)
	body := strings.Repeat(`ab\"cé\n`, n/9+1)[:max(0, n-len(head)-3)]
	body = strings.TrimRight(body, `\`) // do not cut an escape in two
	return head + body + "\"}\n"
}

// TestLongLinesExact: lines around and far over the read buffer (64 KiB) come back exactly,
// one after the other on one stream, however the pipe hands them over.
func TestLongLinesExact(t *testing.T) {
	sizes := []int{20, 64<<10 - 1, 64 << 10, 64<<10 + 1, 200 << 10, 100, 1<<20 + 3, 64 << 10, 3 << 20}
	var all strings.Builder
	for k, n := range sizes {
		all.WriteString(lineOf(n, k))
	}
	for _, chunk := range []int{1000, 4096, 65536, 100000, 1 << 22} {
		s := jsonrpc.NewLineStream(chunkReader{strings.NewReader(all.String()), chunk}, nopCloser{io.Discard})
		for k, n := range sizes {
			got, err := s.Read(context.Background())
			if want := lineOf(n, k); err != nil || string(got) != want || len(want) > 64<<10 && cap(got) != len(want) {
				t.Fatalf("chunks of %d, line %d (%d bytes): got %d bytes (cap %d), %v", chunk, k, len(want), len(got), cap(got), err)
			}
		}
		if _, err := s.Read(context.Background()); err != io.EOF {
			t.Fatalf("chunks of %d: after the last line: %v, want EOF", chunk, err)
		}
	}
}

// TestLongLineLimitAndEOF: a long line over the frame limit is skipped, the next one is read,
// and a last long line without its newline is still a message.
func TestLongLineLimitAndEOF(t *testing.T) {
	over, next, last := lineOf(300<<10, 1), lineOf(100<<10, 2), lineOf(150<<10, 3)
	last = last[:len(last)-1]
	s := jsonrpc.NewLineStream(strings.NewReader(over+"\n\n"+next+last), nopCloser{io.Discard})
	jsonrpc.SetMaxFrame(s, 200<<10)
	if _, err := s.Read(context.Background()); !errors.Is(err, jsonrpc.ErrFrameTooLarge) {
		t.Fatalf("line over the limit: %v, want ErrFrameTooLarge", err)
	}
	for _, want := range []string{next, last} {
		if got, err := s.Read(context.Background()); err != nil || string(got) != want {
			t.Fatalf("got %d bytes, %v, want %d bytes", len(got), err, len(want))
		}
	}
	if _, err := s.Read(context.Background()); err != io.EOF {
		t.Fatalf("at the end: %v, want EOF", err)
	}
}

// TestLongLineAgainAllocatesOnce: the second 10 MiB line is gathered into one buffer of about
// its size, the one returned, once it has reached an eighth of it (before: 26 MB of pieces and
// their join for a 13 MB line); a much shorter line after it is not given as much.
func TestLongLineAgainAllocatesOnce(t *testing.T) {
	msg := append(openDiffMessage(10<<20), '\n')
	short := append(openDiffMessage(300<<10), '\n')
	s := jsonrpc.NewLineStream(bytes.NewReader(slices.Concat(msg, msg, short)), nopCloser{io.Discard})
	if _, err := s.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := s.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if a := after.TotalAlloc - before.TotalAlloc; float64(a) > 1.6*float64(len(msg)) {
		t.Errorf("reading a %d-byte line again allocated %d bytes (%.2fx)", len(msg), a, float64(a)/float64(len(msg)))
	}
	runtime.ReadMemStats(&before)
	if _, err := s.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if a := after.TotalAlloc - before.TotalAlloc; a > 4*uint64(len(short)) {
		t.Errorf("a %d-byte line after a %d-byte one allocated %d bytes", len(short), len(msg), a)
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// repeatReader hands out msg over and over, one byte of it changed each time (at at), as each
// of Claude's proposals differs from the last, so the big-string cache cannot answer from the
// previous round.
type repeatReader struct {
	msg []byte
	at  int
	off int
	n   byte
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.off == len(r.msg) {
		r.off = 0
	}
	if r.off == 0 {
		r.n++
		r.msg[r.at] = 'a' + r.n%26
	}
	n := copy(p, r.msg[r.off:])
	r.off += n
	return n, nil
}

// BenchmarkLineStreamReadAgain reads 10 MiB lines one after the other from one stream, as the
// stdio channel reads an editor's accepts: each is gathered into one buffer of its size.
func BenchmarkLineStreamReadAgain(b *testing.B) { benchLongLines(b, false) }

// BenchmarkLineStreamReadDecode is reading and decoding a new 10 MiB message: all the CPU time
// the bridge spends on it.
func BenchmarkLineStreamReadDecode(b *testing.B) { benchLongLines(b, true) }

func benchLongLines(b *testing.B, decode bool) {
	msg := append(openDiffMessage(10<<20), '\n')
	r := &repeatReader{msg: msg, at: bytes.Index(msg, []byte("limit"))}
	s := jsonrpc.NewLineStream(r, benchSink{io.Discard})
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		line, err := s.Read(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if decode {
			if _, err := jsonrpc.Decode(line); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestBigHeaderFrames: Content-Length frames, big and small, read as the pipe hands them over;
// a frame cut short ends with io.ErrUnexpectedEOF.
func TestBigHeaderFrames(t *testing.T) {
	lines := []string{lineOf(30, 0), lineOf(1<<20+5, 1), lineOf(64<<10, 2)}
	var all strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&all, "Content-Length: %d\r\n\r\n%s", len(l), l)
	}
	fmt.Fprintf(&all, "Content-Length: %d\r\n\r\n%s", 200<<10, lines[1][:100<<10])
	for _, chunk := range []int{1000, 65536, 1 << 22} {
		s := jsonrpc.NewHeaderStream(chunkReader{strings.NewReader(all.String()), chunk}, nopCloser{io.Discard})
		for k, want := range lines {
			if got, err := s.Read(context.Background()); err != nil || string(got) != want {
				t.Fatalf("chunks of %d, frame %d: got %d bytes, %v, want %d", chunk, k, len(got), err, len(want))
			}
		}
		if _, err := s.Read(context.Background()); err != io.ErrUnexpectedEOF {
			t.Fatalf("chunks of %d, a frame cut short: %v, want io.ErrUnexpectedEOF", chunk, err)
		}
	}
}
