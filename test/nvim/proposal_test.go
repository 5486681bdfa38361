package nvimtest

import (
	"strings"
	"testing"

	"github.com/claude-ide-bridge/claude-ide-bridge/test/harness"
)

// spyAccepts makes the plugin's bridge client record what each diffAccepted it sends carries
// ("proposal" alone or "contents" beside it); the message still goes to the real bridge.
func (e *env) spyAccepts(t *testing.T) {
	t.Helper()
	e.n.lua(t, `
		local c = require('claude-ide-bridge.state').bridge.client
		local send = c.send
		_G.accepts = {}
		c.send = function(self, msg)
			if msg.method == 'diffAccepted' then
				local p = msg.params
				-- The number is always there (issue 25 item 6); contents only for a changed text.
				local what = p.contents ~= nil and 'contents' or 'proposal'
				table.insert(_G.accepts, p.proposal ~= nil and what or what .. ' without proposal')
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
			if got := harness.FileText(path); got != "old\n" {
				t.Fatalf("the plugin wrote the file: %q", got)
			}
			e.waitDiffs(t, tabA+"=accepted")
		})
	}
}

// Issue 25 item 6: every decision names its proposal. The user saves an edit of proposal A just
// as Claude replaces it with B under the same tab name: the accept, which reaches the bridge
// after B, carries A's number with the edited text, is refused (-32001, the user is told), and
// B stays pending until the user decides on B itself. Before, the edited accept of A was taken
// as the accept of B, with A's text.
func TestEditedAcceptOfReplacedProposal(t *testing.T) {
	e, path, chA := pendingDiff(t, "A\n")
	// Hold the plugin's diffAccepted on its way to the bridge, so that B overtakes it.
	e.n.lua(t, `
		local c = require('claude-ide-bridge.state').bridge.client
		_G.orig_send, _G.held, _G.notes = c.send, nil, {}
		c.send = function(self, msg)
			if msg.method == 'diffAccepted' and _G.held == nil then
				_G.held = msg
				return true
			end
			return _G.orig_send(self, msg)
		end
		local notify = vim.notify
		vim.notify = function(m, ...) table.insert(_G.notes, m); return notify(m, ...) end`)
	e.n.lua(t, `vim.api.nvim_buf_set_lines(0, 0, 1, false, {"A edited"})`)
	e.n.ex(t, "write")
	e.n.waitLua(t, `true`, `return _G.held ~= nil`)
	chB := e.openDiff(t, path, "B\n", tabA)
	wantTexts(t, toolOf(t, await(t, chA)), "DIFF_REJECTED", tabA)
	e.waitDiffs(t, tabA+"=pending")
	if got := e.lines(t, `return vim.api.nvim_buf_get_lines(0, 0, -1, false)`); len(got) != 1 || got[0] != "B" {
		t.Fatalf("current buffer %q, want B's proposal", got)
	}
	if got := e.n.str(t, `return vim.inspect(_G.held.params.proposal ~= nil and _G.held.params.contents ~= nil)`); got != "true" {
		t.Errorf("the edited accept carries proposal and contents: %s", got)
	}
	e.n.lua(t, `local c = require('claude-ide-bridge.state').bridge.client; c.send = _G.orig_send; _G.orig_send(c, _G.held)`)
	e.n.waitLua(t, `true`, `for _, m in ipairs(_G.notes) do if m:find('accept failed', 1, true) then return true end end return false`)
	select {
	case m := <-chB:
		t.Fatalf("B answered by the accept of A: %q", toolOf(t, m).texts())
	default:
	}
	e.waitDiffs(t, tabA+"=pending")
	e.n.ex(t, "write")
	wantTexts(t, toolOf(t, await(t, chB)), "FILE_SAVED", "B\n")
	if got := harness.FileText(path); got != "old\n" {
		t.Fatalf("the plugin wrote the file: %q", got)
	}
}

// Issue 25 item 7: diff mode's 'nowrap' cut a proposal line at the window's edge, so code after
// a run of padding spaces could not be seen. The proposal's window marks a line that goes on
// past its edge (and trailing blanks): the last column of that line shows the marker.
func TestPaddedProposalLineMarked(t *testing.T) {
	e := newEnv(t, nil, true)
	path := e.file(t, "a.txt", "a\n")
	ch := e.openDiff(t, path, "a"+strings.Repeat(" ", 300)+"os.remove('~')\n", tabA)
	e.waitDiffs(t, tabA+"=pending")
	var got struct {
		List      bool
		Listchars string
		Last      string
	}
	e.n.luaInto(t, &got, `
		local win = vim.api.nvim_get_current_win()
		vim.cmd('redraw')
		local pos = vim.fn.screenpos(win, 1, 1)
		local last = vim.fn.screenstring(pos.row, pos.col + vim.api.nvim_win_get_width(win) - 1 - (vim.fn.getwininfo(win)[1].textoff or 0))
		return { list = vim.wo[win].list, listchars = vim.wo[win].listchars, last = last }`)
	if !got.List || !strings.Contains(got.Listchars, "extends:") || got.Last != "›" {
		t.Fatalf("proposal window: %+v; want 'list' with an extends marker shown at the edge", got)
	}
	e.c.tool(t, "close_tab", map[string]any{"tab_name": tabA})
	await(t, ch)
}
