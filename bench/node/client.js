#!/usr/bin/env node
// The Node Claude client of bench/driver (issue 27): the openDiff rounds of the Go driver's
// claude client, made from Node with the `ws` package, the runtime the CLI is written for. It
// dials as the CLI does (the token header, subprotocol `mcp`, User-Agent), runs the CLI's
// handshake (initialize, notifications/initialized, ide_connected, tools/list), then sends
// `iters` openDiff requests one after the other and times each from ws.send until the answer's
// 'message' event, as the Go driver times its write until its read returns. The text is the
// driver's (a file of the new contents); proposal i > 0 has the byte at `mark` set to the
// letter 'A' + i % 26, as the Go driver does. Each answer is then JSON.parse'd (the CLI
// parses every message) and checked (FILE_SAVED, the first in full), outside the timing but
// reported as parse_ms. close_tab follows each round. ws masks with bufferutil (native). Against bench/echo (mode "echo") there is
// no handshake: each request comes back as it went.
//
//	node client.js '{"mode":"claude"|"echo","port":N,"token":"...","text":FILE,"mark":N,"iters":N,"path":P}'
//
// It prints one JSON line: {"opendiff_ms":[...],"parse_ms":[...],"cpu_ms":N,"bytes":N}, cpu_ms
// its own CPU time over all rounds.
'use strict';

const fs = require('fs');
const { performance } = require('perf_hooks');

// Masking a 13 MB frame in ws's JavaScript fallback takes ~100-160 ms here, more than the whole
// echo; the CLI's WebSocket (Bun's, native) masks in C. bufferutil is ws's native masking: the
// closest to it. Refuse to run without it rather than time JavaScript masking, unless
// BENCH_JS_MASK=1 asks for exactly that (bench/notes.md: why the drivers disagreed).
if (process.env.BENCH_JS_MASK === '1') {
  process.env.WS_NO_BUFFER_UTIL = '1';
} else {
  const bu = require('path').dirname(require.resolve('bufferutil'));
  require('node-gyp-build')(bu); // throws when the native build is absent
}
const WebSocket = require('ws');

const opt = JSON.parse(process.argv[2]);

function tabName(i) {
  return '✻ [Claude Code] bench.txt (' + i.toString(16).padStart(6, '0') + ') ⧉';
}

async function main() {
  const text = fs.readFileSync(opt.text);
  const ws = new WebSocket('ws://127.0.0.1:' + opt.port + '/', ['mcp'], {
    headers: { 'X-Claude-Code-Ide-Authorization': opt.token || '', 'User-Agent': 'claude-code/bench (node ws)' },
    maxPayload: 256 << 20,
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  if (ws.protocol !== 'mcp') throw new Error('server did not answer with subprotocol mcp');
  let waiting = null; // {id, resolve} of the one request in flight
  ws.on('message', (data) => {
    const at = performance.now();
    if (opt.mode === 'echo') return waiting && waiting.resolve({ data, at });
    // Find the id without parsing a 13 MB answer first (its own cost is measured below).
    const head = data.subarray(0, 4096).toString();
    if (/"method"\s*:/.test(head) && !/"result"\s*:/.test(head)) return; // a notification
    if (waiting) waiting.resolve({ data, at });
  });
  ws.on('error', (e) => {
    console.error('client:', e.message);
    process.exit(1);
  });
  let nextId = 0;
  const call = (method, params) =>
    new Promise((resolve) => {
      const id = ++nextId;
      waiting = { resolve };
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    }).then(({ data }) => JSON.parse(data));

  if (opt.mode !== 'echo') {
    const init = await call('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: { roots: {}, elicitation: {} },
      clientInfo: { name: 'claude-code', title: 'bench', version: 'bench' },
    });
    if (!init.result || !init.result.protocolVersion) throw new Error('initialize: ' + JSON.stringify(init));
    ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized', params: {} }));
    ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'ide_connected', params: { pid: process.pid } }));
    const tl = await call('tools/list', {});
    if (!tl.result || !(tl.result.tools || []).length) throw new Error('tools/list: ' + JSON.stringify(tl));
  }

  const times = [];
  const parse = [];
  let bytes = 0;
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < opt.iters; i++) {
    if (i > 0) text[opt.mark] = 65 + (i % 26);
    const contents = text.toString('utf8');
    const id = ++nextId;
    // Built as the CLI builds a request: JSON.stringify of the call, sent as a string.
    const req = JSON.stringify({
      jsonrpc: '2.0', id, method: 'tools/call',
      params: {
        name: 'openDiff',
        arguments: { old_file_path: opt.path, new_file_path: opt.path, new_file_contents: contents, tab_name: tabName(i) },
        _meta: { progressToken: 1 },
      },
    });
    bytes = Buffer.byteLength(req);
    const answered = new Promise((resolve) => (waiting = { resolve }));
    const t0 = performance.now();
    ws.send(req);
    const { data, at } = await answered;
    times.push(at - t0);
    const p0 = performance.now();
    if (opt.mode === 'echo') {
      if (data.length !== bytes) throw new Error('echo returned ' + data.length + ' bytes, sent ' + bytes);
      parse.push(0);
      continue;
    }
    const m = JSON.parse(data);
    parse.push(performance.now() - p0);
    const c = m.result && m.result.content;
    if (!c || c[0].text !== 'FILE_SAVED') throw new Error('answer is not FILE_SAVED: ' + data.subarray(0, 300));
    if (i === 0 && c[1].text !== contents) throw new Error('FILE_SAVED without the accepted text');
    await call('tools/call', { name: 'close_tab', arguments: { tab_name: tabName(i) } });
  }
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000; // all rounds: building, sending, parsing, close_tab
  process.stdout.write(JSON.stringify({ opendiff_ms: times, parse_ms: parse, cpu_ms: cpuMs, bytes }) + '\n');
  ws.close(1000);
}

main().catch((e) => {
  console.error('client:', e.message);
  process.exit(1);
});
