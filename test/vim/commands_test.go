package vimtest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/internal/probe"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
	"github.com/claude-ide-bridge/claude-ide-bridge/test/testbin"
)

type mention = harness.Mention

var linesOf = harness.LinesOf

func waitMention(t *testing.T, c *probe.Client, want mention) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testbin.Bound)
	defer cancel()
	var seen []string
	for {
		m, err := c.Next(ctx, "at_mentioned")
		if err != nil {
			t.Fatalf("no at_mentioned %+v: %v; seen %q", want, err, seen)
		}
		var got mention
		json.Unmarshal(m.Params, &got)
		eq := func(x, y *int) bool { return (x == nil && y == nil) || (x != nil && y != nil && *x == *y) }
		if got.FilePath == want.FilePath && eq(got.LineStart, want.LineStart) && eq(got.LineEnd, want.LineEnd) {
			return
		}
		seen = append(seen, string(m.Params))
	}
}

// Spec: "lineStart and lineEnd are 0-based, and lineEnd is the last selected line ...
// filePath is absolute". :ClaudeCodeSend with a range, from Visual mode (with : and through a
// <Cmd> mapping) and for the whole file; :ClaudeCodeAdd with 1-based lines, a folder, bad usage.
func TestSendAndAdd(t *testing.T) {
	v := startVim(t)
	c := v.claude()
	path := v.file("a.txt", "1\n2\n3\n4\n5\n")
	os.Mkdir(filepath.Join(v.ws, "sub"), 0o755)
	v.ex("edit " + path)
	v.ex("2,4ClaudeCodeSend")
	waitMention(t, c, linesOf(path, 1, 3))
	v.ex("3ClaudeCodeSend")
	waitMention(t, c, linesOf(path, 2, 2))
	v.normal()
	v.keys("g", "g", "2", "j", "V", "j", ":")
	v.typeText("ClaudeCodeSend")
	v.keys("Enter")
	waitMention(t, c, linesOf(path, 2, 3))
	v.normal()
	v.ex("xnoremap <F2> <Cmd>ClaudeCodeSend<CR>")
	v.keys("g", "g", "j", "v", "j", "j", "F2")
	waitMention(t, c, linesOf(path, 1, 3))
	v.waitEval(`"n"`, "mode()")
	v.ex("ClaudeCodeSend")
	waitMention(t, c, mention{FilePath: path})
	v.ex("ClaudeCodeAdd % 2 3")
	waitMention(t, c, linesOf(path, 1, 2))
	v.ex("ClaudeCodeAdd sub/")
	waitMention(t, c, mention{FilePath: filepath.Join(v.ws, "sub")})
	// What a command prints inside execute() is its result, not in the message history.
	if out := v.str("execute('ClaudeCodeAdd % 3 2')"); !strings.Contains(out, "usage: :ClaudeCodeAdd") {
		t.Errorf("no usage message for a backwards range: %q", out)
	}
}

// :ClaudeCodeStatus shows the bridge's port and clients; :ClaudeCodeStop ends the bridge, which
// removes its lock file; :ClaudeCodeStart starts a new one.
func TestStatusStopStart(t *testing.T) {
	v := startVim(t)
	v.claude()
	s := v.state()
	v.ex("ClaudeCodeStatus")
	v.waitEval("1", `len(filter(split(execute('messages'), "\n"), {_, l -> l =~ 'port `+itoa(s.Port)+`, 1 client (Claude)'}))`)
	v.ex("ClaudeCodeStop")
	v.waitEval("false", "claude_ide_bridge#State().running")
	if !poll(func() bool { _, err := os.Stat(s.LockPath); return os.IsNotExist(err) }) {
		t.Fatalf("the lock file %s is still there", s.LockPath)
	}
	if strings.Contains(v.messages(), "exited with status") {
		t.Errorf("a stop reported as a failure:\n%s", v.messages())
	}
	v.ex("ClaudeCodeStart")
	v.waitEval("true", "claude_ide_bridge#State().ready")
}
