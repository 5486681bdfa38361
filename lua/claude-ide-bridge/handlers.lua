-- Answers to the bridge's requests that read or drive the editor
-- (diffs live in diff.lua).
local diff = require("claude-ide-bridge.diff")
local files = require("claude-ide-bridge.files")
local tracker = require("claude-ide-bridge.tracker")

local M = {}

-- The handler of a request that needs a filePath: fn(path, p, reply), or an
-- invalid-params answer without one.
local function with_path(method, fn)
  return function(p, reply)
    if type(p.filePath) ~= "string" or p.filePath == "" then
      return reply(nil, { code = -32602, message = method .. " needs filePath" })
    end
    return fn(p.filePath, p, reply)
  end
end

local function is_terminal(win)
  return vim.bo[vim.api.nvim_win_get_buf(win)].buftype == "terminal"
end

-- A window to show a file in: the active file window, else any ordinary
-- window of this tab page, else a new split beside the terminal.
local function editor_win()
  local win = tracker.active_win()
  if win and vim.api.nvim_win_get_tabpage(win) == vim.api.nvim_get_current_tabpage() then
    return win
  end
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_config(w).relative == "" and not is_terminal(w) and not diff.is_diff_win(w) then
      return w
    end
  end
  vim.cmd("topleft vsplit")
  return vim.api.nvim_get_current_win()
end

-- Selects the exclusive range r in the current window (Visual mode), or
-- puts the cursor at its start when it is empty.
local function select_range(buf, r)
  local s, e = r.start, r["end"]
  local count = vim.api.nvim_buf_line_count(buf)
  local sl = math.min(s.line + 1, count)
  vim.api.nvim_win_set_cursor(0, { sl, s.character })
  if s.line == e.line and s.character == e.character then
    return
  end
  -- Visual marks are inclusive: the last selected byte.
  local el, ec = e.line + 1, e.character - 1
  if ec < 0 and el > 1 then
    el = el - 1
    ec = math.max(#(vim.api.nvim_buf_get_lines(buf, el - 1, el, false)[1] or "") - 1, 0)
  end
  el = math.min(el, count)
  vim.fn.setpos("'<", { buf, sl, s.character + 1, 0 })
  vim.fn.setpos("'>", { buf, el, math.max(ec, 0) + 1, 0 })
  vim.api.nvim_feedkeys("gv", "n", false)
end

--- openFile {filePath, preview, makeFrontmost, selection?}.
M.openFile = with_path("openFile", function(path, p, reply)
  if vim.fn.filereadable(path) == 0 and vim.fn.isdirectory(path) == 0 then
    return reply(nil, "cannot open " .. path .. ": no such file")
  end
  local buf = files.load(path)
  if p.makeFrontmost ~= false then
    local win = editor_win()
    vim.api.nvim_set_current_win(win)
    vim.api.nvim_win_set_buf(win, buf)
    if type(p.selection) == "table" then
      select_range(buf, p.selection)
    end
  end
  if vim.bo[buf].filetype == "" then
    files.detect_filetype(buf, path)
  end
  reply({ languageId = vim.bo[buf].filetype, lineCount = vim.api.nvim_buf_line_count(buf) })
end)

--- getOpenEditors {}: the listed, loaded file buffers.
function M.getOpenEditors(_, reply)
  local active = tracker.active_win()
  local active_buf = active and vim.api.nvim_win_get_buf(active)
  local editors = {}
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    local name = vim.api.nvim_buf_get_name(buf)
    if vim.bo[buf].buflisted and vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].buftype == "" and name ~= "" then
      editors[#editors + 1] = {
        filePath = name,
        isActive = buf == active_buf,
        isDirty = vim.bo[buf].modified,
        languageId = vim.bo[buf].filetype,
        label = files.basename(name),
      }
    end
  end
  reply({ editors = editors })
end

--- getCurrentSelection {}: read now, with the same encoding as tracking.
function M.getCurrentSelection(_, reply)
  reply({ selection = tracker.current() or vim.NIL })
end

--- checkDocumentDirty {filePath}.
M.checkDocumentDirty = with_path("checkDocumentDirty", function(path, _, reply)
  local buf = files.find_open(path)
  if not buf then
    return reply({ isOpen = false, isDirty = false, isUntitled = false })
  end
  reply({ isOpen = true, isDirty = vim.bo[buf].modified, isUntitled = vim.api.nvim_buf_get_name(buf) == "" })
end)

--- saveDocument {filePath}: :write in the file's buffer.
M.saveDocument = with_path("saveDocument", function(path, _, reply)
  local buf = files.find_open(path)
  if not buf then
    return reply({ isOpen = false, saved = false })
  end
  local ok, e = pcall(vim.api.nvim_buf_call, buf, function()
    vim.cmd("silent write")
  end)
  if not ok then
    return reply(nil, ("could not save %s: %s"):format(files.basename(path), tostring(e)))
  end
  reply({ isOpen = true, saved = not vim.bo[buf].modified })
end)

local SEVERITY = { "Error", "Warning", "Info", "Hint" }

local function diagnostics_of(buf)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    out[#out + 1] = {
      message = d.message,
      severity = SEVERITY[d.severity] or "Error",
      range = {
        start = { line = d.lnum, character = d.col },
        ["end"] = { line = d.end_lnum or d.lnum, character = d.end_col or d.col },
      },
      source = d.source ~= nil and tostring(d.source) or nil,
      code = d.code ~= nil and tostring(d.code) or nil,
    }
  end
  return out
end

--- getDiagnostics {filePath?}: from vim.diagnostic, 0-based.
function M.getDiagnostics(p, reply)
  if type(p.filePath) == "string" and p.filePath ~= "" then
    local buf = files.find(p.filePath)
    local list = buf and diagnostics_of(buf) or {}
    return reply({ files = { { filePath = p.filePath, diagnostics = list } } })
  end
  local bufs = {}
  for _, d in ipairs(vim.diagnostic.get()) do
    bufs[d.bufnr] = true
  end
  local out = {}
  for buf in pairs(bufs) do
    local name = vim.api.nvim_buf_is_valid(buf) and vim.api.nvim_buf_get_name(buf) or ""
    if name ~= "" then
      out[#out + 1] = { filePath = name, diagnostics = diagnostics_of(buf) }
    end
  end
  table.sort(out, function(a, b)
    return a.filePath < b.filePath
  end)
  reply({ files = out })
end

M.showDiff = diff.show
M.closeDiff = diff.close
M.diffText = diff.text
M.setBufferText = diff.set_buffer_text
M.lspRequest = require("claude-ide-bridge.lsp").request

return M
