-- Answers the bridge's lspRequest (docs/editor-protocol.md) with the language
-- servers Neovim has attached to the file, so that Claude's code tools
-- (docs/model-tools.md) see what the editor sees. A file that is not loaded is
-- loaded into a hidden (unlisted) buffer first, and the answer says so.
-- Runs on Neovim 0.7.2 (client.request) and newer (client:request).
local files = require("claude-ide-bridge.files")

local M = {}

-- How long to wait for a language server to attach to a buffer just loaded.
M.attach_wait_ms = 10000

local method_calls = vim.fn.has("nvim-0.11") == 1

local function clients_of(buf)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = buf })
  end
  local out = {}
  for _, c in pairs(vim.lsp.buf_get_clients(buf)) do
    out[#out + 1] = c
  end
  return out
end

local function supports(c, method, buf)
  local ok, yes
  if method_calls then
    ok, yes = pcall(c.supports_method, c, method, buf)
  else
    ok, yes = pcall(c.supports_method, method)
  end
  return ok and yes
end

local function send(c, method, params, handler, buf)
  if method_calls then
    return c:request(method, params, handler, buf)
  end
  return c.request(method, params, handler, buf)
end

-- The first client of buf that serves method, and the names of all of them.
local function pick(buf, method)
  local names = {}
  for _, c in ipairs(clients_of(buf)) do
    names[#names + 1] = c.name
    if supports(c, method, buf) then
      return c, names
    end
  end
  return nil, names
end

-- Loads path into a hidden buffer (no swap file, so no prompt can block).
local function load_hidden(path)
  local buf = vim.fn.bufadd(path)
  vim.bo[buf].buflisted = false
  vim.bo[buf].swapfile = false
  local ok, e = pcall(vim.fn.bufload, buf)
  if not ok then
    return nil, e
  end
  if vim.bo[buf].filetype == "" then
    files.detect_filetype(buf, path)
  end
  return buf
end

--- lspRequest {filePath, method, params, position?} -> {result, encoding,
--- server, loaded} or {noServer = reason}. position holds the request's
--- column in every unit ("utf-8", "utf-16", "utf-32"); the client's own
--- offset_encoding picks one.
function M.request(p, reply)
  if type(p.filePath) ~= "string" or p.filePath == "" or type(p.method) ~= "string" then
    return reply(nil, { code = -32602, message = "lspRequest needs filePath and method" })
  end
  local path, method, params = p.filePath, p.method, p.params
  if type(params) ~= "table" then
    params = vim.empty_dict()
  end
  local buf = files.find(path)
  local loaded = false
  if not (buf and vim.api.nvim_buf_is_loaded(buf)) then
    if vim.fn.filereadable(path) ~= 1 then
      return reply(nil, { code = -32000, message = path .. " is not a readable file" })
    end
    local e
    buf, e = load_hidden(path)
    if not buf then
      return reply(nil, { code = -32000, message = "could not load " .. path .. ": " .. tostring(e) })
    end
    loaded = true
  end
  local waited, step = 0, 50
  local function try()
    if not vim.api.nvim_buf_is_valid(buf) then
      return reply(nil, { code = -32000, message = "the buffer of " .. path .. " went away" })
    end
    local c, names = pick(buf, method)
    if not c then
      -- A server started by a FileType autocommand attaches a moment after loading.
      if loaded and waited < M.attach_wait_ms then
        waited = waited + step
        return vim.defer_fn(try, step)
      end
      local ft = vim.bo[buf].filetype
      local why
      if #names == 0 then
        why = ("no language server is attached to %s in Neovim (filetype %q)"):format(path, ft)
      else
        why = ("Neovim's language servers for %s (%s) do not serve %s"):format(path, table.concat(names, ", "), method)
      end
      return reply({ noServer = why, loaded = loaded })
    end
    local enc = c.offset_encoding or "utf-16"
    if type(p.position) == "table" and type(params.position) == "table" and p.position[enc] then
      params.position.character = p.position[enc]
    end
    local ok, e = pcall(send, c, method, params, function(err, result)
      vim.schedule(function()
        if err then
          return reply(nil, { code = -32000, message = ("%s: %s"):format(c.name, tostring(err.message or err)) })
        end
        reply({ result = result == nil and vim.NIL or result, encoding = enc, server = c.name, loaded = loaded })
      end)
    end, buf)
    if not ok then
      reply(nil, { code = -32000, message = ("%s: %s"):format(c.name, tostring(e)) })
    end
  end
  try()
end

return M
