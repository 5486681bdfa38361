package lines

import (
	"bufio"
	"io"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	long := strings.Repeat("x", 100_000)
	r := bufio.NewReaderSize(strings.NewReader("a\n"+long+"\n\nend"), 16)
	for _, want := range []string{"a", long, ""} {
		got, err := Read(r)
		if err != nil || string(got) != want {
			t.Fatalf("Read = %.20q (%d bytes), %v; want %.20q (%d bytes)", got, len(got), err, want, len(want))
		}
	}
	if _, err := Read(r); err != io.EOF {
		t.Fatalf("unterminated last line: err = %v, want EOF", err)
	}
}
