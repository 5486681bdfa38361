-- bench/nvimpeer/bench.lua: loaded into the measured Neovim (`--cmd luafile`) by
-- bench/nvimpeer. It is the Neovim side of the side-by-side benchmark: it starts
-- the plugin under test (BENCH_TARGET=ours|peer), records the longest main-loop
-- gap with a 1 ms Vim timer (timers run only when the main loop is free, so a
-- gap is a stall), notes the wall time when a diff (two 'diff' windows, and the
-- loop back after them) becomes visible, and moves the cursor / writes the proposal on request. The driver
-- calls the Bench* globals with `nvim --server SOCK --remote-expr`; every
-- result is a JSON string. Times are gettimeofday() microseconds so the driver
-- (same machine, same clock) can subtract its own.
local api, uv = vim.api, vim.loop

local B = { max_gap_us = 0, armed = false, diff_at = 0, t_write = 0, moved = {} }
local last = uv.hrtime()

local function now_us()
  local s, us = uv.gettimeofday()
  return s * 1000000 + us
end

local function diff_wins()
  local n = 0
  for _, w in ipairs(api.nvim_list_wins()) do
    if vim.wo[w].diff then
      n = n + 1
    end
  end
  return n
end

vim.fn.timer_start(1, function()
  local t = uv.hrtime()
  local gap = (t - last) / 1000
  last = t
  if B.armed then
    if gap > B.max_gap_us then
      B.max_gap_us = gap
    end
    -- Visible = the first tick after the one that saw the two 'diff' windows: Neovim
    -- computes the diff lazily (on redraw), and that work belongs to showing it.
    if B.diff_at == 0 then
      if B.seen then
        B.diff_at = now_us()
      elseif diff_wins() >= 2 then
        B.seen = true
      end
    end
  end
end, { ["repeat"] = -1 })

function BenchSetup()
  if os.getenv("BENCH_TARGET") == "peer" then
    require("claudecode").setup({ terminal = { provider = "none" }, log_level = "warn" })
    if not (require("claudecode").state or {}).server then
      vim.cmd("ClaudeCodeStart")
    end
  else
    require("claude-ide-bridge").setup({ bin = os.getenv("BENCH_BRIDGE_BIN") })
  end
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("BENCH_SEL_FILE")))
  return "ok"
end

-- BenchArm starts a stall / diff-visible window.
function BenchArm()
  B.armed, B.max_gap_us, B.diff_at, B.seen, last = true, 0, 0, false, uv.hrtime()
  return "ok"
end

function BenchState()
  return vim.fn.json_encode({
    max_gap_us = B.max_gap_us,
    diff_at = B.diff_at,
    t_write = B.t_write,
    diff_wins = diff_wins(),
  })
end

-- BenchAccept runs :w in the proposal: the 'diff' window whose buffer has a
-- BufWriteCmd (both plugins take :w there), from the main loop, not from the
-- RPC request.
function BenchAccept()
  for _, w in ipairs(api.nvim_list_wins()) do
    local b = api.nvim_win_get_buf(w)
    if vim.wo[w].diff and #api.nvim_get_autocmds({ event = "BufWriteCmd", buffer = b }) > 0 then
      vim.schedule(function()
        api.nvim_set_current_win(w)
        B.t_write = now_us()
        vim.cmd("write")
      end)
      return "ok"
    end
  end
  return "no proposal window"
end

-- BenchMove puts the cursor on line (1-based) of the selection file's window.
function BenchMove(line)
  vim.schedule(function()
    local sel = vim.fn.bufwinid(os.getenv("BENCH_SEL_FILE"))
    if sel ~= -1 then
      api.nvim_set_current_win(sel)
    end
    api.nvim_win_set_cursor(0, { line, 0 })
    B.moved[line] = now_us()
  end)
  return "ok"
end

function BenchMoved(line)
  return vim.fn.json_encode(B.moved[line] or 0)
end

-- BenchWiggle moves the cursor every `every` ms, count times (the CPU row).
function BenchWiggle(every, count)
  local sel = vim.fn.bufwinid(os.getenv("BENCH_SEL_FILE"))
  if sel ~= -1 then
    api.nvim_set_current_win(sel)
  else
    vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("BENCH_SEL_FILE")))
  end
  local line = 1
  vim.fn.timer_start(every, function()
    line = line % 150 + 1
    pcall(api.nvim_win_set_cursor, 0, { line, 0 })
  end, { ["repeat"] = count })
  return "ok"
end
