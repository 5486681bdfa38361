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

-- Stands for a Lines value while the rest of a message is encoded; the
-- control bytes keep it apart from any text a message carries.
local LINES_PLACEHOLDER = "\1claude-ide-bridge:lines\1"

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
-- took 140-260 ms on 10 MiB; LuaJIT's FFI reads the bytes 8 at a time
-- (a few ms). Without the FFI a byte loop, which LuaJIT traces, is the
-- fallback.
-- LuaJIT's FFI and bit library (Neovim's LuaJIT builds have both), or nil:
-- ascii and encode_pieces below fall back to plain Lua without them.
local ffi, bit
do
  local ok_ffi, f = pcall(require, "ffi")
  local ok_bit, b = pcall(require, "bit")
  if ok_ffi and ok_bit then
    ffi, bit = f, b
  end
end

local ascii
do
  if ffi then
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

-- A string value given as a buffer's text: its lines joined by "\n", with a
-- final "\n" when eol. Client:send writes it into the message straight from
-- the buffer (a 10 MiB proposal on :w): no joined copy, no pass of lua-cjson
-- over it, and in pieces (see encode_pieces).
local Lines = {}
Lines.__index = Lines

--- A string value made of the lines of buffer buf (see Lines); a message may
--- hold one. The lines are read when the message is sent.
function M.buffer_value(buf, eol)
  return setmetatable({ buf = buf, eol = eol }, Lines)
end

-- lines_of(v) returns the line count of Lines value v and get(i, j), which
-- returns a table t and an offset o such that line k (i <= k <= j, 1-based)
-- is t[k - o].
local function lines_of(v)
  if v.lines then
    local lines = v.lines
    return #lines, function()
      return lines, 0
    end
  end
  local buf = v.buf
  return vim.api.nvim_buf_line_count(buf), function(i, j)
    return vim.api.nvim_buf_get_lines(buf, i - 1, j, false), i - 1
  end
end

-- The text of a Lines value as one string (the path without the FFI).
local function lines_string(v)
  local n, get = lines_of(v)
  local t, o = get(1, n)
  local text = table.concat(t, "\n", 1 - o, n - o)
  if v.eol then
    text = text .. "\n"
  end
  return text
end

-- PIECE is the size of a piece of a message that encode_pieces hands to
-- send: a quarter of the 1 MiB pipe the bridge asks for (pipe_linux.go), so
-- that each chansend finds room in the pipe and is written at once while the
-- bridge reads the one before on another core. One chansend of the whole
-- 10 MiB message was written by Neovim's event loop after the send returned,
-- a pipe-full at each wake-up, ~40 ms after the encoding (measured with
-- timestamps, issue 14 item 2). LINES_AT_ONCE bounds the lines read from the
-- buffer at a time: the encoding then works on data still in the CPU cache,
-- and never holds the whole text twice (lines and message).
local PIECE, LINES_AT_ONCE = 256 * 1024, 2048

-- encode_pieces(prefix, v, suffix, send[, piece, at_once]): the message
-- prefix .. the JSON string literal of Lines value v .. suffix .. "\n",
-- handed to send(s) in order, in pieces of about piece bytes (only the last
-- ends with "\n"); false when the FFI is missing (the caller then encodes
-- with lua-cjson), else the result of the last send, stopping at the first
-- false one. One buffer is reused for every piece: a line that needs no
-- escape (most, checked eight bytes at a time) is copied as is; any other is
-- escaped byte by byte ('"' and '\\' escaped, control bytes as \u00XX; a NUL
-- of the file is "\n" inside a buffer line and goes out as \u0000), after
-- valid_utf8 when it has a byte above 127, so valid UTF-8 goes out as is and
-- each invalid byte as U+FFFD, as for any string sent. Measured on 10 MiB of
-- 80-column lines (noisy, shared machine): ~15 ms from the buffer to the
-- last piece, where reading every line, encoding it into one 11 MiB buffer
-- and copying that into one string took ~60 ms (fresh memory's page faults
-- and a cold cache were most of it).
local encode_pieces
do
  if ffi then
    local buf_t = ffi.typeof("uint8_t[?]")
    local u8p = ffi.typeof("const uint8_t *")
    local band, rshift = bit.band, bit.rshift
    local u64p = ffi.typeof("const uint64_t *")
    local bor, bxor, bnot = bit.bor, bit.bxor, bit.bnot
    local HEX = ffi.new("const uint8_t[16]", { 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 97, 98, 99, 100, 101, 102 })
    local ONES, HIGH = 0x0101010101010101ULL, 0x8080808080808080ULL
    local SPACES, QUOTES, BACKSLASHES = 0x2020202020202020ULL, 0x2222222222222222ULL, 0x5C5C5C5C5C5C5C5CULL
    -- escape writes s (valid UTF-8) escaped into out at pos; returns the
    -- new pos. Neovim gives a NUL of the file as "\n": it goes out as \u0000.
    local function escape(out, pos, s, len)
      local p = ffi.cast(u8p, s)
      for j = 0, len - 1 do
        local c = p[j]
        if c >= 32 and c ~= 34 and c ~= 92 then
          out[pos] = c
          pos = pos + 1
        elseif c >= 32 then
          out[pos] = 92
          out[pos + 1] = c
          pos = pos + 2
        else
          if c == 10 then
            c = 0
          end
          out[pos] = 92
          out[pos + 1] = 117
          out[pos + 2] = 48
          out[pos + 3] = 48
          out[pos + 4] = HEX[rshift(c, 4)]
          out[pos + 5] = HEX[band(c, 15)]
          pos = pos + 6
        end
      end
      return pos
    end

    -- plain(s, len): whether s goes into a JSON string as is (printable
    -- ASCII, no '"' or '\\'). Eight bytes at a time: (x - 0x20..) & ~x has a
    -- high bit set iff some byte of x is below 0x20 (x's own high bits
    -- counted too); the same with 1 after xor finds '"' and '\\'.
    local function plain(s, len)
      local w = ffi.cast(u64p, s)
      local acc = 0ULL
      for i = 0, math.floor(len / 8) - 1 do
        local x = w[i]
        local q, b = bxor(x, QUOTES), bxor(x, BACKSLASHES)
        acc = bor(acc, x, band(x - SPACES, bnot(x)), band(q - ONES, bnot(q)), band(b - ONES, bnot(b)))
      end
      if band(acc, HIGH) ~= 0ULL then
        return false
      end
      local p = ffi.cast(u8p, s)
      for i = len - len % 8, len - 1 do
        local c = p[i]
        if c < 32 or c > 126 or c == 34 or c == 92 then
          return false
        end
      end
      return true
    end

    -- grow returns out (holding pos bytes) in a buffer of at least need
    -- bytes, and its capacity.
    local function grow(out, cap, pos, need)
      if need <= cap then
        return out, cap
      end
      local bigger = ffi.new(buf_t, 2 * cap + need)
      ffi.copy(bigger, out, pos)
      return bigger, 2 * cap + need
    end

    encode_pieces = function(prefix, v, suffix, send, piece, at_once)
      piece, at_once = piece or PIECE, at_once or LINES_AT_ONCE
      local n, get = lines_of(v)
      local cap = #prefix + piece + 4096
      local out = ffi.new(buf_t, cap)
      ffi.copy(out, prefix, #prefix)
      local pos = #prefix
      out[pos] = 34 -- "
      pos = pos + 1
      for first = 1, n, at_once do
        local last = math.min(first + at_once - 1, n)
        local lines, o = get(first, last)
        for i = first, last do
          local s = lines[i - o]
          local len = #s
          out, cap = grow(out, cap, pos, pos + len + 16)
          if plain(s, len) then
            ffi.copy(out + pos, s, len)
            pos = pos + len
          else
            if not ascii(s) then
              s = M.valid_utf8(s)
              len = #s
            end
            out, cap = grow(out, cap, pos, pos + 6 * len + 16)
            pos = escape(out, pos, s, len)
          end
          if i < n or v.eol then
            out[pos], out[pos + 1] = 92, 110 -- \n
            pos = pos + 2
          end
          if pos >= piece and i < n then
            if not send(ffi.string(out, pos)) then
              return false
            end
            pos = 0
          end
        end
      end
      out[pos] = 34
      pos = pos + 1
      out = grow(out, cap, pos, pos + #suffix + 1)
      ffi.copy(out + pos, suffix, #suffix)
      pos = pos + #suffix
      out[pos] = 10
      return send(ffi.string(out, pos + 1))
    end
  end
end

-- _encode_lines(prefix, lines, eol, suffix[, piece, at_once]) is
-- encode_pieces for a table of lines (tests): the pieces, or nil without
-- the FFI.
function M._encode_lines(prefix, lines, eol, suffix, piece, at_once)
  if not encode_pieces then
    return nil
  end
  local pieces = {}
  encode_pieces(prefix, setmetatable({ lines = lines, eol = eol }, Lines), suffix, function(s)
    pieces[#pieces + 1] = s
    return true
  end, piece, at_once)
  return pieces
end

local function sanitize(v)
  if type(v) == "string" then
    return M.valid_utf8(v)
  end
  if getmetatable(v) == Lines then
    return v
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

local function decode(line)
  local ok, msg = pcall(vim.json.decode, line)
  if ok and type(msg) == "table" then
    return msg
  end
  return nil
end

-- Params that are absent or JSON null become an empty table.
local function params_of(msg)
  if type(msg.params) == "table" then
    return msg.params
  end
  return {}
end

function Client:send(msg)
  if not self.job then
    return false
  end
  msg.jsonrpc = "2.0"
  msg = sanitize(msg)
  -- A Lines value among params: encoded around a placeholder, then written
  -- into the line from its lines (encode_pieces).
  local params, key = msg.params, nil
  if type(params) == "table" then
    for k, v in pairs(params) do
      if getmetatable(v) == Lines then
        key = k
      end
    end
  end
  local value = key and params[key]
  if value and encode_pieces then
    params[key] = LINES_PLACEHOLDER
    local ok, line = pcall(vim.json.encode, msg)
    params[key] = value
    if not ok then
      return false
    end
    local quoted = vim.json.encode(LINES_PLACEHOLDER)
    local a, b = line:find(quoted, 1, true)
    if a and not line:find(quoted, b + 1, true) then
      local job = self.job
      return encode_pieces(line:sub(1, a - 1), value, line:sub(b + 1), function(piece)
        return vim.fn.chansend(job, piece) > 0
      end)
    end
  end
  if value then
    params[key] = lines_string(value)
  end
  local ok, line = pcall(vim.json.encode, msg)
  if not ok then
    return false
  end
  -- A list: the line break is added as it is written, not by copying the line.
  return vim.fn.chansend(self.job, { line, "" }) > 0
end

function Client:reply(id, result, err)
  if err ~= nil then
    if type(err) ~= "table" then
      err = { code = -32000, message = tostring(err) }
    end
    self:send({ id = id, error = err })
  else
    if result == nil then
      result = vim.empty_dict()
    end
    self:send({ id = id, result = result })
  end
end

function Client:dispatch(msg)
  if msg.method ~= nil then
    local handler = self.handlers[msg.method]
    if msg.id == nil or msg.id == vim.NIL then
      if handler then
        local ok, e = pcall(handler, params_of(msg))
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
    local ok, e = pcall(handler, params_of(msg), reply)
    if not ok then
      reply(nil, { code = -32603, message = tostring(e) })
    end
    return
  end
  local cb = self.pending[msg.id]
  if cb then
    self.pending[msg.id] = nil
    local err = msg.error
    if err == vim.NIL then
      err = nil
    end
    cb(err, msg.result)
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
      local msg = decode(line)
      if msg then
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
