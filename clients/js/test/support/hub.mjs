// The hub the integration tests run against, as scripts/js-client-test.sh started it:
// SESSIONHUB_URL (ws://127.0.0.1:PORT/ws), SESSIONHUB_BIN (mints tokens) and
// SESSIONHUB_SECRET_FILE. Without them the integration tests are skipped (the unit tests run).
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { SessionHubClient } from '../../sessionhub.js';

export const hubURL = process.env.SESSIONHUB_URL;
const bin = process.env.SESSIONHUB_BIN;
const secretFile = process.env.SESSIONHUB_SECRET_FILE;
/** Why the integration tests cannot run, or false. */
export const skipHub = hubURL && bin && secretFile ? false : 'no hub: run scripts/js-client-test.sh';
/** http://HOST:PORT of the hub. */
export const hubHTTP = hubURL ? hubURL.replace(/^ws/, 'http').replace(/\/ws$/, '') : undefined;

/** Debian's node-ws (NODE_PATH=/usr/share/nodejs), else its path. */
export function loadWs() {
  const require = createRequire(import.meta.url);
  try {
    return require('ws');
  } catch {
    return require('/usr/share/nodejs/ws');
  }
}
export const WebSocket = loadWs();

/** Mints a token with `sessionhub token` (stdout only; never printed). */
export function mintToken(user, name = user, { ttl = 600, admin = false } = {}) {
  const args = ['token', '--secret-file', secretFile, '--user', user, '--name', name, '--ttl', String(ttl)];
  if (admin) args.push('--admin');
  return new Promise((resolve, reject) => {
    execFile(bin, args, { timeout: 5000 }, (error, stdout) => (error ? reject(error) : resolve(stdout.trim())));
  });
}

/** A token provider for `user` that counts its calls (`provider.calls`). */
export function tokenProvider(user, name = user, options = {}) {
  const provider = async () => {
    provider.calls += 1;
    return mintToken(user, name, options);
  };
  provider.calls = 0;
  return provider;
}

/** A user id no other test (or earlier run) uses. */
export function uniqueUser(prefix) {
  return `${prefix}-${process.pid.toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

const clients = new Set();

/** A client of the test hub for `user` (closed by `closeAll`). */
export function makeClient(user, { url = hubURL, name = user, tokenOptions, ...options } = {}) {
  const client = new SessionHubClient(url, {
    token: tokenProvider(user, name, tokenOptions),
    WebSocket,
    requestTimeout: 5000,
    reconnect: { initialDelay: 50, maxDelay: 400 },
    ...options,
  });
  clients.add(client);
  return client;
}

/** Closes every client `makeClient` made (for `after`). */
export function closeAll() {
  for (const client of clients) client.close();
  clients.clear();
}

/** Makes `userId` premium through the operator API (history is then stored). */
export async function makePremium(userId) {
  const admin = await mintToken(`ops-${process.pid}`, 'Ops', { admin: true });
  const response = await fetch(`${hubHTTP}/admin/users/${encodeURIComponent(userId)}/premium`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ isPremium: true }),
    signal: AbortSignal.timeout(5000),
  });
  if (!response.ok) throw new Error(`premium for ${userId}: HTTP ${response.status}`);
}

/** Resolves when `check()` is true (polled every 20 ms), or rejects after `timeout` ms. */
export async function eventually(check, what, timeout = 5000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    if (check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
