-- JSON-RPC 2.0 with the bridge process over its stdin/stdout.
--
-- Transport: jobstart() with newline-delimited JSON. It works the same on
-- Neovim 0.7.2 and later, needs no Content-Length bookkeeping, and
-- vim.json (lua-cjson) decodes in any context. vim.lsp.rpc would also fit, but
-- its internals changed across versions and it expects LSP semantics (it
-- answers some methods itself). Framing: one message a line; on_stdout hands
-- us chunks whose first element continues the previous partial line.
local M = {}

local Client = {}
Client.__index = Client

--- Creates a client. handlers maps method names to
--- function(params, reply) for requests (reply(result) or reply(nil, err),
--- err a string or {code, message}), and function(params) for notifications.
function M.new(handlers)
  return setmetatable({
    handlers = handlers or {},
    pending = {},
    next_id = 1,
    partial = {}, -- pieces of the line not yet ended
    job = nil,
    stderr = {},
  }, Client)
end

-- The bridge accepts only valid UTF-8 (JSON text is Unicode), so each
-- invalid byte of a buffer's text becomes U+FFFD, one per byte, as Neovim
-- counts it as a character of its own.
local REPLACEMENT = "\239\191\189"

local function valid_seq(s, i, n)
  local b = s:byte(i)
  local len, min
  if b < 0x80 then
    return 1
  elseif b >= 0xC2 and b <= 0xDF then
    len, min = 2, 0x80
  elseif b >= 0xE0 and b <= 0xEF then
    len, min = 3, 0x800
  elseif b >= 0xF0 and b <= 0xF4 then
    len, min = 4, 0x10000
  else
    return nil
  end
  if i + len - 1 > n then
    return nil
  end
  local cp = b % (2 ^ (7 - len))
  for j = i + 1, i + len - 1 do
    local c = s:byte(j)
    if c < 0x80 or c > 0xBF then
      return nil
    end
    cp = cp * 64 + (c - 0x80)
  end
  if cp < min or cp > 0x10FFFF or (cp >= 0xD800 and cp <= 0xDFFF) then
    return nil
  end
  return len
end

-- ascii(s): whether s has no byte above 127. This runs on every string sent,
-- including whole buffers of many MiB, so it must be cheap: a Lua pattern
-- with a byte class (s:find("[\128-\255]")) is not compiled by LuaJIT and
-- took 100-500 ms on 10 MiB of ASCII; LuaJIT's FFI reads the bytes 8 at a
-- time (~1 ms), where a byte loop, which LuaJIT traces, took 6-30 ms
-- (issue 36, a loaded machine). The loop is the fallback without LuaJIT's
-- FFI and bit library (Neovim's LuaJIT builds have both).
local ok_ffi, ffi = pcall(require, "ffi")
local ok_bit, bit = pcall(require, "bit")

local ascii
do
  if ok_ffi and ok_bit then
    local u8p = ffi.typeof("const uint8_t *")
    local u64p = ffi.typeof("const uint64_t *")
    local HIGH = 0x8080808080808080ULL
    local band = bit.band
    ascii = function(s)
      local n = #s
      local p = ffi.cast(u8p, s)
      local words = math.floor(n / 8)
      local w = ffi.cast(u64p, p)
      local acc = 0ULL
      for i = 0, words - 1 do
        acc = bit.bor(acc, w[i])
      end
      for i = words * 8, n - 1 do
        acc = bit.bor(acc, p[i])
      end
      return band(acc, HIGH) == 0ULL
    end
  else
    ascii = function(s)
      local byte = string.byte
      for i = 1, #s do
        if byte(s, i) > 127 then
          return false
        end
      end
      return true
    end
  end
end
M._ascii = ascii

--- s with every byte that is not part of valid UTF-8 replaced by U+FFFD.
function M.valid_utf8(s)
  if ascii(s) then
    return s
  end
  local out, i, n, start = {}, 1, #s, 1
  while i <= n do
    local len = valid_seq(s, i, n)
    if len then
      i = i + len
    else
      out[#out + 1] = s:sub(start, i - 1)
      out[#out + 1] = REPLACEMENT
      i = i + 1
      start = i
    end
  end
  out[#out + 1] = s:sub(start)
  return table.concat(out)
end

local function sanitize(v)
  if type(v) == "string" then
    return M.valid_utf8(v)
  end
  if type(v) == "table" and v ~= vim.NIL then
    local mt = getmetatable(v)
    local out = {}
    for k, x in pairs(v) do
      out[k] = sanitize(x)
    end
    return setmetatable(out, mt)
  end
  return v
end

function Client:send(msg)
  if not self.job then
    return false
  end
  msg.jsonrpc = "2.0"
  msg = sanitize(msg)
  local ok, line = pcall(vim.json.encode, msg)
  if not ok then
    return false
  end
  -- A list: the line break is added as it is written, not by copying the line.
  return vim.fn.chansend(self.job, { line, "" }) > 0
end

function Client:reply(id, result, err)
  if err == nil then
    return self:send({ id = id, result = result == nil and vim.empty_dict() or result })
  end
  self:send({ id = id, error = type(err) == "table" and err or { code = -32000, message = tostring(err) } })
end

function Client:dispatch(msg)
  if msg.method ~= nil then
    local handler = self.handlers[msg.method]
    -- Params that are absent or JSON null become an empty table.
    local params = type(msg.params) == "table" and msg.params or {}
    if msg.id == nil or msg.id == vim.NIL then
      if handler then
        local ok, e = pcall(handler, params)
        if not ok then
          self:log(("notification %s failed: %s"):format(msg.method, e))
        end
      end
      return
    end
    if not handler then
      self:reply(msg.id, nil, { code = -32601, message = "method not found: " .. tostring(msg.method) })
      return
    end
    local id, answered = msg.id, false
    local function reply(result, err)
      if answered then
        return
      end
      answered = true
      self:reply(id, result, err)
    end
    local ok, e = pcall(handler, params, reply)
    if not ok then
      reply(nil, { code = -32603, message = tostring(e) })
    end
    return
  end
  local cb = self.pending[msg.id]
  if cb then
    self.pending[msg.id] = nil
    cb(msg.error ~= vim.NIL and msg.error or nil, msg.result)
  end
end

function Client:on_stdout(data)
  -- data[1] continues the last partial line; data[#data] is the new partial.
  -- A long line (a 10 MiB diff) arrives in many chunks: its pieces are kept
  -- in a list and joined once, when the line ends. Joining on every chunk
  -- copied the growing line each time (quadratic, hundreds of MB of garbage).
  local partial = self.partial
  if #data == 1 then
    partial[#partial + 1] = data[1]
    return
  end
  partial[#partial + 1] = data[1]
  data[1] = table.concat(partial)
  self.partial = { data[#data] }
  for i = 1, #data - 1 do
    local line = data[i]
    if line:find("%S") then
      local ok, msg = pcall(vim.json.decode, line)
      if ok and type(msg) == "table" then
        self:dispatch(msg)
      else
        self:log("bad JSON from bridge: " .. line:sub(1, 200))
      end
    end
  end
end

function Client:log(line)
  table.insert(self.stderr, line)
  if #self.stderr > 100 then
    table.remove(self.stderr, 1)
  end
end

--- Starts the process cmd (a list). on_exit(code) runs when it ends.
function Client:start(cmd, on_exit)
  local ok, job = pcall(vim.fn.jobstart, cmd, {
    -- Not killed when Neovim exits: the bridge ends itself when its stdin
    -- closes, unless a Claude outside Neovim is connected, for which it
    -- stays (:help claude-ide-bridge-outlive).
    detach = true,
    on_stdout = function(_, data)
      self:on_stdout(data)
    end,
    on_stderr = function(_, data)
      for _, l in ipairs(data) do
        if l ~= "" then
          self:log(l)
        end
      end
    end,
    on_exit = function(_, code)
      self.job = nil
      local pending = self.pending
      self.pending = {}
      for _, cb in pairs(pending) do
        pcall(cb, { code = -32099, message = "bridge exited" }, nil)
      end
      if on_exit then
        on_exit(code)
      end
    end,
  })
  if not ok then
    return nil, ("cannot start %s: %s"):format(cmd[1], tostring(job))
  end
  if job <= 0 then
    return nil, ("cannot start %s: %s"):format(cmd[1], job == -1 and "not executable" or "invalid arguments")
  end
  self.job = job
  return job
end

--- Sends a request; cb(err, result) runs with the answer.
function Client:request(method, params, cb)
  local id = self.next_id
  self.next_id = id + 1
  self.pending[id] = cb or function() end
  if not self:send({ id = id, method = method, params = params or vim.empty_dict() }) then
    self.pending[id] = nil
    if cb then
      cb({ code = -32099, message = "bridge is not running" }, nil)
    end
    return nil
  end
  return id
end

function Client:notify(method, params)
  return self:send({ method = method, params = params or vim.empty_dict() })
end

--- Closes the bridge's stdin: it then settles its diffs, removes its lock
--- file and exits.
function Client:stop()
  if self.job then
    pcall(vim.fn.chanclose, self.job, "stdin")
  end
end

function Client:running()
  return self.job ~= nil
end

return M
