package modeltools

import (
	"fmt"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/userfile"
)

// The model is an attacker here (docs/security.md): the tools read only files inside a
// workspace folder, judged on the path with every symlink resolved (userfile.Inside), so that neither an absolute
// path, "..", nor a symlink in the repository reaches ~/.ssh. Nothing outside is read, quoted
// or handed to a language server.

// outsideError refuses a path outside the workspace. It names the path as the model gave it and
// nothing else: not where a symlink points, not whether the file exists, never its text.
type outsideError struct{ given string }

func (e *outsideError) Error() string {
	return fmt.Sprintf("%s is outside the workspace folders: the code tools read only files inside them", e.given)
}

// workspace is the folders the tools may read, each resolved (symlink-free).
type workspace struct{ roots []string }

func newWorkspace(folders []string) workspace { return workspace{userfile.Roots(folders)} }

// inside returns path (absolute) resolved, or an *outsideError when it does not lie inside a
// root.
func (w workspace) inside(path string) (string, error) {
	if r, ok := userfile.Inside(path, w.roots); ok {
		return r, nil
	}
	return "", &outsideError{path}
}
