//go:build unix

package trust

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

const noFollow = syscall.O_NOFOLLOW

// ownedByMe reports whether fi belongs to this user.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

// ownedSafe reports whether fi belongs to this user and no group or other user can write it.
func ownedSafe(fi fs.FileInfo) bool {
	return ownedByMe(fi) && fi.Mode().Perm()&0o022 == 0
}

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
	if err := safeOwnerMode(real, fi, false); err != nil {
		return err
	}
	for d := filepath.Dir(real); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return err
		}
		if err := safeOwnerMode(d, fi, true); err != nil {
			return err
		}
		if filepath.Dir(d) == d {
			return nil
		}
	}
}

func safeOwnerMode(p string, fi fs.FileInfo, dir bool) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := int(st.Uid); uid != 0 && uid != os.Geteuid() {
		return fmt.Errorf("%s belongs to uid %d, another user", p, uid)
	}
	if fi.Mode().Perm()&0o022 != 0 && !(dir && fi.Mode()&fs.ModeSticky != 0) {
		return fmt.Errorf("%s can be written by other users (mode %04o)", p, fi.Mode().Perm())
	}
	return nil
}
