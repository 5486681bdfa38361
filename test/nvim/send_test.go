package nvimtest

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
)

type mention = harness.Mention

var linesOf = harness.LinesOf

func (e *env) waitMention(t *testing.T, want mention) {
	t.Helper()
	e.c.waitNote(t, "at_mentioned", func(p json.RawMessage) bool {
		var got mention
		if json.Unmarshal(p, &got) != nil || got.FilePath != want.FilePath {
			return false
		}
		eq := func(x, y *int) bool { return (x == nil && y == nil) || (x != nil && y != nil && *x == *y) }
		return eq(got.LineStart, want.LineStart) && eq(got.LineEnd, want.LineEnd)
	})
}

// Spec: "lineStart and lineEnd are 0-based, and lineEnd is the last selected
// line ... filePath is absolute".
func TestClaudeCodeSend(t *testing.T) {
	e := newEnv(t, nil, true)
	path := e.file(t, "a.txt", "1\n2\n3\n4\n5\n")
	e.edit(t, path)

	t.Run("range", func(t *testing.T) {
		e.n.ex(t, "2,4ClaudeCodeSend")
		e.waitMention(t, linesOf(path, 1, 3))
	})
	t.Run("visual", func(t *testing.T) {
		e.n.input(t, "gg2jVj:ClaudeCodeSend<CR>")
		e.waitMention(t, linesOf(path, 2, 3))
	})
	t.Run("visual through a <Cmd> mapping", func(t *testing.T) {
		toNormal(t, e.n)
		e.n.ex(t, "xnoremap <F2> <Cmd>ClaudeCodeSend<CR>")
		e.n.input(t, "ggjvjj<F2>")
		e.waitMention(t, linesOf(path, 1, 3))
	})
	t.Run("whole file", func(t *testing.T) {
		toNormal(t, e.n)
		e.n.ex(t, "ClaudeCodeSend")
		e.waitMention(t, mention{FilePath: path})
	})
}

// Issue: ":ClaudeCodeAdd <path> [start] [end] (1-based user lines, 0-based on
// the wire)".
func TestClaudeCodeAdd(t *testing.T) {
	e := newEnv(t, nil, true)
	path := e.file(t, "b.txt", "1\n2\n3\n4\n5\n6\n")
	e.n.ex(t, "ClaudeCodeAdd b.txt 3 5")
	e.waitMention(t, linesOf(path, 2, 4))
	e.n.ex(t, "ClaudeCodeAdd "+path+" 6")
	e.waitMention(t, linesOf(path, 5, 5))
	e.n.ex(t, "ClaudeCodeAdd ./b.txt")
	e.waitMention(t, mention{FilePath: filepath.Clean(path)})
}

// Editor protocol: "with none connected the mention is held for 30 s and
// delivered to the first client that completes its handshake".
func TestSendBeforeClaudeConnects(t *testing.T) {
	e := newEnv(t, nil, false)
	path := e.file(t, "a.txt", "1\n2\n")
	e.edit(t, path)
	e.n.ex(t, "1,2ClaudeCodeSend")
	e.c = dialClaude(t, e.cfg)
	e.waitMention(t, linesOf(path, 0, 1))
}
