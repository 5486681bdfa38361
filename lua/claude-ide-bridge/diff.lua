-- Diff views: Claude's proposal beside the file's current text, in a tab
-- page of their own, with Neovim's diff mode.
--
-- The proposal buffer is editable with 'buftype' acwrite: :w sends
-- diffAccepted with its text (the plugin never writes the file; Claude does),
-- closing its window sends diffRejected. The plugin closes only the windows
-- and buffers it opened for a diff.
local events = require("claude-ide-bridge.events")
local files = require("claude-ide-bridge.files")
local state = require("claude-ide-bridge.state")

local M = {}

-- tabName -> {tab_name, file_path, orig_buf, prop_buf, wins, state, closing}
-- (state.lua; the table is never replaced, only its entries).
local diffs = state.diffs

local augroup = vim.api.nvim_create_augroup("ClaudeIdeBridgeDiff", { clear = true })

local notify = require("claude-ide-bridge.notice").show

-- A scratch buffer filled by fill(buf) (which returns 'eol'), and its
-- changedtick right after (before any autocommand of the naming could change it).
local function scratch(name, fill)
  local buf = vim.api.nvim_create_buf(false, true)
  local eol = fill(buf)
  local tick = vim.api.nvim_buf_get_changedtick(buf)
  vim.bo[buf].eol = eol
  pcall(vim.api.nvim_buf_set_name, buf, name)
  return buf, tick, eol
end

-- 'diffopt' with inline:char or inline:word (0.12's default has inline:char)
-- compares each changed hunk character by character when the diff is drawn:
-- about 260 ms a MiB of hunk in Neovim 0.12.4, a frozen editor for seconds on
-- a 10 MiB proposal, where inline:simple takes a few ms. 'diffopt' is global
-- only, so while the current tab page shows a big diff of ours the plugin
-- puts inline:simple in place of the user's inline item, and puts the user's
-- exact value back when that tab page is left or the diff closes. A value the
-- user sets meanwhile is kept (never overwritten by the restore). Where the
-- user chose no diff algorithm, the big diff is computed with histogram rather
-- than the default myers: ~70 against ~105 ms of CPU for 10 MiB of source
-- with 10 hunks, the larger part of what opening such a diff costs once the
-- texts are read (bench/notes.md, issue 27).
M.BIG_DIFF = 256 * 1024 -- bytes of both sides together
local dopt = state.diffopt

local function cheap_diffopt(value)
  local out, changed, algorithm = {}, false, false
  for _, item in ipairs(vim.split(value, ",", true)) do
    if item == "inline:char" or item == "inline:word" then
      item, changed = "inline:simple", true
    end
    algorithm = algorithm or vim.startswith(item, "algorithm:")
    out[#out + 1] = item
  end
  if not algorithm and value:find("internal", 1, true) then
    out[#out + 1] = "algorithm:histogram"
    changed = true
  end
  return changed and table.concat(out, ",") or nil
end

local function use_cheap_diffopt()
  if dopt.saved then
    return
  end
  local cur = vim.o.diffopt
  local cheap = cheap_diffopt(cur)
  if cheap then
    dopt.saved, dopt.ours = cur, cheap
    vim.o.diffopt = cheap
  end
end

local function restore_diffopt()
  if not dopt.saved then
    return
  end
  local saved, ours = dopt.saved, dopt.ours
  dopt.saved, dopt.ours = nil, nil
  if vim.o.diffopt == ours then
    vim.o.diffopt = saved
  end
end

-- Puts the cheap 'diffopt' in effect exactly while the current tab page shows
-- a big diff.
local function sync_diffopt()
  if dopt.opening then
    return
  end
  local tab = vim.api.nvim_get_current_tabpage()
  for _, d in pairs(diffs) do
    if d.big and d.tab == tab then
      return use_cheap_diffopt()
    end
  end
  restore_diffopt()
end

vim.api.nvim_create_autocmd("TabEnter", { group = augroup, callback = sync_diffopt })

local function set_state(d, state)
  d.state = state
  vim.b[d.prop_buf].claude_ide_bridge_diff_state = state
end

--- The diff shown in buf (its proposal or its original), or nil.
function M.for_buf(buf)
  for _, d in pairs(diffs) do
    if d.prop_buf == buf or d.orig_buf == buf then
      return d
    end
  end
  return nil
end

--- Whether win is a window the plugin opened for a diff.
function M.is_diff_win(win)
  for _, d in pairs(diffs) do
    if vim.tbl_contains(d.wins, win) then
      return true
    end
  end
  return false
end

--- Lists the diffs shown: {tab_name, file_path, state}.
function M.list()
  local out = {}
  for _, d in pairs(diffs) do
    out[#out + 1] = { tab_name = d.tab_name, file_path = d.file_path, state = d.state, session = d.session }
  end
  table.sort(out, function(a, b)
    return a.tab_name < b.tab_name
  end)
  return out
end

local open_windows

-- Where the user was when a diff opened: the window and the mode (mode()'s
-- first letter: "t" typing to Claude, "i" inserting, "c" on the command line,
-- else Normal).
local function here()
  return { win = vim.api.nvim_get_current_win(), mode = vim.api.nvim_get_mode().mode:sub(1, 1) }
end

local function typing(back)
  return back.mode == "t" or back.mode == "i" or back.mode == "R" or back.mode == "c"
end

-- Puts the user back in the window here() found them in: still typing when
-- they were (a diff that opened without taking the focus), else in Normal
-- mode (a diff that closed: the next key never goes to Claude by surprise).
local function go_back(back, keep_mode)
  if not (back and vim.api.nvim_win_is_valid(back.win)) then
    return
  end
  vim.api.nvim_set_current_win(back.win)
  local term = vim.bo[vim.api.nvim_win_get_buf(back.win)].buftype == "terminal"
  if keep_mode and ((back.mode == "t" and term) or (back.mode == "i" and not term)) then
    vim.cmd("startinsert")
  else
    vim.cmd("stopinsert")
  end
end

-- Whether the user is looking at d: its tab page or one of its windows is current.
local function looking_at(d)
  local cur = vim.api.nvim_get_current_win()
  if vim.tbl_contains(d.wins, cur) or (d.host and d.host.win == cur) then
    return true
  end
  return d.tab ~= nil and d.tab == vim.api.nvim_get_current_tabpage() and d.own_tab
end

-- Shows an empty buffer in win, out of diff mode.
local function blank(win)
  vim.api.nvim_win_call(win, function()
    pcall(vim.cmd, "diffoff")
    pcall(vim.cmd, "enew")
  end)
end

-- Closes d's windows and buffers. Windows of the user that show one of our
-- buffers are switched to an empty buffer rather than closed. When the user
-- was looking at the diff, focus goes back where it was when the diff opened.
local function teardown(d)
  local back = looking_at(d) and d.back or nil
  d.closing = true
  diffs[d.tab_name] = nil
  vim.schedule(function()
    events.emit("ClaudeCodeDiffClosed", { file = d.file_path, tab_name = d.tab_name, accepted = d.state == "accepted" })
  end)
  pcall(vim.api.nvim_clear_autocmds, { group = augroup, buffer = d.prop_buf })
  -- A tab page other than the current one that holds only our windows (and floats, e.g. a
  -- permission question) goes with :tabclose. Closing its windows one by one crashes Neovim 0.7
  -- (SIGSEGV in winframe_remove) when a float is left there, and without one leaves the tabline
  -- and the current tab page's layout a row off until a redraw (issue 39 item 7).
  if d.tab and vim.api.nvim_tabpage_is_valid(d.tab) and d.tab ~= vim.api.nvim_get_current_tabpage() then
    local ours, others = {}, 0
    for _, w in ipairs(d.wins) do
      ours[w] = true
    end
    for _, w in ipairs(vim.api.nvim_tabpage_list_wins(d.tab)) do
      if not ours[w] and vim.api.nvim_win_get_config(w).relative == "" then
        others = others + 1
      end
    end
    if others == 0 then
      pcall(vim.cmd, "tabclose! " .. vim.api.nvim_tabpage_get_number(d.tab))
    end
  end
  for _, win in ipairs(d.wins) do
    if vim.api.nvim_win_is_valid(win) then
      if #vim.api.nvim_list_wins() > 1 then
        pcall(vim.api.nvim_win_close, win, true)
      else
        blank(win)
      end
    end
  end
  local host = d.host
  if host and vim.api.nvim_win_is_valid(host.win) and vim.api.nvim_buf_is_valid(host.buf) then
    -- The user's window showed the original (or the proposal) meanwhile: its
    -- buffer back, where it was (unless something else was put there since).
    local shown = vim.api.nvim_win_get_buf(host.win)
    if shown == d.orig_buf or shown == d.prop_buf then
      vim.api.nvim_win_call(host.win, function()
        pcall(vim.cmd, "diffoff")
        vim.api.nvim_win_set_buf(host.win, host.buf)
        pcall(vim.fn.winrestview, host.view)
      end)
    end
  end
  for _, buf in ipairs({ d.prop_buf, d.orig_buf }) do
    if vim.api.nvim_buf_is_valid(buf) then
      for _, win in ipairs(vim.fn.win_findbuf(buf)) do
        blank(win)
      end
      pcall(vim.api.nvim_buf_delete, buf, { force = true })
    end
  end
  sync_diffopt()
  go_back(back, false)
end

--- Sends diffAccepted for d with the proposal buffer's text.
function M.accept(d)
  if d.state ~= "pending" then
    notify(d.tab_name .. " was already " .. d.state, vim.log.levels.WARN)
    return
  end
  -- Every decision names its proposal (showDiff's "proposal"), so the bridge
  -- refuses it if Claude replaced that proposal meanwhile instead of taking
  -- it for the new one. A proposal accepted as it came (no change since it
  -- was put into the buffer: same changedtick, same 'eol') is sent without
  -- its text: the bridge answers Claude with the text it sent, and :w encodes
  -- and pipes nothing of it (docs/editor-protocol.md, diffAccepted). An
  -- edited one is sent whole, through vim.json.encode like every message
  -- (docs/performance.md, "Edited accept").
  local params = { tabName = d.tab_name, proposal = d.proposal }
  if not (vim.api.nvim_buf_get_changedtick(d.prop_buf) == d.tick and vim.bo[d.prop_buf].eol == d.eol) then
    params.contents = files.text(d.prop_buf)
  end
  set_state(d, "accepting")
  vim.bo[d.prop_buf].modified = false
  state.request("diffAccepted", params, function(err)
    if err then
      if diffs[d.tab_name] == d then
        set_state(d, "pending")
      end
      notify("accept failed: " .. tostring(err.message), vim.log.levels.ERROR)
      return
    end
    if diffs[d.tab_name] == d then
      set_state(d, "accepted")
      pcall(function()
        vim.bo[d.prop_buf].modifiable = false
      end)
    end
  end)
end

--- Sends diffRejected for d; the bridge answers with closeDiff.
function M.reject(d)
  if d.state ~= "pending" then
    return
  end
  set_state(d, "rejecting")
  state.request("diffRejected", { tabName = d.tab_name, proposal = d.proposal }, function(err)
    if err then
      notify("reject failed: " .. tostring(err.message), vim.log.levels.ERROR)
    end
    -- The decision is made: nothing is left to do with the view.
    if diffs[d.tab_name] == d then
      teardown(d)
    end
  end)
end

--- The diff a command means: the one in the current buffer, else the only
--- pending one. Returns nil and a message otherwise.
function M.target()
  local d = M.for_buf(vim.api.nvim_get_current_buf())
  if d then
    return d
  end
  local pending = vim.tbl_filter(function(x)
    return x.state == "pending"
  end, vim.tbl_values(diffs))
  if #pending == 1 then
    return pending[1]
  end
  return nil, #pending == 0 and "no diff is pending" or "several diffs are pending; run this in the one you mean"
end

-- A window of the current tab page to show a diff in: the active file
-- window, else any ordinary one; nil when there is none (only Claude's).
local function file_win()
  local tracker = require("claude-ide-bridge.tracker")
  local win = tracker.active_win()
  if win and vim.api.nvim_win_is_valid(win) and vim.api.nvim_win_get_tabpage(win) == vim.api.nvim_get_current_tabpage() then
    return win
  end
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local b = vim.api.nvim_win_get_buf(w)
    if vim.api.nvim_win_get_config(w).relative == "" and vim.bo[b].buftype == "" and not M.is_diff_win(w) then
      return w
    end
  end
  return nil
end

-- The unified layout: the proposal alone, each changed line highlighted
-- (DiffAdd, DiffChange) and the lines it removes shown above it as virtual
-- lines (DiffDelete). Nothing of it is text: the buffer holds exactly the
-- proposal, so :w accepts the same thing as in the other layouts.
local unified_ns = vim.api.nvim_create_namespace("claude-ide-bridge-unified")

local function mark_unified(d)
  local old = vim.api.nvim_buf_get_lines(d.orig_buf, 0, -1, false)
  local new = vim.api.nvim_buf_get_lines(d.prop_buf, 0, -1, false)
  local a, b = table.concat(old, "\n") .. "\n", table.concat(new, "\n") .. "\n"
  local hunks = (vim.text and vim.text.diff or vim.diff)(a, b, { result_type = "indices" })
  local n = #new
  for _, h in ipairs(hunks) do
    local sa, ca, sb, cb = h[1], h[2], h[3], h[4]
    for l = sb, sb + cb - 1 do
      vim.api.nvim_buf_set_extmark(d.prop_buf, unified_ns, l - 1, 0, {
        line_hl_group = ca > 0 and "DiffChange" or "DiffAdd", sign_text = ca > 0 and "~" or "+",
        sign_hl_group = ca > 0 and "DiffChange" or "DiffAdd",
      })
    end
    if ca > 0 then
      local virt = {}
      for l = sa, sa + ca - 1 do
        virt[#virt + 1] = { { "- " .. (old[l] or ""), "DiffDelete" } }
      end
      -- Above the first new line of the hunk; below the last line when the
      -- hunk only removes lines at the end (sb is the line before them).
      local row, above = cb > 0 and sb - 1 or sb, cb > 0
      if not above and row < 1 then
        row, above = 0, true
      elseif not above then
        row = row - 1
      end
      row = math.max(math.min(row, n - 1), 0)
      vim.api.nvim_buf_set_extmark(d.prop_buf, unified_ns, row, 0, { virt_lines = virt, virt_lines_above = above })
    end
  end
end

-- Opens d's windows as the diff options o say (config diff): in a new tab
-- page or beside the user's file in this one; vertical, horizontal or
-- unified. Sets d.tab, d.wins (the windows the plugin opened and closes),
-- d.prop_win and, in the current tab, d.host (the user's window that shows
-- the original meanwhile, and what it showed).
open_windows = function(d, o)
  local first_buf = o.layout == "unified" and d.prop_buf or d.orig_buf
  local opened = {}
  if o.open_in_new_tab then
    vim.cmd("tab sbuffer " .. first_buf)
    opened[1] = vim.api.nvim_get_current_win()
  else
    local win = file_win()
    if win then
      vim.api.nvim_set_current_win(win)
    else
      vim.cmd("topleft vsplit")
      opened[1] = vim.api.nvim_get_current_win()
    end
    if o.layout == "unified" and win then
      -- The proposal in a window of its own below the file (:q on it rejects;
      -- the user's window is left as it is).
      vim.cmd("rightbelow sbuffer " .. first_buf)
      opened[1] = vim.api.nvim_get_current_win()
    else
      if win then
        d.host = { win = win, buf = vim.api.nvim_win_get_buf(win), view = vim.fn.winsaveview() }
      end
      vim.api.nvim_win_set_buf(0, first_buf)
    end
  end
  d.tab = vim.api.nvim_get_current_tabpage()
  local first = vim.api.nvim_get_current_win()
  if o.layout == "unified" then
    d.prop_win = first
    mark_unified(d)
  else
    vim.cmd("diffthis")
    vim.cmd((o.layout == "horizontal" and "rightbelow sbuffer " or "rightbelow vertical sbuffer ") .. d.prop_buf)
    d.prop_win = vim.api.nvim_get_current_win()
    vim.cmd("diffthis")
    opened[#opened + 1] = d.prop_win
  end
  d.wins = opened
end

-- The agents the bridge serves, by showDiff's "agent" (absent: Claude's own diff).
local AGENTS = { claude = "Claude", gemini = "Gemini", qwen = "Qwen" }

--- The name for people of showDiff's agent: a known one, "Claude" when absent,
--- "An agent" for anything else (never the bridge's text itself).
---@param agent any
---@return string
function M.agent_title(agent)
  if agent == nil or agent == vim.NIL then
    return "Claude"
  end
  return AGENTS[agent] or "An agent"
end

--- Handles showDiff {tabName, filePath, newFilePath, newContents, fileExists, proposal, agent}.
function M.show(p, reply)
  local path, tab_name = p.filePath, p.tabName
  if type(path) ~= "string" or type(tab_name) ~= "string" or type(p.newContents) ~= "string" then
    return reply(nil, { code = -32602, message = "showDiff needs tabName, filePath and newContents" })
  end
  local buf = files.find(path)
  if buf and vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].modified then
    -- Claude is told, and so is the user, at once: else Claude says "Opened
    -- changes in Neovim" while nothing opened.
    local name = vim.fn.fnamemodify(path, ":~:.")
    notify(("Claude's edit of %s was not shown: the buffer has unsaved changes. :w (or :e! to drop them), then ask Claude again")
      :format(name), vim.log.levels.WARN)
    return reply(nil, files.basename(path) .. " has unsaved changes in Neovim; the user was asked to save or discard them, then to ask again")
  end
  if diffs[tab_name] then
    teardown(diffs[tab_name])
  end

  local orig = scratch("claude-ide-bridge://original/" .. tab_name, function(b)
    if buf and vim.api.nvim_buf_is_loaded(buf) then
      vim.api.nvim_buf_set_lines(b, 0, -1, false, vim.api.nvim_buf_get_lines(buf, 0, -1, false))
      return vim.bo[buf].eol
    elseif p.fileExists ~= false and vim.fn.filereadable(path) == 1 then
      return files.fill_from_file(b, path) or false
    end
    return false
  end)
  vim.bo[orig].modifiable = false
  -- prop_tick: the proposal as sent; any later change of its text bumps it.
  local prop, prop_tick, new_eol = scratch("claude-ide-bridge://proposed/" .. tab_name, function(b)
    return files.fill(b, p.newContents)
  end)
  vim.bo[prop].buftype = "acwrite"
  vim.bo[prop].bufhidden = "hide"
  vim.bo[prop].modified = false
  files.detect_filetype(orig, path)
  files.detect_filetype(prop, path)

  local d = {
    tab_name = tab_name, file_path = path, orig_buf = orig, prop_buf = prop,
    wins = {}, state = "pending", closing = false,
    -- The bridge's number of this proposal (showDiff's "proposal"), and the
    -- buffer's changedtick and 'eol' holding it.
    proposal = p.proposal, tick = prop_tick, eol = new_eol, who = M.agent_title(p.agent),
    big = #p.newContents + vim.api.nvim_buf_get_offset(orig, vim.api.nvim_buf_line_count(orig)) > M.BIG_DIFF,
  }
  diffs[tab_name] = d
  set_state(d, "pending")

  -- Before the windows exist: their first draw computes the diff.
  if d.big then
    use_cheap_diffopt()
  end
  local o = require("claude-ide-bridge.config").options.diff
  d.back, d.own_tab = here(), o.open_in_new_tab
  -- Several Claude sessions: the diff goes to the tab page of the session
  -- whose Claude sent it (the pid its CLI reported, or an ancestor of it, is
  -- that session's terminal job).
  local term = require("claude-ide-bridge.terminal")
  local pid = type(p.clientId) == "number" and state.sessions.pids[p.clientId] or nil
  local sess = pid and term.session_of_pid(pid) or nil
  d.session = sess and sess.key or nil
  if sess and #term.sessions() > 1 and sess.tab and vim.api.nvim_tabpage_is_valid(sess.tab)
    and sess.tab ~= vim.api.nvim_get_current_tabpage() then
    vim.api.nvim_set_current_tabpage(sess.tab)
  end
  dopt.opening = true
  local ok, err = pcall(open_windows, d, o)
  dopt.opening = false
  if not ok then
    sync_diffopt()
    error(err, 0)
  end
  local prop_win = d.prop_win
  -- Statuslines that say what each window is and what to do, instead of the
  -- buffers' claude-ide-bridge://... names (only on windows the plugin opened).
  local base = vim.fn.fnamemodify(path, ":t"):gsub("%%", "%%%%")
  for _, w in ipairs(d.wins) do
    vim.wo[w].statusline = w == prop_win
      and (" " .. base .. " (" .. d.who .. "'s proposal%m)%=:w accepts · :q rejects ")
      or (" " .. base .. " (now)%=")
  end
  -- Diff mode's 'nowrap' cuts a line at the window's edge, so a proposal line padded with
  -- spaces hides its tail there: 'list' marks a line that goes on past the edge (extends) and
  -- trailing blanks, in the proposal's window only (issue 25 item 7).
  if vim.tbl_contains(d.wins, prop_win) then
    vim.wo[prop_win].list = true
    vim.wo[prop_win].listchars = "tab:  ,trail:·,extends:›,precedes:‹,nbsp:␣"
  end
  -- The user typing (in Insert mode, on the command line, to Claude) keeps the
  -- focus and the keys (keep_terminal_focus: always), and is told where the diff is.
  if o.keep_terminal_focus or typing(d.back) then
    local where = d.own_tab and (" in tab page " .. vim.api.nvim_tabpage_get_number(d.tab)) or ""
    go_back(d.back, true)
    notify(("%s proposes an edit of %s%s; :ClaudeCodeDiffAccept or :ClaudeCodeDiffDeny answers it from here")
      :format(d.who, vim.fn.fnamemodify(path, ":t"), where))
  end

  vim.api.nvim_create_autocmd("BufWriteCmd", {
    group = augroup, buffer = prop,
    callback = function()
      M.accept(d)
    end,
  })
  local watched = vim.deepcopy(d.wins)
  if not vim.tbl_contains(watched, prop_win) then
    watched[#watched + 1] = prop_win -- the user's own window holds the proposal (unified, current tab)
  end
  for _, win in ipairs(watched) do
    vim.api.nvim_create_autocmd("WinClosed", {
      group = augroup, pattern = tostring(win),
      callback = function()
        if d.closing or diffs[d.tab_name] ~= d then
          return true
        end
        if win == prop_win then
          -- Closing the proposal is a "no"; the view goes with it.
          vim.schedule(function()
            if d.state == "pending" then
              M.reject(d)
            elseif diffs[d.tab_name] == d and d.state == "accepted" then
              teardown(d)
            end
          end)
        end
        return true
      end,
    })
  end
  reply(vim.empty_dict())
  events.emit("ClaudeCodeDiffOpened", { file = path, tab_name = tab_name })
end

--- Handles diffText {tabName}: the proposal buffer's text now, the user's
--- edits included ({text = nil} -> null for a name not shown).
function M.text(p, reply)
  local d = diffs[p.tabName]
  if not d or not vim.api.nvim_buf_is_valid(d.prop_buf) then
    return reply({ text = vim.NIL })
  end
  reply({ text = files.text(d.prop_buf) })
end

--- Handles closeDiff {tabName}; unknown names are fine.
function M.close(p, reply)
  local d = diffs[p.tabName]
  if d then
    teardown(d)
  end
  reply(vim.empty_dict())
end

--- Closes every diff view (when the bridge goes away).
function M.close_all_views()
  for _, name in ipairs(vim.tbl_keys(diffs)) do
    if diffs[name] then
      teardown(diffs[name])
    end
  end
end

--- Handles setBufferText {filePath, text}: the file's buffer gets the text as
--- unsaved changes. Never saves.
function M.set_buffer_text(p, reply)
  if type(p.filePath) ~= "string" or type(p.text) ~= "string" then
    return reply(nil, { code = -32602, message = "setBufferText needs filePath and text" })
  end
  local buf = files.load(p.filePath)
  local lines, eol = files.split(p.text)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].eol = eol
  reply(vim.empty_dict())
end

return M
