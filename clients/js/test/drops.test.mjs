// Dropped connections against the real hub, through a TCP proxy that cuts or silences the
// player's connection with a line in flight: the client reconnects, resumes with its token,
// sends what the hub did not acknowledge again under the same clientId, and every transcript
// holds every line exactly once, with seq in order and without gaps.
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { ConnectionState as S } from '../sessionhub.js';
import { TcpProxy } from './support/proxy.mjs';
import { WebSocket, closeAll, eventually, hubURL, makeClient, skipHub, uniqueUser } from './support/hub.mjs';

after(closeAll);

/** Records the seq of every broadcast `client` applies (from its snapshot on). */
function trackSeqs(client) {
  const seqs = [];
  client.on('model', (model, message) => {
    if (message.type === 'joined') seqs.push(model.seq);
    else if (Number.isInteger(message.seq)) seqs.push(message.seq);
  });
  return seqs;
}

function assertContiguous(seqs, who) {
  for (let i = 1; i < seqs.length; i++) assert.equal(seqs[i], seqs[i - 1] + 1, `${who}: seq ${seqs[i - 1]} then ${seqs[i]}`);
}

const backUp = (client) => client.waitFor('state', (s) => s.kind === S.CONNECTED, 15_000);
const reconnecting = (client) => client.waitFor('state', (s) => s.kind === S.RECONNECTING, 5000);

test('a line in flight when the connection drops ends up in every transcript exactly once', { skip: skipHub, timeout: 45_000 }, async () => {
  const proxy = await TcpProxy.to(hubURL);
  after(() => proxy.close());
  const [anaId, benId] = ['ana', 'ben'].map(uniqueUser);
  const ana = makeClient(anaId);
  // Ben's WebSocket lets the test see what he sends (to silence his connection right after a resume).
  let onSend = null;
  const sends = [];
  class TappedWebSocket extends WebSocket {
    send(data) {
      const message = JSON.parse(data);
      sends.push(message);
      onSend?.(message);
      super.send(data);
    }
  }
  const sendsOf = (text) => sends.filter((m) => m.type === 'say' && m.textNative === text);
  const ben = makeClient(benId, { url: proxy.url, WebSocket: TappedWebSocket });
  const anaSeqs = trackSeqs(ana);
  const benSeqs = trackSeqs(ben);
  const benRefusals = [];
  ben.on('error', (m) => benRefusals.push(m.code));
  await Promise.all([ana.connect(), ben.connect()]);
  const { joinCode } = await ana.host({ scenarioId: 'hotel-check-in' });
  await ben.join(joinCode);
  await ana.say('Bonjour, bienvenue.');
  const said = [];
  const say = async (text) => { said.push(text); return ben.say(text); };

  // 1. The hub records the line, and its answer is lost with the connection: the replay shows it.
  let link = proxy.latest;
  link.hold('toClient');
  const first = say('one: answer lost');
  await eventually(() => ana.session.lines.some((l) => l.textNative === 'one: answer lost'), 'the line reaching Ana');
  link.cut();
  await reconnecting(ben);
  await backUp(ben);
  assert.equal((await first).textNative, 'one: answer lost');
  assert.equal(sendsOf('one: answer lost').length, 1, 'the replay showed it: not sent again');

  // 2. The line never reaches the hub: it is sent again after the resume.
  link = proxy.latest;
  link.hold('toHub');
  const second = say('two: lost on the way');
  await new Promise((resolve) => setTimeout(resolve, 100));
  link.cut();
  await backUp(ben);
  assert.equal((await second).speakerId, benId);
  const resent = sendsOf('two: lost on the way');
  assert.equal(resent.length, 2, 'sent again after the resume');
  assert.equal(resent[1].clientId, resent[0].clientId, 'under the same clientId');
  assert.notEqual(resent[1].id, resent[0].id, 'under a new request id');

  // 3. Cut right after the line left: it reaches the hub, no answer comes back.
  proxy.latest.failAfterNextClientChunk();
  const third = say('three: cut in flight');
  await backUp(ben);
  await third;

  // 4. Said while reconnecting (and Ana speaks meanwhile): sent after the resume, in order.
  proxy.latest.cut();
  await reconnecting(ben);
  const fourth = say('four: said while away');
  await ana.say('Ana speaks while Ben is away.');
  await backUp(ben);
  await fourth;

  // 5. The resume's answer is lost and the hub notices the dead connection only by its keepalive:
  //    the held token is refused (invalid_resume_token) and tried again until the hub takes it.
  onSend = (message) => {
    if (message.type !== 'resume') return;
    onSend = null;
    proxy.latest.failAfterNextClientChunk({ silently: true });
  };
  proxy.latest.cut();
  await reconnecting(ben);
  const fifth = say('five: across a lost resume answer');
  await ana.say('Ana again.');
  await backUp(ben);
  await fifth;
  assert.ok(benRefusals.includes('invalid_resume_token'), `refusals: ${benRefusals}`);
  assert.ok(ben.inSession);

  // Every line once, in every transcript, in the order said; the models agree; seq without gaps.
  // (Ben's lines were all acknowledged: once Ana is at his seq, she has them all.)
  await eventually(() => ana.session.seq === ben.session.seq, 'both models at the same seq');
  for (const [who, client] of [['ana', ana], ['ben', ben]]) {
    const texts = client.session.lines.map((l) => l.textNative);
    for (const text of said) assert.equal(texts.filter((t) => t === text).length, 1, `${who}: "${text}" once`);
    assert.deepEqual(client.session.lines.filter((l) => l.speakerId === benId).map((l) => l.textNative), said, `${who}: in order`);
    assert.deepEqual(client.session.lines.map((l) => l.id), client.session.lines.map((_, i) => `l${i + 1}`));
  }
  assert.deepEqual(ben.session.lines, ana.session.lines);
  assert.deepEqual(ben.session.participants, ana.session.participants);
  assert.ok(ben.session.participants.every((p) => p.connected));
  assertContiguous(anaSeqs, 'ana');
  assertContiguous(benSeqs, 'ben');
  assert.equal(anaSeqs.at(-1), ana.session.seq);
  assert.deepEqual(ben.pendingLines, []);
  assert.ok(proxy.links.length >= 6, `${proxy.links.length} connections`);
  ana.close();
  ben.close();
});

test('a request without an answer times out; the connection goes on', { skip: skipHub, timeout: 15_000 }, async () => {
  const proxy = await TcpProxy.to(hubURL);
  after(() => proxy.close());
  const client = makeClient(uniqueUser('carl'), { url: proxy.url, requestTimeout: 400 });
  await client.connect();
  proxy.latest.hold('toClient');
  const started = Date.now();
  await assert.rejects(client.ping(), (error) => error.kind === 'timedOut' && error.code === 'timed_out' && error.request === 'ping');
  assert.ok(Date.now() - started >= 390);
  proxy.latest.release('toClient'); // the late pong is ignored
  assert.equal(typeof (await client.ping()), 'number');
  assert.equal(client.state.kind, S.CONNECTED);
  client.close();
});

test('dropConnection(): the client comes back by itself and keeps its seat', { skip: skipHub, timeout: 15_000 }, async () => {
  const [anaId, benId] = ['ana', 'ben'].map(uniqueUser);
  const ana = makeClient(anaId);
  const ben = makeClient(benId);
  await Promise.all([ana.connect(), ben.connect()]);
  await ben.join((await ana.host({ scenarioId: 'ordering-coffee' })).joinCode);
  const away = ana.waitFor('participants', (m) => m.change.userId === benId && m.change.kind === 'disconnected');
  const back = ana.waitFor('participants', (m) => m.change.userId === benId && m.change.kind === 'reconnected');
  const tokenBefore = ben.resumeToken;
  ben.dropConnection();
  const line = ben.say('Un café, por favor.');
  await away;
  await back;
  assert.equal((await line).textNative, 'Un café, por favor.');
  assert.notEqual(ben.resumeToken, tokenBefore, 'the resume token rotated');
  await eventually(() => ana.session.lines.length === 1, 'the line reaching Ana');
  assert.deepEqual(ben.session.lines, ana.session.lines);
  ana.close();
  ben.close();
});

test('a page reload: a new client takes the saved seat back and sends the unacknowledged line once', { skip: skipHub, timeout: 20_000 }, async () => {
  const proxy = await TcpProxy.to(hubURL);
  after(() => proxy.close());
  const [anaId, benId] = ['ana', 'ben'].map(uniqueUser);
  const ana = makeClient(anaId);
  const oldPage = makeClient(benId, { url: proxy.url });
  // The page saves its seat whenever it changes, as JSON (as sessionStorage would).
  let stored = null;
  oldPage.on('seat', (seat) => { stored = JSON.stringify(seat); });
  await Promise.all([ana.connect(), oldPage.connect()]);
  await oldPage.join((await ana.host({ scenarioId: 'hotel-check-in' })).joinCode);
  assert.equal(JSON.parse(stored).resumeToken, oldPage.resumeToken);
  await oldPage.say('Bonsoir.');
  proxy.latest.hold('toHub');
  oldPage.say('Je voudrais une chambre.').catch(() => {}); // never reaches the hub
  await new Promise((resolve) => setTimeout(resolve, 50));
  // Then the page goes away.
  const saved = JSON.parse(stored);
  assert.deepEqual(saved.unsentLines.map((l) => l.text), ['Je voudrais une chambre.']);
  assert.equal(saved.session.lines.length, 1);
  proxy.latest.cut();
  oldPage.close();
  assert.ok(oldPage.seat, 'close() keeps the seat: the hub holds it for its grace window');

  const newPage = makeClient(benId);
  await newPage.connect({ seat: saved });
  assert.equal(newPage.inSession, true, 'back in the seat without a join');
  assert.equal(newPage.state.kind, S.CONNECTED);
  await eventually(() => ana.session.lines.length === 2 && newPage.session.lines.length === 2, 'the unsent line arriving');
  assert.deepEqual(ana.session.lines.map((l) => l.textNative), ['Bonsoir.', 'Je voudrais une chambre.']);
  assert.deepEqual(newPage.session.lines, ana.session.lines);
  assert.deepEqual(newPage.pendingLines, []);
  // A seat the hub no longer holds is not taken back.
  const anaAgain = makeClient(anaId);
  const stale = { ...saved, session: { ...saved.session, sessionId: 'f'.repeat(32) } };
  await anaAgain.connect({ seat: stale });
  assert.equal(anaAgain.inSession, false);
  for (const c of [ana, newPage, anaAgain]) c.close();
});
