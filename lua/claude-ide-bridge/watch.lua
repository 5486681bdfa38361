-- Buffers follow the disk: when a file loaded in a buffer changes on disk
-- (Claude's write after an accepted diff, a direct write, a file created
-- after its buffer), an unmodified buffer is reloaded at once, with no
-- prompt, keeping the view of every window that shows it. A buffer with
-- unsaved changes is never overwritten: the user gets one warning naming the
-- file (per change on disk), and Neovim's own "changed since reading" check
-- still guards the next :w.
--
-- Why here and not in the bridge: the editor sees its own file system, also
-- when the bridge runs elsewhere, and the buffers are the editor's; the
-- protocol stays as it is.
--
-- How: one libuv fs_event per directory that holds a loaded file buffer, not
-- one per file. An atomic write (write a temporary file, rename it over the
-- target) replaces the inode, which ends a watch on the file; a file that
-- does not exist yet has no inode to watch. A directory watch sees both. If
-- fs_event cannot start (inotify limits, some network file systems), the
-- file is polled (fs_poll). Events only start a check: the check compares
-- the file's stat with the one recorded when the buffer was read or written,
-- so the plugin's and the user's own writes do not reload anything.
local M = {}

local uv = vim.uv or vim.loop

-- Settle time after the last event before a check: a writer that truncates
-- and then writes produces several events.
local SETTLE_MS = 50
-- A file gone at a check is looked at once more after this long before the
-- user is told (delete + create writers).
local GONE_MS = 500
-- fs_poll interval of the fallback.
local POLL_MS = 1000

-- dirs[dir] = { handle, kind = "event"|"poll", files = { [basename] = true } }
-- bufs[buf] = { path, dir, base, stat (or false: missing), warned (stat key), timer, polls }
-- Watches, watched buffers, on/off and the augroup: state.watch (state.lua).
local S = require("claude-ide-bridge.state").watch

local function notify(msg, level)
  require("claude-ide-bridge.notice").show(msg, level or vim.log.levels.WARN)
end

-- The identity of a file's content as far as stat can tell, or false when it
-- does not exist.
local function stat_key(path)
  local st = uv.fs_stat(path)
  if not st or st.type ~= "file" then
    return false
  end
  return table.concat({ st.ino, st.size, st.mtime.sec, st.mtime.nsec, st.ctime.sec, st.ctime.nsec }, ":")
end

-- The file path a buffer edits, or nil for buffers that are not plain files
-- (terminals, scratch and help buffers, URLs such as fugitive:// or oil://).
local function file_of(buf)
  if not (vim.api.nvim_buf_is_valid(buf) and vim.api.nvim_buf_is_loaded(buf)) or vim.bo[buf].buftype ~= "" then
    return nil
  end
  local name = vim.api.nvim_buf_get_name(buf)
  if name == "" or name:match("^%a[%w+.-]*://") then
    return nil
  end
  return name
end

local function split_path(path)
  local dir, base = path:match("^(.*)[/\\]([^/\\]+)$")
  if not dir then
    return nil
  end
  if dir == "" then
    dir = "/"
  end
  return dir, base
end

local check

local function on_dir_event(dir, name)
  local d = S.dirs[dir]
  if not d then
    return
  end
  for buf, b in pairs(S.bufs) do
    if b.dir == dir and (name == nil or name == b.base) then
      -- Several events of one write become one check, SETTLE_MS after the
      -- last of them.
      if not b.timer then
        b.timer = uv.new_timer()
      end
      b.timer:stop()
      b.timer:start(SETTLE_MS, 0, vim.schedule_wrap(function()
        check(buf)
      end))
    end
  end
end

local function close_handle(h)
  if h and not h:is_closing() then
    h:close()
  end
end

local function watch_dir(dir)
  local d = S.dirs[dir]
  if d then
    return d
  end
  d = { files = {} }
  local h = uv.new_fs_event()
  local ok = h and h:start(dir, {}, function(err, name)
    -- On some systems name is nil: then every buffer of the directory is checked.
    if not err then
      on_dir_event(dir, name)
    end
  end)
  if ok == 0 then
    d.handle, d.kind = h, "event"
  else
    close_handle(h)
    d.kind = "poll"
  end
  S.dirs[dir] = d
  return d
end

local function unwatch_dir(dir)
  local d = S.dirs[dir]
  if d and next(d.files) == nil then
    close_handle(d.handle)
    S.dirs[dir] = nil
  end
end

local function disarm(buf)
  local b = S.bufs[buf]
  if not b then
    return
  end
  S.bufs[buf] = nil
  close_handle(b.timer)
  close_handle(b.poll)
  local d = S.dirs[b.dir]
  if d then
    local still = false
    for _, o in pairs(S.bufs) do
      if o.dir == b.dir and o.base == b.base then
        still = true
      end
    end
    if not still then
      d.files[b.base] = nil
    end
    unwatch_dir(b.dir)
  end
end

--- Watches buf's file (again), taking its current state on disk as the one
--- the buffer shows. Called when a buffer is read, written or renamed.
local function arm(buf)
  local path = file_of(buf)
  local dir, base = split_path(path or "")
  if not dir then
    disarm(buf)
    return
  end
  local b = S.bufs[buf]
  if b and b.path ~= path then
    disarm(buf)
    b = nil
  end
  if not b then
    b = { path = path, dir = dir, base = base }
    S.bufs[buf] = b
    local d = watch_dir(dir)
    d.files[base] = true
    if d.kind == "poll" then
      b.poll = uv.new_fs_poll()
      b.poll:start(path, POLL_MS, function()
        on_dir_event(dir, base)
      end)
    end
  end
  b.stat = stat_key(path)
  b.warned = nil
end

-- Saves the view of every window showing buf, runs f, restores the views.
local function keeping_views(buf, f)
  local views = {}
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == buf then
      views[win] = vim.api.nvim_win_call(win, vim.fn.winsaveview)
    end
  end
  f()
  for win, view in pairs(views) do
    if vim.api.nvim_win_is_valid(win) and vim.api.nvim_win_get_buf(win) == buf then
      vim.api.nvim_win_call(win, function()
        vim.fn.winrestview(view)
      end)
    end
  end
end

local function reload(buf)
  local ok, err = true, nil
  keeping_views(buf, function()
    ok, err = pcall(vim.api.nvim_buf_call, buf, function()
      -- :edit! reads the file as Neovim reads it ('fileformat', encodings,
      -- autocommands, undo per 'undoreload').
      vim.cmd("silent keepjumps keepalt edit!")
    end)
  end)
  return ok, err
end

--- Looks at buf's file and brings the buffer up to date (see the header).
function check(buf, recheck)
  local b = S.bufs[buf]
  if not b then
    return
  end
  if file_of(buf) ~= b.path then
    arm(buf)
    return
  end
  local now = stat_key(b.path)
  if now == b.stat then
    return
  end
  local name = vim.fn.fnamemodify(b.path, ":~:.")
  if now == false then
    if not recheck then
      -- Maybe a delete-then-create writer: look again before telling.
      vim.defer_fn(function()
        check(buf, true)
      end, GONE_MS)
      return
    end
    if b.warned ~= "gone" then
      b.warned = "gone"
      notify(("%s was deleted on disk; its buffer keeps the text (:w writes it again)"):format(name))
    end
    return
  end
  if vim.bo[buf].modified then
    if b.warned ~= now then
      b.warned = now
      notify(("%s changed on disk, but its buffer has unsaved changes: they are kept (:e! loads the file from disk, :w overwrites it)"):format(name))
    end
    return
  end
  local ok, err = reload(buf)
  if not ok then
    notify(("could not reload %s: %s"):format(name, tostring(err)))
  end
  -- BufReadPost re-armed it; make sure of it when autocommands were off.
  if S.bufs[buf] then
    S.bufs[buf].stat = stat_key(b.path)
    S.bufs[buf].warned = nil
  end
end

--- Starts following the disk for all loaded file buffers and those loaded
--- later. Idempotent.
function M.start()
  if S.enabled then
    return
  end
  S.enabled = true
  S.augroup = vim.api.nvim_create_augroup("ClaudeIdeBridgeWatch", { clear = true })
  local augroup = S.augroup
  vim.api.nvim_create_autocmd({ "BufReadPost", "BufWritePost", "BufFilePost", "BufNewFile", "FileChangedShellPost" }, {
    group = augroup,
    callback = function(ev)
      arm(ev.buf)
    end,
  })
  vim.api.nvim_create_autocmd({ "BufUnload", "BufDelete", "BufWipeout" }, {
    group = augroup,
    callback = function(ev)
      disarm(ev.buf)
    end,
  })
  -- 'buftype' may be set after the buffer is read (scratch buffers).
  vim.api.nvim_create_autocmd("OptionSet", {
    group = augroup,
    pattern = "buftype",
    callback = function()
      arm(vim.api.nvim_get_current_buf())
    end,
  })
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    arm(buf)
  end
end

--- Stops watching; closes every handle.
function M.stop()
  if not S.enabled then
    return
  end
  S.enabled = false
  pcall(vim.api.nvim_del_augroup_by_id, S.augroup)
  S.augroup = nil
  for buf in pairs(S.bufs) do
    disarm(buf)
  end
  for dir, d in pairs(S.dirs) do
    close_handle(d.handle)
    S.dirs[dir] = nil
  end
end

--- What is watched, for tests and :checkhealth: { dirs = {dir = kind}, files = {path, ...} }.
function M.state()
  local dirs, files = vim.empty_dict(), {}
  for dir, d in pairs(S.dirs) do
    dirs[dir] = d.kind
  end
  for _, b in pairs(S.bufs) do
    files[#files + 1] = b.path
  end
  table.sort(files)
  return { enabled = S.enabled, dirs = dirs, files = files }
end

return M
