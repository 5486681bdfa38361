// Package discovery finds and publishes IDE servers: lock files, tokens, ports. No protocol.
//
// The Claude Code CLI discovers an IDE through <config>/ide/<port>.lock files and the
// CLAUDE_CODE_SSE_PORT environment variable. This package writes and lists those files,
// makes the auth token, binds the loopback port and builds the environment for the terminal.
package discovery

import "errors"

// ErrUnsafeDir is returned (wrapped with context) when a folder of ours (OwnDir) or a lock path
// could let another user or a planted symlink redirect what we write.
var ErrUnsafeDir = errors.New("discovery: unsafe directory")

// BridgeMarker is the value of Lock.Bridge in lock files written by claude-ide-bridge.
// ListLocks uses it to tell our own locks from those of other IDEs.
const BridgeMarker = "claude-ide-bridge"
