package codexctx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/attach"
)

// ErrBusy: something answers on Codex's socket already (the VS Code or Cursor extension, the
// desktop app, another bridge): it is left alone.
var ErrBusy = errors.New("another program answers there")

// SocketPath is where the Codex TUI asks for IDE context: $TMPDIR/codex-ipc/ipc-<uid>.sock
// (Rust's std::env::temp_dir, which os.TempDir matches).
func SocketPath() string {
	return filepath.Join(os.TempDir(), "codex-ipc", "ipc-"+strconv.Itoa(os.Getuid())+".sock")
}

// listen listens on path with attach's rules, the ones Codex checks from its side and
// stricter: the directory (made 0700 when missing) is this user's, no symlink, closed to
// others (Codex only asks that no one else may write it); the socket 0600; each peer's uid
// checked at Accept. A socket some process answers on is never touched (ErrBusy); one nothing
// answers, in that directory of ours, is stale and replaced (stale reports it).
func listen(path string) (ln *attach.Listener, stale bool, err error) {
	if err := os.Mkdir(filepath.Dir(path), 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, false, err
	}
	fi, lerr := os.Lstat(path)
	existed := lerr == nil && fi.Mode().Type() == fs.ModeSocket
	ln, err = attach.Listen(path)
	switch {
	case errors.Is(err, attach.ErrBusy):
		return nil, false, fmt.Errorf("%s: %w, left alone", path, ErrBusy)
	case err != nil:
		return nil, false, err
	}
	return ln, existed, nil
}
