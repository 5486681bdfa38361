#!/usr/bin/env node
// The Node baseline for bench/run: a minimal sidecar doing the bridge's job the way a typical
// Node IDE plugin would (the `ws` package), speaking the same editor protocol on stdio
// (docs/editor-protocol.md, newline framing) so that bench/driver drives it exactly like
// `claude-ide-bridge serve --stdio`. It is deliberately small: only what the benchmark exercises
// (initialize -> lock file, auth + `mcp` subprotocol, MCP handshake, tools/list, openDiff routed
// to the editor and back, close_tab, selection fan-out, keepalive, clean exit). Not a product.
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');
// The baseline is `ws` as a plain install has it, without the optional native bufferutil
// (masking in JavaScript), as before issue 27; bench/node/client.js, the Claude side, uses it.
// BENCH_SIDECAR_BUFFERUTIL=1 lets the sidecar use it too (bench/notes.md).
if (process.env.BENCH_SIDECAR_BUFFERUTIL !== '1') process.env.WS_NO_BUFFER_UTIL = '1';
const { WebSocketServer } = require('ws');

const AT_ONCE = process.env.BENCH_SIDECAR_AT_ONCE === '1';
const KEEPALIVE_MS = 30000; // same keepalive interval as the bridge
const MAX_MESSAGE = 65 << 20;

// ---- editor side: newline-delimited JSON-RPC on stdin/stdout ----

let nextEditorId = 0;
const editorCalls = new Map(); // id -> {resolve, reject}

function toEditor(msg) {
  process.stdout.write(JSON.stringify(msg) + '\n');
}

function callEditor(method, params) {
  const id = ++nextEditorId;
  toEditor({ jsonrpc: '2.0', id, method, params });
  return new Promise((resolve, reject) => editorCalls.set(id, { resolve, reject }));
}

function notifyEditor(method, params) {
  toEditor({ jsonrpc: '2.0', method, params });
}

let pending = []; // Buffers of the current unfinished line
process.stdin.on('data', (chunk) => {
  let start = 0;
  for (;;) {
    const nl = chunk.indexOf(10, start);
    if (nl < 0) break;
    pending.push(chunk.subarray(start, nl));
    const line = pending.length === 1 ? pending[0] : Buffer.concat(pending);
    pending = [];
    start = nl + 1;
    if (line.length > 0) onEditorLine(line);
  }
  if (start < chunk.length) pending.push(chunk.subarray(start));
});
process.stdin.on('end', shutdown);

function onEditorLine(line) {
  let m;
  try {
    m = JSON.parse(line);
  } catch (e) {
    toEditor({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
    return;
  }
  if (m.method === undefined && m.id !== undefined) {
    const call = editorCalls.get(m.id);
    editorCalls.delete(m.id);
    if (call) m.error ? call.reject(m.error) : call.resolve(m.result);
    return;
  }
  if (m.method === 'initialize') return initialize(m);
  let result;
  try {
    result = handleEditor(m.method, m.params || {});
  } catch (e) {
    if (m.id !== undefined) toEditor({ jsonrpc: '2.0', id: m.id, error: e.code ? e : { code: -32603, message: String(e) } });
    return;
  }
  if (m.id !== undefined) toEditor({ jsonrpc: '2.0', id: m.id, result: result === undefined ? {} : result });
}

function rpcError(code, message) {
  return { code, message };
}

// initialize answers once the server listens and the lock is written (both asynchronous in Node).
function initialize(m) {
  if (server || starting) {
    toEditor({ jsonrpc: '2.0', id: m.id, error: { code: -32002, message: 'already initialized' } });
    return;
  }
  starting = true;
  start(m.params || {}, 0)
    .then((res) => toEditor({ jsonrpc: '2.0', id: m.id, result: res }))
    .catch((e) => toEditor({ jsonrpc: '2.0', id: m.id, error: { code: -32000, message: 'starting: ' + e.message } }));
}

// ---- state ----

let server = null; // {wss, port, token, lockPath}
let starting = false;
let editorInfo = null;
const clients = new Set(); // ready WebSocket clients
let nextClientId = 0;
let lastSelection = null; // encoded selection_changed last sent
const diffs = new Map(); // tab -> {owner, state, resolve}
let nextProposal = 0;

function handleEditor(method, p) {
  if (!server) throw rpcError(-32002, 'not initialized: send initialize first');
  switch (method) {
    case 'selectionChanged': {
      if (!p.filePath) throw rpcError(-32602, 'invalid params: "filePath" is required');
      const sel = { text: p.text, filePath: p.filePath, fileUrl: p.fileUrl || 'file://' + p.filePath, selection: p.selection };
      const msg = JSON.stringify({ jsonrpc: '2.0', method: 'selection_changed', params: sel });
      if (msg === lastSelection) return;
      lastSelection = msg;
      for (const ws of clients) ws.send(msg);
      return;
    }
    case 'diffAccepted': {
      const d = diffs.get(p.tabName);
      if (!d || d.state !== 'pending') throw rpcError(-32001, 'no pending diff named ' + JSON.stringify(p.tabName));
      d.state = 'accepted';
      d.resolve([{ type: 'text', text: 'FILE_SAVED' }, { type: 'text', text: p.contents }]);
      return {};
    }
    case 'diffRejected': {
      const d = diffs.get(p.tabName);
      if (!d) throw rpcError(-32001, 'no diff named ' + JSON.stringify(p.tabName));
      diffs.delete(p.tabName);
      if (d.state === 'pending') d.resolve([{ type: 'text', text: 'DIFF_REJECTED' }, { type: 'text', text: p.tabName }]);
      callEditor('closeDiff', { tabName: p.tabName }).catch(() => {});
      return {};
    }
    case 'status':
      return { port: server.port, lockPath: server.lockPath, clients: clients.size, diffs: [] };
  }
  return undefined;
}

function start(p, tries) {
  editorInfo = p;
  const token = crypto.randomBytes(16).toString('hex');
  const port = 10000 + crypto.randomInt(55536);
  return new Promise((resolve, reject) => {
    const wss = new WebSocketServer({
      host: '127.0.0.1',
      port,
      maxPayload: MAX_MESSAGE,
      perMessageDeflate: false,
      clientTracking: false,
      handleProtocols: (protocols) => (protocols.has('mcp') ? 'mcp' : false),
      verifyClient: (info, cb) => {
        const h = info.req.headers;
        if (h.origin !== undefined) return cb(false, 403, 'Origin refused');
        if (!/^(127\.0\.0\.1|localhost|\[::1\]):\d+$/i.test(h.host || '') || !h.host.endsWith(':' + port)) return cb(false, 403, 'bad Host');
        const got = Buffer.from(String(h['x-claude-code-ide-authorization'] || ''));
        const want = Buffer.from(token);
        if (got.length !== want.length || !crypto.timingSafeEqual(got, want)) return cb(false, 401, 'bad token');
        cb(true);
      },
    });
    wss.on('error', (e) => {
      if (e.code === 'EADDRINUSE' && tries < 50) return resolve(start(p, tries + 1));
      reject(e);
    });
    wss.on('listening', () => {
      try {
        const lockPath = writeLock(port, token, p);
        server = { wss, port, token, lockPath };
        wss.on('connection', onClient);
        const env = {
          CLAUDE_CODE_SSE_PORT: String(port),
          ENABLE_IDE_INTEGRATION: 'true',
          no_proxy: '127.0.0.1,localhost,::1',
          NO_PROXY: '127.0.0.1,localhost,::1',
        };
        resolve({
          port, lockPath, ideName: p.name, version: '0.0.0-baseline', env,
          envPrefix: Object.entries(env).map(([k, v]) => k + '=' + v).join(' '),
        });
      } catch (e) {
        reject(e);
      }
    });
  });
}

function lockDir() {
  const c = process.env.CLAUDE_CONFIG_DIR;
  return c ? path.join(c, 'ide') : path.join(os.homedir(), '.claude', 'ide');
}

// writeLock publishes the lock atomically (temp file, fsync, rename), as the bridge does.
function writeLock(port, token, p) {
  const dir = lockDir();
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const target = path.join(dir, port + '.lock');
  const tmp = path.join(dir, '.' + port + '.' + process.pid + '.tmp');
  const folders = (p.workspaceFolders || [process.cwd()]).map((f) => fs.realpathSync(f));
  const data = JSON.stringify({ pid: p.pid || process.pid, workspaceFolders: folders, ideName: p.name, transport: 'ws', authToken: token });
  const fd = fs.openSync(tmp, 'w', 0o600);
  fs.writeSync(fd, data);
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  fs.renameSync(tmp, target);
  return target;
}

// ---- Claude side: MCP over WebSocket ----

const TOOLS = [
  ['openFile', 'Open a file in the editor and optionally select a range of text', { filePath: 'string' }],
  ['openDiff', 'Open a git diff for the file (blocking operation)', { old_file_path: 'string', new_file_path: 'string', new_file_contents: 'string', tab_name: 'string' }],
  ['getCurrentSelection', 'Get the current text selection in the active editor', {}],
  ['getLatestSelection', 'Get the most recent text selection (even if not in active editor)', {}],
  ['getOpenEditors', 'Get information about currently open editors', {}],
  ['getWorkspaceFolders', 'Get all workspace folders currently open in the IDE', {}],
  ['getDiagnostics', 'Get language diagnostics from the editor', { uri: 'string' }],
  ['checkDocumentDirty', 'Check if a document has unsaved changes (is dirty)', { filePath: 'string' }],
  ['saveDocument', 'Save a document with unsaved changes', { filePath: 'string' }],
  ['close_tab', 'Close a diff tab by name', { tab_name: 'string' }],
  ['closeAllDiffTabs', 'Close all diff tabs in the editor', {}],
  ['executeCode', 'Execute Python code in the Jupyter kernel for the current notebook file', { code: 'string' }],
].map(([name, description, props]) => ({
  name,
  description,
  inputSchema: {
    type: 'object',
    properties: Object.fromEntries(Object.entries(props).map(([k, t]) => [k, { type: t }])),
    additionalProperties: false,
  },
}));

function onClient(ws) {
  const id = ++nextClientId;
  let alive = true;
  ws.on('pong', () => (alive = true));
  const keepalive = setInterval(() => {
    if (!alive) return ws.terminate();
    alive = false;
    ws.ping();
  }, KEEPALIVE_MS);
  const send = (m) => ws.send(JSON.stringify(m));
  ws.on('message', (data, isBinary) => {
    if (isBinary) return ws.close(1003, 'binary frames are not JSON-RPC');
    let m;
    try {
      m = JSON.parse(data);
    } catch (e) {
      return send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
    }
    handleClient(ws, id, m).then(
      (result) => m.id !== undefined && send({ jsonrpc: '2.0', id: m.id, result: result === undefined ? {} : result }),
      (err) => m.id !== undefined && send({ jsonrpc: '2.0', id: m.id, error: err.code ? err : { code: -32603, message: String(err) } }),
    );
  });
  ws.on('close', () => {
    clearInterval(keepalive);
    const wasReady = clients.delete(ws);
    for (const [tab, d] of diffs) {
      if (d.owner === id && d.state === 'pending') {
        diffs.delete(tab);
        d.resolve([{ type: 'text', text: 'DIFF_REJECTED' }, { type: 'text', text: tab }]);
        callEditor('closeDiff', { tabName: tab }).catch(() => {});
      }
    }
    if (wasReady) notifyEditor('clientDisconnected', { clientId: id, clients: clients.size });
  });
}

async function handleClient(ws, id, m) {
  switch (m.method) {
    case 'initialize':
      return {
        protocolVersion: (m.params && m.params.protocolVersion) || '2025-03-26',
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: 'node-baseline', version: '0.0.0' },
      };
    case 'notifications/initialized':
      clients.add(ws);
      if (lastSelection) ws.send(lastSelection);
      notifyEditor('clientConnected', { clientId: id, clients: clients.size });
      return;
    case 'ping':
      return {};
    case 'tools/list':
      return { tools: TOOLS };
    case 'tools/call':
      return callTool(id, m.params.name, m.params.arguments || {});
  }
  if (m.id !== undefined) throw { code: -32601, message: 'method not found: ' + m.method };
}

async function callTool(id, name, a) {
  switch (name) {
    case 'openDiff': {
      // BENCH_SIDECAR_AT_ONCE=1: "a plain Node ws sidecar that answers at once" (issue 27), no
      // editor: the baseline of `serve --auto accept`, which has none either.
      if (AT_ONCE) return { content: [{ type: 'text', text: 'FILE_SAVED' }, { type: 'text', text: a.new_file_contents }] };
      const old = diffs.get(a.tab_name);
      if (old && old.state === 'pending') old.resolve([{ type: 'text', text: 'DIFF_REJECTED' }, { type: 'text', text: a.tab_name }]);
      let resolve;
      const answer = new Promise((r) => (resolve = r));
      diffs.set(a.tab_name, { owner: id, state: 'pending', resolve });
      await callEditor('showDiff', {
        tabName: a.tab_name, filePath: a.old_file_path, newFilePath: a.new_file_path || a.old_file_path,
        newContents: a.new_file_contents, fileExists: fs.existsSync(a.old_file_path),
        proposal: ++nextProposal, // the editor names it in its decision (docs/editor-protocol.md)
      });
      return { content: await answer };
    }
    case 'close_tab': {
      const d = diffs.get(a.tab_name);
      if (d && !(d.state === 'accepted' && d.owner !== id)) {
        diffs.delete(a.tab_name);
        if (d.state === 'pending') d.resolve([{ type: 'text', text: 'DIFF_REJECTED' }, { type: 'text', text: a.tab_name }]);
        await callEditor('closeDiff', { tabName: a.tab_name }).catch(() => {});
      }
      return { content: [{ type: 'text', text: 'TAB_CLOSED' }] };
    }
    case 'closeAllDiffTabs': {
      let n = 0;
      for (const [tab, d] of diffs) {
        if (d.state === 'accepted' && d.owner !== id) continue;
        diffs.delete(tab);
        if (d.state === 'pending') d.resolve([{ type: 'text', text: 'DIFF_REJECTED' }, { type: 'text', text: tab }]);
        n++;
        await callEditor('closeDiff', { tabName: tab }).catch(() => {});
      }
      return { content: [{ type: 'text', text: 'CLOSED_' + n + '_DIFF_TABS' }] };
    }
    case 'getLatestSelection':
    case 'getCurrentSelection':
      return { content: [{ type: 'text', text: lastSelection ? JSON.stringify({ success: true, ...JSON.parse(lastSelection).params }) : '{"success":false}' }] };
    case 'getWorkspaceFolders':
      return { content: [{ type: 'text', text: JSON.stringify({ success: true, folders: editorInfo.workspaceFolders || [] }) }] };
  }
  return { content: [{ type: 'text', text: name + ' is not supported by the baseline' }], isError: true };
}

// ---- lifecycle ----

let stopping = false;
function shutdown() {
  if (stopping) return;
  stopping = true;
  if (!server) process.exit(0);
  try {
    fs.unlinkSync(server.lockPath);
  } catch (e) {}
  for (const [tab, d] of diffs) {
    if (d.state === 'pending') d.resolve([{ type: 'text', text: 'DIFF_REJECTED' }, { type: 'text', text: tab }]);
  }
  for (const ws of clients) ws.close(1001, 'IDE closed');
  server.wss.close();
  setTimeout(() => process.exit(0), 200).unref();
}
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
