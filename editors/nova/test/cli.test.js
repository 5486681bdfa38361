// End to end with the real Claude Code CLI (2.1.328) in a pty, driven by the
// repository's fake Messages API: the model reads hello.txt and edits it; the
// edit arrives in Nova as a proposal, the user changes and saves it, and the
// CLI writes the user's text. Needs the CLI: CLAUDE_BIN (scripts/test sets it)
// or the cache at /tmp/clicache; skipped without one.
"use strict";

const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { spawn, execFileSync } = require("node:child_process");
const { setup, readLock, waitFor, repoRoot } = require("./support/harness.js");

const CLI =
  [process.env.CLAUDE_BIN, "/tmp/clicache/node_modules/@anthropic-ai/claude-code-linux-x64/claude"].find(
    (p) => p && fs.existsSync(p)
  ) || null;
const FAKE_KEY = "sk-ant-api03-fake-key-for-tests-0123456789abcdef";

/** fakeModel builds and runs test/e2e/fakeapi/cmd/fakemodel; resolves with its URL. */
async function fakeModel(t, file) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nova-fakemodel-"));
  const bin = path.join(dir, "fakemodel");
  execFileSync("go", ["build", "-o", bin, "./test/e2e/fakeapi/cmd/fakemodel"], { cwd: repoRoot, stdio: "inherit", timeout: 300000 });
  const proc = spawn(bin, ["-file", file, "-old", "hello", "-new", "goodbye"], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise((r) => proc.once("exit", r));
  t.after(async () => {
    proc.kill("SIGINT");
    if ((await within(exited, 5000)) === "late") proc.kill("SIGKILL");
    await within(exited, 5000);
    fs.rmSync(dir, { recursive: true, force: true });
  });
  let out = "";
  proc.stdout.on("data", (d) => (out += d));
  return waitFor(() => (out.includes("\n") ? out.split("\n")[0].trim() : null), "the fake API's URL", 10000);
}

/** childrenOf lists pid's child processes (Linux /proc). */
function childrenOf(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function signal(pid, sig) {
  try {
    process.kill(pid, sig);
  } catch {}
}

/** within resolves with promise's value, or "late" after ms. */
function within(promise, ms) {
  let timer;
  const late = new Promise((r) => (timer = setTimeout(() => r("late"), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** startCLI runs claude in a pty (util-linux script) with env; output is kept for failures. */
function startCLI(t, project, configDir, env) {
  fs.writeFileSync(
    path.join(configDir, ".claude.json"),
    JSON.stringify({
      hasCompletedOnboarding: true,
      customApiKeyResponses: { approved: [FAKE_KEY.slice(-20)], rejected: [] },
      projects: { [project]: { hasTrustDialogAccepted: true } },
    })
  );
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "nova-cli-home-"));
  const cmd = `stty cols 160 rows 50; exec '${CLI}' --permission-mode default`;
  const proc = spawn("script", ["-qfec", cmd, "/dev/null"], {
    cwd: project,
    stdio: ["pipe", "pipe", "pipe"],
    env: Object.assign(
      {
        HOME: home,
        PATH: process.env.PATH,
        TERM: "xterm-256color",
        LANG: "C.UTF-8",
        CLAUDE_CONFIG_DIR: configDir,
        ANTHROPIC_API_KEY: FAKE_KEY,
        DISABLE_AUTOUPDATER: "1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_TELEMETRY: "1",
        DISABLE_ERROR_REPORTING: "1",
        CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: "1",
      },
      env
    ),
  });
  let screen = "";
  proc.stdout.on("data", (d) => (screen += d));
  proc.stderr.on("data", (d) => (screen += d));
  const exited = new Promise((r) => proc.once("exit", r));
  t.after(async () => {
    // script gives claude a session of its own: end claude first, and script,
    // which waits for it, follows and is reaped here.
    const kids = childrenOf(proc.pid);
    for (const sig of ["SIGTERM", "SIGKILL"]) {
      for (const pid of kids) signal(pid, sig);
      if (sig === "SIGKILL") signal(proc.pid, sig);
      if ((await within(exited, 5000)) !== "late") break;
    }
    fs.rmSync(home, { recursive: true, force: true });
  });
  return {
    proc,
    text: () => screen.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, ""),
    type: async (s) => {
      proc.stdin.write(s);
      // Not an assertion: the TUI treats text and Enter in one burst as a paste.
      await new Promise((r) => setTimeout(r, 300));
      proc.stdin.write("\r");
    },
  };
}

test("the real CLI edits through a Nova proposal: the user's saved text is what Claude writes", { skip: !CLI && "no Claude Code CLI (set CLAUDE_BIN)", timeout: 180000 }, async (t) => {
  const trace = path.join(os.tmpdir(), `nova-cli-trace-${process.pid}.jsonl`);
  t.after(() => fs.rmSync(trace, { force: true }));
  const env = await setup(t, { files: { "hello.txt": "hello world\n" }, config: { "claude-ide-bridge.traceFile": trace } });
  const target = env.file("hello.txt");
  const url = await fakeModel(t, target);
  await readLock(env.configDir);

  // The user's way in: Copy Terminal Command, pasted into a shell.
  await env.standin.run("claude-ide-bridge.copyTerminalCommand");
  const cliEnv = {};
  for (const m of env.standin.clipboard.matchAll(/(\w+)=('[^']*'|\S+)/g)) cliEnv[m[1]] = m[2].replace(/^'|'$/g, "");
  assert.ok(cliEnv.CLAUDE_CODE_SSE_PORT);
  cliEnv.ANTHROPIC_BASE_URL = url;

  const cli = startCLI(t, env.workspace, env.configDir, cliEnv);
  const connected = () => env.standin.wire.some((w) => w.msg.method === "clientConnected");
  // facts: "expect up to ~20 s before it connects to the IDE".
  await waitFor(connected, "the CLI to connect to the bridge", 90000).catch((err) => {
    throw new Error(`${err.message}\n--- screen ---\n${cli.text().slice(-3000)}`);
  });

  await cli.type("change hello to goodbye in hello.txt");
  const proposal = await waitFor(
    () => env.standin.nova.workspace.textEditors.find((e) => e.document.path.includes(`${path.sep}proposals${path.sep}`)),
    "the proposal to open in Nova",
    90000
  ).catch((err) => {
    throw new Error(`${err.message}\n--- screen ---\n${cli.text().slice(-3000)}`);
  });
  assert.strictEqual(proposal.document.text, "goodbye world\n");

  const edited = "goodbye, Nova 日本 🎉\n";
  await env.standin.user.type(proposal, edited);
  await env.standin.user.save(proposal);

  // facts: on FILE_SAVED with contents "The CLI writes the file itself".
  await waitFor(() => fs.readFileSync(target, "utf8") === edited, "the CLI to write the user's text", 60000).catch((err) => {
    throw new Error(`${err.message}: hello.txt is ${JSON.stringify(fs.readFileSync(target, "utf8"))}\n--- screen ---\n${cli.text().slice(-3000)}`);
  });

  // Design note's open question, "What does it do with tools that answer
  // unsupported?": the CLI asked for diagnostics on its own (facts: before and
  // after each edit), got a tool error naming Nova, and the edit went ahead.
  const frames = fs.readFileSync(trace, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const text = JSON.stringify(frames);
  assert.match(text, /getDiagnostics/);
  assert.match(text, /getDiagnostics is not supported by Nova/);
  // After the result the CLI closes the tab: the staged proposal goes, the tab stays.
  await waitFor(() => !fs.existsSync(proposal.document.path), "the staged proposal to be removed", 30000);
  assert.ok(env.standin.nova.workspace.textEditors.includes(proposal));
});
