// The client against a scripted fake hub: redirects between nodes (session_elsewhere,
// welcome.resumableUrl), the lost-resume-answer rule, duplicate_line, refusals with retryAfter,
// timeouts and the token handling — what one real hub on SQLite cannot show.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ConnectionState as S, SessionHubClient } from '../sessionhub.js';
import { FakeNetwork, lineBroadcast, snapshot, tick } from './support/fake.mjs';

const A = 'ws://node-a.test/ws';
const B = 'ws://node-b.test/ws';

/** A client of the fake network with quick timeouts and backoff; records its states. */
function fakeClient(network, { url = A, ...options } = {}) {
  const tokens = { calls: 0 };
  const client = new SessionHubClient(url, {
    token: async () => `token-${++tokens.calls}`,
    WebSocket: network.WebSocket,
    requestTimeout: 300,
    reconnect: { initialDelay: 5, maxDelay: 20 },
    ...options,
  });
  client.tokens = tokens;
  client.states = [];
  client.on('state', (state) => client.states.push(state.kind));
  return client;
}

/** A node that owns session s1: join → joined; say → line; resume → resumed (replay, nothing missed). */
function ownerHandler({ seq = 1, lines = [] } = {}) {
  let n = lines.length;
  let currentSeq = seq;
  return (socket, m) => {
    switch (m.type) {
      case 'join': case 'host':
        return socket.reply({ type: 'joined', ref: m.id, resumeToken: 't1', session: snapshot({ seq: currentSeq, lines }) });
      case 'say':
        currentSeq += 1;
        n += 1;
        return socket.reply(lineBroadcast({ seq: currentSeq, n, clientId: m.clientId, ref: m.id, text: m.textNative }));
      case 'resume':
        return socket.reply({ type: 'resumed', ref: m.id, resumeToken: 't2', mode: 'replay', replayed: 0 });
      default:
        return undefined;
    }
  };
}

test('join follows session_elsewhere to the owner node; the old socket closes as a redirect, not a drop', async () => {
  const network = new FakeNetwork();
  network.serve(A, (socket, m) => {
    if (m.type === 'join') socket.reply({ type: 'error', ref: m.id, code: 'session_elsewhere', message: 'owned by b', node: 'b', url: B });
  });
  network.serve(B, ownerHandler());
  const client = fakeClient(network);
  await client.connect();
  const model = await client.join('abc-234');
  assert.equal(model.sessionId, 's1');
  assert.equal(client.url, B);
  assert.equal(client.state.kind, S.CONNECTED);
  assert.deepEqual(client.states, [S.CONNECTING, S.CONNECTED], 'no drop, no reconnect');
  const [front, owner] = network.sockets;
  assert.deepEqual(front.closedWith, { code: 1000, reason: 'redirected' });
  assert.deepEqual(owner.sent.map((m) => m.type), ['auth', 'join']);
  assert.equal(owner.sent[1].code, 'abc-234');
  assert.equal(client.tokens.calls, 2, 'a fresh token for the new node');
  // The token went in the auth message, never in a URL.
  for (const socket of network.sockets) assert.ok(!socket.url.includes('token'));
  const line = await client.say('Bonjour');
  assert.equal(line.textNative, 'Bonjour');
  client.close();
});

test('session_elsewhere without url: asked again after retryAfter', async () => {
  const network = new FakeNetwork();
  let asked = 0;
  const owner = ownerHandler();
  network.serve(A, (socket, m) => {
    if (m.type === 'join' && ++asked === 1) {
      return socket.reply({ type: 'error', ref: m.id, code: 'session_elsewhere', message: 'between owners', retryAfter: 1 });
    }
    return owner(socket, m);
  });
  const client = fakeClient(network);
  await client.connect();
  const started = Date.now();
  await client.join('ABC234');
  assert.ok(Date.now() - started >= 950, 'waited retryAfter');
  assert.equal(asked, 2);
  assert.equal(client.url, A);
  client.close();
});

test('a redirect whose node cannot be reached fails the call with the reason and closes', async () => {
  const network = new FakeNetwork();
  network.serve(A, (socket, m) => {
    if (m.type === 'join') socket.reply({ type: 'error', ref: m.id, code: 'session_elsewhere', message: 'm', url: 'ws://gone.test/ws' });
  });
  const client = fakeClient(network);
  await client.connect();
  await assert.rejects(client.join('ABC234'), { code: 'connection_closed' });
  assert.equal(client.state.kind, S.CLOSED);
  assert.match(client.state.reason, /redirect to ws:\/\/gone.test\/ws failed/);
});

test('after a drop, welcome.resumableUrl sends the client to the node that holds the seat', async () => {
  const network = new FakeNetwork();
  let ownerNode = A;
  const owner = ownerHandler();
  network.serve(A, (socket, m) => (ownerNode === A ? owner(socket, m) : socket.reply({ type: 'error', ref: m.id, code: 'session_elsewhere', message: 'm', url: B })),
    { welcome: () => (ownerNode === A ? {} : { resumableSessionId: 's1', resumableNode: 'b', resumableUrl: B }) });
  network.serve(B, owner);
  const client = fakeClient(network);
  await client.connect();
  await client.join('ABC234');
  ownerNode = B; // the session moved while the client was away
  network.sockets[0].drop();
  await client.waitFor('state', (s) => s.kind === S.CONNECTED, 2000);
  assert.equal(client.url, B);
  const resumes = network.sockets.flatMap((s) => s.sent.filter((m) => m.type === 'resume').map((m) => [s.url, m]));
  assert.deepEqual(resumes.map(([url]) => url), [B], 'resumed on the owner only');
  assert.deepEqual(resumes[0][1], { type: 'resume', resumeToken: 't1', lastSeq: 1, id: resumes[0][1].id });
  assert.equal(client.resumeToken, 't2', 'the rotated token is kept');
  assert.ok(client.inSession);
  client.close();
});

test('a resume answered session_elsewhere with a url is sent again there', async () => {
  const network = new FakeNetwork();
  let moved = false;
  const owner = ownerHandler();
  network.serve(A, (socket, m) => {
    if (m.type === 'resume' && moved) return socket.reply({ type: 'error', ref: m.id, code: 'session_elsewhere', message: 'm', node: 'b', url: B });
    return owner(socket, m);
  });
  network.serve(B, owner);
  const client = fakeClient(network);
  await client.connect();
  await client.join('ABC234');
  moved = true;
  network.sockets[0].drop();
  await client.waitFor('state', (s) => s.kind === S.CONNECTED, 2000);
  assert.equal(client.url, B);
  assert.equal(client.resumeToken, 't2');
  assert.deepEqual(client.states, [S.CONNECTING, S.CONNECTED, S.RECONNECTING, S.CONNECTED]);
  client.close();
});

test('a line whose answer was lost is taken from the replay, not sent again', async () => {
  const network = new FakeNetwork();
  let dropNextSay = true;
  let seq = 1;
  network.serve(A, (socket, m) => {
    if (m.type === 'join') return socket.reply({ type: 'joined', ref: m.id, resumeToken: 't1', session: snapshot({ seq }) });
    if (m.type === 'say' && dropNextSay) {
      dropNextSay = false;
      seq += 1; // the hub recorded it; the answer is lost with the connection
      socket.lost = lineBroadcast({ seq, n: 1, clientId: m.clientId, ref: m.id, text: m.textNative });
      return socket.drop();
    }
    if (m.type === 'resume') {
      const lost = network.sockets[0].lost;
      socket.reply({ type: 'resumed', ref: m.id, resumeToken: 't2', mode: 'replay', replayed: 1 });
      return socket.reply(lost);
    }
    return undefined;
  });
  const client = fakeClient(network);
  await client.connect();
  await client.join('ABC234');
  const line = await client.say('Bonjour', { translation: 'Hello' });
  assert.equal(line.id, 'l1');
  assert.equal(client.session.lines.length, 1);
  assert.equal(client.session.seq, 2);
  const says = network.sockets.flatMap((s) => s.sent.filter((m) => m.type === 'say'));
  assert.equal(says.length, 1, 'not sent again');
  assert.deepEqual(client.pendingLines, []);
  client.close();
});

test('duplicate_line counts as success when the model has the line; other refusals reject with code and retryAfter', async () => {
  const network = new FakeNetwork();
  const existing = lineBroadcast({ seq: 2, n: 1, clientId: 'mine-1' }).line;
  network.serve(A, (socket, m) => {
    if (m.type === 'join') return socket.reply({ type: 'joined', ref: m.id, resumeToken: 't1', session: snapshot({ seq: 2, lines: [existing] }) });
    if (m.type === 'say' && m.clientId === 'mine-1') return socket.reply({ type: 'error', ref: m.id, code: 'duplicate_line', message: 'line l1 (seq 2)' });
    if (m.type === 'say') return socket.reply({ type: 'error', ref: m.id, code: 'journal_unavailable', message: 'later', retryAfter: 1 });
    if (m.type === 'end') return socket.reply({ type: 'error', ref: m.id, code: 'not_allowed', message: 'only the host' });
    return undefined;
  });
  const client = fakeClient(network);
  await client.connect();
  await client.join('ABC234');
  assert.deepEqual(await client.say('again', { clientId: 'mine-1' }), existing);
  await assert.rejects(client.say('new'), (error) => error.code === 'journal_unavailable' && error.retryAfter === 1 && error.kind === 'refused');
  await assert.rejects(client.end(), { code: 'not_allowed', kind: 'refused' });
  assert.deepEqual(client.pendingLines, []);
  client.close();
});

test('lost resume answer: invalid_resume_token is tried again, and the seat comes back', async () => {
  const network = new FakeNetwork();
  const resumes = [];
  network.serve(A, (socket, m) => {
    if (m.type === 'join') return socket.reply({ type: 'joined', ref: m.id, resumeToken: 't1', session: snapshot() });
    if (m.type === 'resume') {
      resumes.push(m.resumeToken);
      if (resumes.length === 1) return socket.drop(); // the hub took it and rotated; the answer is lost
      if (resumes.length < 4) return socket.reply({ type: 'error', ref: m.id, code: 'invalid_resume_token', message: 'not the current token' });
      return socket.reply({ type: 'resumed', ref: m.id, resumeToken: 't3', mode: 'replay', replayed: 0 });
    }
    if (m.type === 'say') return socket.reply(lineBroadcast({ seq: 2, n: 1, clientId: m.clientId, ref: m.id, text: m.textNative }));
    return undefined;
  });
  const client = fakeClient(network);
  const refusals = [];
  client.on('error', (m) => refusals.push(m.code));
  await client.connect();
  await client.join('ABC234');
  network.sockets[0].drop();
  const said = client.say('said while away');
  await client.waitFor('state', (s) => s.kind === S.CONNECTED, 3000);
  assert.deepEqual(resumes, ['t1', 't1', 't1', 't1'], 'the token held, until the hub takes it again');
  assert.deepEqual(refusals, ['invalid_resume_token', 'invalid_resume_token']);
  assert.equal(client.resumeToken, 't3');
  assert.equal((await said).textNative, 'said while away');
  client.close();
});

test('invalid_resume_token without a lost answer (or past grace + 60 s): the seat is gone, lines fail', async () => {
  for (const graceSeconds of [30, -60]) {
    const network = new FakeNetwork();
    let resumes = 0;
    network.serve(A, (socket, m) => {
      if (m.type === 'join') return socket.reply({ type: 'joined', ref: m.id, resumeToken: 't1', session: snapshot() });
      if (m.type === 'resume') {
        resumes += 1;
        if (graceSeconds < 0 && resumes === 1) return socket.drop(); // answer lost, but the deadline is already past
        return socket.reply({ type: 'error', ref: m.id, code: 'invalid_resume_token', message: 'seat expired' });
      }
      return undefined;
    }, { welcome: () => ({ limits: { graceSeconds } }) });
    const client = fakeClient(network);
    await client.connect();
    await client.join('ABC234');
    network.sockets[0].drop();
    const said = client.say('lost cause');
    await assert.rejects(said, { code: 'invalid_resume_token' });
    await client.waitFor('state', (s) => s.kind === S.CONNECTED, 2000).catch(() => {});
    assert.equal(client.state.kind, S.CONNECTED, 'connected, in the lobby');
    assert.equal(client.inSession, false);
    assert.equal(resumes, graceSeconds < 0 ? 2 : 1);
    client.close();
  }
});

test('requests time out; calls outside their state are refused at once', async () => {
  const network = new FakeNetwork();
  network.serve(A, ownerHandler());
  const client = fakeClient(network, { requestTimeout: 80 });
  await assert.rejects(client.ping(), { code: 'not_connected' });
  await client.connect();
  await assert.rejects(client.say('x'), { code: 'wrong_state' });
  const started = Date.now();
  await assert.rejects(client.ping(), (error) => error.code === 'timed_out' && error.request === 'ping');
  assert.ok(Date.now() - started >= 75);
  await client.join('ABC234');
  await assert.rejects(client.host({ scenarioId: 'hotel-check-in' }), { code: 'wrong_state' });
  client.close();
  assert.equal(client.state.kind, S.CLOSED);
  await assert.rejects(client.say('y'), { code: 'not_connected' });
});

test('a node that cannot be reached: connect rejects and the client is closed; a token provider failure too', async () => {
  const network = new FakeNetwork();
  const client = fakeClient(network, { url: 'ws://nowhere.test/ws' });
  await assert.rejects(client.connect(), { code: 'connection_closed' });
  assert.equal(client.state.kind, S.CLOSED);
  const failing = new SessionHubClient(A, { token: async () => { throw new Error('logged out'); }, WebSocket: network.WebSocket });
  await assert.rejects(failing.connect(), (error) => error.code === 'transport' && /logged out/.test(error.message));
  assert.equal(failing.state.kind, S.CLOSED);
  assert.throws(() => new SessionHubClient('http://x/ws', { token: () => 't', WebSocket: network.WebSocket }), { code: 'transport' });
});

test('close while reconnecting stops for good; lines waiting fail', async () => {
  const network = new FakeNetwork();
  network.serve(A, ownerHandler());
  const client = fakeClient(network, { reconnect: { initialDelay: 200, maxDelay: 200 }, random: () => 1 });
  await client.connect();
  await client.join('ABC234');
  network.sockets[0].drop();
  await tick(5);
  assert.equal(client.state.kind, S.RECONNECTING);
  const said = client.say('never');
  client.close();
  await assert.rejects(said, { code: 'connection_closed' });
  await tick(300);
  assert.equal(network.sockets.length, 1, 'no attempt after close');
  assert.equal(client.state.kind, S.CLOSED);
});

test('close() keeps the seat; connect() takes it back while the hub holds it', async () => {
  const network = new FakeNetwork();
  let held = false;
  network.serve(A, ownerHandler(), { welcome: () => ({ resumableSessionId: held ? 's1' : null }) });
  const client = fakeClient(network);
  const seats = [];
  client.on('seat', (seat) => seats.push(seat && seat.resumeToken));
  await client.connect();
  await client.join('ABC234');
  held = true;
  client.close();
  assert.equal(client.seat.resumeToken, 't1');
  await client.connect();
  assert.equal(client.inSession, true);
  assert.equal(client.resumeToken, 't2');
  assert.deepEqual(network.sockets[1].sent.map((m) => m.type), ['auth', 'resume']);
  client.close();
  held = false; // the grace window passed
  await client.connect();
  assert.equal(client.inSession, false, 'not taken back: the hub does not hold it');
  assert.deepEqual(network.sockets[2].sent.map((m) => m.type), ['auth']);
  assert.equal(client.seat, null);
  assert.deepEqual(seats, ['t1', 't2', null], 'a seat event tells the page to forget it');
  client.close();
});

test('a connection that never opens times out, and the next attempt works', async () => {
  const network = new FakeNetwork();
  network.serve(A, ownerHandler());
  let hang = true;
  const Base = network.WebSocket;
  class Hanging extends Base {
    constructor(url) {
      super(url);
      if (hang) this.readyState = 4; // never opens (the fake opens only from state 0)
    }
  }
  const client = fakeClient(network, { WebSocket: Hanging, requestTimeout: 60 });
  await assert.rejects(client.connect(), (error) => error.code === 'timed_out' && error.request === 'connect');
  assert.equal(client.state.kind, S.CLOSED);
  hang = false;
  await client.connect();
  assert.equal(client.state.kind, S.CONNECTED);
  client.close();
});
