// Package remote lets a shell command reach the running bridge that serves a file's workspace:
// `claude-ide-bridge mention` and `claude-ide-bridge select` (for editors without a plugin).
//
// The command finds the bridge through the lock files the bridge already writes for the Claude
// CLI, and sends one POST to the bridge's existing loopback listener, on a path of its own
// (PathMention, PathSelect), authenticated exactly like the WebSocket: no Origin header, a
// loopback Host naming the port, and the lock file's token in AuthHeader, compared in constant
// time. Only someone who can read the lock file (0600 in a 0700 directory: the same user) has
// the token, and no new listener is opened (docs/security.md, "Mentions from the shell").
package remote
