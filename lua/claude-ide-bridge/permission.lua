-- Claude's permission prompts asked here (askPermission, docs/editor-protocol.md): Claude's
-- terminal asks too, and the first answer wins. A prompt is a float that does not take the
-- focus; :ClaudeCodePermissions lists the pending ones and enters the prompt. Keys in it: y allow
-- once, a allow always (Claude's suggestion), n deny, r deny with a reason typed in, q close
-- (the question stays pending). What it shows is the model's text: control characters are
-- shown escaped, and only the first MAX bytes.
local state = require("claude-ide-bridge.state")
local events = require("claude-ide-bridge.events")

local M = {}

local MAX = 4096

local notify = require("claude-ide-bridge.notice").show

--- s with control characters as \xNN, cut at MAX bytes.
---@param s string
---@return string
function M.clean(s)
  s = tostring(s)
  local cut = #s > MAX
  if cut then
    s = s:sub(1, MAX)
  end
  s = s:gsub("[%z\1-\31\127]", function(c)
    return ("\\x%02x"):format(c:byte())
  end)
  return cut and (s .. " …") or s
end

--- The tool input as one line: a command, a URL or a path by itself, else its JSON.
local function describe(input)
  if type(input) == "string" then
    return M.clean(input)
  end
  if type(input) == "table" then
    for _, k in ipairs({ "command", "url", "file_path" }) do
      if type(input[k]) == "string" then
        return k .. ": " .. M.clean(input[k])
      end
    end
    local ok, s = pcall(vim.fn.json_encode, input)
    return ok and M.clean(s) or ""
  end
  return ""
end

local function close(id)
  local p = state.permissions.pending[id]
  if p and p.win and vim.api.nvim_win_is_valid(p.win) then
    vim.api.nvim_win_close(p.win, true)
  end
  if p then
    p.win = nil
  end
end

--- Sends the decision on request id; false and a message when it is not pending.
---@param id integer
---@param behavior "allow"|"deny"
---@param message? string deny: the reason Claude gets
---@param always? boolean allow: apply Claude's suggestion
---@return boolean ok
---@return string|nil err
function M.decide(id, behavior, message, always)
  local p = state.permissions.pending[id]
  if not p then
    return false, "no pending permission request " .. tostring(id)
  end
  close(id)
  state.permissions.pending[id] = nil
  state.request("permissionDecided", { id = id, behavior = behavior, message = message, always = always or nil }, function(err)
    if err then
      vim.schedule(function()
        notify("Claude's question was not answered here: " .. tostring(err.message), vim.log.levels.WARN)
      end)
    end
  end)
  return true
end

local function keys(id, buf)
  local function map(lhs, fn)
    vim.keymap.set("n", lhs, fn, { buffer = buf, nowait = true, silent = true })
  end
  map("y", function()
    M.decide(id, "allow")
  end)
  map("a", function()
    M.decide(id, "allow", nil, true)
  end)
  map("n", function()
    M.decide(id, "deny")
  end)
  map("r", function()
    vim.ui.input({ prompt = "Reason (Claude gets it): " }, function(reason)
      if reason then
        M.decide(id, "deny", reason)
      end
    end)
  end)
  map("q", function()
    close(id)
  end)
end

--- Shows prompt id in a float; enter: move the cursor into it.
---@param id integer
---@param enter? boolean
function M.show(id, enter)
  local p = state.permissions.pending[id]
  if not p then
    return
  end
  if p.win and vim.api.nvim_win_is_valid(p.win) then
    if enter then
      vim.api.nvim_set_current_win(p.win)
    end
    return
  end
  local lines = {
    ("Claude (session %s) asks to use %s:"):format(M.clean(p.session):sub(1, 8), M.clean(p.tool)),
    "  " .. p.text,
    "",
    p.always and "[y] allow once  [a] allow always  [n] deny  [r] deny with a reason  [q] later"
      or "[y] allow  [n] deny  [r] deny with a reason  [q] later",
  }
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = "wipe"
  local width = math.min(vim.o.columns - 4, 100)
  p.win = vim.api.nvim_open_win(buf, enter == true, {
    relative = "editor", row = 1, col = math.max(0, vim.o.columns - width - 2), width = width,
    height = #lines + 1, style = "minimal", border = "single", focusable = true,
  })
  vim.wo[p.win].wrap = true
  keys(id, buf)
end

--- askPermission from the bridge: answered {} at once (shown), the decision comes later.
function M.ask(params, reply)
  local config = require("claude-ide-bridge.config")
  if config.options.permissions == false then
    return reply(nil, { code = -32000, message = "permission prompts are off (permissions = false)" })
  end
  if type(params) ~= "table" or type(params.id) ~= "number" then
    return reply(nil, { code = -32602, message = "askPermission needs a numeric id" })
  end
  reply({})
  vim.schedule(function()
    local p = {
      id = params.id,
      session = type(params.session) == "string" and params.session or "",
      tool = type(params.tool) == "string" and params.tool or "?",
      text = describe(params.input),
      always = type(params.suggestions) == "table" and #params.suggestions > 0,
    }
    state.permissions.pending[p.id] = p
    events.emit("ClaudeCodePermission", { id = p.id, session = p.session, tool = p.tool, input = p.text })
    M.show(p.id, false)
  end)
end

--- permissionWithdrawn from the bridge: the prompt goes, with a note.
function M.withdrawn(params)
  if type(params) ~= "table" or type(params.id) ~= "number" then
    return
  end
  vim.schedule(function()
    local p = state.permissions.pending[params.id]
    if not p then
      return
    end
    close(params.id)
    state.permissions.pending[params.id] = nil
    notify(("Claude's question about %s was withdrawn: %s"):format(M.clean(p.tool), M.clean(params.reason or "")))
  end)
end

--- The pending prompts, oldest first.
---@return { id: integer, session: string, tool: string, input: string }[]
function M.list()
  local out = {}
  for id, p in pairs(state.permissions.pending) do
    out[#out + 1] = { id = id, session = p.session, tool = p.tool, input = p.text }
  end
  table.sort(out, function(a, b)
    return a.id < b.id
  end)
  return out
end

--- :ClaudeCodePermissions: lists the pending prompts and enters the oldest.
function M.command()
  local l = M.list()
  if #l == 0 then
    return notify("no permission question of Claude is pending")
  end
  local msg = {}
  for _, p in ipairs(l) do
    msg[#msg + 1] = ("%d: %s %s"):format(p.id, p.tool, p.input)
  end
  notify(table.concat(msg, "\n"))
  M.show(l[1].id, true)
end

return M
