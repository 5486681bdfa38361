// A Claude-side WebSocket client that connects as Claude Code 2.1.328 does
// (claude-cli-facts.md, "Connection" and "Handshake").

"use strict";

const WebSocket = require("ws");

class ClaudeClient {
  constructor(ws) {
    this.ws = ws;
    this.nextId = 1;
    this.pending = new Map();
    this.notifications = [];
    this.waiters = [];
    this.closed = new Promise((resolve) => ws.on("close", (code) => resolve(code)));
    ws.on("message", (data) => this.receive(JSON.parse(data.toString("utf8"))));
  }

  /** connect opens ws://127.0.0.1:port/ with the lock's token and completes the handshake. */
  static async connect(port, token, timeoutMs = 5000) {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/`, "mcp", {
      headers: { "X-Claude-Code-Ide-Authorization": token, "User-Agent": "claude-code/2.1.328 (cli)" },
      handshakeTimeout: timeoutMs,
    });
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    const c = new ClaudeClient(ws);
    const init = await c.request("initialize", {
      protocolVersion: "2025-11-25",
      clientInfo: { name: "claude-code", title: "Claude Code", version: "2.1.328" },
      capabilities: { roots: {}, elicitation: {} },
    });
    c.serverInfo = init;
    c.send({ method: "notifications/initialized" });
    c.send({ method: "ide_connected", params: { pid: process.pid } });
    c.tools = (await c.request("tools/list", {})).tools;
    return c;
  }

  send(msg) {
    this.ws.send(JSON.stringify(Object.assign({ jsonrpc: "2.0" }, msg)));
  }

  receive(msg) {
    if (msg.id !== undefined && msg.method === undefined) {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.error) p.reject(Object.assign(new Error(msg.error.message), { code: msg.error.code }));
      else p.resolve(msg.result);
      return;
    }
    if (msg.id !== undefined) {
      // Claude answers requests it does not know with -32601.
      this.send({ id: msg.id, error: { code: -32601, message: "Method not found" } });
      return;
    }
    this.notifications.push(msg);
    for (const w of this.waiters.slice()) w();
  }

  request(method, params, timeoutMs = 10000) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method}: no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (v) => (clearTimeout(timer), resolve(v)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      this.send({ id, method, params });
    });
  }

  /** callTool calls an IDE tool with a progress token, as the CLI does. */
  callTool(name, args, timeoutMs) {
    return this.request("tools/call", { name, arguments: args || {}, _meta: { progressToken: this.nextId } }, timeoutMs);
  }

  /** notification waits for the first notification of method matching pred (seen or future). */
  notification(method, pred = () => true, timeoutMs = 5000) {
    const find = () => this.notifications.find((n) => n.method === method && pred(n.params));
    const seen = find();
    if (seen) return Promise.resolve(seen.params);
    return new Promise((resolve, reject) => {
      const w = () => {
        const n = find();
        if (!n) return;
        clear();
        resolve(n.params);
      };
      const timer = setTimeout(() => {
        clear();
        const got = this.notifications.filter((n) => n.method === method).map((n) => JSON.stringify(n.params));
        reject(new Error(`no matching ${method} notification within ${timeoutMs} ms; got ${got.join(", ") || "none"}`));
      }, timeoutMs);
      const clear = () => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((x) => x !== w);
      };
      this.waiters.push(w);
    });
  }

  close() {
    this.ws.close();
  }
}

module.exports = { ClaudeClient };
