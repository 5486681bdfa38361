package ide

import (
	"bytes"
	"os"
)

// notRegular returns a tool error when path exists but is not a regular file. Paths come from
// Claude: reading a FIFO blocks forever and a device such as /dev/zero never ends, and neither
// is something an editor can show or diff.
func notRegular(path string) *ToolResult {
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
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != int64(len(text)) {
		return false
	}
	disk, err := os.ReadFile(path)
	return err == nil && bytes.Equal(disk, []byte(text))
}
