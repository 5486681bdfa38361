//go:build !unix

package trust

import (
	"io/fs"
	"os"
	"path/filepath"
)

const noFollow = 0

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

// identityOf: off unix no owner or inode is read; entries are bound to their path only.
func identityOf(fs.FileInfo) (Identity, bool) { return Identity{}, false }
