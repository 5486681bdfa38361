//go:build !unix

package trust

import (
	"io/fs"
	"os"
	"path/filepath"
)

const noFollow = 0

// ownedByMe: off unix the files' ACLs are not read; the config directory is the user's.
func ownedByMe(fs.FileInfo) bool { return true }

func ownedSafe(fs.FileInfo) bool { return true }

func exeName(name string) string {
	if filepath.Ext(name) == "" {
		return name + ".exe"
	}
	return name
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// writableByOthers: off unix, folder ACLs are not read (compile only; docs/security.md).
func writableByOthers(string) error { return nil }

func othersCanWrite(string, fs.FileInfo, bool) error { return nil }

func modeBits(fi fs.FileInfo) uint32 { return uint32(fi.Mode().Perm()) }

// identityOf: off unix no owner or inode is read; entries are bound to their path only.
func identityOf(fs.FileInfo) (Identity, bool) { return Identity{}, false }
