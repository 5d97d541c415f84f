#!/usr/bin/env node
// Interop check: Node's `ws` library (Debian's node-ws; NODE_PATH=/usr/share/nodejs) as a client
// of an echo server.
//
// Usage: node node_client.js --url ws://127.0.0.1:PORT/echo --max-message-size N [--no-compression]
//
// Runs every check with perMessageDeflate on and off, prints one line per check and a summary,
// and exits 0 iff all checks pass. With --no-compression the server is expected to decline
// permessage-deflate when it is offered.
'use strict';
const WebSocket = require('ws');

const TIMEOUT_MS = 10000;

function parseArgs(argv) {
  const out = { url: null, limit: null, noCompression: false };
  for (let i = 2; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--url') out.url = argv[++i];
    else if (a === '--max-message-size') out.limit = Number(argv[++i]);
    else if (a === '--no-compression') out.noCompression = true;
    else throw new Error(`unknown argument ${a}`);
  }
  if (!out.url || !Number.isFinite(out.limit)) {
    throw new Error('usage: node_client.js --url URL --max-message-size N [--no-compression]');
  }
  return out;
}

// A connection with a queue of events (message / pong / close) that checks can await in order.
function open(url, deflate) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: deflate, maxPayload: 64 << 20 });
    const queue = [];
    const waiters = [];
    const push = (ev) => {
      const w = waiters.shift();
      if (w) w(ev); else queue.push(ev);
    };
    ws.on('message', (data, isBinary) => push({ kind: 'message', data, isBinary }));
    ws.on('pong', (data) => push({ kind: 'pong', data }));
    ws.on('close', (code, reason) => push({ kind: 'close', code, reason: reason.toString() }));
    ws.on('error', (err) => push({ kind: 'error', err }));
    ws.next = () => new Promise((res) => {
      const ev = queue.shift();
      if (ev) res(ev); else waiters.push(res);
    });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

async function nextOf(ws, kind) {
  for (;;) {
    const ev = await ws.next();
    if (ev.kind === kind) return ev;
    if (ev.kind === 'error') throw ev.err;
    if (ev.kind === 'close') throw new Error(`closed ${ev.code} ${ev.reason} while waiting for ${kind}`);
    throw new Error(`unexpected ${ev.kind} while waiting for ${kind}`);
  }
}

async function closeWith(ws, code) {
  ws.close(code, 'bye');
  for (;;) {
    const ev = await ws.next();
    if (ev.kind === 'close') return ev;
    if (ev.kind === 'error') throw ev.err;
  }
}

function assert(cond, msg) { if (!cond) throw new Error(msg); }

async function echo(url, deflate, payload, binary) {
  const ws = await open(url, deflate);
  ws.send(payload, { binary });
  const ev = await nextOf(ws, 'message');
  assert(ev.isBinary === binary, `echo type ${ev.isBinary ? 'binary' : 'text'}`);
  const want = Buffer.isBuffer(payload) ? payload : Buffer.from(payload, 'utf8');
  assert(Buffer.compare(ev.data, want) === 0, `echo differs (${ev.data.length} vs ${want.length} bytes)`);
  await closeWith(ws, 1000);
  return `${want.length} bytes`;
}

async function fragmented(url, deflate, parts, binary) {
  const ws = await open(url, deflate);
  parts.forEach((p, i) => ws.send(p, { binary, fin: i === parts.length - 1 }));
  const ev = await nextOf(ws, 'message');
  const want = Buffer.concat(parts.map((p) => (Buffer.isBuffer(p) ? p : Buffer.from(p, 'utf8'))));
  assert(ev.isBinary === binary, 'echo type differs');
  assert(Buffer.compare(ev.data, want) === 0, `reassembled echo differs (${ev.data.length} vs ${want.length})`);
  await closeWith(ws, 1000);
  return `${parts.length} fragments`;
}

async function negotiated(url, deflate, expect) {
  const ws = await open(url, deflate);
  const has = ws.extensions.includes('permessage-deflate');
  await closeWith(ws, 1000);
  assert(has === expect, `extensions '${ws.extensions}', expected deflate ${expect ? 'on' : 'off'}`);
  return `extensions '${ws.extensions}'`;
}

async function ping(url, deflate) {
  const ws = await open(url, deflate);
  const payload = Buffer.from('ping-payload');
  ws.ping(payload);
  const ev = await nextOf(ws, 'pong');
  assert(Buffer.compare(ev.data, payload) === 0, 'pong payload differs');
  ws.send('after ping');
  const m = await nextOf(ws, 'message');
  assert(m.data.toString() === 'after ping', 'echo after ping differs');
  await closeWith(ws, 1000);
  return 'pong ok';
}

async function closeCode(url, deflate, code) {
  const ws = await open(url, deflate);
  ws.send('before close');
  await nextOf(ws, 'message');
  const ev = await closeWith(ws, code);
  assert(ev.code === code, `server closed with ${ev.code}, sent ${code}`);
  return `echoed ${ev.code}`;
}

async function oversize(url, deflate, limit) {
  const ws = await open(url, deflate);
  ws.send(Buffer.alloc(limit + 1, 1));
  for (;;) {
    const ev = await ws.next();
    if (ev.kind === 'close') {
      assert(ev.code === 1009, `close code ${ev.code}, expected 1009`);
      return 'closed 1009';
    }
    if (ev.kind === 'message') throw new Error(`oversize message echoed (${ev.data.length} bytes)`);
  }
}

async function main() {
  const args = parseArgs(process.argv);
  const { url, limit } = args;
  let passed = 0;
  let failed = 0;
  const check = async (name, fn) => {
    const t0 = Date.now();
    let timer;
    try {
      const detail = await Promise.race([
        fn(),
        new Promise((_, rej) => { timer = setTimeout(() => rej(new Error(`timeout after ${TIMEOUT_MS} ms`)), TIMEOUT_MS); }),
      ]);
      passed++;
      console.log(`PASS ${name} -- ${detail} (${Date.now() - t0} ms)`);
    } catch (e) {
      failed++;
      console.log(`FAIL ${name} -- ${e && e.message ? e.message : e}`);
    } finally {
      clearTimeout(timer);
    }
  };
  const big = Buffer.alloc(1 << 20);
  for (let i = 0; i < big.length; i++) big[i] = (i * 31 + 7) & 0xff;
  for (const deflate of [true, false]) {
    const tag = `[${deflate ? 'deflate' : 'none'}]`;
    if (deflate) {
      await check(`${tag} deflate negotiated iff server has compression`,
        () => negotiated(url, true, !args.noCompression));
    }
    await check(`${tag} echo text`, () => echo(url, deflate, 'hello, ws', false));
    await check(`${tag} echo binary`, () => echo(url, deflate, Buffer.from([0, 1, 2, 0xfe, 0xff]), true));
    await check(`${tag} echo unicode`, () => echo(url, deflate, 'κόσμε 😀 中文 \u0000 \u{10ffff}', false));
    await check(`${tag} echo empty text`, () => echo(url, deflate, '', false));
    await check(`${tag} echo empty binary`, () => echo(url, deflate, Buffer.alloc(0), true));
    if (big.length <= limit) {
      await check(`${tag} echo 1 MiB binary`, () => echo(url, deflate, big, true));
      await check(`${tag} echo 1 MiB text`, () => echo(url, deflate, 'a'.repeat(1 << 20), false));
    } else {
      console.log(`SKIP ${tag} echo 1 MiB -- limit ${limit}`);
    }
    await check(`${tag} fragmented text (fin:false)`,
      () => fragmented(url, deflate, ['frag-', 'κό', 'σμε', '', '-end'], false));
    await check(`${tag} fragmented binary (fin:false)`,
      () => fragmented(url, deflate, [Buffer.alloc(1000, 0), Buffer.alloc(70000, 1), Buffer.alloc(1, 2)], true));
    await check(`${tag} ping/pong`, () => ping(url, deflate));
    for (const code of [1000, 1001, 3000, 4000]) {
      await check(`${tag} close ${code} echoed`, () => closeCode(url, deflate, code));
    }
    await check(`${tag} oversize (limit+1) -> 1009`, () => oversize(url, deflate, limit));
  }
  console.log(`node ws client: ${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}

main().catch((e) => { console.error(e); process.exit(2); });
