-- Answers the bridge's lspRequest (docs/editor-protocol.md) with the language
-- servers Neovim has attached to the file, so that Claude's code tools
-- (docs/model-tools.md) see what the editor sees. A file that is not loaded is
-- loaded into a hidden (unlisted) buffer first, without autocommands or
-- modelines, given to the servers already running for it, and wiped after the
-- answer; the answer says so.
-- Runs on Neovim 0.7.2 (client.request) and newer (client:request).
local files = require("claude-ide-bridge.files")

local M = {}

local method_calls = vim.fn.has("nvim-0.11") == 1

local function clients_of(buf)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = buf })
  end
  return vim.tbl_values(vim.lsp.buf_get_clients(buf))
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

-- Runs f with every autocommand and modeline off (restored after, also on an
-- error).
local function quietly(f)
  local ei, ml = vim.o.eventignore, vim.go.modeline
  vim.o.eventignore, vim.go.modeline = "all", false
  local ok, a, b = pcall(f)
  vim.o.eventignore, vim.go.modeline = ei, ml
  if not ok then
    return nil, a
  end
  return a, b
end

-- The filetype of path, found without events: vim.filetype.match (0.8+ takes
-- a table; 0.7's sets it on buf itself, its FileType event ignored here).
local function filetype_of(buf, path)
  if vim.fn.has("nvim-0.8") == 1 then
    return vim.filetype.match({ filename = path, buf = buf }) or ""
  end
  pcall(vim.filetype.match, path, buf)
  return vim.bo[buf].filetype
end

-- Loads path into a hidden buffer for a tool only. The model chooses the path,
-- and the file may be a cloned repository's: no autocommand runs (BufRead,
-- FileType: the user's config and plugins, which could start a server or run
-- the file's code), no modeline is read, no swap file is made (so no prompt
-- can block). Its filetype is set without events. Unloaded after (unload).
local function load_hidden(path)
  return quietly(function()
    local buf = vim.fn.bufadd(path)
    vim.bo[buf].buflisted = false
    vim.bo[buf].swapfile = false
    vim.bo[buf].modeline = false
    vim.fn.bufload(buf)
    if vim.bo[buf].filetype == "" then
      vim.bo[buf].filetype = filetype_of(buf, path)
    end
    return buf
  end)
end

-- Wipes a buffer load_hidden made, unless the user has opened it since.
local function unload(buf)
  if vim.api.nvim_buf_is_valid(buf) and not vim.bo[buf].buflisted and vim.fn.bufwinid(buf) == -1 then
    quietly(function()
      vim.api.nvim_buf_delete(buf, { force = true })
    end)
  end
end

local function all_clients()
  return (vim.lsp.get_clients or vim.lsp.get_active_clients)()
end

-- Whether path is inside client c's root or workspace folders.
local function in_root(c, path)
  local roots = {}
  if c.config and c.config.root_dir then
    roots[#roots + 1] = c.config.root_dir
  end
  for _, wf in ipairs(c.workspace_folders or {}) do
    roots[#roots + 1] = vim.uri_to_fname(wf.uri)
  end
  for _, r in ipairs(roots) do
    r = r:gsub("/+$", "")
    if path == r or path:sub(1, #r + 1) == r .. "/" then
      return true
    end
  end
  return false
end

-- Whether client c serves filetype ft: its config says so, or it already has
-- a buffer of that filetype.
local function serves_ft(c, ft)
  if ft == "" then
    return false
  end
  if vim.tbl_contains((c.config and c.config.filetypes) or {}, ft) then
    return true
  end
  for _, b in ipairs(vim.lsp.get_buffers_by_client_id(c.id)) do
    if vim.api.nvim_buf_is_valid(b) and vim.bo[b].filetype == ft then
      return true
    end
  end
  return false
end

-- Attaches the running language servers that serve buf's file (its filetype,
-- under their root) to buf. No server is started: a load for a tool runs no
-- FileType autocommand, so servers come only from files the user opened.
local function attach_running(buf, path)
  local ft = vim.bo[buf].filetype
  for _, c in ipairs(all_clients()) do
    if serves_ft(c, ft) and in_root(c, path) then
      quietly(function()
        vim.lsp.buf_attach_client(buf, c.id)
      end)
    end
  end
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
    attach_running(buf, path)
    local answer = reply
    reply = function(...)
      unload(buf)
      return answer(...)
    end
  end
  if not vim.api.nvim_buf_is_valid(buf) then
    return reply(nil, { code = -32000, message = "the buffer of " .. path .. " went away" })
  end
  local c, names = pick(buf, method)
  if not c then
    local ft = vim.bo[buf].filetype
    local why
    if #names == 0 and loaded then
      why = ("no language server of Neovim's serves %s (filetype %q): a file loaded only for a tool starts none, so open a file of that language in Neovim first"):format(path, ft)
    elseif #names == 0 then
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

return M
