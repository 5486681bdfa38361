package discovery

import (
	"fmt"
	"io/fs"
	"os"
	"runtime"
)

// DirRule is what OwnDir holds a folder to.
type DirRule struct {
	// Refuse is the permission bits an existing folder must not have: 0o077 when others may not
	// even look in (the attach socket's folder), 0o022 when they may not write (a folder another
	// program made, like ~/.qwen, is often 0755). Windows has no such bits: not checked there.
	Refuse fs.FileMode
	// Tighten makes a folder that is not 0700 so instead of refusing it, for a folder that is
	// ours by its name (the lock folder, the trust store). Never for another program's folder,
	// nor where a folder others could write has to be refused: what they planted would stay.
	Tighten bool
	// Create makes a missing folder 0700, with its missing parents.
	Create bool
	// Follow accepts a symlink to a folder that passes (a parent: dotfile setups link ~/.qwen).
	Follow bool
	// Err is what a refusal wraps; ErrUnsafeDir when nil.
	Err error
}

// OwnDir checks that dir is a folder of this user that others cannot get into, the one rule for
// every folder the bridge keeps a token or a socket in. It refuses (wrapping r.Err) a symlink
// unless r.Follow, anything but a folder, a folder of another user, and one with r.Refuse bits
// unless r.Tighten. It returns the folder as found, before any chmod; an error from the file
// system is returned as it is.
func OwnDir(dir string, r DirRule) (fs.FileInfo, error) {
	if r.Err == nil {
		r.Err = ErrUnsafeDir
	}
	if r.Create {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
	}
	stat := os.Lstat
	if r.Follow {
		stat = os.Stat
	}
	fi, err := stat(dir)
	if err != nil {
		return nil, err
	}
	perm := fi.Mode().Perm()
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, fmt.Errorf("%w: %s is a symlink", r.Err, dir)
	case !fi.IsDir():
		return nil, fmt.Errorf("%w: %s is not a directory", r.Err, dir)
	}
	if uid, ok := FileOwner(fi); ok && uid != os.Geteuid() {
		return nil, fmt.Errorf("%w: %s is owned by uid %d, not %d", r.Err, dir, uid, os.Geteuid())
	}
	switch {
	case r.Tighten && perm != 0o700:
		if err := os.Chmod(dir, 0o700); err != nil {
			return nil, err
		}
	case !r.Tighten && runtime.GOOS != "windows" && perm&r.Refuse != 0:
		return nil, fmt.Errorf("%w: %s has mode %04o, open to other users (it may have none of %04o)", r.Err, dir, perm, r.Refuse)
	}
	return fi, nil
}
