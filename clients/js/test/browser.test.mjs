// The module in a real browser (headless Chromium, native WebSocket) against the hub: two
// players, a session, a drop with a line in flight, the end. Runs when CHROMIUM names the
// browser (scripts/js-client-test.sh sets it when Chromium is installed); skipped otherwise.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocket, hubURL, mintToken, skipHub, uniqueUser } from './support/hub.mjs';

const chromium = process.env.CHROMIUM;
const skip = skipHub || (chromium ? false : 'no CHROMIUM: the browser test needs Chromium');
const here = fileURLToPath(new URL('.', import.meta.url));

/** Serves the page, the module, and tokens (as an app's backend would). */
function pageServer() {
  const files = {
    '/': ['text/html', readFileSync(join(here, 'support/browser-page.html'))],
    '/sessionhub.js': ['text/javascript', readFileSync(join(here, '../sessionhub.js'))],
  };
  const server = createServer(async (request, response) => {
    const url = new URL(request.url, 'http://page');
    if (url.pathname === '/token') {
      const token = await mintToken(url.searchParams.get('user'));
      response.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-store' });
      return response.end(token);
    }
    const file = files[url.pathname];
    if (!file) return response.writeHead(404).end();
    response.writeHead(200, { 'content-type': file[0] });
    response.end(file[1]);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** A DevTools protocol session over a WebSocket. */
function devtools(url) {
  const ws = new WebSocket(url);
  let next = 0;
  const waiting = new Map();
  ws.on('message', (data) => {
    const message = JSON.parse(data.toString());
    const waiter = waiting.get(message.id);
    if (waiter) { waiting.delete(message.id); waiter(message); }
  });
  const opened = new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  return {
    opened,
    send: (method, params = {}) => new Promise((resolve) => {
      const id = ++next;
      waiting.set(id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    }),
    close: () => ws.close(),
  };
}

test('in a browser with its native WebSocket', { skip, timeout: 60_000 }, async () => {
  const server = await pageServer();
  const profile = mkdtempSync(join(tmpdir(), 'js-client-chromium.'));
  const args = ['--headless=new', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--no-default-browser-check',
    '--disable-extensions', '--disable-background-networking', '--disable-component-update', '--mute-audio',
    `--user-data-dir=${profile}`, '--remote-debugging-address=127.0.0.1', '--remote-debugging-port=0', 'about:blank'];
  if (process.getuid?.() === 0) args.unshift('--no-sandbox'); // Chromium refuses to run as root with its sandbox
  // Bounded by `timeout`, in a process group of its own so that it and its helpers end together.
  // TMPDIR inside the profile: with --disable-dev-shm-usage Chromium keeps its shared memory as
  // org.chromium.Chromium.* files there, which a terminated browser would leave in /tmp.
  const browser = spawn('timeout', ['-k', '5', '50', chromium, ...args],
    { detached: true, stdio: 'ignore', env: { ...process.env, TMPDIR: profile } });
  let cdp;
  try {
    const portFile = join(profile, 'DevToolsActivePort');
    const deadline = Date.now() + 20_000;
    while (!(existsSync(portFile) && readFileSync(portFile, 'utf8').trim())) {
      assert.ok(Date.now() < deadline, 'Chromium did not open DevTools within 20 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const port = Number(readFileSync(portFile, 'utf8').split('\n')[0]);
    const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
    cdp = devtools(targets.find((t) => t.type === 'page').webSocketDebuggerUrl);
    await cdp.opened;
    const [ana, ben] = ['ana', 'ben'].map(uniqueUser);
    const page = `http://127.0.0.1:${server.address().port}/?hub=${encodeURIComponent(hubURL)}&ana=${ana}&ben=${ben}`;
    await cdp.send('Page.navigate', { url: page });
    let outcome;
    const until = Date.now() + 30_000;
    while (!outcome && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const evaluated = await cdp.send('Runtime.evaluate', { expression: 'window.__result ?? null', returnByValue: true });
      if (evaluated.result?.result?.value) outcome = JSON.parse(evaluated.result.result.value);
    }
    assert.ok(outcome, 'the page finished within 30 s');
    assert.equal(outcome.ok, true, outcome.error);
    const r = outcome.result;
    assert.equal(r.native, true);
    assert.deepEqual(r.lines, ['<i>Bonjour</i>', 'Je ai une chambre.', 'Merci.']);
    assert.deepEqual(r.benLines, r.lines);
    assert.equal(r.accepted, true);
    assert.deepEqual(r.states, ['reconnecting', 'connected']);
    assert.equal(r.cause, 'hostEnded');
    assert.ok(r.xp.every((xp) => xp > 0));
    assert.equal(r.shownAsText, true);
    assert.equal(r.connected, true);
  } finally {
    cdp?.close();
    try { process.kill(-browser.pid, 'SIGTERM'); } catch { /* gone */ }
    await new Promise((resolve) => (browser.exitCode !== null ? resolve() : browser.once('exit', resolve)));
    server.close();
    rmSync(profile, { recursive: true, force: true });
  }
});
