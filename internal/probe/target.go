package probe

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/discovery"
)

// FromLock reads a lock file as the CLI does: the port from the file name, the token from the
// content. A lock that is not live (discovery.Live: its pid dead, nothing of this user on its
// port) is refused: the token is sent to nobody else.
func FromLock(path string) (Target, error) {
	if why := discovery.InspectLock(path).Live(); why != nil {
		return Target{}, fmt.Errorf("probe: %s: %w", path, why)
	}
	port, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(path), ".lock"))
	if err != nil || !strings.HasSuffix(path, ".lock") || port < 1 || port > 65535 {
		return Target{}, fmt.Errorf("probe: %s: not named <port>.lock", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Target{}, fmt.Errorf("probe: %w", err)
	}
	var l discovery.Lock
	if err := json.Unmarshal(data, &l); err != nil {
		return Target{}, fmt.Errorf("probe: %s: %w", path, err)
	}
	return Target{Port: port, Token: l.AuthToken, IDEName: l.IDEName, Lock: path}, nil
}

// FindTarget picks the server to probe from the lock files in dirs: <dir>/<port>.lock when port
// is set, else the newest live lock (pid alive, port answering) with a workspace folder that
// contains cwd, the way the CLI matches a lock to its working directory.
func FindTarget(dirs []string, port int, cwd string) (Target, error) {
	if port != 0 {
		for _, d := range dirs {
			p := filepath.Join(d, strconv.Itoa(port)+".lock")
			if _, err := os.Stat(p); err == nil {
				return FromLock(p)
			}
		}
		return Target{}, fmt.Errorf("probe: no %d.lock in %s", port, strings.Join(dirs, ", "))
	}
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = real
	}
	locks, err := discovery.ListLocks(dirs)
	if li, ok := discovery.Serving(locks, cwd); ok {
		return FromLock(li.Path)
	}
	return Target{}, errors.Join(fmt.Errorf("probe: no live IDE server has a workspace containing %s (use --port or --lock)", cwd), err)
}
