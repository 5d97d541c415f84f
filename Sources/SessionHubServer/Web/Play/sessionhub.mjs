// SessionHub JavaScript client: the wire protocol of docs/PROTOCOL.md as promise-returning
// requests, a live session model and events. The same shape as the Swift client
// (Sources/SessionHubClient/); docs/WEB.md describes it. No dependencies, no build step:
// an ES module for browsers (native WebSocket) and Node (inject `ws`).
//
// Player text is data: nothing here touches the DOM or evaluates anything it receives, and no
// token is ever logged.

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/** What kind of failure a {@link SessionHubError} is. */
export const ErrorKind = Object.freeze({
  /** The hub answered `error`: `code` is its stable code (docs/PROTOCOL.md section 9). */
  REFUSED: 'refused',
  /** `session_elsewhere` the client did not (or could no longer) follow: see `url`, `retryAfter`. */
  ELSEWHERE: 'elsewhere',
  /** No open connection. */
  NOT_CONNECTED: 'notConnected',
  /** The connection closed before the answer came (the request may or may not have been done). */
  CONNECTION_CLOSED: 'connectionClosed',
  /** No answer within the request timeout. */
  TIMED_OUT: 'timedOut',
  /** A session call outside a session, or `host`/`join` while in one. */
  WRONG_STATE: 'wrongState',
  /** The connection could not be opened, the URL is not one, or an answer was not understood. */
  TRANSPORT: 'transport',
});

/**
 * Why a call failed. `code` is always a stable string: the hub's code for a refusal (e.g.
 * `unknown_join_code`, `rate_limited`), the code a close reason starts with (e.g.
 * `token_signature` for a close 1008 `token_signature: …`), else one of the client's own:
 * `not_connected`, `connection_closed`, `timed_out`, `wrong_state`, `transport`.
 */
export class SessionHubError extends Error {
  /**
   * @param {string} kind one of {@link ErrorKind}
   * @param {string} code stable code
   * @param {string} message human text
   * @param {object} [details] `retryAfter`, `node`, `url`, `closeCode`, `closeReason`, `request`
   */
  constructor(kind, code, message, details = {}) {
    super(message);
    this.name = 'SessionHubError';
    this.kind = kind;
    this.code = code;
    /** Seconds until a retry may succeed (`join_locked`, `journal_unavailable`, …), or undefined. */
    this.retryAfter = details.retryAfter;
    /** With `session_elsewhere`: the node and WebSocket URL that own the session. */
    this.node = details.node;
    this.url = details.url;
    /** With a closed connection: the close code (null: no close frame) and reason. */
    this.closeCode = details.closeCode;
    this.closeReason = details.closeReason;
    /** With a timeout: the request's `type`. */
    this.request = details.request;
  }

  /** The refusal an `error` message carries. */
  static fromReply(reply) {
    const details = { retryAfter: reply.retryAfter, node: reply.node, url: reply.url };
    const kind = reply.code === 'session_elsewhere' ? ErrorKind.ELSEWHERE : ErrorKind.REFUSED;
    return new SessionHubError(kind, String(reply.code), String(reply.message ?? reply.code), details);
  }

  static connectionClosed(closeCode, closeReason) {
    const reason = closeReason || '';
    const stable = /^([a-z][a-z0-9_]*):/.exec(reason);
    const text = `connection closed (${closeCode ?? 'no close frame'})${reason ? ' ' + reason : ''}`;
    return new SessionHubError(ErrorKind.CONNECTION_CLOSED, stable ? stable[1] : 'connection_closed', text,
      { closeCode, closeReason: reason });
  }

  static notConnected() {
    return new SessionHubError(ErrorKind.NOT_CONNECTED, 'not_connected', 'not connected');
  }

  static timedOut(request) {
    return new SessionHubError(ErrorKind.TIMED_OUT, 'timed_out', `no answer to ${request} in time`, { request });
  }

  static wrongState(why) {
    return new SessionHubError(ErrorKind.WRONG_STATE, 'wrong_state', why);
  }

  static transport(why) {
    return new SessionHubError(ErrorKind.TRANSPORT, 'transport', why);
  }
}

// ---------------------------------------------------------------------------------------------
// Reconnect policy
// ---------------------------------------------------------------------------------------------

/**
 * How the client comes back after its connection dropped: exponential backoff with full jitter
 * (each wait is random between zero and `initialDelay · 2^(attempt−1)`, capped at `maxDelay`), so
 * that many clients dropped at once do not come back at once. Times in milliseconds.
 */
export class ReconnectPolicy {
  /**
   * @param {{initialDelay?: number, maxDelay?: number, maxAttempts?: number|null}} [options]
   *   0.25 s, doubling up to 10 s, without end (`maxAttempts` null) by default.
   */
  constructor({ initialDelay = 250, maxDelay = 10_000, maxAttempts = null } = {}) {
    this.initialDelay = initialDelay;
    this.maxDelay = Math.max(initialDelay, maxDelay);
    this.maxAttempts = maxAttempts;
  }

  /** The wait before attempt `attempt` (1, 2, …), with `random` in [0, 1). */
  delay(attempt, random) {
    const doublings = Math.min(Math.max(attempt - 1, 0), 30);
    const cap = Math.min(this.maxDelay, this.initialDelay * 2 ** doublings);
    return cap * Math.min(Math.max(random, 0), 1);
  }

  /**
   * Whether a connection closed with `code` (null: no close frame) and `reason` is worth
   * reconnecting: it dropped, the hub is going away or restarting, the session moved to another
   * node, or the token expired (a fresh one comes from the token provider) or was signed with an
   * identity provider's key the hub has yet to load. Not after a protocol error or a refusal of
   * who the client is.
   */
  static reconnects(code, reason) {
    if (code == null) return true;
    switch (code) {
      case 1001: case 1011: case 1012: case 1013: case 1014: return true;
      case 1008: return reason.startsWith('token_expired') || reason.startsWith('token_unknown_key');
      default: return false;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Connection state machine
// ---------------------------------------------------------------------------------------------

/** The kinds of {@link ConnectionStateValue}: where the client's connection stands. */
export const ConnectionState = Object.freeze({
  /** Not connected yet. */
  IDLE: 'idle',
  /** Opening the connection and authenticating. */
  CONNECTING: 'connecting',
  /** Authenticated as `userId` (after a drop: and back in the session, if it still had one). */
  CONNECTED: 'connected',
  /**
   * The connection dropped; attempt `attempt` to come back is under way (`code` and `reason`:
   * the close that started it, null code: no close frame).
   */
  RECONNECTING: 'reconnecting',
  /** Closed, by either side, with `code` (null: no close frame) and `reason`. */
  CLOSED: 'closed',
});

/** What the client does on a transition (see {@link transition}). */
export const Action = Object.freeze({
  /** Open a socket with a fresh token and authenticate (the caller of `connect()` waits). */
  OPEN: 'open',
  /** Close the current socket (the client asked to). */
  CLOSE_SOCKET: 'closeSocket',
  /** Reject every request waiting for an answer. */
  FAIL_REQUESTS: 'failRequests',
  /** Reject every line of the outbox (there is no seat to send them to). */
  FAIL_LINES: 'failLines',
  /** Keep the seat: resume it once reconnected; the outbox waits. */
  HOLD_SEAT: 'holdSeat',
  /** Forget the seat (no resume). */
  DROP_SEAT: 'dropSeat',
  /** Wait the backoff for the state's `attempt`, then try to reconnect. */
  SCHEDULE_ATTEMPT: 'scheduleAttempt',
  /** Stop a scheduled or running reconnect attempt. */
  CANCEL_ATTEMPT: 'cancelAttempt',
});

/**
 * The connection state machine, pure: the next state and what to do, for an event in a state.
 * Modelled on the Swift client's `ConnectionState` and its transitions.
 *
 * Events (`type`):
 * - `connect`: the app calls `connect()` (from idle or closed).
 * - `welcomed` `{userId}`: the first connection is authenticated.
 * - `openFailed` `{reason}`: the first connection could not be opened or authenticated.
 * - `socketClosed` `{code, reason, onPurpose, inSession, welcomed}`: the current socket closed
 *   without the client asking (`onPurpose`: `dropConnection()` asked for a drop).
 * - `attemptFailed`: a reconnect attempt did not get back.
 * - `back` `{userId}`: a reconnect attempt got back (and resumed the seat, if there was one).
 * - `redirectFailed` `{reason}`: following `session_elsewhere` to another node failed.
 * - `close`: the app calls `close()`.
 *
 * An event a state does not expect leaves it as it is, with no action.
 *
 * @param {{kind: string, userId?: string, attempt?: number, code?: number|null, reason?: string}} state
 * @param {{type: string, [key: string]: any}} event
 * @param {{policy: ReconnectPolicy|null}} context
 * @returns {{state: object, actions: string[]}}
 */
export function transition(state, event, { policy }) {
  const S = ConnectionState, A = Action;
  const stay = { state, actions: [] };
  /** Closed for good: whatever waits fails, and the seat is not resumed by this client. */
  const closed = (code, reason) => ({
    state: { kind: S.CLOSED, code, reason },
    actions: [A.FAIL_REQUESTS, A.DROP_SEAT, A.FAIL_LINES],
  });
  switch (event.type) {
    case 'connect':
      if (state.kind !== S.IDLE && state.kind !== S.CLOSED) return stay;
      return { state: { kind: S.CONNECTING }, actions: [A.OPEN] };
    case 'welcomed':
      if (state.kind !== S.CONNECTING) return stay;
      return { state: { kind: S.CONNECTED, userId: event.userId }, actions: [] };
    case 'openFailed':
      return state.kind === S.CONNECTING ? closed(null, event.reason) : stay;
    case 'socketClosed':
      if (state.kind === S.CONNECTING) return closed(event.code, event.reason);
      // The attempt under way sees its own failure; a socket being opened for a redirect
      // (not welcomed yet) fails its opener.
      if (state.kind === S.RECONNECTING || (state.kind === S.CONNECTED && !event.welcomed)) {
        return { state, actions: [A.FAIL_REQUESTS] };
      }
      if (state.kind !== S.CONNECTED) return stay;
      if (policy && (event.onPurpose || ReconnectPolicy.reconnects(event.code, event.reason))) {
        return {
          state: { kind: S.RECONNECTING, attempt: 1, code: event.code, reason: event.reason },
          actions: [A.FAIL_REQUESTS, event.inSession ? A.HOLD_SEAT : A.FAIL_LINES, A.SCHEDULE_ATTEMPT],
        };
      }
      return closed(event.code, event.reason);
    case 'attemptFailed': {
      if (state.kind !== S.RECONNECTING) return stay;
      const next = state.attempt + 1;
      if (policy?.maxAttempts != null && next > policy.maxAttempts) return closed(null, 'gave up reconnecting');
      return { state: { ...state, attempt: next }, actions: [A.SCHEDULE_ATTEMPT] };
    }
    case 'back':
      if (state.kind !== S.RECONNECTING) return stay;
      return { state: { kind: S.CONNECTED, userId: event.userId }, actions: [] };
    case 'redirectFailed':
      return state.kind === S.CONNECTED ? closed(null, event.reason) : stay;
    case 'close':
      if (state.kind === S.IDLE || state.kind === S.CLOSED) return stay;
      return {
        state: { kind: S.CLOSED, code: null, reason: 'closed by the client' },
        actions: [A.CANCEL_ATTEMPT, A.CLOSE_SOCKET, A.FAIL_REQUESTS, A.DROP_SEAT, A.FAIL_LINES],
      };
    default:
      return stay;
  }
}

// ---------------------------------------------------------------------------------------------
// Request book
// ---------------------------------------------------------------------------------------------

/**
 * The requests waiting for their answer, each under its own id, and the rule that matches a
 * message from the hub to one of them (docs/PROTOCOL.md section 5).
 *
 * A reply to one connection (`joined`, `pong`, `error`, …) answers the request its `ref` names.
 * A broadcast answers a request only when it is the client's own: everyone sees the `ref` of
 * the member who caused a broadcast, so a `line` answers a `say` only if its speaker is this user
 * (likewise `recast` and `recastAccepted`); `ended` answers an `end`.
 */
export class RequestBook {
  #waiting = new Map();

  get size() { return this.#waiting.size; }

  /** Waits for `answer` (a message type) to the request `id`. */
  add(id, answer, waiter) { this.#waiting.set(id, { answer, waiter }); }

  /** Removes the request `id` (timed out), returning its waiter if it still waited. */
  remove(id) {
    const entry = this.#waiting.get(id);
    this.#waiting.delete(id);
    return entry?.waiter;
  }

  /**
   * The request `message` answers, removed from the book, with the outcome, or null.
   * @returns {null | {waiter: any, message?: object, error?: SessionHubError}}
   */
  answer(message, userId) {
    const ref = typeof message.ref === 'string' ? message.ref : undefined;
    if (ref === undefined || !this.#waiting.has(ref)) return null;
    const entry = this.#waiting.get(ref);
    if (message.type === 'error') {
      this.#waiting.delete(ref);
      return { waiter: entry.waiter, error: SessionHubError.fromReply(message) };
    }
    let answer;
    switch (message.type) {
      case 'welcome': case 'joined': case 'resumed': case 'scenarios': case 'pong': case 'left': case 'ended':
      case 'profile': case 'history': case 'historySession':
        answer = message.type; break;
      case 'line': answer = message.line?.speakerId === userId ? 'line' : null; break;
      case 'recast': answer = message.recast?.authorId === userId ? 'recast' : null; break;
      case 'recastAccepted': answer = message.userId === userId ? 'recastAccepted' : null; break;
      default: answer = null;
    }
    if (answer === null || answer !== entry.answer) return null;
    this.#waiting.delete(ref);
    return { waiter: entry.waiter, message };
  }

  /** Empties the book (the connection closed): every waiter, for the caller to fail. */
  removeAll() {
    const waiters = [...this.#waiting.values()].map((entry) => entry.waiter);
    this.#waiting.clear();
    return waiters;
  }
}

// ---------------------------------------------------------------------------------------------
// Line outbox
// ---------------------------------------------------------------------------------------------

/**
 * The lines a client said that the hub has not acknowledged yet, in the order they were said,
 * each under the `clientId` that makes sending it again safe (docs/PROTOCOL.md section 13: the
 * hub refuses a repeat with `duplicate_line` instead of recording it twice).
 *
 * A line leaves the outbox when the speaker's own copy of it arrives (matched by `clientId`,
 * whether live or in a resume's replay), or when the hub refuses it. After a resume, the lines
 * still in the outbox are sent again, in order.
 */
export class LineOutbox {
  /**
   * `requestId`: the id of its latest send (null until sent); `timer`: its answer's timeout.
   * @type {{clientId: string, text: string, translation: string, waiter: any, requestId: string|null, timer: any}[]}
   */
  lines = [];

  get isEmpty() { return this.lines.length === 0; }

  add(clientId, text, translation, waiter) {
    this.lines.push({ clientId, text, translation, waiter, requestId: null, timer: null });
  }

  /** Notes that the line `clientId` was sent under `requestId`. */
  sent(clientId, requestId) {
    const line = this.lines.find((l) => l.clientId === clientId);
    if (line) line.requestId = requestId;
  }

  /** Takes the line `clientId` out (acknowledged), if it is there. */
  takeClientId(clientId) { return this.#take((l) => l.clientId === clientId); }

  /** Takes the line last sent under `requestId` out (refused or timed out), if it is there. */
  takeRequestId(requestId) { return this.#take((l) => l.requestId === requestId); }

  /** Empties the outbox: every line, for the caller to fail. */
  removeAll() {
    const lines = this.lines;
    this.lines = [];
    return lines;
  }

  #take(predicate) {
    const index = this.lines.findIndex(predicate);
    return index < 0 ? null : this.lines.splice(index, 1)[0];
  }
}

// ---------------------------------------------------------------------------------------------
// Session model
// ---------------------------------------------------------------------------------------------

/** What {@link SessionModel#apply} did with a message. */
export const ApplyOutcome = Object.freeze({
  /** Applied: it was the next `seq`. */
  APPLIED: 'applied',
  /** Already applied (a `seq` at or below the model's): ignored. */
  DUPLICATE: 'duplicate',
  /** Of another session: ignored. */
  FOREIGN: 'foreign',
  /** A `seq` was skipped: not applied; the model needs a resume to catch up. */
  GAP: 'gap',
  /** Not a broadcast. */
  NOT_A_BROADCAST: 'notABroadcast',
});

/**
 * A session as the client sees it, always consistent: the `joined` (or `resumed`) snapshot with
 * every later broadcast applied in `seq` order, each exactly once. This is what an app renders.
 * Every string in it is player or hub data: render it as text, never as HTML.
 */
export class SessionModel {
  /**
   * @param {object} snapshot a SessionSnapshot (docs/PROTOCOL.md section 8), or what
   *   {@link SessionModel#toJSON} made
   */
  constructor(snapshot) {
    /** The session (32 hex digits). */
    this.sessionId = snapshot.sessionId;
    /** Its scenario (roles, goal, hints). */
    this.scenario = snapshot.scenario;
    /** The code others join with (null for a solo session). */
    this.joinCode = snapshot.joinCode ?? null;
    /** The current host. */
    this.hostId = snapshot.hostId ?? null;
    /** Seats at most. */
    this.maxPlayers = snapshot.maxPlayers;
    /** When it started (epoch ms). */
    this.startedAt = snapshot.startedAt;
    /** The `seq` of the last broadcast applied: a resume's `lastSeq`. */
    this.seq = snapshot.seq;
    /** This member (ParticipantInfo as of the snapshot; current presence is in `participants`). */
    this.you = snapshot.you ?? null;
    /** The present participants, in join order (role, `isHost`, `connected`). */
    this.participants = [...(snapshot.participants ?? [])];
    /** Every line, in order. */
    this.lines = [...(snapshot.lines ?? [])];
    /** Every correction, in order (`accepted` kept up to date). */
    this.recasts = (snapshot.recasts ?? []).map((r) => ({ ...r }));
    /**
     * The latest figures (ParticipantStats: stats with XP, collaboration, weak spots) by user id:
     * live ones from `stats` broadcasts since this client joined (a snapshot carries none), and
     * once the session ended, everyone's final figures.
     * @type {Map<string, object>}
     */
    this.stats = new Map((snapshot.stats ?? []).map((figures) => [figures.userId, figures]));
    /** The `ended` broadcast, once the session is over. */
    this.ended = null;
  }

  /** Plain JSON of the model, for a saved seat (`new SessionModel(json)` reads it; `ended` is left out). */
  toJSON() {
    const { sessionId, scenario, joinCode, hostId, maxPlayers, startedAt, seq, you, participants, lines, recasts } = this;
    const stats = [...this.stats.values()];
    return { sessionId, scenario, joinCode, hostId, maxPlayers, startedAt, seq, you, participants, lines, recasts, stats };
  }

  /** The participant `userId` among those present, or undefined. */
  participant(userId) { return this.participants.find((p) => p.userId === userId); }

  /** The XP `userId` earned so far (latest figures), or undefined before any `stats`. */
  xp(userId) { return this.stats.get(userId)?.stats?.xpEarned; }

  /**
   * Applies `message` if it is this session's next broadcast.
   * @returns {{kind: string, expected?: number, got?: number}} kind: one of {@link ApplyOutcome}
   */
  apply(message) {
    const { seq, sessionId } = message ?? {};
    if (!Number.isInteger(seq) || typeof sessionId !== 'string') return { kind: ApplyOutcome.NOT_A_BROADCAST };
    if (sessionId !== this.sessionId) return { kind: ApplyOutcome.FOREIGN };
    if (seq <= this.seq) return { kind: ApplyOutcome.DUPLICATE };
    if (seq !== this.seq + 1) return { kind: ApplyOutcome.GAP, expected: this.seq + 1, got: seq };
    switch (message.type) {
      case 'participants':
        this.participants = [...message.participants];
        break;
      case 'line':
        this.lines.push(message.line);
        break;
      case 'recast':
        this.recasts.push({ ...message.recast });
        break;
      case 'recastAccepted': {
        const recast = this.recasts.find((r) => r.id === message.recastId);
        if (recast) recast.accepted = true;
        break;
      }
      case 'hostChanged':
        this.hostId = message.userId;
        break;
      case 'stats':
        for (const figures of message.participants) this.stats.set(figures.userId, figures);
        break;
      case 'ended':
        this.ended = message;
        this.stats = new Map(message.participants.map((figures) => [figures.userId, figures]));
        break;
      default:
        break; // a broadcast of a newer protocol: its seq still counts
    }
    this.seq = seq;
    return { kind: ApplyOutcome.APPLIED };
  }
}

// ---------------------------------------------------------------------------------------------
// The client
// ---------------------------------------------------------------------------------------------

const OPEN = 1; // WebSocket.OPEN, the same in browsers and in `ws`
/** Refusals of `resume` after which the seat is gone for good; any other is tried again. */
const FINAL_RESUME_REFUSALS = new Set(['invalid_resume_token', 'invalid_last_seq', 'session_ended', 'not_in_session']);
/** How many `session_elsewhere` hops a request follows. */
const MAX_HOPS = 5;

function randomPrefix() {
  const bytes = new Uint8Array(6);
  if (globalThis.crypto?.getRandomValues) globalThis.crypto.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  return Array.from(bytes, (b) => b.toString(36).padStart(2, '0')).join('') + '-';
}

/** The `iat` and `exp` claims of a JWT (seconds), or null. Reads; never verifies, never logs. */
function tokenTimes(token) {
  try {
    const part = token.split('.')[1];
    const base64 = part.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((part.length + 3) % 4);
    const claims = JSON.parse(atob(base64));
    return Number.isFinite(claims.exp) ? { iat: Number(claims.iat) || null, exp: claims.exp } : null;
  } catch {
    return null;
  }
}

function checkWebSocketURL(url) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    throw SessionHubError.transport(`not a WebSocket URL: ${url}`);
  }
  if (parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:') throw SessionHubError.transport(`not a WebSocket URL: ${url}`);
  return parsed.href;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A player's connection to a SessionHub: typed requests as promises, each matched to its own
 * answer, the session's messages as events, and a live {@link SessionModel} that is always the
 * `joined` snapshot with every later broadcast applied once, in order.
 *
 * Drops: calls waiting for an answer reject with `connectionClosed` (except `say`, whose lines
 * wait in an outbox), and the client comes back by itself ({@link ReconnectPolicy}): a new
 * connection with a fresh token, then `resume` with the newest resume token and the model's
 * `seq`, so the model continues with exactly the broadcasts it missed, then the lines the hub
 * did not acknowledge go out again with their `clientId`.
 *
 * Events (`on(type, listener)`): `state` (state, previous), `model` (model, message), `seat`
 * (what `seat` returns, when a page should save it again), `message` (every message from the
 * hub, after it was applied), `broadcast` (message, outcome), and each
 * message by its type (`participants`, `line`, `recast`, `recastAccepted`, `hostChanged`,
 * `stats`, `ended`, `left`, `error`, `welcome`, `resumed`, …).
 */
export class SessionHubClient {
  // Configuration
  #homeUrl;
  #url;
  #tokenProvider;
  #WebSocket;
  #requestTimeout;
  #policy;
  #random;
  #renew;
  #prefix = randomPrefix();
  #nextId = 0;
  #lineNumber = 0;

  // Connection
  #state = { kind: ConnectionState.IDLE };
  #socket = null;
  #socketWelcomed = false;
  /** Waiter of the socket being opened: rejected when it closes before it opened. */
  #opening = null;
  #welcome = null;
  /** Bumped by `close()`: async work of an older epoch stops. */
  #epoch = 0;
  #attemptTimer = null;
  #renewTimer = null;
  #droppingOnPurpose = false;
  /** The failure the actions of the transition under way hand out. */
  #failure = null;

  // Session
  #book = new RequestBook();
  #outbox = new LineOutbox();
  #session = null;
  #inSession = false;
  #resumeToken = null;
  /** The connection dropped while in a session; the client is coming back to it. */
  #awaitingResume = false;
  /** After a replay reaches this `seq`, the outbox is sent again. */
  #resendAfter = null;
  /** A `resume` went out and no answer came: the hub may hold a token we never got. */
  #resumeAnswerLost = false;
  /** Until when (epoch ms) `invalid_resume_token` after such a lost answer is tried again. */
  #staleTokenDeadline = null;

  #listeners = new Map();
  /** What `seat` returns changed since the last `seat` event. */
  #seatDirty = false;
  /** The hub holds a seat for this client (from `joined`/`resumed` until `left` or the seat is gone). */
  #seatHeld = false;

  /**
   * @param {string} url the hub's `/ws` URL (`wss://host/ws`, or `ws://` on a trusted network);
   *   a cluster's front: every reconnect starts here.
   * @param {object} options
   * @param {() => Promise<string>|string} options.token returns a current token; called on every
   *   connect and reconnect, and before the token expires (renewal).
   * @param {any} [options.WebSocket] a WebSocket constructor (default `globalThis.WebSocket`;
   *   in Node pass `ws`).
   * @param {number} [options.requestTimeout] ms a request may wait for its answer (10 000).
   * @param {ReconnectPolicy|object|null} [options.reconnect] how to come back after a drop;
   *   null: not at all.
   * @param {boolean} [options.renewToken] renew the token in place before it expires (true).
   * @param {() => number} [options.random] the jitter's random source (Math.random).
   */
  constructor(url, { token, WebSocket = globalThis.WebSocket, requestTimeout = 10_000, reconnect = new ReconnectPolicy(),
    renewToken = true, random = Math.random } = {}) {
    if (typeof token !== 'function') throw new TypeError('options.token must be a function returning a token');
    if (typeof WebSocket !== 'function') throw new TypeError('no WebSocket: pass options.WebSocket (in Node: the ws package)');
    this.#homeUrl = checkWebSocketURL(url);
    this.#url = this.#homeUrl;
    this.#tokenProvider = token;
    this.#WebSocket = WebSocket;
    this.#requestTimeout = requestTimeout;
    this.#policy = reconnect == null ? null : reconnect instanceof ReconnectPolicy ? reconnect : new ReconnectPolicy(reconnect);
    this.#renew = renewToken;
    this.#random = random;
  }

  // ----- State to read -----

  /** Where the connection stands: `{kind, userId?, attempt?, code?, reason?}`. */
  get state() { return this.#state; }
  /** The session this client plays in, or played in last (`inSession` tells which). */
  get session() { return this.#session; }
  /** The client is in `session` (between `joined`/`resumed` and `left`; also while coming back to it). */
  get inSession() { return this.#inSession || this.#awaitingResume; }
  /** The hub's latest `welcome`. */
  get welcome() { return this.#welcome; }
  /** The token that resumes this client's seat (from the last `joined` or `resumed`). */
  get resumeToken() { return this.#resumeToken; }
  /** The URL the current connection goes to (after a redirect: the owner node's). */
  get url() { return this.#url; }
  /** The lines said and not yet acknowledged, in order (`clientId`, `text`, `translation`). */
  get pendingLines() { return this.#outbox.lines.map(({ clientId, text, translation }) => ({ clientId, text, translation })); }

  /**
   * What to keep (e.g. in `sessionStorage`, as JSON) to take the seat back after the page is
   * reloaded: the newest resume token, the model and the unacknowledged lines; null when the
   * client holds no seat (never joined, left, the session ended, the seat expired). A `close()`
   * keeps it: the hub holds the seat for its grace window. Give it to `connect({seat})`; the
   * `seat` event says when it changed. It holds the resume token: keep it like a credential.
   */
  get seat() {
    if (!this.#seatHeld || !this.#resumeToken || !this.#session) return null;
    return { resumeToken: this.#resumeToken, session: this.#session.toJSON(), unsentLines: this.pendingLines };
  }

  // ----- Events -----

  /** Calls `listener` for every event `type`; returns a function that stops it. */
  on(type, listener) {
    if (!this.#listeners.has(type)) this.#listeners.set(type, new Set());
    this.#listeners.get(type).add(listener);
    return () => this.off(type, listener);
  }

  /** Stops `listener` for `type`. */
  off(type, listener) { this.#listeners.get(type)?.delete(listener); }

  /**
   * The next event `type` whose first argument satisfies `predicate`, or a rejection with
   * `timed_out` after `timeout` ms.
   */
  waitFor(type, predicate = () => true, timeout = this.#requestTimeout) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => { stop(); reject(SessionHubError.timedOut(`event ${type}`)); }, timeout);
      const stop = this.on(type, (value, ...rest) => {
        if (!predicate(value, ...rest)) return;
        clearTimeout(timer);
        stop();
        resolve(value);
      });
    });
  }

  #emit(type, ...args) {
    const listeners = this.#listeners.get(type);
    if (!listeners) return;
    for (const listener of [...listeners]) {
      try {
        listener(...args);
      } catch (error) {
        queueMicrotask(() => { throw error; }); // reported like an uncaught error, not swallowed
      }
    }
  }

  // ----- Connection -----

  /**
   * Opens the connection with a fresh token and resolves with the hub's `welcome`.
   * @param {{seat?: object|null}} [options] `seat`: a {@link SessionHubClient#seat} saved
   *   earlier (a page reload); default: the seat this client still holds (after `close()`). If
   *   the hub still holds that seat (`welcome.resumableSessionId`), the client resumes it and
   *   sends its unacknowledged lines (each recorded once); otherwise it stays in the lobby
   *   (`inSession` false: forget the saved seat).
   */
  async connect({ seat: saved } = {}) {
    const seat = saved ?? this.seat;
    if (this.#state.kind !== ConnectionState.IDLE && this.#state.kind !== ConnectionState.CLOSED) {
      throw SessionHubError.wrongState('already connected or connecting');
    }
    this.#dispatch({ type: 'connect' });
    const epoch = this.#epoch;
    try {
      let welcome = await this.#open();
      if (seat?.session && seat.resumeToken && welcome.resumableSessionId === seat.session.sessionId) {
        await this.#takeBack(seat);
        if (epoch !== this.#epoch || !this.#socketWelcomed) {
          throw SessionHubError.connectionClosed(null, 'the seat could not be taken back');
        }
        welcome = this.#welcome;
      } else if (seat) {
        // The hub no longer holds it: a `seat` event with null tells the page to forget it.
        this.#seatHeld = false;
        this.#seatDirty = true;
      }
      this.#dispatch({ type: 'welcomed', userId: welcome.userId });
      return welcome;
    } catch (error) {
      if (epoch === this.#epoch) {
        this.#abandon('connect failed');
        this.#dispatch({ type: 'openFailed', reason: String(error.message ?? error) }, error);
      }
      throw error;
    }
  }

  /**
   * Closes the connection (1000) and stops coming back. A seat, if any, is held for the hub's
   * grace window. Calls waiting for an answer and unacknowledged lines reject.
   */
  close() {
    this.#epoch += 1;
    this.#dispatch({ type: 'close' }, SessionHubError.connectionClosed(null, 'closed by the client'));
  }

  /**
   * Cuts the connection as a network loss would: the client reconnects and resumes per its
   * policy, exactly as after a real drop. For an app's own tests. Nothing happens when not
   * connected.
   */
  dropConnection() {
    if (!this.#socket || this.#state.kind !== ConnectionState.CONNECTED) return;
    this.#droppingOnPurpose = true;
    this.#socket.close(4000, 'connection dropped');
  }

  /**
   * Renews the connection's token in place (`auth` with a fresh token of the same user), so the
   * hub does not close it when the old one expires. Done by itself before expiry unless
   * `renewToken: false`.
   */
  async renewToken() {
    const token = await this.#tokenProvider();
    const welcome = await this.#request({ type: 'auth', token }, 'welcome');
    this.#scheduleRenewal(token);
    return welcome;
  }

  /** Moves the state machine with `event`; `failure` is what its actions reject waiters with. */
  #dispatch(event, failure = null) {
    const previous = this.#state;
    const { state, actions } = transition(previous, event, { policy: this.#policy });
    this.#state = state;
    this.#failure = failure;
    for (const action of actions) this.#perform(action);
    this.#failure = null;
    if (state !== previous) this.#emit('state', state, previous);
    this.#flushSeat();
  }

  #perform(action) {
    const failure = this.#failure ?? SessionHubError.connectionClosed(null, this.#state.reason ?? 'connection lost');
    switch (action) {
      case Action.OPEN: break; // connect() opens, and waits for it
      case Action.CLOSE_SOCKET: {
        const socket = this.#socket;
        this.#socket = null;
        this.#rejectOpening(failure);
        clearTimeout(this.#renewTimer);
        try { socket?.close(1000, 'bye'); } catch { /* already closing */ }
        break;
      }
      case Action.FAIL_REQUESTS:
        for (const waiter of this.#book.removeAll()) waiter.reject(failure);
        break;
      case Action.FAIL_LINES:
        this.#failLines(failure);
        break;
      case Action.HOLD_SEAT:
        this.#awaitingResume = true;
        break;
      case Action.DROP_SEAT:
        this.#awaitingResume = false;
        this.#inSession = false;
        this.#resendAfter = null;
        break;
      case Action.SCHEDULE_ATTEMPT: {
        const delay = this.#policy.delay(this.#state.attempt, this.#random());
        const epoch = this.#epoch;
        clearTimeout(this.#attemptTimer);
        this.#attemptTimer = setTimeout(() => this.#attempt(epoch), delay);
        break;
      }
      case Action.CANCEL_ATTEMPT:
        clearTimeout(this.#attemptTimer);
        this.#attemptTimer = null;
        break;
      default:
        break;
    }
  }

  /** One reconnect attempt: a new connection to the home URL, then the seat resumed. */
  async #attempt(epoch) {
    const current = () => epoch === this.#epoch && this.#state.kind === ConnectionState.RECONNECTING;
    if (!current()) return;
    this.#url = this.#homeUrl;
    try {
      await this.#open();
    } catch {
      if (!current()) return;
      this.#abandon('reconnect failed');
      return this.#dispatch({ type: 'attemptFailed' });
    }
    if (!current()) return;
    if (this.#awaitingResume) {
      const outcome = await this.#resumeSeat();
      if (!current()) return;
      if (outcome === 'retry') {
        this.#abandon('resume failed');
        return this.#dispatch({ type: 'attemptFailed' });
      }
    }
    if (!this.#socket || !this.#socketWelcomed) return this.#dispatch({ type: 'attemptFailed' }); // dropped again meanwhile
    this.#dispatch({ type: 'back', userId: this.#welcome.userId });
  }

  /** A new socket to `#url` with a fresh token, up to the hub's `welcome`. */
  async #open() {
    const epoch = this.#epoch;
    const closedByClient = () => SessionHubError.connectionClosed(null, 'closed by the client');
    let token;
    try {
      token = await this.#tokenProvider();
    } catch (error) {
      throw SessionHubError.transport(`the token provider failed: ${error?.message ?? error}`);
    }
    if (epoch !== this.#epoch) throw closedByClient();
    if (typeof token !== 'string' || token === '') throw SessionHubError.transport('the token provider returned no token');
    if (this.#socket) this.#abandon('replaced');
    let socket;
    try {
      socket = new this.#WebSocket(this.#url);
    } catch (error) {
      throw SessionHubError.transport(`cannot connect to ${this.#url}: ${error?.message ?? error}`);
    }
    this.#socket = socket;
    this.#socketWelcomed = false;
    socket.onopen = () => { if (socket === this.#socket) this.#opening?.resolve(); };
    socket.onmessage = (event) => { if (socket === this.#socket) this.#receive(event.data); };
    socket.onerror = () => {}; // a close event follows
    socket.onclose = (event) => {
      if (socket !== this.#socket) return; // a socket let go of
      const noFrame = event.code === 1005 || event.code === 1006;
      this.#socketClosed(noFrame ? null : event.code, event.reason || '');
    };
    // Opening, bounded by the request timeout.
    await new Promise((resolve, reject) => {
      const opening = {
        resolve: () => { clearTimeout(timer); this.#opening = null; resolve(); },
        reject: (error) => { clearTimeout(timer); this.#opening = null; reject(error); },
      };
      const timer = setTimeout(() => opening.reject(SessionHubError.timedOut('connect')), this.#requestTimeout);
      this.#opening = opening;
      if (socket.readyState === OPEN) opening.resolve();
    });
    if (epoch !== this.#epoch || socket !== this.#socket) throw closedByClient();
    // The token goes in the first message, never in the URL (browsers cannot set headers).
    const welcome = await this.#request({ type: 'auth', token }, 'welcome');
    if (socket !== this.#socket) throw closedByClient();
    this.#welcome = welcome;
    this.#socketWelcomed = true;
    this.#scheduleRenewal(token);
    return welcome;
  }

  #rejectOpening(error) { this.#opening?.reject(error); }

  /** Lets go of the current socket: its messages and close are ignored; what waited on it fails. */
  #abandon(reason) {
    const socket = this.#socket;
    this.#socket = null;
    this.#socketWelcomed = false;
    clearTimeout(this.#renewTimer);
    const failure = SessionHubError.connectionClosed(null, reason);
    this.#rejectOpening(failure);
    for (const waiter of this.#book.removeAll()) waiter.reject(failure);
    try { socket?.close(1000, reason.slice(0, 100)); } catch { /* already closing */ }
  }

  #socketClosed(code, reason) {
    const welcomed = this.#socketWelcomed;
    this.#socket = null;
    this.#socketWelcomed = false;
    clearTimeout(this.#renewTimer);
    const inSession = this.#inSession || this.#awaitingResume;
    this.#inSession = false;
    this.#resendAfter = null;
    const failure = SessionHubError.connectionClosed(code, reason);
    this.#rejectOpening(failure);
    const onPurpose = this.#droppingOnPurpose;
    this.#droppingOnPurpose = false;
    this.#dispatch({ type: 'socketClosed', code, reason, onPurpose, inSession, welcomed }, failure);
  }

  /** Renews the token a little before it expires (a quarter of its lifetime, at most a minute). */
  #scheduleRenewal(token) {
    clearTimeout(this.#renewTimer);
    if (!this.#renew) return;
    const times = tokenTimes(token);
    if (!times) return;
    const lifetime = times.iat ? times.exp - times.iat : 3600;
    const lead = Math.min(60, Math.max(1, lifetime / 4));
    const delay = Math.max(1000, (times.exp - lead) * 1000 - Date.now());
    if (delay > 2 ** 31 - 1) return; // more than 24 days away: renewed on a later connection
    const socket = this.#socket;
    this.#renewTimer = setTimeout(() => {
      if (socket !== this.#socket) return;
      this.renewToken().catch(() => {}); // refused: the hub closes with token_expired, and the client comes back
    }, delay);
  }

  #send(message) {
    this.#socket.send(JSON.stringify(message));
  }

  /** Sends `body` under a fresh id and waits for the message of type `answer` that answers it. */
  #request(body, answer) {
    const socket = this.#socket;
    if (!socket || socket.readyState !== OPEN) return Promise.reject(SessionHubError.notConnected());
    const id = this.#prefix + String(++this.#nextId);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#book.remove(id)?.reject(SessionHubError.timedOut(body.type));
      }, this.#requestTimeout);
      this.#book.add(id, answer, {
        resolve: (message) => { clearTimeout(timer); resolve(message); },
        reject: (error) => { clearTimeout(timer); reject(error); },
      });
      this.#send({ ...body, id });
    });
  }

  #receive(data) {
    if (typeof data !== 'string') return; // the hub sends text only
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return; // not a message of this protocol: skipped
    }
    if (message === null || typeof message !== 'object' || typeof message.type !== 'string') return;
    let outcome = null;
    switch (message.type) {
      case 'joined':
        this.#session = new SessionModel(message.session);
        this.#took(message.resumeToken);
        this.#emit('model', this.#session, message);
        break;
      case 'resumed':
        if (message.session) this.#session = new SessionModel(message.session);
        this.#took(message.resumeToken);
        this.#emit('model', this.#session, message);
        break;
      case 'left':
        // moved / handedOver: the session lives on at another node; the close that follows is a
        // drop to come back from, seat and all.
        if (message.reason !== 'moved' && message.reason !== 'handedOver') {
          this.#inSession = false;
          this.#seatHeld = false;
          this.#seatDirty = true;
        }
        break;
      default:
        if (this.#session && Number.isInteger(message.seq)) {
          outcome = this.#session.apply(message);
          if (outcome.kind === ApplyOutcome.APPLIED) this.#emit('model', this.#session, message);
        }
    }
    const answered = this.#book.answer(message, this.#welcome?.userId);
    if (answered) {
      if (answered.error) answered.waiter.reject(answered.error);
      else answered.waiter.resolve(answered.message);
    }
    this.#settleLines(message);
    if (outcome?.kind === ApplyOutcome.APPLIED && this.#resendAfter != null && this.#session.seq >= this.#resendAfter) {
      this.#resendOutbox();
    }
    this.#emit('message', message);
    if (outcome) this.#emit('broadcast', message, outcome);
    this.#emit(message.type, message);
    this.#flushSeat();
  }

  /** Emits `seat` if it changed (a new token, lines said or acknowledged, the seat left). */
  #flushSeat() {
    if (!this.#seatDirty) return;
    this.#seatDirty = false;
    this.#emit('seat', this.seat);
  }

  /** A seat taken or taken back with `token`: any earlier lost answer no longer matters. */
  #took(token) {
    this.#seatHeld = true;
    this.#seatDirty = true;
    this.#resumeToken = token;
    this.#inSession = true;
    this.#resumeAnswerLost = false;
    this.#staleTokenDeadline = null;
  }

  // ----- Resume -----

  /** Takes back a seat saved before a reload: its model, its lines, then `resume`. */
  async #takeBack(seat) {
    this.#session = new SessionModel(seat.session);
    this.#resumeToken = seat.resumeToken;
    const nobody = { resolve() {}, reject() {} }; // whoever said them is gone with the old page
    for (const line of seat.unsentLines ?? []) {
      if (this.#outbox.lines.some((l) => l.clientId === line.clientId)) continue;
      this.#outbox.add(line.clientId, line.text, line.translation ?? '', nobody);
    }
    if ((await this.#resumeSeat()) === 'retry') this.#awaitingResume = false; // refused for now; the saved seat stays good
  }

  /**
   * Sends `resume` with the newest token and the model's `seq` (following the seat to its node);
   * the outbox goes out again once the replay is applied.
   * @returns {Promise<'resumed'|'seatGone'|'retry'>}
   */
  async #resumeSeat() {
    const token = this.#resumeToken, lastSeq = this.#session?.seq;
    if (token == null || lastSeq == null) {
      this.#awaitingResume = false;
      this.#failLines(SessionHubError.wrongState('no seat to resume'));
      return 'seatGone';
    }
    this.#awaitingResume = true;
    let sent = false;
    try {
      const welcome = this.#welcome;
      if (welcome?.resumableUrl && welcome.resumableSessionId === this.#session.sessionId) {
        await this.#redirect(welcome.resumableUrl);
      }
      let answer;
      for (let hop = 1; ; hop++) {
        try {
          sent = true;
          answer = await this.#request({ type: 'resume', resumeToken: token, lastSeq }, 'resumed');
          break;
        } catch (error) {
          if (error.kind !== ErrorKind.ELSEWHERE || !error.url || hop >= MAX_HOPS) throw error;
          sent = false;
          await this.#redirect(error.url);
        }
      }
      if (answer.mode === 'snapshot') {
        // Lines the snapshot already holds were recorded: they leave the outbox as acknowledged.
        for (const line of this.#session.lines) this.#acknowledge(line);
      }
      if (answer.mode === 'replay' && answer.replayed > 0 && this.#session.seq < lastSeq + answer.replayed) {
        this.#resendAfter = lastSeq + answer.replayed;
      } else {
        this.#resendOutbox();
      }
      return 'resumed';
    } catch (error) {
      if (error.kind === ErrorKind.REFUSED && FINAL_RESUME_REFUSALS.has(error.code)) {
        if (error.code === 'invalid_resume_token' && this.#resumeAnswerLost && this.#staleTokenMayStillWork()) {
          // The answer to an earlier resume, with the token that replaced ours, was lost with its
          // connection; the hub takes our token again once it notices that connection is gone.
          return 'retry';
        }
        // The seat is gone (grace window over, session ended, …): the client stays in the lobby;
        // the hub's `error` went out as an event like every message.
        this.#awaitingResume = false;
        this.#seatHeld = false;
        this.#seatDirty = true;
        this.#failLines(error);
        return 'seatGone';
      }
      if (sent && (error.kind === ErrorKind.CONNECTION_CLOSED || error.kind === ErrorKind.TIMED_OUT)) {
        this.#resumeAnswerLost = true;
      }
      return 'retry';
    }
  }

  /**
   * Whether the token we hold may still open the seat: tried for the hub's grace window plus a
   * minute from the first refusal (docs/PROTOCOL.md section 13, step 1).
   */
  #staleTokenMayStillWork() {
    const now = Date.now();
    if (this.#staleTokenDeadline == null) {
      const grace = Number(this.#welcome?.limits?.graceSeconds ?? 30);
      this.#staleTokenDeadline = now + (grace + 60) * 1000;
    }
    return now < this.#staleTokenDeadline;
  }

  /**
   * Leaves the current socket for one to `target` (a redirect to the node that owns the
   * session): the old one's close is not a drop.
   */
  async #redirect(target) {
    this.#url = checkWebSocketURL(target);
    const old = this.#socket;
    this.#socket = null;
    this.#socketWelcomed = false;
    try { old?.close(1000, 'redirected'); } catch { /* already closing */ }
    try {
      await this.#open();
    } catch (error) {
      this.#abandon('redirect failed');
      const failure = SessionHubError.transport(`redirect to ${target} failed: ${error.message}`);
      this.#dispatch({ type: 'redirectFailed', reason: failure.message }, failure);
      throw error;
    }
  }

  // ----- Lines -----

  /** Sends every line of the outbox again, in the order said; new lines go out at once again. */
  #resendOutbox() {
    this.#resendAfter = null;
    this.#awaitingResume = false;
    for (const line of this.#outbox.lines) this.#sendLine(line);
  }

  /** Sends `line` under a fresh request id; fails it if unanswered on a live connection in time. */
  #sendLine(line) {
    if (!this.#socket || this.#socket.readyState !== OPEN) return;
    const id = this.#prefix + String(++this.#nextId);
    this.#outbox.sent(line.clientId, id);
    this.#send({ type: 'say', textNative: line.text, textTranslated: line.translation, clientId: line.clientId, id });
    clearTimeout(line.timer);
    line.timer = setTimeout(() => {
      if (this.#state.kind !== ConnectionState.CONNECTED || this.#awaitingResume) return; // a drop: it waits for the resume
      this.#outbox.takeRequestId(id)?.waiter.reject(SessionHubError.timedOut('say'));
    }, this.#requestTimeout);
  }

  /** Takes `line` (a line of the transcript) out of the outbox if it is one of ours. */
  #acknowledge(line) {
    if (line?.speakerId !== this.#welcome?.userId || typeof line.clientId !== 'string') return;
    const said = this.#outbox.takeClientId(line.clientId);
    if (!said) return;
    clearTimeout(said.timer);
    this.#seatDirty = true;
    said.waiter.resolve(line);
  }

  /**
   * Settles the outbox with `message`: a line of this user's with a waiting `clientId` is
   * acknowledged; an `error` answering a line's latest send refuses it (`duplicate_line`: it was
   * recorded before, and the model has it: success).
   */
  #settleLines(message) {
    if (message.type === 'line') {
      this.#acknowledge(message.line);
    } else if (message.type === 'error' && typeof message.ref === 'string') {
      const said = this.#outbox.takeRequestId(message.ref);
      if (!said) return;
      clearTimeout(said.timer);
      this.#seatDirty = true;
      const stored = message.code === 'duplicate_line'
        ? this.#session?.lines.find((l) => l.clientId === said.clientId && l.speakerId === this.#welcome?.userId)
        : undefined;
      if (stored) said.waiter.resolve(stored);
      else said.waiter.reject(SessionHubError.fromReply(message));
    }
  }

  #failLines(failure) {
    if (!this.#outbox.isEmpty) this.#seatDirty = true;
    for (const line of this.#outbox.removeAll()) {
      clearTimeout(line.timer);
      line.waiter.reject(failure);
    }
  }

  // ----- Requests -----

  #requireConnection() {
    if (!this.#socket || this.#state.kind !== ConnectionState.CONNECTED) throw SessionHubError.notConnected();
  }

  #requireSession() {
    this.#requireConnection();
    if (!this.#inSession) throw SessionHubError.wrongState('not in a session');
  }

  /** Sends a lobby request that answers `joined`, following `session_elsewhere` to its node. */
  async #enter(body) {
    this.#requireConnection();
    if (this.inSession) throw SessionHubError.wrongState('already in a session; leave it first');
    for (let hop = 1; ; hop++) {
      try {
        await this.#request(body, 'joined');
        return this.#session;
      } catch (error) {
        if (error.kind !== ErrorKind.ELSEWHERE || hop >= MAX_HOPS) throw error;
        if (error.url) await this.#redirect(error.url);
        else await sleep(Math.max(1, error.retryAfter ?? 1) * 1000); // between owners: ask again
      }
    }
  }

  /** The hub's scenarios, sorted by title. */
  async scenarios() {
    this.#requireConnection();
    return (await this.#request({ type: 'scenarios' }, 'scenarios')).scenarios;
  }

  /** The hub's clock (epoch ms), by a round trip. */
  async ping() {
    this.#requireConnection();
    return (await this.#request({ type: 'ping' }, 'pong')).serverTime;
  }

  /**
   * Hosts a session of `scenarioId` (others join with the model's `joinCode`).
   * @param {{scenarioId: string, maxPlayers?: number}} options
   * @returns {Promise<SessionModel>}
   */
  host({ scenarioId, maxPlayers }) {
    return this.#enter(maxPlayers == null ? { type: 'host', scenarioId } : { type: 'host', scenarioId, maxPlayers });
  }

  /** Plays `scenarioId` alone. @returns {Promise<SessionModel>} */
  startSolo(scenarioId) { return this.#enter({ type: 'startSolo', scenarioId }); }

  /** Joins the session whose code is `code` (case, spaces and dashes do not matter). @returns {Promise<SessionModel>} */
  join(code) { return this.#enter({ type: 'join', code }); }

  /**
   * Says a line; resolves with it as the hub stored it (a DialogLine), once everyone was sent it.
   *
   * The line survives drops: said while reconnecting, it is sent once the seat is resumed; sent
   * but not acknowledged when the connection dropped, it is sent again after the resume unless
   * the replay shows it arrived. Its `clientId` makes the hub record it exactly once either way.
   * @param {string} text the line in the practised language
   * @param {{translation?: string, clientId?: string}} [options] `clientId`: your own id for the
   *   line, unique among your lines of the session; one is made up when absent.
   */
  say(text, { translation = '', clientId } = {}) {
    try {
      if (!this.#awaitingResume) this.#requireSession();
    } catch (error) {
      return Promise.reject(error);
    }
    const id = clientId ?? `${this.#prefix}line-${++this.#lineNumber}`;
    return new Promise((resolve, reject) => {
      this.#outbox.add(id, String(text), String(translation), { resolve, reject });
      const line = this.#outbox.lines[this.#outbox.lines.length - 1];
      this.#seatDirty = true;
      this.#flushSeat();
      if (this.#socket && this.#inSession && !this.#awaitingResume) this.#sendLine(line);
    });
  }

  /**
   * Corrects someone else's line; resolves with the Recast once everyone was sent it.
   * @param {{lineId: string, correctedText: string, explanation?: string, issueTypes: string[]}} recast
   *   `issueTypes`: at least one of `grammar`, `naturalness`, `vocabulary`, `sentence_structure`.
   */
  async recast({ lineId, correctedText, explanation, issueTypes }) {
    this.#requireSession();
    const body = { type: 'recast', lineId, correctedText, issueTypes };
    if (explanation != null) body.explanation = explanation;
    return (await this.#request(body, 'recast')).recast;
  }

  /** Accepts a correction of one of your lines; resolves with the `recastAccepted` broadcast. */
  async acceptRecast(recastId) {
    this.#requireSession();
    return this.#request({ type: 'acceptRecast', recastId }, 'recastAccepted');
  }

  /** Leaves the session for good (no grace window). */
  async leave() {
    this.#requireSession();
    const left = await this.#request({ type: 'leave' }, 'left');
    this.#inSession = false;
    return left;
  }

  /** Ends the session (host only); resolves with the `ended` broadcast with everyone's figures. */
  async end() {
    this.#requireSession();
    return this.#request({ type: 'end' }, 'ended');
  }

  /** The user's profile. */
  async profile() {
    this.#requireConnection();
    return (await this.#request({ type: 'profile' }, 'profile')).profile;
  }

  /** Changes profile fields; resolves with the profile as stored now. */
  async updateProfile(profile) {
    this.#requireConnection();
    return (await this.#request({ type: 'updateProfile', profile }, 'profile')).profile;
  }

  /** A page of the user's history (premium): `{total, sessions}`. */
  async history({ limit, before } = {}) {
    this.#requireConnection();
    const body = { type: 'history' };
    if (limit != null) body.limit = limit;
    if (before != null) body.before = before;
    const { total, sessions } = await this.#request(body, 'history');
    return { total, sessions };
  }

  /** One session of the user's history (premium). */
  async historySession(sessionId) {
    this.#requireConnection();
    return (await this.#request({ type: 'historySession', sessionId }, 'historySession')).session;
  }
}

/**
 * Makes a client and connects it: resolves with the client once the hub's `welcome` arrived.
 * @param {string} url the hub's `/ws` URL
 * @param {ConstructorParameters<typeof SessionHubClient>[1]} options as for {@link SessionHubClient}
 */
export async function connect(url, options) {
  const client = new SessionHubClient(url, options);
  await client.connect();
  return client;
}
