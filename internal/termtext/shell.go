package termtext

import "strings"

// ShellQuote is the bridge's one quoter for a POSIX shell (sh, bash, zsh): a word made only of
// shellSafe characters is returned as is, anything else (the empty word too) is single-quoted,
// a ' inside closing the quote, escaped and reopened. Inside single quotes nothing is special,
// so $, a backquote, \, a newline or a glob in a path or a no_proxy value reaches the program as
// written.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, shellSafe) == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellSafe are the characters no POSIX shell treats specially anywhere in a word. Not ~ (home
// at a word's start), not # (a comment there), not ! (bash history), not [ * ? (globs).
const shellSafe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-"
