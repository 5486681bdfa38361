// Package review keeps what each of Claude's turns changed, whatever the permission mode, so
// that a user in auto or acceptEdits mode can see after the fact what a turn did, file by file
// and hunk by hunk, and undo part of it.
//
// A turn runs from one prompt to the next: the CLI calls closeAllDiffTabs at the start of every
// prompt, and its Stop hook (when the bridge gave it one, package claudestate) ends it. Inside a
// turn the Tracker records, per file, the text it had before Claude first changed it:
//   - Edit and Write: the CLI calls getDiagnostics {uri} right before it writes each one (and
//     openDiff in the default mode); the Tracker reads the file then, on that call, before the
//     answer goes out (ide.Observer). This is exact.
//   - any other change inside the workspace folders while a turn runs (Bash `sed -i`, a
//     formatter, a code generator): an fsnotify watch sees the file change; its earlier text is
//     that of the last turn that recorded it, else the index of the workspace folder's own
//     repository (read with go-git: no git runs, nothing is written; git.go), else, for a file
//     the watch saw created, none; an untracked file that existed is listed with its earlier
//     text unknown.
//
// Everything is kept in memory, bounded: MaxTurns turns, MaxFile bytes per text (larger files
// are listed, not kept), MaxTotal bytes in all (the oldest turns go first). Binary files are
// listed, not diffed. Nothing is written anywhere, except by Revert, on the user's request.
package review
