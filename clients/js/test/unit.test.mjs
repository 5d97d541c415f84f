// Unit tests of the client's parts: the connection state machine, the reconnect policy, the
// session model's seq handling, the request book's matching and the line outbox.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  Action, ApplyOutcome, ConnectionState as S, LineOutbox, ReconnectPolicy, RequestBook, SessionHubError, SessionModel, transition,
} from '../sessionhub.js';
import { lineBroadcast, snapshot } from './support/fake.mjs';

const policy = new ReconnectPolicy({ initialDelay: 100, maxDelay: 1000, maxAttempts: 3 });

test('state machine: connect, welcome, drop in a session, back', () => {
  let step = transition({ kind: S.IDLE }, { type: 'connect' }, { policy });
  assert.deepEqual(step, { state: { kind: S.CONNECTING }, actions: [Action.OPEN] });
  step = transition(step.state, { type: 'welcomed', userId: 'ana' }, { policy });
  assert.deepEqual(step.state, { kind: S.CONNECTED, userId: 'ana' });
  step = transition(step.state, { type: 'socketClosed', code: null, reason: '', inSession: true, welcomed: true }, { policy });
  assert.deepEqual(step.state, { kind: S.RECONNECTING, attempt: 1, code: null, reason: '' });
  assert.deepEqual(step.actions, [Action.FAIL_REQUESTS, Action.HOLD_SEAT, Action.SCHEDULE_ATTEMPT]);
  step = transition(step.state, { type: 'attemptFailed' }, { policy });
  assert.deepEqual(step, { state: { kind: S.RECONNECTING, attempt: 2, code: null, reason: '' }, actions: [Action.SCHEDULE_ATTEMPT] });
  // A socket of the attempt closing: the attempt sees it; the state stays.
  const during = transition(step.state, { type: 'socketClosed', code: null, reason: '', welcomed: true }, { policy });
  assert.deepEqual(during, { state: step.state, actions: [Action.FAIL_REQUESTS] });
  step = transition(step.state, { type: 'back', userId: 'ana' }, { policy });
  assert.deepEqual(step, { state: { kind: S.CONNECTED, userId: 'ana' }, actions: [] });
});

test('state machine: a drop outside a session fails the lines; gives up after maxAttempts', () => {
  let step = transition({ kind: S.CONNECTED, userId: 'ana' }, { type: 'socketClosed', code: 1001, reason: 'server shutting down', inSession: false, welcomed: true }, { policy });
  assert.deepEqual(step.actions, [Action.FAIL_REQUESTS, Action.FAIL_LINES, Action.SCHEDULE_ATTEMPT]);
  step = transition({ kind: S.RECONNECTING, attempt: 3 }, { type: 'attemptFailed' }, { policy });
  assert.equal(step.state.kind, S.CLOSED);
  assert.equal(step.state.reason, 'gave up reconnecting');
  assert.ok(step.actions.includes(Action.FAIL_LINES));
});

test('state machine: which closes reconnect', () => {
  const connected = { kind: S.CONNECTED, userId: 'ana' };
  const closedWith = (code, reason, extra = {}) =>
    transition(connected, { type: 'socketClosed', code, reason, inSession: true, welcomed: true, ...extra }, { policy }).state.kind;
  assert.equal(closedWith(null, ''), S.RECONNECTING);
  assert.equal(closedWith(1012, 'session_moved: …'), S.RECONNECTING);
  assert.equal(closedWith(1008, 'token_expired: token expired'), S.RECONNECTING);
  assert.equal(closedWith(1008, 'token_unknown_key: …'), S.RECONNECTING);
  assert.equal(closedWith(1008, 'token_signature: invalid token signature'), S.CLOSED);
  assert.equal(closedWith(1008, 'too many invalid requests'), S.CLOSED);
  assert.equal(closedWith(1002, 'protocol'), S.CLOSED);
  assert.equal(closedWith(4000, 'connection dropped', { onPurpose: true }), S.RECONNECTING);
  // No policy: never.
  assert.equal(transition(connected, { type: 'socketClosed', code: null, reason: '', welcomed: true }, { policy: null }).state.kind, S.CLOSED);
  // A socket being opened for a redirect (not welcomed) fails its opener only.
  assert.equal(closedWith(null, '', { welcomed: false }), S.CONNECTED);
});

test('state machine: close from anywhere but idle and closed; unexpected events change nothing', () => {
  for (const state of [{ kind: S.CONNECTING }, { kind: S.CONNECTED, userId: 'a' }, { kind: S.RECONNECTING, attempt: 2 }]) {
    const step = transition(state, { type: 'close' }, { policy });
    assert.equal(step.state.kind, S.CLOSED);
    assert.deepEqual(step.actions, [Action.CANCEL_ATTEMPT, Action.CLOSE_SOCKET, Action.FAIL_REQUESTS, Action.DROP_SEAT, Action.FAIL_LINES]);
  }
  const idle = { kind: S.IDLE };
  assert.deepEqual(transition(idle, { type: 'close' }, { policy }), { state: idle, actions: [] });
  assert.deepEqual(transition(idle, { type: 'back', userId: 'x' }, { policy }), { state: idle, actions: [] });
  const connected = { kind: S.CONNECTED, userId: 'a' };
  assert.deepEqual(transition(connected, { type: 'connect' }, { policy }), { state: connected, actions: [] });
  assert.equal(transition({ kind: S.CLOSED, code: 1000, reason: '' }, { type: 'connect' }, { policy }).state.kind, S.CONNECTING);
});

test('reconnect policy: exponential backoff with full jitter, capped', () => {
  const p = new ReconnectPolicy({ initialDelay: 250, maxDelay: 10_000 });
  assert.equal(p.delay(1, 0.999999) < 250, true);
  assert.equal(p.delay(1, 0), 0);
  assert.equal(p.delay(3, 0.5), 500);
  assert.equal(p.delay(10, 1), 10_000);
  assert.equal(p.delay(1000, 1), 10_000);
  assert.equal(new ReconnectPolicy({ initialDelay: 500, maxDelay: 100 }).maxDelay, 500);
});

test('model: applies the next seq once; duplicates, gaps and other sessions are not applied', () => {
  const model = new SessionModel(snapshot({ seq: 3 }));
  assert.deepEqual(model.apply(lineBroadcast({ seq: 3, n: 1 })), { kind: ApplyOutcome.DUPLICATE });
  assert.deepEqual(model.apply(lineBroadcast({ seq: 5, n: 2 })), { kind: ApplyOutcome.GAP, expected: 4, got: 5 });
  assert.deepEqual(model.apply(lineBroadcast({ sessionId: 'other', seq: 4, n: 1 })), { kind: ApplyOutcome.FOREIGN });
  assert.deepEqual(model.apply({ type: 'pong', serverTime: 1 }), { kind: ApplyOutcome.NOT_A_BROADCAST });
  assert.equal(model.lines.length, 0);
  assert.deepEqual(model.apply(lineBroadcast({ seq: 4, n: 1 })), { kind: ApplyOutcome.APPLIED });
  assert.deepEqual(model.apply(lineBroadcast({ seq: 4, n: 1 })), { kind: ApplyOutcome.DUPLICATE });
  assert.equal(model.apply(lineBroadcast({ seq: 5, n: 2 })).kind, ApplyOutcome.APPLIED);
  assert.deepEqual(model.lines.map((l) => l.id), ['l1', 'l2']);
  assert.equal(model.seq, 5);
  const recast = { id: 'r1', lineId: 'l1', authorId: 'ben', speakerId: 'ana', correctedText: 'x', explanation: null, issueTypes: ['grammar'], timestamp: 1, accepted: false };
  model.apply({ type: 'recast', sessionId: 's1', seq: 6, recast });
  model.apply({ type: 'recastAccepted', sessionId: 's1', seq: 7, recastId: 'r1', lineId: 'l1', userId: 'ana' });
  assert.equal(model.recasts[0].accepted, true);
  assert.equal(recast.accepted, false, 'the message itself is not changed');
  model.apply({ type: 'hostChanged', sessionId: 's1', seq: 8, userId: 'ben' });
  assert.equal(model.hostId, 'ben');
  model.apply({ type: 'stats', sessionId: 's1', seq: 9, participants: [{ userId: 'ana', stats: { xpEarned: 23 } }] });
  assert.equal(model.xp('ana'), 23);
  model.apply({ type: 'somethingNew', sessionId: 's1', seq: 10 });
  assert.equal(model.seq, 10, 'an unknown broadcast still counts');
  model.apply({ type: 'ended', sessionId: 's1', seq: 11, cause: 'hostEnded', participants: [{ userId: 'ana', stats: { xpEarned: 40 } }] });
  assert.equal(model.ended.cause, 'hostEnded');
  assert.equal(model.xp('ana'), 40);
});

test('model: a user id like __proto__ is just a key', () => {
  const model = new SessionModel(snapshot({ seq: 1 }));
  model.apply({ type: 'stats', sessionId: 's1', seq: 2, participants: [{ userId: '__proto__', stats: { xpEarned: 5 } }] });
  assert.equal(model.xp('__proto__'), 5);
});

test('request book: replies by ref; broadcasts only when they are our own', () => {
  const book = new RequestBook();
  const got = [];
  const waiter = (name) => ({ resolve: (m) => got.push([name, m.type]), reject: (e) => got.push([name, e.code]) });
  book.add('1', 'line', waiter('say'));
  book.add('2', 'joined', waiter('join'));
  book.add('3', 'pong', waiter('ping'));
  // Someone else's line carrying our ref (ids are per connection): not ours.
  assert.equal(book.answer(lineBroadcast({ seq: 2, n: 1, ref: '1', speakerId: 'ben' }), 'ana'), null);
  const own = book.answer(lineBroadcast({ seq: 2, n: 1, ref: '1' }), 'ana');
  own.waiter.resolve(own.message);
  // A message of another type under a waiting ref does not answer it.
  assert.equal(book.answer({ type: 'pong', ref: '2' }, 'ana'), null);
  const refused = book.answer({ type: 'error', ref: '2', code: 'join_locked', message: 'locked', retryAfter: 900 }, 'ana');
  assert.equal(refused.error.code, 'join_locked');
  assert.equal(refused.error.retryAfter, 900);
  assert.ok(refused.error instanceof SessionHubError);
  assert.equal(book.size, 1);
  assert.equal(book.removeAll().length, 1);
  assert.deepEqual(got, [['say', 'line']]);
});

test('outbox: in order, by clientId or by the latest request id', () => {
  const outbox = new LineOutbox();
  outbox.add('c1', 'one', '', 'w1');
  outbox.add('c2', 'two', '', 'w2');
  outbox.sent('c1', 'r1');
  outbox.sent('c1', 'r3');
  assert.equal(outbox.takeRequestId('r1'), null, 'only the latest send counts');
  assert.equal(outbox.takeClientId('c2').waiter, 'w2');
  assert.equal(outbox.takeRequestId('r3').clientId, 'c1');
  assert.ok(outbox.isEmpty);
});

test('errors: a close reason gives its stable code', () => {
  const error = SessionHubError.connectionClosed(1008, 'token_expired: token expired');
  assert.equal(error.code, 'token_expired');
  assert.equal(error.closeCode, 1008);
  assert.equal(SessionHubError.connectionClosed(null, '').code, 'connection_closed');
  assert.equal(SessionHubError.fromReply({ type: 'error', code: 'session_elsewhere', message: 'm', url: 'ws://b/ws' }).kind, 'elsewhere');
});
