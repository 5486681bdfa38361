// Package attach lets an editor reach a bridge that outlived the editor that started it.
//
// A bridge whose editor went away while Claude was connected listens on a Unix socket named
// after its workspace, in the lock directory (0700, owned by the user); the socket is 0600, and
// each connection's peer is checked to be this user (SO_PEERCRED on Linux, LOCAL_PEERCRED on
// macOS and FreeBSD) before a byte is read. The editor protocol (docs/editor-protocol.md) runs
// on it unchanged. `serve --stdio` dials it (Dial) and relays its stdio, so every editor
// plugin attaches without code of its own. The bridge's seat for that editor is
// internal/editors/slot.
//
// Windows: not supported (Listen and Dial return ErrUnsupported); a bridge there ends with its
// editor, as before. A named pipe with the user's ACL would be the channel.
package attach

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path/filepath"
)

// ErrUnsupported: this system has no attach channel.
var ErrUnsupported = errors.New("attach: not supported on this system")

// ErrBusy: another live bridge already listens for this workspace.
var ErrBusy = errors.New("attach: another bridge is listening for this workspace")

// ErrUnsafe: the socket or its directory is not this user's alone; it is not used.
var ErrUnsafe = errors.New("attach: unsafe socket")

// CleanStale removes the attach sockets of dead bridges in lockDir (RemoveStale on each
// ws-*.sock) and returns their paths; a live or unsafe one is left alone.
func CleanStale(lockDir string) (removed []string, err error) {
	paths, err := filepath.Glob(filepath.Join(lockDir, socketGlob))
	for _, p := range paths {
		if ok, _ := RemoveStale(p); ok {
			removed = append(removed, p)
		}
	}
	return removed, err
}

// socketGlob matches every name SocketPath gives.
const socketGlob = "ws-*.sock"

// SocketPath is the socket of the bridge for workspace folder (absolute, symlink-free) in
// lockDir: a hash of the folder, so its length does not depend on the folder's.
func SocketPath(lockDir, folder string) string {
	sum := sha256.Sum256([]byte(folder))
	return filepath.Join(lockDir, "ws-"+hex.EncodeToString(sum[:8])+".sock")
}
