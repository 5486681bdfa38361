// getDiagnostics for Nova, answered by a language server the bridge runs itself
// (the "Language servers for diagnostics" setting → serve --stdio --lsp): Nova's
// API cannot read the issues other extensions report. Nova cannot run here; the
// stand-in plays it, the bridge and gopls are real.
"use strict";

const test = require("node:test");
const assert = require("node:assert");
const { execFileSync } = require("node:child_process");
const { setup, readLock } = require("./support/harness.js");
const { ClaudeClient } = require("./support/claude.js");

/** gopls is $GOPLS or gopls on PATH; null when neither (CI installs it: scripts/test). */
function findGopls() {
  if (process.env.GOPLS) return process.env.GOPLS;
  try {
    return execFileSync("sh", ["-c", "command -v gopls"], { encoding: "utf8" }).trim() || null;
  } catch {
    return null;
  }
}

const gopls = findGopls();
if (!gopls && process.env.CI) throw new Error("gopls not found ($GOPLS unset, not on PATH): scripts/test installs it");

// The harness gives the bridge a private HOME: keep the go command's caches (gopls
// runs go list) where they are, and offline.
if (gopls) {
  const [cache, modcache, gopath] = execFileSync("go", ["env", "GOCACHE", "GOMODCACHE", "GOPATH"], { encoding: "utf8" }).trim().split("\n");
  Object.assign(process.env, { GOCACHE: cache, GOMODCACHE: modcache, GOPATH: gopath, GOTOOLCHAIN: "local", GOPROXY: "off" });
}

const src = 'package main\n\nfunc main() {\n\t_ = "😀"; var s string = 1\n\t_ = s\n}\n';

test("getDiagnostics answers gopls's error in UTF-16 columns when a language server is set", { skip: !gopls && "gopls not found" }, async (t) => {
  const env = await setup(t, {
    files: { "go.mod": "module example.com/m\n\ngo 1.22\n", "main.go": src },
    config: { "claude-ide-bridge.languageServers": [".go=" + gopls] },
    trusted: true, // the bridge starts language servers in a trusted folder only
  });
  const { port, lock } = await readLock(env.configDir);
  const claude = await ClaudeClient.connect(port, lock.authToken);
  env.clients.push(claude);
  const uri = "file://" + env.file("main.go");
  const res = await claude.callTool("getDiagnostics", { uri });
  assert.ok(!res.isError, JSON.stringify(res));
  const files = JSON.parse(res.content[0].text);
  assert.strictEqual(files.length, 1);
  assert.strictEqual(files[0].uri, uri, "the uri exactly as asked");
  assert.strictEqual(files[0].diagnostics.length, 1, res.content[0].text);
  const d = files[0].diagnostics[0];
  // Nova counts UTF-16 units: 😀 is two of them (four bytes).
  const line = src.split("\n")[3];
  const col = line.indexOf("= 1") + 2;
  assert.deepStrictEqual([d.severity, d.range.start.line, d.range.start.character, d.range.end.character], ["Error", 3, col, col + 1]);
  assert.match(d.message, /cannot use 1/);
});

test("a workspace's list replaces the global one; none turns diagnostics off", async (t) => {
  const env = await setup(t, {
    files: { "a.go": "package a\n" },
    config: { "claude-ide-bridge.languageServers": [".go=/nonexistent/gopls"] },
    workspaceConfig: { "claude-ide-bridge.workspaceLanguageServers": ["none"] },
    trusted: true, // a project's list is read only in a trusted folder
  });
  const { port, lock } = await readLock(env.configDir);
  const claude = await ClaudeClient.connect(port, lock.authToken);
  env.clients.push(claude);
  const res = await claude.callTool("getDiagnostics", {});
  assert.strictEqual(res.isError, true);
  assert.match(res.content[0].text, /getDiagnostics.*Nova/);
});
