//go:build unix

package attach

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
)

// Listener accepts editors of this user only.
type Listener struct {
	ln   *net.UnixListener
	path string
}

// Listen listens on path, made 0600 in its directory, which must be this user's and closed to
// others (0700). A socket file left by a bridge that died is replaced; one a live bridge
// answers on is ErrBusy. Codex's /ide socket (internal/codexctx) is made with it too.
func Listen(path string) (*Listener, error) {
	if err := checkDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	ln, err := listen(path)
	if errors.Is(err, syscall.EADDRINUSE) {
		if removed, rerr := RemoveStale(path); !removed {
			if errors.Is(rerr, ErrBusy) {
				return nil, ErrBusy
			}
			return nil, fmt.Errorf("attach: %s is in the way: %w", path, rerr)
		}
		ln, err = listen(path)
	}
	if err != nil {
		return nil, fmt.Errorf("attach: %w", err)
	}
	return &Listener{ln: ln, path: path}, nil
}

func listen(path string) (*net.UnixListener, error) {
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, err
	}
	// The directory already keeps others out; the mode says so once more.
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// RemoveStale removes the socket at path when it is a dead bridge's: a socket (never another
// kind of file), this user's, in a directory that is this user's alone, on which connecting is
// refused (nothing listens: a bridge that was killed leaves its socket behind). A socket that
// answers is ErrBusy and stays. removed is false, with the reason, when nothing was removed.
func RemoveStale(path string) (removed bool, err error) {
	before, err := ownSocket(path)
	if err != nil {
		return false, err
	}
	c, err := net.Dial("unix", path)
	if err == nil {
		c.Close()
		return false, ErrBusy
	}
	// Only a refusal says nothing listens (a full backlog is EAGAIN: a live bridge).
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return false, err
	}
	// The same file still: not one a new bridge has just put there.
	if now, err := os.Lstat(path); err != nil || !os.SameFile(before, now) {
		return false, err
	}
	if err := os.Remove(path); err != nil {
		return false, err
	}
	return true, nil
}

// Path is the socket's path.
func (l *Listener) Path() string { return l.path }

// Accept waits for the next connection whose peer is this user. A connection of another user
// is closed unread and refused is told about it.
func (l *Listener) Accept(refused func(uid int, err error)) (net.Conn, error) {
	for {
		c, err := l.ln.AcceptUnix()
		if err != nil {
			return nil, err
		}
		uid, err := peerUID(c)
		if err == nil && uid == os.Geteuid() {
			return c, nil
		}
		c.Close()
		if refused != nil {
			refused(uid, err)
		}
	}
}

// Close stops listening and removes the socket file.
func (l *Listener) Close() error { return l.ln.Close() }

// Dial connects to the bridge listening on path, after checking that the directory and the
// socket are this user's alone and, once connected, that the peer is this user too: an editor
// never speaks to another user's process.
func Dial(ctx context.Context, path string) (net.Conn, error) {
	fi, err := ownSocket(path)
	if err != nil {
		return nil, err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%w: %s has mode %v", ErrUnsafe, path, fi.Mode().Perm())
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, err
	}
	uid, err := peerUID(c.(*net.UnixConn))
	if err != nil || uid != os.Geteuid() {
		c.Close()
		return nil, fmt.Errorf("%w: the bridge on %s runs as uid %d (%v)", ErrUnsafe, path, uid, err)
	}
	return c, nil
}

// ownSocket is path's file when it is a socket of this user in a directory that is this user's
// alone (checkDir); else an ErrUnsafe or the error of reading it.
func ownSocket(path string) (fs.FileInfo, error) {
	if err := checkDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return nil, fmt.Errorf("%w: %s is not a socket", ErrUnsafe, path)
	}
	if uid, ok := discovery.FileOwner(fi); !ok || uid != os.Geteuid() {
		return nil, fmt.Errorf("%w: %s is owned by uid %d", ErrUnsafe, path, uid)
	}
	return fi, nil
}

// checkDir refuses a directory that is a symlink, not this user's, or open to others.
func checkDir(dir string) error {
	_, err := discovery.OwnDir(dir, discovery.DirRule{Refuse: 0o077, Err: ErrUnsafe})
	return err
}
