package lines

import (
	"bufio"
	"io"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	long, longer := strings.Repeat("x", 100_000), strings.Repeat("y", 150_000)
	r := NewReader(bufio.NewReaderSize(strings.NewReader("a\n"+long+"\n\n"+longer+"\n"+long+"\nend"), 16))
	var got [][]byte
	for _, want := range []string{"a", long, "", longer, long} {
		line, err := r.Read()
		if err != nil || string(line) != want {
			t.Fatalf("Read = %.20q (%d bytes), %v; want %.20q (%d bytes)", line, len(line), err, want, len(want))
		}
		got = append(got, line)
	}
	if string(got[1]) != long || string(got[3]) != longer { // each line is its own
		t.Fatal("a later line overwrote an earlier one")
	}
	if _, err := r.Read(); err != io.EOF {
		t.Fatalf("unterminated last line: err = %v, want EOF", err)
	}
}
