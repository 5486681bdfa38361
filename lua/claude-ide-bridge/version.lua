-- The plugin's version. The release archives :ClaudeCodeInstall downloads are
-- this version's, and `make dist` stamps it into the bridge (`claude-ide-bridge
-- version`); cmd/claude-ide-bridge's tests check that its default matches.
return "0.1.0"
