// Tokens against the real hub: the token goes in the first message, is renewed in place before
// it expires, and after an expiry close the client comes back with a fresh one and resumes.
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { ConnectionState as S } from '../sessionhub.js';
import { closeAll, makeClient, skipHub, tokenProvider, uniqueUser } from './support/hub.mjs';

after(closeAll);

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

test('a short-lived token is renewed in place: the connection outlives it', { skip: skipHub, timeout: 20_000 }, async () => {
  const user = uniqueUser('rene');
  const token = tokenProvider(user, user, { ttl: 4 });
  const client = makeClient(user, { token });
  const states = [];
  client.on('state', (s) => states.push(s.kind));
  await client.connect();
  const solo = await client.startSolo('ordering-coffee');
  assert.equal(solo.joinCode, null);
  assert.equal(solo.maxPlayers, 1);
  await wait(6000);
  assert.deepEqual(states, [S.CONNECTING, S.CONNECTED], 'never dropped');
  assert.ok(token.calls >= 2, `renewed (${token.calls} tokens)`);
  const line = await client.say('Un café, por favor.');
  assert.equal(line.textNative, 'Un café, por favor.');
  client.close();
});

test('an expired token closes the connection; the client comes back with a fresh one and resumes', { skip: skipHub, timeout: 20_000 }, async () => {
  const user = uniqueUser('exp');
  const token = tokenProvider(user, user, { ttl: 3 });
  const client = makeClient(user, { token, renewToken: false });
  await client.connect();
  await client.startSolo('ordering-coffee');
  await client.say('Hola.');
  const dropped = await client.waitFor('state', (s) => s.kind === S.RECONNECTING, 8000);
  assert.equal(dropped.code, 1008);
  assert.match(dropped.reason, /^token_expired/);
  await client.waitFor('state', (s) => s.kind === S.CONNECTED, 5000);
  assert.ok(client.inSession, 'the seat was resumed');
  assert.equal(token.calls, 2, 'a fresh token for the reconnect');
  const line = await client.say('Otra vez.');
  assert.deepEqual(client.session.lines.map((l) => l.textNative), ['Hola.', 'Otra vez.']);
  assert.equal(line.id, 'l2');
  client.close();
});
