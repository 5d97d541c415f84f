// Three players against the real hub: host, join by code, lines, a recast and its acceptance,
// live stats and XP, the end and its summary — every model the same; then the error paths.
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { ConnectionState as S, SessionHubError, SessionHubClient } from '../sessionhub.js';
import { WebSocket, closeAll, eventually, hubURL, makeClient, makePremium, skipHub, uniqueUser } from './support/hub.mjs';

after(closeAll);

/** What every member must agree on. */
function shared(model) {
  return {
    seq: model.seq, hostId: model.hostId, joinCode: model.joinCode,
    participants: model.participants, lines: model.lines, recasts: model.recasts,
  };
}

test('three players: host, join by code, say, recast, accept, stats, end', { skip: skipHub, timeout: 30_000 }, async () => {
  const [anaId, benId, chloeId] = ['ana', 'ben', 'chloe'].map(uniqueUser);
  await makePremium(anaId);
  const ana = makeClient(anaId, { name: 'Ana' });
  const ben = makeClient(benId, { name: 'Ben' });
  const chloe = makeClient(chloeId, { name: 'Chloé' });
  const players = [ana, ben, chloe];
  const welcome = await ana.connect();
  assert.equal(welcome.userId, anaId);
  assert.equal(welcome.displayName, 'Ana');
  assert.equal(ana.state.kind, S.CONNECTED);
  await Promise.all([ben.connect(), chloe.connect()]);

  const scenarios = await ana.scenarios();
  assert.ok(scenarios.some((s) => s.id === 'hotel-check-in'));
  assert.ok(Math.abs((await ana.ping()) - Date.now()) < 60_000);

  const hosted = await ana.host({ scenarioId: 'hotel-check-in' });
  assert.match(hosted.joinCode, /^[A-Z2-9]{6}$/);
  assert.equal(hosted.hostId, anaId);
  assert.equal(hosted.seq, 1);
  assert.ok(ana.resumeToken);
  assert.equal(ana.seat.resumeToken, ana.resumeToken);

  // Join codes are case-insensitive and ignore dashes.
  const code = hosted.joinCode;
  const benModel = await ben.join(`${code.slice(0, 3).toLowerCase()}-${code.slice(3)}`);
  assert.equal(benModel.sessionId, hosted.sessionId);
  await chloe.join(code);
  await eventually(() => ana.session.participants.length === 3 && ben.session.participants.length === 3, 'everyone present');
  assert.deepEqual(ana.session.participants.map((p) => [p.userId, p.roleName, p.isHost, p.connected]), [
    [anaId, 'Receptionist', true, true], [benId, 'Guest', false, true], [chloeId, 'Porter', false, true],
  ]);
  assert.equal(ana.session.participant(chloeId).displayName, 'Chloé');

  // Lines, each resolved once everyone was sent it; everyone sees them in order.
  const seen = new Map(players.map((p) => [p, []]));
  for (const p of players) p.on('line', (m) => seen.get(p).push(m.line.id));
  const l1 = await ana.say('Bonjour, bienvenue à l\'hôtel Belle Vue.', { translation: 'Hello, welcome to the Belle Vue hotel.' });
  assert.equal(l1.speakerId, anaId);
  assert.ok(l1.clientId, 'a clientId was made up');
  const l2 = await ben.say('Bonjour, je ai une réservation au nom de Martin.', { translation: 'Hello, I have a reservation.', clientId: 'ben-1' });
  assert.equal(l2.clientId, 'ben-1');
  assert.equal(l2.roleName, 'Guest');
  // Player text stays text: markup is carried verbatim, never interpreted.
  const l3 = await chloe.say('<b>Je porte</b> vos bagages & <script>x</script>');
  assert.equal(l3.textNative, '<b>Je porte</b> vos bagages & <script>x</script>');

  // Chloé corrects Ben; Ben accepts.
  const recast = await chloe.recast({ lineId: l2.id, correctedText: 'Bonjour, j\'ai une réservation au nom de Martin.',
    explanation: 'je + ai → j\'ai', issueTypes: ['grammar', 'grammar'] });
  assert.equal(recast.authorId, chloeId);
  assert.equal(recast.speakerId, benId);
  assert.deepEqual(recast.issueTypes, ['grammar']);
  await eventually(() => ben.session.recasts.length === 1, 'the recast reaching Ben');
  const accepted = await ben.acceptRecast(recast.id);
  assert.equal(accepted.type, 'recastAccepted');
  await eventually(() => players.every((p) => p.session.recasts[0]?.accepted === true), 'the acceptance reaching everyone');

  // Live stats with XP, from the session clock (at most once a second).
  await eventually(() => players.every((p) => p.session.stats.get(benId)?.stats?.errorsCorrected === 1), 'stats with the accepted recast', 5000);
  const benFigures = ana.session.stats.get(benId);
  assert.equal(benFigures.stats.linesSpoken, 1);
  assert.ok(ana.session.xp(anaId) > 0, 'Ana earned XP');
  assert.equal(benFigures.collaboration.successfulRepairs, 1);
  assert.equal(ana.session.stats.get(chloeId).collaboration.helpGiven, 1);
  assert.deepEqual(benFigures.weakSpots, { grammar: 1 });

  // The host ends; everyone gets the summary and goes back to the lobby.
  assert.equal(ana.inSession, true);
  const lefts = players.map((p) => p.waitFor('left', (m) => m.reason === 'ended', 5000));
  const ended = await ana.end();
  assert.equal(ended.cause, 'hostEnded');
  assert.equal(ended.goalReached, false);
  await Promise.all(lefts);
  for (const p of players) {
    assert.equal(p.inSession, false);
    assert.equal(p.seat, null, 'no seat after the end');
    assert.equal(p.session.ended.cause, 'hostEnded');
    assert.equal(p.state.kind, S.CONNECTED);
  }
  const summary = new Map(ended.participants.map((f) => [f.userId, f]));
  assert.deepEqual([...summary.keys()].sort(), [anaId, benId, chloeId].sort());
  assert.equal(summary.get(anaId).history.status, 'Success', 'premium: stored in history');
  assert.deepEqual(summary.get(benId).history, { status: 'Error', reason: 'featureLocked' });
  assert.ok(summary.get(anaId).stats.xpEarned > 0);
  assert.equal(summary.get(benId).stats.errorsCorrected, 1);
  assert.equal(ana.session.xp(benId), summary.get(benId).stats.xpEarned, 'final figures in the model');

  // Every model is the same, seq without gaps, lines once each.
  const reference = shared(ana.session);
  for (const p of [ben, chloe]) assert.deepEqual(shared(p.session), reference);
  assert.deepEqual(reference.lines.map((l) => l.id), ['l1', 'l2', 'l3']);
  for (const p of players) assert.deepEqual(seen.get(p), ['l1', 'l2', 'l3']);

  // Ana's history holds it.
  const history = await ana.history({ limit: 5 });
  assert.ok(history.sessions.some((s) => s.sessionId === hosted.sessionId));
  await assert.rejects(ben.history(), { code: 'feature_locked' });
  for (const p of players) p.close();
});

test('refusals carry the hub\'s stable code', { skip: skipHub, timeout: 20_000 }, async () => {
  const [anaId, benId] = ['ana', 'ben'].map(uniqueUser);
  const ana = makeClient(anaId);
  const ben = makeClient(benId);
  await Promise.all([ana.connect(), ben.connect()]);
  await assert.rejects(ben.join('ZZZZZZ'), (error) => error instanceof SessionHubError && error.kind === 'refused' && error.code === 'unknown_join_code');
  await assert.rejects(ana.host({ scenarioId: 'no-such-scenario' }), { code: 'unknown_scenario' });
  await assert.rejects(ana.host({ scenarioId: 'hotel-check-in', maxPlayers: 99 }), { code: 'invalid_field' });
  const { joinCode } = await ana.host({ scenarioId: 'hotel-check-in' });
  await ben.join(joinCode);
  const line = await ana.say('Bonjour.');
  await assert.rejects(ana.recast({ lineId: line.id, correctedText: 'Bonjour !', issueTypes: ['grammar'] }), { code: 'not_allowed' });
  await assert.rejects(ben.recast({ lineId: 'l99', correctedText: 'x', issueTypes: ['grammar'] }), { code: 'unknown_line' });
  await assert.rejects(ben.say('   '), { code: 'empty_text' });
  await assert.rejects(ben.say('x'.repeat(501)), { code: 'text_too_long' });
  await assert.rejects(ben.end(), { code: 'not_allowed' });
  await assert.rejects(ben.acceptRecast('r42'), { code: 'unknown_recast' });
  // A line said again under its clientId is not recorded twice: the hub answers duplicate_line,
  // and the say resolves with the line recorded the first time.
  const first = await ben.say('Une chambre, s\'il vous plaît.', { clientId: 'ben-room' });
  const again = await ben.say('Une chambre, s\'il vous plaît.', { clientId: 'ben-room' });
  assert.deepEqual(again, first);
  // Broadcasts come in seq order: once a later line reached Ana, anything before it did too.
  await ben.say('Pour deux nuits.');
  await eventually(() => ana.session.lines.some((l) => l.textNative === 'Pour deux nuits.'), 'the later line reaching Ana');
  assert.equal(ana.session.lines.filter((l) => l.clientId === 'ben-room').length, 1);
  // The refused requests changed nothing.
  assert.deepEqual(ana.session.lines.map((l) => l.id), ['l1', 'l2', 'l3']);
  assert.deepEqual(ben.session.lines.map((l) => l.id), ['l1', 'l2', 'l3']);
  // Leaving for good: ana is told; ben is back in the lobby.
  const leftNotice = ana.waitFor('participants', (m) => m.change.userId === benId && m.change.kind === 'left');
  await ben.leave();
  await leftNotice;
  assert.equal(ben.inSession, false);
  await assert.rejects(ben.say('gone'), { code: 'wrong_state' });
  ana.close();
  ben.close();
});

test('a bad token is refused for good: no reconnect, the close reason\'s code', { skip: skipHub, timeout: 10_000 }, async () => {
  const states = [];
  const client = new SessionHubClient(hubURL, { token: async () => 'not-a-token', WebSocket, requestTimeout: 5000 });
  client.on('state', (s) => states.push(s.kind));
  await assert.rejects(client.connect(), (error) => error.kind === 'connectionClosed' && error.code === 'token_malformed' && error.closeCode === 1008);
  assert.deepEqual(states, [S.CONNECTING, S.CLOSED]);
  assert.equal(client.state.code, 1008);
});
