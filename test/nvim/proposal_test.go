package nvimtest

import (
	"testing"
)

// spyAccepts makes the plugin's bridge client record what each diffAccepted it sends carries
// ("proposal" or "contents"); the message still goes to the real bridge.
func (e *env) spyAccepts(t *testing.T) {
	t.Helper()
	e.n.lua(t, `
		local c = require('claude-ide-bridge.state').bridge.client
		local send = c.send
		_G.accepts = {}
		c.send = function(self, msg)
			if msg.method == 'diffAccepted' then
				local p = msg.params
				table.insert(_G.accepts, p.proposal ~= nil and 'proposal' or (p.contents ~= nil and 'contents' or 'none'))
			end
			return send(self, msg)
		end`)
}

func (e *env) accepts(t *testing.T) []string {
	t.Helper()
	return e.lines(t, `return _G.accepts`)
}

// docs/editor-protocol.md, diffAccepted: a proposal accepted without an edit is named by its
// number (showDiff's "proposal"), and Claude gets FILE_SAVED with exactly the text it proposed;
// any change of the text, or of 'eol', sends the buffer's text instead.
func TestDiffAcceptUnchangedNamesProposal(t *testing.T) {
	const proposal = "new \"q\" \\ é\r\n\ttabbed\n\nlast\n"
	cases := []struct {
		name, change, want, sent string
	}{
		{"unchanged", ``, proposal, "proposal"},
		{"edited", `vim.api.nvim_buf_set_lines(0, 0, 1, false, {"edited"})`, "edited\n\ttabbed\n\nlast\n", "contents"},
		// An edit undone is the same text, sent as text: the changedtick moved.
		{"undone", `vim.api.nvim_buf_set_lines(0, 0, 1, false, {"x"}); vim.cmd('silent undo')`, proposal, "contents"},
		{"noeol", `vim.bo.eol = false`, "new \"q\" \\ é\r\n\ttabbed\n\nlast", "contents"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, nil, true)
			path := e.file(t, "a.txt", "old\n")
			e.spyAccepts(t)
			ch := e.openDiff(t, path, proposal, tabA)
			e.waitDiffs(t, tabA+"=pending")
			if c.change != "" {
				e.n.lua(t, c.change)
			}
			e.n.ex(t, "write")
			wantTexts(t, toolOf(t, await(t, ch)), "FILE_SAVED", c.want)
			if got := e.accepts(t); len(got) != 1 || got[0] != c.sent {
				t.Fatalf("diffAccepted sent with %q, want [%s]", got, c.sent)
			}
			if got := fileText(t, path); got != "old\n" {
				t.Fatalf("the plugin wrote the file: %q", got)
			}
			e.waitDiffs(t, tabA+"=accepted")
		})
	}
}
