// Package userfile handles the user's files named by a client (Claude or an editor) safely:
// reads refuse pseudo-file systems and are bounded while they read (this file); Inside is the
// one test of "inside the workspace" (workspace.go); WriteIn and RemoveIn write or remove a file
// inside a workspace folder following no link, atomically (write.go).
//
// A size from stat is not enough: /proc/self/pagemap is a "regular" file of size 0 that reads
// about 256 GiB, and a file can grow between the stat and the read. So Read stops after max+1
// bytes and fails when it got them. Paths under /proc, /sys and /dev (after resolving symlinks,
// so a link into them is refused too) are refused before anything is opened: nothing there is a
// file a user edits, and reading some of them never ends or has side effects.
//
// The functions are safe for concurrent use. Errors name the path and say why; they wrap
// ErrSpecial or ErrTooLarge so callers can tell them apart.
package userfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/membudget"
)

var (
	// ErrSpecial: the path is in a pseudo-file system or is not a regular file.
	ErrSpecial = errors.New("not a regular file")
	// ErrTooLarge: the file holds more than the caller's bound.
	ErrTooLarge = errors.New("file too large")
)

// refused are the pseudo-file system roots no tool reads from.
var refused = []string{"/proc", "/sys", "/dev"}

// ResolveLinks is path made absolute, clean and with every symlink resolved as far as it exists:
// for a path whose last components do not exist, its longest existing prefix is resolved and the
// rest appended; a dangling symlink is followed to where it points (at most 40 links). It reads
// links, never a file's contents. Unlike Resolve, a dangling link is followed: the exclude globs
// judge where it points before the file exists.
func ResolveLinks(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	for hops := 0; hops < 40; hops++ {
		next, more := resolveOnce(abs)
		if !more {
			return next
		}
		abs = next
	}
	return abs
}

// resolveOnce resolves the longest existing prefix of abs; when that stops at a dangling link it
// returns the link's target with the rest appended, and more.
func resolveOnce(abs string) (string, bool) {
	rest := ""
	for p := abs; ; {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest), false
		}
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if target, err := os.Readlink(p); err == nil {
				if !filepath.IsAbs(target) {
					dir := filepath.Dir(p)
					if r, err := filepath.EvalSymlinks(dir); err == nil {
						dir = r // ".." in target is taken from where the link really is
					}
					target = filepath.Join(dir, target)
				}
				return filepath.Join(target, rest), true
			}
		}
		parent := filepath.Dir(p)
		if parent == p {
			return abs, false
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// Check refuses a path under /proc, /sys or /dev, itself or through a symlink.
func Check(path string) error {
	for _, cand := range []string{filepath.Clean(path), ResolveLinks(path)} {
		for _, root := range refused {
			if cand == root || strings.HasPrefix(cand, root+string(filepath.Separator)) {
				return fmt.Errorf("%s is in %s, which holds no user files: %w", path, root, ErrSpecial)
			}
		}
	}
	return nil
}

// Read returns the content of the regular file at path if it holds at most max bytes. The bound
// holds while reading: a file that reads more than max bytes fails with ErrTooLarge whatever its
// stat says. Paths Check refuses, directories, FIFOs and devices fail with ErrSpecial without
// being read (a FIFO is not even opened, so the call cannot block on it).
//
// The bytes are counted in the memory budget (membudget.Default) only while Read runs: it is
// for callers whose bytes another bound covers (the review's MaxTotal, a settings file's few
// KiB). A caller that keeps what it read, and copies of it, uses ReadText with its grant.
func Read(path string, max int64) ([]byte, error) {
	g := membudget.Default.NewGrant()
	defer g.Release()
	f, size, err := open(g, path, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, 0, size+1) // the file's size (+1 to see it grow), not io.ReadAll's doubling
	lr := io.LimitReader(f, max+1)
	for {
		if len(b) == cap(b) { // the file grew since the stat
			b = append(b, 0)[:len(b)]
		}
		n, err := lr.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if int64(len(b)) > max {
			return nil, tooLong(path, max)
		}
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// ReadText is Read with the bytes counted in held (membudget.ErrOver when they do not fit) and
// read straight into a strings.Builder, whose String is not a copy. The holder releases held
// once the text and every copy of it are gone (issue 35 item 5: 60 parallel 30 MiB reads whose
// grants ended with the read took the bridge past 3 GiB).
func ReadText(held *membudget.Grant, path string, max int64) (string, error) {
	f, size, err := open(held, path, max)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var b strings.Builder
	b.Grow(int(size) + 1) // as Read: the file's size, grown only if the file grows
	if _, err := io.Copy(&b, io.LimitReader(f, max+1)); err != nil {
		return "", err
	}
	if int64(b.Len()) > max {
		return "", tooLong(path, max)
	}
	return b.String(), nil
}

func tooLong(path string, max int64) error {
	return fmt.Errorf("%s reads more than the limit of %d bytes: %w", path, max, ErrTooLarge)
}

// open checks path (Check, a regular file, at most max bytes by its stat) and counts its size
// in held before anything is read; the caller reads f and closes it.
func open(held *membudget.Grant, path string, max int64) (f *os.File, size int64, err error) {
	if err := Check(path); err != nil {
		return nil, 0, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s is %s: %w", path, kind(fi), ErrSpecial)
	}
	if f, err = os.Open(path); err != nil {
		return nil, 0, err
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	if fi, err = f.Stat(); err != nil {
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() { // replaced between the stat and the open
		return nil, 0, fmt.Errorf("%s is %s: %w", path, kind(fi), ErrSpecial)
	}
	if fi.Size() > max {
		return nil, 0, fmt.Errorf("%s has %d bytes, over the limit of %d: %w", path, fi.Size(), max, ErrTooLarge)
	}
	// The read's buffer is counted before it exists (issue 25 item 5): past the budget the read
	// is refused with a clear error instead of taking the bridge past its memory. It is the
	// file's size (+1 to see it grow), not io.ReadAll's doubling.
	if err = held.Add(fi.Size()+1, "reading "+filepath.Base(path)); err != nil {
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

func kind(fi os.FileInfo) string {
	if fi.IsDir() {
		return "a directory"
	}
	return "not a regular file (" + fi.Mode().Type().String() + ")"
}
