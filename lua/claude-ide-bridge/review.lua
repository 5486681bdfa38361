-- :ClaudeCodeReview [N]: what a turn of Claude changed (the bridge keeps it,
-- whatever the permission mode: docs/review.md), one tab page per changed
-- file, its text at the turn's start on the left (read-only) and the file
-- itself on the right, in diff mode. Revert a hunk with |do| (:diffget) in
-- the file's window and :w; revert the whole file with
-- :ClaudeCodeReviewRevert. Those writes are yours: the bridge is told of
-- every save (userWrote, watch_writes), so a turn does not count them as
-- Claude's.
--
-- Also Claude's state (claudeState notifications from the bridge's hooks):
-- status() per session, User ClaudeCodeState / ClaudeCodeWaiting, and a
-- notification when a session waits while you are not in its terminal.
local state = require("claude-ide-bridge.state")
local events = require("claude-ide-bridge.events")
local files = require("claude-ide-bridge.files")

local M = {}

local function notify(msg, level)
  vim.notify("claude-ide-bridge: " .. msg, level or vim.log.levels.INFO)
end

local augroup = vim.api.nvim_create_augroup("ClaudeIdeBridgeReview", { clear = true })

-- The scratch buffer with a file's text at the turn's start.
local function before_buffer(f, turn)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, (files.split(f.before or "")))
  pcall(vim.api.nvim_buf_set_name, buf, ("claude-review://turn-%d/%s"):format(turn, f.path))
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].modifiable = false
  -- vim.filetype.match({ filename }) is 0.8's; 0.7 has another signature.
  local ok, ft = false, nil
  if vim.fn.has("nvim-0.8") == 1 then
    ok, ft = pcall(vim.filetype.match, { filename = f.path })
  end
  if ok and type(ft) == "string" then
    vim.bo[buf].filetype = ft
  end
  return buf
end

-- One tab page for f: before (left) against the file (right).
local function open_file(f, turn)
  vim.cmd("tabnew")
  local scratch = vim.api.nvim_get_current_buf()
  vim.cmd("edit " .. vim.fn.fnameescape(f.path))
  local file_buf = vim.api.nvim_get_current_buf()
  if vim.api.nvim_buf_is_valid(scratch) and scratch ~= file_buf and vim.api.nvim_buf_get_name(scratch) == "" then
    pcall(vim.api.nvim_buf_delete, scratch, { force = true })
  end
  local file_win = vim.api.nvim_get_current_win()
  vim.cmd("leftabove vsplit")
  local bbuf = before_buffer(f, turn)
  vim.api.nvim_win_set_buf(0, bbuf)
  vim.cmd("diffthis")
  vim.api.nvim_set_current_win(file_win)
  vim.cmd("diffthis")
  state.review.files[file_buf] = { path = f.path, before = f.before, turn = turn, before_buf = bbuf }
end

--- :ClaudeCodeReview [N]: opens turn N (default: the last turn that changed
--- a file). Files without a diff (binary, too big, earlier text unknown) are
--- listed in a notification. The bridge must be ready (:ClaudeCodeReview starts it).
---@param turn? integer
function M.open(turn)
  state.request("review", { turn = turn or 0, texts = true }, function(err, a)
    vim.schedule(function()
      if err or type(a) ~= "table" or type(a.report) ~= "table" then
        return notify("review: " .. tostring(err and err.message or "no answer"), vim.log.levels.ERROR)
      end
      local r = a.report
      local changed = type(r.files) == "table" and r.files or {}
      if #changed == 0 then
        return notify(("turn %d changed no file"):format(r.turn))
      end
      local listed = {}
      for _, f in ipairs(changed) do
        local what = ("%s %s +%d -%d (%s)"):format(f.status, vim.fn.fnamemodify(f.path, ":~:."), f.added, f.deleted, f.by)
        if f.binary or f.tooBig or (f.before == nil and f.status ~= "created") or f.status == "deleted" then
          what = what .. (f.binary and ": binary, not diffed" or f.tooBig and ": too big, not diffed" or f.status == "deleted" and ": deleted" or ": earlier text unknown")
        else
          open_file(f, r.turn)
        end
        listed[#listed + 1] = what
      end
      local s = r.summary or {}
      notify(("turn %d: Claude changed %d file(s): +%d -%d%s\n%s\n(do/:diffget and :w revert a hunk; :ClaudeCodeReviewRevert the file)"):format(
        r.turn, s.files or #changed, s.added or 0, s.deleted or 0, r.running and " (still running)" or "", table.concat(listed, "\n")))
    end)
  end)
end

--- :ClaudeCodeReviewRevert: the file of the current review tab goes back to
--- its text at the turn's start, through its buffer (your write: :w); a
--- file Claude created is removed by the bridge.
function M.revert()
  local file_buf
  local tab = vim.api.nvim_get_current_tabpage()
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(tab)) do
    local b = vim.api.nvim_win_get_buf(win)
    if state.review.files[b] then
      file_buf = b
    end
  end
  local f = file_buf and state.review.files[file_buf]
  if not f then
    return notify("not in a :ClaudeCodeReview tab", vim.log.levels.ERROR)
  end
  -- Done: the review tab page goes (its diff is settled), and the user is told (issue 39 item 10:
  -- it printed nothing and left the tab open).
  local function done(msg)
    state.review.files[file_buf] = nil
    if vim.api.nvim_tabpage_is_valid(tab) and #vim.api.nvim_list_tabpages() > 1 then
      pcall(vim.cmd, vim.api.nvim_tabpage_get_number(tab) .. "tabclose")
    else
      pcall(vim.api.nvim_buf_delete, f.before_buf, { force = true })
      pcall(vim.cmd, "diffoff!")
    end
    notify(msg)
  end
  if f.before == nil then
    state.request("review", { turn = f.turn, revert = f.path }, function(err)
      vim.schedule(function()
        if err then
          return notify("revert: " .. tostring(err.message), vim.log.levels.ERROR)
        end
        pcall(vim.api.nvim_buf_delete, file_buf, { force = true })
        done("removed " .. f.path .. " (Claude created it in turn " .. f.turn .. ")")
      end)
    end)
    return
  end
  local lines, eol = files.split(f.before)
  vim.api.nvim_buf_set_lines(file_buf, 0, -1, false, lines)
  vim.bo[file_buf].eol = eol
  local ok, err = pcall(vim.api.nvim_buf_call, file_buf, function()
    vim.cmd("silent write")
  end)
  if not ok then
    return notify("revert: " .. tostring(err), vim.log.levels.ERROR)
  end
  done(("reverted %s to its text at the start of turn %d"):format(vim.fn.fnamemodify(f.path, ":~:."), f.turn))
end

--- Tells the bridge of each file you save (userWrote), so that a change you
--- make while Claude's turn runs is not blamed on Claude (a file Claude
--- already changed in the turn stays Claude's: the two cannot be told apart).
function M.watch_writes()
  vim.api.nvim_clear_autocmds({ group = augroup, event = "BufWritePost" })
  vim.api.nvim_create_autocmd("BufWritePost", {
    group = augroup,
    callback = function(ev)
      local name = vim.api.nvim_buf_get_name(ev.buf)
      if name ~= "" and vim.bo[ev.buf].buftype == "" and state.ready_client() then
        state.ready_client():notify("userWrote", { filePath = (vim.uv or vim.loop).fs_realpath(name) or name })
      end
    end,
  })
end

--- A session's new state (the bridge's claudeState notification).
function M.on_state(p)
  if type(p) ~= "table" or type(p.sessionId) ~= "string" then
    return
  end
  local prev = state.claude.sessions[p.sessionId]
  local reason = (type(p.reason) == "string" and p.reason ~= "") and p.reason or nil
  if p.state == "ended" then
    state.claude.sessions[p.sessionId] = nil
  else
    state.claude.sessions[p.sessionId] = { state = p.state, reason = reason, since = vim.loop.now() }
  end
  local data = { session = p.sessionId, state = p.state, reason = reason }
  events.emit("ClaudeCodeState", data)
  if p.state == "waiting" and not (prev and prev.state == "waiting") then
    events.emit("ClaudeCodeWaiting", { session = p.sessionId, reason = data.reason })
    local term = require("claude-ide-bridge.terminal").buf()
    if not term or vim.api.nvim_get_current_buf() ~= term then
      notify("Claude is waiting for you" .. (data.reason and (": " .. data.reason) or ""), vim.log.levels.WARN)
    end
  end
end

--- A turn ended with changes (turnEnded): its summary, once.
function M.on_turn_ended(p)
  if type(p) ~= "table" then
    return
  end
  state.claude.turn = p
  events.emit("ClaudeCodeTurnEnded", { turn = p.turn, files = p.files, added = p.added, deleted = p.deleted })
  notify(("Claude changed %d file(s): +%d -%d (:ClaudeCodeReview)"):format(tonumber(p.files) or 0, tonumber(p.added) or 0, tonumber(p.deleted) or 0))
end

return M
