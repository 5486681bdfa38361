package modeltools

import "fmt"

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
