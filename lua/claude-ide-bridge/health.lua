-- :checkhealth claude-ide-bridge
local M = {}

-- vim.health (0.8+, renamed functions in 0.10) or the 0.7 health module.
local function reporter()
  local h = vim.health or require("health")
  return {
    start = h.start or h.report_start,
    ok = h.ok or h.report_ok,
    warn = h.warn or h.report_warn,
    error = h.error or h.report_error,
    info = h.info or h.report_info,
  }
end

function M.check()
  local r = reporter()
  local bridge = require("claude-ide-bridge.bridge")
  r.start("claude-ide-bridge")
  if vim.fn.has("nvim-0.7") == 1 then
    r.ok("Neovim " .. tostring(vim.version().major) .. "." .. tostring(vim.version().minor) .. "." .. tostring(vim.version().patch))
  else
    r.error("Neovim 0.7 or newer is needed")
  end
  local problems = require("claude-ide-bridge.state").option_problems
  if #problems > 0 then
    r.error("setup() ignored these options (their defaults apply):\n" .. table.concat(problems, "\n"),
      { ":help claude-ide-bridge-options" })
  end
  local install = require("claude-ide-bridge.install")
  local remote = require("claude-ide-bridge.config").options.remote
  local bin = bridge.bin()
  if require("claude-ide-bridge.remote").enabled() then
    -- The bridge and claude run on the other side: check the command here,
    -- and `claude-ide-bridge doctor` there.
    local exe = remote.cmd[1]
    if vim.fn.executable(exe) == 1 then
      r.ok("remote mode: the bridge runs through " .. table.concat(remote.cmd, " "))
    else
      r.error(exe .. " (remote.cmd) not found on PATH")
    end
    r.info("if Claude does not see Neovim, run `claude-ide-bridge doctor` on the remote side, in the REMOTE folder")
  elseif not bin then
    r.error("claude-ide-bridge binary not found", {
      "Run :ClaudeCodeInstall (downloads the release, or builds it when Go is installed)",
      "Or set `bin` in setup(), or put claude-ide-bridge on PATH",
    })
  elseif vim.fn.executable(bin) == 0 then
    r.error(bin .. " is not executable")
  else
    r.ok("bridge binary: " .. bin)
    local want = install.version()
    local got = install.bin_version(bin)
    if not got then
      r.warn("`" .. bin .. " version` failed", { "Run :ClaudeCodeInstall" })
    elseif got ~= want then
      r.warn(("bridge version %s, the plugin is %s"):format(got, want), { "Run :ClaudeCodeInstall, or update the binary on PATH" })
    else
      r.ok("bridge version " .. got)
    end
  end
  local st = require("claude-ide-bridge.status").state()
  if st.ready then
    r.ok(("bridge running on port %s (lock %s), %d client(s) connected"):format(tostring(st.port), tostring(st.lockPath), st.clients or 0))
    if st.attached then
      r.info("attached: this Neovim joined a bridge that outlived an earlier Neovim (:ClaudeCodeStop ends it)")
    else
      r.info("started: this Neovim started the bridge; it outlives Neovim while a Claude outside Neovim is connected")
    end
  elseif st.running then
    r.warn("bridge is starting")
  else
    local msg = "bridge is not running (:ClaudeCodeStart)"
    if st.exit_code then
      msg = msg .. ("; it last exited with status %d"):format(st.exit_code)
    end
    r.info(msg)
    for _, l in ipairs(st.stderr or {}) do
      r.info("bridge: " .. l)
    end
  end
  if st.ready then
    -- Facts: in auto, acceptEdits, dontAsk and bypassPermissions the CLI
    -- writes Edit/Write itself and never opens a diff.
    local c, why = require("claude-ide-bridge.claude").claude_command(2000)
    if not c then
      r.warn("claude's command line: " .. tostring(why), { "Install Claude Code, or set terminal_cmd" })
    elseif c.notice then
      r.warn(c.notice, {
        "Remove permissions.defaultMode from that settings file, or set permission_mode = \"default\" in setup()",
      })
    else
      r.ok(("permission mode %s (%s): each Edit/Write is shown as a diff"):format(tostring(c.permissionMode), tostring(c.why)))
    end
    -- A Claude started some other way (/ide from a shell) in a mode without diffs.
    for _, msg in pairs(require("claude-ide-bridge.state").claude.skipped) do
      r.warn(msg, { "Start Claude with :ClaudeCode, or with --permission-mode default" })
    end
    if c then
      r.ok("terminal command: " .. c.argv[1]) -- found by the bridge, outside the workspace
    end
    return
  end
  local cmd = require("claude-ide-bridge.config").options.terminal_cmd
  if require("claude-ide-bridge.remote").enabled() then
    return -- claude runs on the remote side
  end
  local exe = type(cmd) == "table" and cmd[1] or vim.split(cmd, " ", { plain = true })[1]
  if vim.fn.executable(exe) == 1 then
    r.ok("terminal command: " .. exe)
  else
    r.warn(exe .. " not found on PATH: :ClaudeCode will fail", { "Install Claude Code, or set terminal_cmd" })
  end
end

return M
