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

// othersCanWrite returns why a user other than this one and root could change what is at p: it
// is theirs, or group or others may write it. stickyOK exempts a sticky folder (others may only
// replace their own entries in it), which is safe above a program of ours; it is not safe for a
// folder a language server searches, where a new entry of theirs (/tmp/node_modules) is the
// attack.
func othersCanWrite(p string, fi fs.FileInfo, stickyOK bool) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := int(st.Uid); uid != 0 && uid != os.Geteuid() {
		return fmt.Errorf("%s belongs to uid %d, another user", p, uid)
	}
	if fi.Mode().Perm()&0o022 == 0 {
		return nil
	}
	sticky := fi.IsDir() && fi.Mode()&fs.ModeSticky != 0
	switch {
	case sticky && stickyOK:
		return nil
	case sticky:
		return fmt.Errorf("%s can be written by other users (mode %04o: sticky, but any user can create new files and folders in it)", p, modeBits(fi))
	}
	return fmt.Errorf("%s can be written by other users (mode %04o)", p, modeBits(fi))
}

// modeBits is fi's permission and sticky bits as chmod writes them (1777 for /tmp).
func modeBits(fi fs.FileInfo) uint32 {
	m := uint32(fi.Mode().Perm())
	if fi.Mode()&fs.ModeSticky != 0 {
		m |= 0o1000
	}
	return m
}

// identityOf is fi's owner, device and inode.
func identityOf(fi fs.FileInfo) (Identity, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return Identity{}, false
	}
	return Identity{UID: st.Uid, Dev: uint64(st.Dev), Ino: uint64(st.Ino)}, true
}
