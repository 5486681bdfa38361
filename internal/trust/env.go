package trust

import (
	"os"
	"strings"
)

// Env is this process's environment with $PATH cleaned (CleanPath): the environment of any
// program the bridge starts, so that what that program runs by name is not the workspace's
// either.
func Env(workspace []string) []string {
	env := os.Environ()
	for i, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == "PATH" {
			env[i] = "PATH=" + CleanPath(v, workspace)
		}
	}
	return env
}
