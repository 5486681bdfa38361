package jsonrpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

// buffer is a WriteCloser that keeps what was written.
type buffer struct{ testbin.Buffer }

func (*buffer) Close() error { return nil }

// readAll reads frames until the stream ends; it stops at the first error other than
// ErrFrameTooLarge, which it records as "<too large>".
func readAll(t *testing.T, s jsonrpc.Stream) ([]string, error) {
	t.Helper()
	var out []string
	for range 100 {
		b, err := s.Read(context.Background())
		if errors.Is(err, jsonrpc.ErrFrameTooLarge) {
			out = append(out, "<too large>")
			continue
		}
		if err != nil {
			return out, err
		}
		out = append(out, strings.TrimSpace(string(b)))
	}
	t.Fatal("stream did not end")
	return nil, nil
}

func equal(a, b []string) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

func TestLineStream(t *testing.T) {
	in := "{\"a\":1}\n\n   \r\n{\"b\":2}\r\n{\"c\":3}" // blank lines skipped; the last line may lack \n
	got, err := readAll(t, jsonrpc.NewLineStream(strings.NewReader(in), &buffer{}))
	if err != io.EOF || !equal(got, []string{`{"a":1}`, `{"b":2}`, `{"c":3}`}) {
		t.Errorf("frames %q, end %v", got, err)
	}
	var w buffer
	jsonrpc.NewLineStream(strings.NewReader(""), &w).Write(context.Background(), []byte(`{"x":1}`))
	if w.String() != "{\"x\":1}\n" {
		t.Errorf("wrote %q", w.String())
	}
}

func TestHeaderStream(t *testing.T) {
	// LSP base protocol: headers, a blank line, then Content-Length bytes. Other headers are
	// ignored; the name is case-insensitive.
	in := "Content-Length: 7\r\n\r\n{\"a\":1}" +
		"content-length: 7\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{\"b\":2}" +
		"\r\nContent-Length: 9\r\n\r\n{\"c\":\"\n\"}"
	got, err := readAll(t, jsonrpc.NewHeaderStream(strings.NewReader(in), &buffer{}))
	if err != io.EOF || !equal(got, []string{`{"a":1}`, `{"b":2}`, "{\"c\":\"\n\"}"}) {
		t.Errorf("frames %q, end %v", got, err)
	}
	for _, bad := range []string{"Content-Length: x\r\n\r\n", "Content-Length: -1\r\n\r\n", "no colon\r\n\r\n", "Content-Length: 10\r\n\r\n{}"} {
		got, err := readAll(t, jsonrpc.NewHeaderStream(strings.NewReader(bad), &buffer{}))
		if err == nil || len(got) != 0 {
			t.Errorf("%q: frames %q, err %v; want an error", bad, got, err)
		}
	}
	var w buffer
	jsonrpc.NewHeaderStream(strings.NewReader(""), &w).Write(context.Background(), []byte(`{"日":1}`))
	if w.String() != "Content-Length: 9\r\n\r\n{\"日\":1}" {
		t.Errorf("wrote %q; Content-Length counts bytes", w.String())
	}
}

func TestDetectStream(t *testing.T) {
	// docs/editor-protocol.md: "The bridge detects which from the editor's first byte and
	// answers in the same framing for the whole session".
	for _, tt := range []struct{ in, frame, answer string }{
		{"Content-Length: 2\r\n\r\n{}", "{}", "Content-Length: 4\r\n\r\n{\"\"}"},
		{"{}\n", "{}", "{\"\"}\n"},
		{"\r\n \t{}\n", "{}", "{\"\"}\n"},
		{"[]\n", "[]", "{\"\"}\n"},
	} {
		var w buffer
		s := jsonrpc.NewDetectStream(strings.NewReader(tt.in), &w)
		b, err := s.Read(context.Background())
		if err != nil || strings.TrimSpace(string(b)) != tt.frame {
			t.Errorf("%q: read %q, %v", tt.in, b, err)
		}
		s.Write(context.Background(), []byte(`{""}`))
		if w.String() != tt.answer {
			t.Errorf("%q: answered %q, want %q", tt.in, w.String(), tt.answer)
		}
	}
	_, err := jsonrpc.NewDetectStream(strings.NewReader("hello\n"), &buffer{}).Read(context.Background())
	if !errors.Is(err, jsonrpc.ErrUnknownFraming) || !strings.Contains(err.Error(), `'h'`) {
		t.Errorf("garbage first byte: %v", err)
	}
}

func TestOversizeFrameSkipped(t *testing.T) {
	// "A single message is at most 256 MiB; a larger Content-Length is answered with -32600 and
	// the bytes are skipped." The stream reports it and stays usable.
	big := `{"x":"` + strings.Repeat("a", 100) + `"}`
	line := jsonrpc.NewLineStream(strings.NewReader(big+"\n{\"ok\":1}\n"), &buffer{})
	jsonrpc.SetMaxFrame(line, 64)
	if got, err := readAll(t, line); err != io.EOF || !equal(got, []string{"<too large>", `{"ok":1}`}) {
		t.Errorf("line: frames %q, end %v", got, err)
	}
	header := jsonrpc.NewHeaderStream(strings.NewReader(fmt.Sprintf("Content-Length: %d\r\n\r\n%sContent-Length: 8\r\n\r\n{\"ok\":1}", len(big), big)), &buffer{})
	jsonrpc.SetMaxFrame(header, 64)
	if got, err := readAll(t, header); err != io.EOF || !equal(got, []string{"<too large>", `{"ok":1}`}) {
		t.Errorf("header: frames %q, end %v", got, err)
	}
	// A line longer than the reader's buffer but under the limit is one frame.
	long := `{"x":"` + strings.Repeat("b", 200<<10) + `"}`
	if got, _ := readAll(t, jsonrpc.NewLineStream(strings.NewReader(long+"\n"), &buffer{})); len(got) != 1 || got[0] != long {
		t.Errorf("a 200 KiB line was not read whole")
	}
}

func TestConcurrentWritesAreAtomic(t *testing.T) {
	// "Write may be called concurrently and must write each message atomically." Every fifth
	// message is over 64 KiB: those go out in several writes (message, then framing), which
	// must not interleave with another message either.
	for _, framing := range []struct {
		name string
		open func(io.Reader, io.WriteCloser) jsonrpc.Stream
	}{{"line", jsonrpc.NewLineStream}, {"header", jsonrpc.NewHeaderStream}} {
		t.Run(framing.name, func(t *testing.T) {
			var w buffer
			s := framing.open(strings.NewReader(""), &w)
			var wg sync.WaitGroup
			for i := range 50 {
				pad := 1000 + i
				if i%5 == 0 {
					pad = 70 << 10
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					s.Write(context.Background(), []byte(fmt.Sprintf(`{"n":%d,"pad":"%s"}`, i, strings.Repeat("p", pad))))
				}()
			}
			wg.Wait()
			got, err := readAll(t, framing.open(strings.NewReader(w.String()), &buffer{}))
			if err != io.EOF || len(got) != 50 {
				t.Fatalf("read back %d frames, %v", len(got), err)
			}
			for _, f := range got {
				if !json.Valid([]byte(f)) {
					t.Errorf("interleaved frame: %.80q", f)
				}
			}
		})
	}
}
