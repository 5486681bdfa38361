-- :ClaudeCodeInstall: puts the bridge binary under stdpath("data") without Go.
--
-- Downloads <install.base_url>/v<version>/claude-ide-bridge_<version>_<os>_<arch>.tar.gz
-- (.zip on Windows) and SHA256SUMS beside it, checks the archive's SHA-256
-- against its line there, unpacks it into a temporary directory, checks that
-- the binary runs (`version`) and only then moves it into place. A checksum
-- that does not match installs nothing and does not fall back to building.
-- When the release cannot be downloaded and `go` is on $PATH, the bridge is
-- built from this checkout instead. Runs synchronously (a few seconds).
local state = require("claude-ide-bridge.state")

local M = {}

-- install.last (the outcome of the last run, for tests) reads state.install.last.
setmetatable(M, {
  __index = function(_, k)
    if k == "last" then
      return state.install.last
    end
  end,
})

local uv = vim.uv or vim.loop

local notify = require("claude-ide-bridge.notice").show

local is_windows = vim.fn.has("win32") == 1

--- The plugin's version (lua/claude-ide-bridge/version.lua).
---@return string
function M.version()
  return require("claude-ide-bridge.version")
end

--- The checkout's root (where plugin/, lua/ and go.mod sit).
---@return string
function M.root()
  local src = debug.getinfo(1, "S").source:gsub("^@", "")
  return vim.fn.fnamemodify(src, ":p:h:h:h")
end

--- Where the installed bridge lives.
---@return string
function M.path()
  return vim.fn.stdpath("data") .. "/claude-ide-bridge/bin/claude-ide-bridge" .. (is_windows and ".exe" or "")
end

--- This machine as Go names it: os, arch (nil when not released for).
---@return string|nil, string|nil
function M.platform()
  local u = uv.os_uname()
  local os_name = ({ Linux = "linux", Darwin = "darwin", Windows_NT = "windows" })[u.sysname]
  local m = u.machine:lower()
  local arch = ({ x86_64 = "amd64", amd64 = "amd64", aarch64 = "arm64", arm64 = "arm64" })[m]
  return os_name, arch
end

--- The release archive's file name, as internal/dist names it.
function M.archive_name(version, os_name, arch)
  return ("claude-ide-bridge_%s_%s_%s%s"):format(version, os_name, arch, os_name == "windows" and ".zip" or ".tar.gz")
end

-- Runs argv; returns output, ok.
local function run(argv, cwd)
  local out
  if cwd then
    local prev = vim.fn.getcwd()
    vim.cmd("noautocmd lcd " .. vim.fn.fnameescape(cwd))
    out = vim.fn.system(argv)
    vim.cmd("noautocmd lcd " .. vim.fn.fnameescape(prev))
  else
    out = vim.fn.system(argv)
  end
  return out, vim.v.shell_error == 0
end

local function download(url, dest)
  if vim.fn.executable("curl") == 1 then
    return run({ "curl", "-fsSL", "--retry", "2", "-o", dest, url })
  elseif vim.fn.executable("wget") == 1 then
    return run({ "wget", "-q", "-O", dest, url })
  end
  return "neither curl nor wget is on $PATH", false
end

local function read(path)
  local f = io.open(path, "rb")
  if not f then
    return nil
  end
  local s = f:read("*a")
  f:close()
  return s
end

--- The SHA-256 of a file, lower-case hex; nil, why when it cannot be computed.
--- vim.fn.sha256 takes the bytes on 0.10+; on older Neovim a string with NUL
--- bytes becomes a Blob, which it refuses, so sha256sum/shasum/certutil then.
---@return string|nil, string|nil
function M.sha256_file(path)
  local data = read(path)
  if not data then
    return nil, "cannot read " .. path
  end
  local ok, sum = pcall(vim.fn.sha256, data)
  if ok and type(sum) == "string" and #sum == 64 then
    return sum:lower()
  end
  local tools = {
    { "sha256sum", { "sha256sum", path } },
    { "shasum", { "shasum", "-a", "256", path } },
    { "certutil", { "certutil", "-hashfile", path, "SHA256" } },
  }
  for _, t in ipairs(tools) do
    if vim.fn.executable(t[1]) == 1 then
      local out, good = run(t[2])
      -- The first run of 64 hex digits (certutil prints a header line first).
      local hex = good and out:lower():match("%f[%x](" .. ("%x"):rep(64) .. ")%f[^%x]") or nil
      if hex and #hex == 64 then
        return hex
      end
    end
  end
  return nil, "no way to compute SHA-256 (vim.fn.sha256, sha256sum, shasum, certutil)"
end

--- The digest SHA256SUMS gives for name, or nil.
function M.expected_sum(sums, name)
  for line in sums:gmatch("[^\r\n]+") do
    local hex, file = line:match("^(%x+)%s+%*?(%S+)$")
    if file == name and hex and #hex == 64 then
      return hex:lower()
    end
  end
  return nil
end

-- Moves the binary at src into M.path() (same file system: a temp dir beside it).
local function put_in_place(src)
  local dest = M.path()
  if not is_windows then
    uv.fs_chmod(src, 493) -- 0755
  end
  os.remove(dest)
  local ok, err = os.rename(src, dest)
  if not ok then
    return nil, "cannot move the binary into place: " .. tostring(err)
  end
  return dest
end

--- Binary version as `claude-ide-bridge version` prints it, or nil.
function M.bin_version(bin)
  local out, ok = run({ bin, "version" })
  return ok and out:match("claude%-ide%-bridge%s+(%S+)") or nil
end

-- A command's output cut to what the user needs in one notice: without
-- go's "downloading" progress and repeated lines (curl says the same thing on
-- each retry), at most 6 lines.
local function brief(out)
  local lines, seen = {}, {}
  for _, l in ipairs(vim.split(vim.trim(out or ""), "\n", { plain = true })) do
    if l ~= "" and not l:find("^go: downloading ") and not seen[l] then
      seen[l] = true
      lines[#lines + 1] = l
    end
  end
  if #lines > 6 then
    lines = vim.list_slice(lines, #lines - 5, #lines)
  end
  return table.concat(lines, "\n")
end
M._brief = brief

-- Downloads and installs the release. Returns path or nil, err, unreachable.
local function from_release(opts, tmp)
  local version = opts.version or M.version()
  local os_name, arch = M.platform()
  if not (os_name and arch) then
    return nil, "no release for " .. uv.os_uname().sysname .. "/" .. uv.os_uname().machine, true
  end
  local name = M.archive_name(version, os_name, arch)
  local base = (opts.base_url or require("claude-ide-bridge.config").options.install.base_url):gsub("/+$", "")
  local url = ("%s/v%s/"):format(base, version)
  local archive, sums = tmp .. "/" .. name, tmp .. "/SHA256SUMS"
  local out, ok = download(url .. "SHA256SUMS", sums)
  if not ok then
    return nil, "cannot download " .. url .. "SHA256SUMS: " .. brief(out), true
  end
  out, ok = download(url .. name, archive)
  if not ok then
    return nil, "cannot download " .. url .. name .. ": " .. brief(out), true
  end
  local want = M.expected_sum(read(sums) or "", name)
  if not want then
    return nil, "SHA256SUMS has no line for " .. name
  end
  local got, why = M.sha256_file(archive)
  if not got then
    return nil, why
  end
  if got ~= want then
    return nil, ("checksum mismatch for %s: SHA256SUMS says %s, the download is %s; nothing installed"):format(name, want, got)
  end
  -- Only regular files (and directories) are unpacked: a symlink or hard link member would
  -- make the chmod below and the move into place act on its target (a file of the user's
  -- outside the archive), or install the link itself.
  out, ok = run({ "tar", "-tvf", archive })
  if not ok then
    return nil, "cannot list " .. name .. ": " .. vim.trim(out)
  end
  for line in out:gmatch("[^\n]+") do
    local kind = line:sub(1, 1)
    if kind ~= "-" and kind ~= "d" then
      return nil, ("%s holds a member that is not a regular file (%s); nothing installed"):format(name, vim.trim(line))
    end
  end
  local unpack = tmp .. "/unpack"
  vim.fn.mkdir(unpack, "p")
  out, ok = run({ "tar", "-xf", archive, "-C", unpack })
  if not ok then
    return nil, "cannot unpack " .. name .. ": " .. vim.trim(out)
  end
  local bin = unpack .. "/claude-ide-bridge" .. (is_windows and ".exe" or "")
  local st = uv.fs_lstat(bin)
  if not st or st.type ~= "file" or st.nlink ~= 1 then
    return nil, name .. " has no claude-ide-bridge that is a regular file; nothing installed"
  end
  if not is_windows then
    uv.fs_chmod(bin, 493)
  end
  if not M.bin_version(bin) then
    return nil, "the downloaded bridge does not run"
  end
  return put_in_place(bin)
end

-- Builds the bridge from this checkout with Go.
local function from_source(tmp)
  local root = M.root()
  if vim.fn.filereadable(root .. "/go.mod") == 0 then
    return nil, "no Go sources in " .. root
  end
  local bin = tmp .. "/claude-ide-bridge" .. (is_windows and ".exe" or "")
  -- Static, as the releases (and `make build`) are: no libc mapped into the
  -- bridge (about 1.3 MiB less resident memory).
  local cgo = vim.env.CGO_ENABLED
  vim.env.CGO_ENABLED = "0"
  local out, ok = run({ "go", "build", "-trimpath", "-ldflags", "-X main.version=" .. M.version(), "-o", bin, "./cmd/claude-ide-bridge" }, root)
  vim.env.CGO_ENABLED = cgo
  if not ok then
    return nil, "go build failed: " .. brief(out)
  end
  return put_in_place(bin)
end

--- Installs the bridge; opts.base_url and opts.version override the option
--- and the plugin's version. Returns the installed path, or nil and why.
---@param opts? { base_url?: string, version?: string, force?: boolean, quiet?: boolean }
---@return string|nil path, string|nil err
function M.run(opts)
  opts = opts or {}
  local dir = vim.fn.fnamemodify(M.path(), ":h")
  vim.fn.mkdir(dir, "p")
  local tmp = dir .. "/.install-" .. tostring(vim.fn.getpid()) .. "-" .. tostring(uv.hrtime())
  vim.fn.mkdir(tmp, "p")
  if not opts.quiet then
    notify("installing the bridge " .. M.version() .. "...")
  end
  local path, err, unreachable = from_release(opts, tmp)
  if not path and unreachable and vim.fn.executable("go") == 1 then
    local why = err
    path, err = from_source(tmp)
    if path then
      err = nil
      notify("no release reachable (" .. why .. "); built from source with Go")
    else
      err = why .. "; " .. err
    end
  end
  vim.fn.delete(tmp, "rf")
  state.install.last = { path = path, err = err }
  if not path then
    notify("install failed: " .. err, vim.log.levels.ERROR)
    return nil, err
  end
  if not opts.quiet then
    notify("installed " .. path)
  end
  return path
end

return M
