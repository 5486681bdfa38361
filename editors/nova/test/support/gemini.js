// The Gemini CLI's side of the bridge's companion (docs/gemini.md, internal/companion), as
// 0.61.0 speaks it (other-clis-facts.md section 1): MCP over streamable HTTP at /mcp with the
// discovery file's Bearer token; the ide/* notifications read off its GET stream.

"use strict";

const fs = require("node:fs");
const path = require("node:path");
const { waitFor } = require("./harness.js");

/** messages parses the JSON-RPC messages of a text/event-stream body. */
function messages(text) {
  const out = [];
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).trimStart())
      .join("\n");
    if (data) out.push(JSON.parse(data));
  }
  return out;
}

class GeminiClient {
  /** connect finds the one Gemini discovery file under tmp (the bridge's $TMPDIR) and opens a session. */
  static async connect(tmp) {
    const dir = path.join(tmp, "gemini", "ide");
    const file = await waitFor(() => {
      const names = fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => /^gemini-ide-server-\d+-\d+\.json$/.test(n)) : [];
      return names.length === 1 ? path.join(dir, names[0]) : null;
    }, "one Gemini discovery file", 15000);
    const d = JSON.parse(fs.readFileSync(file, "utf8"));
    const c = new GeminiClient(`http://127.0.0.1:${d.port}/mcp`, d.authToken);
    c.port = d.port;
    await c.request("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "streamable-http-client", version: "0.61.0" } });
    await c.post({ method: "notifications/initialized" });
    await c.listen();
    return c;
  }

  constructor(url, token) {
    this.url = url;
    this.token = token;
    this.session = null;
    this.nextId = 1;
    this.notes = [];
    this.abort = new AbortController();
  }

  headers(accept) {
    const h = { Authorization: `Bearer ${this.token}`, "Content-Type": "application/json", Accept: accept };
    if (this.session) Object.assign(h, { "Mcp-Session-Id": this.session, "Mcp-Protocol-Version": "2025-06-18" });
    return h;
  }

  async post(msg) {
    const res = await fetch(this.url, {
      method: "POST",
      headers: this.headers("application/json, text/event-stream"),
      body: JSON.stringify(Object.assign({ jsonrpc: "2.0" }, msg)),
      signal: this.abort.signal,
    });
    if (!res.ok) throw new Error(`POST ${msg.method}: ${res.status} ${await res.text()}`);
    this.session = res.headers.get("mcp-session-id") || this.session;
    return res;
  }

  async request(method, params) {
    const id = this.nextId++;
    const res = await this.post({ id, method, params });
    const body = await res.text();
    const got = (res.headers.get("content-type") || "").startsWith("text/event-stream") ? messages(body) : [JSON.parse(body)];
    const answer = got.find((m) => m.id === id);
    if (!answer) throw new Error(`${method}: no answer in ${body}`);
    if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
    return answer.result;
  }

  /** tool calls the companion's tool name. */
  tool(name, args) {
    return this.request("tools/call", { name, arguments: args });
  }

  /** listen opens the GET stream that carries the companion's notifications; resolves once it is open. */
  async listen() {
    const res = await fetch(this.url, { method: "GET", headers: this.headers("text/event-stream"), signal: this.abort.signal });
    if (!res.ok || !res.body) throw new Error(`GET: ${res.status}`);
    (async () => {
      const decoder = new TextDecoder();
      let buf = "";
      for await (const chunk of res.body) {
        buf += decoder.decode(chunk, { stream: true });
        const end = buf.lastIndexOf("\n\n");
        if (end < 0) continue;
        for (const m of messages(buf.slice(0, end))) this.notes.push(m);
        buf = buf.slice(end + 2);
      }
    })().catch(() => {});
  }

  /** notification waits for the first notification named method (seen or future); resolves with its params. */
  notification(method, timeoutMs = 10000) {
    return waitFor(() => {
      const n = this.notes.find((m) => m.method === method);
      return n && n.params;
    }, `the ${method} notification`, timeoutMs);
  }

  close() {
    this.abort.abort();
  }
}

module.exports = { GeminiClient };
