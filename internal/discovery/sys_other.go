//go:build !unix

package discovery

import (
	"io/fs"
	"os"
)

func FileOwner(fs.FileInfo) (int, bool) { return 0, false }

// pidAlive is best effort off unix: FindProcess fails for a pid that does not exist on Windows.
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
