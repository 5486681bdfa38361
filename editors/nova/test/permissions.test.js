// Claude's permission questions in Nova (issue 37): a notification with actions, its text
// escaped; each action sends its decision; a withdrawn question's notification is cancelled
// and nothing is sent for it. Run against the stand-in of Nova's API (test/support/nova.js:
// Nova itself cannot run here) with the real bridge binary and its real PermissionRequest hook.
"use strict";

const test = require("node:test");
const assert = require("node:assert");
const { spawn } = require("node:child_process");
const { setup, readLock, waitFor, bridgeBinary } = require("./support/harness.js");

/** hook runs the bridge's hook as the CLI does; resolves with what it prints. */
async function hook(env, input) {
  const { port } = await readLock(env.configDir);
  const p = spawn(bridgeBinary(), ["hook", "--port", String(port)], { env: { CLAUDE_CONFIG_DIR: env.configDir, HOME: env.root } });
  let out = "";
  p.stdout.on("data", (d) => (out += d));
  p.stdin.end(JSON.stringify(input));
  return new Promise((resolve) => p.on("close", () => resolve(out)));
}

const bash = (session, command) => ({
  hook_event_name: "PermissionRequest", session_id: session, tool_name: "Bash",
  tool_input: { command }, permission_suggestions: [{ type: "addRules" }],
});
const sessionEnd = (session) => ({ hook_event_name: "SessionEnd", session_id: session });

/** question waits for the nth permission notification. */
function question(env, n) {
  return waitFor(() => env.standin.notifications.filter((x) => /^Claude asks to use/.test(x.title))[n], `permission notification ${n}`);
}

test("a permission question is a notification, escaped; each action sends its decision", async (t) => {
  const env = await setup(t);
  let out = hook(env, bash("session-abcdef", "touch x\x1b[2J; echo\u202e\nrm -rf ~"));
  let note = await question(env, 0);
  assert.strictEqual(note.title, "Claude asks to use Bash");
  assert.ok(note.body.startsWith("command: touch x\\u001b[2J; echo\\u202e\\u000arm -rf ~\n"), note.body);
  assert.match(note.body, /Session session-\./);
  assert.doesNotMatch(note.body, /[\u001b\u202e]/);
  assert.deepStrictEqual(note.actions, ["Allow", "Always Allow", "Deny", "Deny with Reason…"]);
  env.standin.user.click(note, "Allow");
  let got = await out;
  assert.match(got, /"behavior":"allow"/);
  assert.doesNotMatch(got, /updatedPermissions/);

  out = hook(env, bash("s2", "make"));
  note = await question(env, 1);
  env.standin.user.click(note, "Always Allow");
  got = await out;
  assert.match(got, /"behavior":"allow"/);
  assert.match(got, /"updatedPermissions":\[\{"type":"addRules"\}\]/);

  out = hook(env, bash("s3", "make"));
  note = await question(env, 2);
  env.standin.user.click(note, "Deny");
  assert.match(await out, /"behavior":"deny"/);

  out = hook(env, bash("s4", "make"));
  note = await question(env, 3);
  env.standin.user.click(note, "Deny with Reason…");
  await waitFor(() => env.standin.inputs.length === 1, "the reason's input panel");
  env.standin.user.input("use make test");
  got = await out;
  assert.match(got, /"behavior":"deny"/);
  assert.match(got, /"message":"use make test"/);

  // Nearly 1 MiB of input (the hook takes at most 1 MiB): the body is cut.
  out = hook(env, bash("s5", "x".repeat((1 << 20) - 4096)));
  note = await question(env, 4);
  assert.ok(note.body.length < 5000, `body of ${note.body.length} characters`);
  env.standin.user.click(note, "Deny");
  await out;
});

test("a withdrawn question's notification is cancelled; a reason typed after it sends nothing", async (t) => {
  const env = await setup(t);
  let out = hook(env, bash("s1", "ls"));
  let note = await question(env, 0);
  await hook(env, sessionEnd("s1"));
  await waitFor(() => note.cancelled, "the notification to be cancelled");
  assert.strictEqual(await out, "");

  out = hook(env, bash("s2", "rm -rf build"));
  note = await question(env, 1);
  env.standin.user.click(note, "Deny with Reason…");
  await waitFor(() => env.standin.inputs.length === 1, "the reason's input panel");
  await hook(env, sessionEnd("s2"));
  assert.strictEqual(await out, "");
  env.standin.user.input("too late");
  await waitFor(() => env.standin.notifications.some((n) => n.title === "Claude's question was withdrawn"), "the user told");
  assert.strictEqual(env.standin.wire.filter((w) => w.msg.method === "permissionDecided").length, 0);
});

test("the permissions setting off: the capability is not declared, no notification", async (t) => {
  const env = await setup(t, { config: { "claude-ide-bridge.permissions": false } });
  assert.strictEqual(await hook(env, bash("s", "ls")), "");
  await readLock(env.configDir);
  const init = env.standin.wire.find((w) => w.msg.method === "initialize");
  assert.strictEqual(init.msg.params.capabilities.askPermission, false);
  assert.ok(!env.standin.notifications.some((n) => /^Claude asks/.test(n.title)));
});

test("the capability is the settings' shape: true, or the tool names", async (t) => {
  const env = await setup(t);
  await readLock(env.configDir);
  const init = env.standin.wire.find((w) => w.msg.method === "initialize");
  assert.strictEqual(init.msg.params.capabilities.askPermission, true);
  const { capability } = require("../ClaudeIDEBridge.novaextension/Scripts/permissions.js");
  env.standin.nova.config.set("claude-ide-bridge.permissionTools", ["Bash", " mcp__*", ""]);
  assert.deepStrictEqual(capability(), ["Bash", "mcp__*"]);
  env.standin.nova.config.set("claude-ide-bridge.permissions", false);
  assert.strictEqual(capability(), false);
});
