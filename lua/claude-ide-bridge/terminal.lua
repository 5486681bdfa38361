-- The :ClaudeCode terminal: runs the CLI with the environment that points it
-- at the bridge, through a provider (terminal.provider):
--   native    a split or a float of Neovim's own (this file)
--   snacks    snacks.nvim's terminal (providers/snacks.lua)
--   external  a command of the user's, e.g. a tmux split (providers/external.lua)
--   none      nothing is started; run `claude` yourself and use /ide
local M = {}

-- The native terminal's buffer and job: state.terminal (state.lua).
local term = require("claude-ide-bridge.state").terminal

function M.buf()
  if term.buf and vim.api.nvim_buf_is_valid(term.buf) then
    return term.buf
  end
  return nil
end

function M.running()
  return M.buf() ~= nil and term.job ~= nil
end

local sessions = require("claude-ide-bridge.state").sessions

-- Several Claude sessions (issue 28 item 8): terminal.sessions "tab" gives
-- each tab page its own claude; :ClaudeCodeSession {name} puts a named one in
-- this tab. The session in use has its buffer and job in `term` (so the rest
-- of this file deals with one); M.use swaps them.

--- The key of this tab page's session.
---@return string
function M.current_key()
  local name = vim.t.claude_ide_bridge_session
  if type(name) == "string" and name ~= "" then
    return "name:" .. name
  end
  local o = require("claude-ide-bridge.config").options.terminal
  if o.sessions == "tab" then
    return "tab:" .. vim.api.nvim_get_current_tabpage()
  end
  return "default"
end

local function session_name(key)
  if key == "default" then
    return nil
  end
  local name = key:match("^name:(.*)$") or key:match("^agent:(.*)$")
  if name then
    return name
  end
  local tab = tonumber(key:match("^tab:(%d+)$"))
  return "tab " .. (tab and vim.api.nvim_tabpage_is_valid(tab) and vim.api.nvim_tabpage_get_number(tab) or "?")
end

--- Makes key's session the one in use (default: this tab page's).
---@param key? string
function M.use(key)
  key = key or M.current_key()
  if key == sessions.key then
    return
  end
  sessions.by_key[sessions.key] = { buf = term.buf, job = term.job, tab = term.tab, name = term.name }
  local s = sessions.by_key[key] or {}
  term.buf, term.job, term.tab, term.name = s.buf, s.job, s.tab, s.name
  sessions.key = key
end

--- Every session: {key, name, buf, job, tab}, the one in use included.
function M.sessions()
  local out = {}
  local all = vim.tbl_extend("force", {}, sessions.by_key)
  all[sessions.key] = { buf = term.buf, job = term.job, tab = term.tab, name = term.name }
  for key, s in pairs(all) do
    if s.buf and vim.api.nvim_buf_is_valid(s.buf) then
      out[#out + 1] = { key = key, name = s.name or session_name(key) or "default", buf = s.buf, job = s.job, tab = s.tab }
    end
  end
  table.sort(out, function(a, b)
    return a.key < b.key
  end)
  return out
end

--- The session whose claude is pid or one of its ancestors (the CLI may run
--- under a wrapper the terminal started), or nil.
---@param pid integer
function M.session_of_pid(pid)
  local by_job = {}
  for _, s in ipairs(M.sessions()) do
    local ok, jp = pcall(vim.fn.jobpid, s.job or -1)
    if ok and jp and jp > 0 then
      by_job[jp] = s
    end
  end
  for _ = 1, 32 do
    if not pid or pid <= 1 then
      return nil
    end
    if by_job[pid] then
      return by_job[pid]
    end
    local ok, info = pcall(vim.api.nvim_get_proc, pid)
    pid = ok and type(info) == "table" and info.ppid or nil
  end
  return nil
end

-- The first window of this tab page that shows the terminal, or nil.
local function window()
  local win = M.buf() and vim.fn.bufwinid(M.buf()) or -1
  return win > 0 and win or nil
end

-- Opens the window for the terminal: a float, or a split of opts.size of the
-- screen (of its width for a vertical split, else of its height).
local function split(opts)
  local size = opts.size or 0.35
  if opts.float then
    local width = math.max(math.floor(vim.o.columns * size), 20)
    local height = math.max(math.floor(vim.o.lines * size), 5)
    vim.api.nvim_open_win(vim.api.nvim_create_buf(false, true), true, {
      relative = "editor", width = width, height = height, border = "rounded",
      row = math.floor((vim.o.lines - height) / 2), col = math.floor((vim.o.columns - width) / 2),
    })
    return
  end
  local how = opts.split or "botright vertical"
  local total = how:find("vert") and vim.o.columns or vim.o.lines
  vim.cmd(("%s %dsplit"):format(how, math.max(math.floor(total * size), how:find("vert") and 20 or 5)))
end

-- Runs cmd as a terminal in the current window (whose buffer must be new).
local function run(cmd, env)
  local job_env = {}
  for k, v in pairs(env or {}) do
    job_env[k] = tostring(v)
  end
  local opts = {
    env = job_env,
    on_exit = function(job)
      if term.job == job then
        term.job = nil
      end
      for _, s in pairs(sessions.by_key) do
        if s.job == job then
          s.job = nil
        end
      end
    end,
  }
  local job
  if vim.fn.has("nvim-0.11") == 1 then
    opts.term = true
    job = vim.fn.jobstart(cmd, opts)
  else
    job = vim.fn.termopen(cmd, opts)
  end
  term.buf, term.job = vim.api.nvim_get_current_buf(), job > 0 and job or nil
  term.tab, term.name = vim.api.nvim_get_current_tabpage(), session_name(sessions.key)
  vim.b[term.buf].claude_ide_bridge_terminal = true
  M.label(term.buf, term.name and (M.NAME .. " (" .. term.name .. ")") or nil)
  -- Hiding the window (toggle) keeps claude running.
  vim.bo[term.buf].bufhidden = "hide"
end

-- The name statuslines and tab labels show for Claude's terminal, in place
-- of term://<cwd>//<pid>:<the whole command line>.
M.NAME = "Claude Code"

--- Names buf M.NAME (or "M.NAME (2)", ... when taken) and gives it filetype
--- claudecode (for the user's FileType autocommands and statusline rules).
--- Renaming leaves the term:// name behind as an unlisted alternate buffer:
--- it is wiped.
---@param buf integer
---@param name? string default M.NAME
function M.label(buf, name)
  name = name or M.NAME
  local old = vim.api.nvim_buf_get_name(buf)
  for i = 1, 99 do
    -- Fails (E95) when another buffer has the name.
    if pcall(vim.api.nvim_buf_set_name, buf, i == 1 and name or ("%s (%d)"):format(name, i)) then
      break
    end
  end
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if b ~= buf and old ~= "" and vim.api.nvim_buf_get_name(b) == old and not vim.bo[b].buflisted then
      pcall(vim.api.nvim_buf_delete, b, { force = true })
    end
  end
  vim.bo[buf].filetype = "claudecode"
end

local native = {}

--- Opens or focuses the terminal. env: the environment for claude.
--- When claude has exited, a new one starts in its place.
function native.open(cmd, env, opts)
  local win, old = window(), M.buf()
  if win then
    vim.api.nvim_set_current_win(win)
  else
    split(opts or {})
  end
  if not (old and term.job) then
    -- Not started, or claude exited: a new one, in place of its buffer.
    vim.api.nvim_win_set_buf(0, vim.api.nvim_create_buf(false, true))
    if old then
      pcall(vim.api.nvim_buf_delete, old, { force = true })
    end
    run(cmd, env)
  elseif not win then
    vim.api.nvim_win_set_buf(0, old)
  end
  vim.cmd("startinsert")
end

--- Whether the current window shows the terminal.
function native.is_current()
  local win = window()
  return win ~= nil and win == vim.api.nvim_get_current_win()
end

--- Closes the terminal's windows in this tab; claude keeps running.
function native.hide()
  local win = window()
  while win do
    if #vim.api.nvim_list_wins() == 1 then
      vim.api.nvim_win_set_buf(win, vim.api.nvim_create_buf(true, false))
    else
      vim.api.nvim_win_close(win, false)
    end
    win = window()
  end
end

--- Stops claude and wipes its buffer.
function native.close()
  if term.job then
    pcall(vim.fn.jobstop, term.job)
    term.job = nil
  end
  local buf = M.buf()
  if buf then
    pcall(vim.api.nvim_buf_delete, buf, { force = true })
  end
  term.buf = nil
end

native.buf, native.running = M.buf, M.running

-- The providers of providers/ (native is this file's).
local PROVIDERS = { snacks = true, external = true, none = true }

--- The provider for opts.provider; snacks falls back to native (with a
--- warning) when snacks.nvim is not installed.
function M.provider(opts)
  local name = (opts or {}).provider or "native"
  local p = PROVIDERS[name] and require("claude-ide-bridge.providers." .. name) or native
  if p.available then
    local ok, why = p.available()
    if not ok then
      require("claude-ide-bridge.notice").show("terminal provider " .. name .. ": " .. why .. "; using native", vim.log.levels.WARN)
      return native
    end
  end
  return p
end

--- The command line: cmd (a string for the shell or a list) with args after it.
---@param cmd string|string[]
---@param args? string[]
---@return string|string[]
function M.command(cmd, args)
  args = args or {}
  if type(cmd) == "table" then
    return vim.list_extend(vim.deepcopy(cmd), args)
  end
  return table.concat(vim.list_extend({ cmd }, vim.tbl_map(vim.fn.shellescape, args)), " ")
end

--- Shows and focuses claude, starting cmd (the full command line, args
--- included: M.command) when it is not running. A running claude is focused
--- as it is; args (given for this message only) are then not applied. key is
--- the session's (default this tab page's; "agent:gemini" for an agent).
function M.open(cmd, env, opts, args, key)
  M.use(key)
  local p = M.provider(opts)
  if args and #args > 0 and p.running() then
    require("claude-ide-bridge.notice").show("claude is already running; :ClaudeCodeClose it to start one with " .. table.concat(args, " "), vim.log.levels.WARN)
  end
  p.open(cmd, env, opts or {})
end

--- :ClaudeCode: hides claude when its window is the current one and it runs,
--- else as open() (which also starts a new claude in place of one that exited).
function M.toggle(cmd, env, opts, args)
  M.use()
  local p = M.provider(opts)
  if p.is_current() and p.running() and not (args and #args > 0) then
    p.hide()
    return
  end
  M.open(cmd, env, opts, args)
end

--- :ClaudeCodeSendText: types text into Claude's prompt as one bracketed
--- paste (ESC[200~ ... ESC[201~): the CLI takes it as pasted text, so its
--- newlines do not submit and a leading / or ! is not a command. CRs become
--- newlines. With submit, Enter follows. Needs the native or snacks terminal
--- with claude running; returns false (and says why) otherwise.
---@param text string
---@param submit boolean
---@return boolean sent
function M.send_text(text, submit)
  local notice = require("claude-ide-bridge.notice")
  M.use()
  local p = M.provider(require("claude-ide-bridge.config").options.terminal)
  local buf = p.buf and p.buf()
  local chan = buf and (vim.b[buf].terminal_job_id or vim.bo[buf].channel)
  if not (buf and p.running() and chan and chan ~= 0) then
    notice.show("no Claude terminal is running here (:ClaudeCode starts one; the external and none providers have none to type into)",
      vim.log.levels.WARN)
    return false
  end
  local body = text:gsub("\r\n", "\n"):gsub("\r", "\n")
  local ok, n = pcall(vim.fn.chansend, chan, "\27[200~" .. body .. "\27[201~" .. (submit and "\r" or ""))
  if not ok or n == 0 then
    notice.show("could not type into Claude's terminal: it has exited", vim.log.levels.WARN)
    return false
  end
  return true
end

--- Stops claude (the provider's; external commands are the user's).
function M.close(opts)
  M.use()
  M.provider(opts or require("claude-ide-bridge.config").options.terminal).close()
end

return M
