//go:build unix

package trust

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

const noFollow = syscall.O_NOFOLLOW

func exeName(name string) string { return name }

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// writableByOthers returns why a user other than this one and root could replace the program at
// real (symlink-free): it or a folder above it is theirs, or is writable by group or others
// (a sticky folder only lets its files' owners replace them, so it is safe above the program).
func writableByOthers(real string) error {
	fi, err := os.Stat(real)
	if err != nil {
		return err
	}
	if err := othersCanWrite(real, fi, false); err != nil {
		return err
	}
	for d := filepath.Dir(real); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return err
		}
		if err := othersCanWrite(d, fi, true); err != nil {
			return err
		}
		if filepath.Dir(d) == d {
			return nil
		}
	}
}

// identityOf is fi's owner, device and inode.
func identityOf(fi fs.FileInfo) (Identity, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return Identity{}, false
	}
	return Identity{UID: st.Uid, Dev: uint64(st.Dev), Ino: uint64(st.Ino)}, true
}
