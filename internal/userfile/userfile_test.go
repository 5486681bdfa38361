package userfile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/membudget"
)

func TestReadBounded(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	os.WriteFile(p, []byte("0123456789"), 0o600)
	if b, err := Read(p, 10); err != nil || string(b) != "0123456789" {
		t.Fatalf("Read at the bound = %q, %v", b, err)
	}
	if _, err := Read(p, 9); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Read over the bound: %v, want ErrTooLarge", err)
	}
	if _, err := Read(dir, 10); !errors.Is(err, ErrSpecial) {
		t.Fatalf("Read of a directory: %v", err)
	}
}

// TestPseudoFilesRefused: issue 15 item 2. /proc/self/pagemap is a "regular" file of size 0
// that reads ~256 GiB; it and every path in /proc, /sys, /dev (also through a symlink) are
// refused before anything is read.
func TestPseudoFilesRefused(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	dir := t.TempDir()
	link := filepath.Join(dir, "innocent.txt")
	if err := os.Symlink("/proc/self/pagemap", link); err != nil {
		t.Fatal(err)
	}
	dirLink := filepath.Join(dir, "d")
	os.Symlink("/proc/self", dirLink)
	cases := []string{"/proc/self/pagemap", "/proc/self/environ", "/sys/kernel/notes", "/dev/zero",
		"/dev/null", link, filepath.Join(dirLink, "pagemap"), filepath.Join(dirLink, "missing"), "/proc/../proc/self/maps", "/proc"}
	for _, c := range cases {
		if _, err := Read(c, 1<<30); !errors.Is(err, ErrSpecial) {
			t.Errorf("Read(%s) = %v, want ErrSpecial", c, err)
		}
		if err := Check(c); err == nil {
			t.Errorf("Check(%s) passed", c)
		}
	}
	for _, ok := range []string{"/etc/hostname", link + "x", "/procfoo", "/device"} {
		if err := Check(ok); err != nil {
			t.Errorf("Check(%s) = %v", ok, err)
		}
	}
}

// TestGrowsWhileRead: the bound holds while reading, not only by stat: a size-0 "file" that
// reads forever stops at the bound (a FIFO-free stand-in: /proc is refused, so use a file that
// lies about nothing but is bigger than max).
func TestGrowsWhileRead(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big")
	os.WriteFile(p, []byte(strings.Repeat("x", 1<<20)), 0o600)
	if _, err := Read(p, 1<<10); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), p) {
		t.Fatalf("err = %v", err)
	}
}

// Issue 25 item 5: a read in flight holds its size of the one memory budget. With the budget
// nearly all held (pending proposals, other reads), a read gets a clear error naming the budget
// and reads nothing; once memory is released it succeeds. Not parallel: it holds the process's
// budget.
func TestReadWithinMemoryBudget(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.txt")
	if err := os.WriteFile(path, make([]byte, 2<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	held, err := membudget.Default.Take(membudget.Default.Limit()-membudget.Default.Used()-1<<20, "the test")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Read(path, 4<<20)
	if !errors.Is(err, membudget.ErrOver) || !strings.Contains(err.Error(), "reading big.txt needs 2 MiB") {
		t.Fatalf("Read over the budget: %v", err)
	}
	held.Release()
	if b, err := Read(path, 4<<20); err != nil || len(b) != 2<<20 || cap(b) != 2<<20+1 {
		t.Fatalf("Read = %d bytes (cap %d), %v", len(b), cap(b), err)
	}
	if u := membudget.Default.Used(); u != 0 {
		t.Fatalf("the budget holds %d bytes after the reads", u)
	}
}

// Issue 35 item 5: ReadText counts the text in the caller's grant, which holds it until the
// caller releases it (a read's grant lived only as long as the read, while the caller kept the
// bytes). A read past the budget is refused and counts nothing.
func TestReadTextHeldByCaller(t *testing.T) {
	b := membudget.New(5 << 20)
	path := filepath.Join(t.TempDir(), "big.txt")
	if err := os.WriteFile(path, []byte(strings.Repeat("y", 2<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	g := b.NewGrant()
	text, err := ReadText(g, path, 4<<20)
	if err != nil || text != strings.Repeat("y", 2<<20) {
		t.Fatalf("ReadText = %d bytes, %v", len(text), err)
	}
	if b.Used() != 2<<20+1 || g.Held() != 2<<20+1 {
		t.Fatalf("after the read the budget holds %d, the grant %d: want the text's size while its reader keeps it", b.Used(), g.Held())
	}
	if _, err := ReadText(g, path, 4<<20); err != nil { // a second copy in the same grant
		t.Fatal(err)
	}
	if _, err := ReadText(g, path, 4<<20); !errors.Is(err, membudget.ErrOver) || !strings.Contains(err.Error(), "reading big.txt needs 2 MiB") {
		t.Fatalf("a third 2 MiB read in a 5 MiB budget: %v", err)
	}
	if g.Held() != 2*(2<<20+1) {
		t.Fatalf("a refused read counted: the grant holds %d", g.Held())
	}
	g.Release()
	if b.Used() != 0 {
		t.Fatalf("released, the budget still holds %d", b.Used())
	}
}

func TestCleanFolders(t *testing.T) {
	real, _ := filepath.EvalSymlinks(t.TempDir())
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(real, link)
	cwd, _ := os.Getwd()
	got := CleanFolders([]string{link, real + "/sub/..", "", "rel", "/does/not/../exist"})
	want := []string{real, real, filepath.Join(cwd, "rel"), "/does/exist"}
	if !slices.Equal(got, want) {
		t.Fatalf("CleanFolders = %q, want %q", got, want)
	}
}
