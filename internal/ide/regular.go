package ide

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/jsonrpc"
	"github.com/claude-ide-bridge/claude-ide-bridge/internal/userfile"
)

// notRegular returns a tool error when path is in /proc, /sys or /dev (itself or through a
// symlink), or exists but is not a regular file. Paths come from Claude: reading a FIFO blocks
// forever, a device such as /dev/zero never ends, /proc/self/pagemap is a "regular" file of
// size 0 that reads ~256 GiB, and none is something an editor can show or diff.
func notRegular(path string) *ToolResult {
	if err := userfile.Check(path); err != nil {
		return toolError("%v", err)
	}
	fi, err := os.Stat(path)
	switch {
	case err != nil || fi.Mode().IsRegular():
		return nil
	case fi.IsDir():
		return toolError("%s is a directory, not a file", path)
	}
	return toolError("%s is not a regular file (%s)", path, fi.Mode().Type())
}

// fileHolds reports whether path is a regular file whose content is text.
func fileHolds(path, text string) bool {
	disk, err := userfile.Read(path, int64(len(text)))
	return err == nil && bytes.Equal(disk, []byte(text))
}

// errBadPath: a path argument holding control characters (a newline in a path fakes output in a
// terminal and in logs) is refused, not passed on to the editor.
var errBadPath = errors.New("control character in path")

// cleanNewPath checks openDiff's new_file_path: no control characters, and absolute and clean
// (so `..` is resolved before the editor sees it).
func (m *Model) cleanNewPath(p string) (string, error) {
	if strings.IndexFunc(p, func(r rune) bool { return unicode.IsControl(r) || r == 0x7f }) >= 0 {
		return "", jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: new_file_path %q: %v", p, errBadPath)
	}
	abs, err := m.absPath(p)
	if err != nil {
		return "", fmt.Errorf("new_file_path: %w", err)
	}
	return abs, nil
}
