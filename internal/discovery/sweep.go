package discovery

// SweepOwn removes the stale lock files in dirs that claude-ide-bridge wrote (Ours). A bridge
// killed with SIGKILL cannot remove its lock; the next bridge to start calls SweepOwn so the
// dead lock does not linger. Other IDEs' locks are left alone: the CLI cleans those at its own
// start-up, and they are not ours to judge.
func SweepOwn(dirs []string) (removed []string, err error) {
	return removeStale(dirs, true)
}
