// TypeScript declarations of clients/js/sessionhub.js (the SessionHub JavaScript client).
// Wire types follow docs/PROTOCOL.md (sections 4, 7 and 8); the client follows docs/WEB.md.

// ---------------------------------------------------------------------------------------------
// Wire types (docs/PROTOCOL.md)
// ---------------------------------------------------------------------------------------------

export type Mode = 'SOLO' | 'HOST' | 'CLIENT';
export type IssueType = 'grammar' | 'naturalness' | 'vocabulary' | 'sentence_structure';

/** A participant as the session lists them (section 8). */
export interface ParticipantInfo {
  userId: string;
  displayName: string;
  roleName: string;
  mode: Mode;
  isHost: boolean;
  /** False while the seat is held in the grace window. */
  connected: boolean;
}

/** A line of the transcript. Player text: render as text, never as HTML. */
export interface DialogLine {
  id: string;
  speakerId: string;
  roleName: string;
  textNative: string;
  textTranslated: string;
  timestamp: number;
  /** The speaker's own id for the line, when their `say` carried one. */
  clientId?: string;
}

/** A correction of a line. */
export interface Recast {
  id: string;
  lineId: string;
  authorId: string;
  speakerId: string;
  correctedText: string;
  explanation: string | null;
  issueTypes: IssueType[];
  timestamp: number;
  accepted: boolean;
}

export interface Scenario {
  id: string;
  title: string;
  summary: string;
  targetLanguage: string;
  level: string;
  roles: { name: string; description: string }[];
  minPlayers: number;
  maxPlayers: number;
  goal: { lines: number; description: string };
  hints: { roleName: string; textNative: string; textTranslated: string }[];
}

export interface SessionSnapshot {
  sessionId: string;
  scenario: Scenario;
  joinCode: string | null;
  hostId: string | null;
  maxPlayers: number;
  startedAt: number;
  seq: number;
  you: ParticipantInfo;
  participants: ParticipantInfo[];
  lines: DialogLine[];
  recasts: Recast[];
}

export interface XPBreakdown {
  dialogCompletion: number;
  vocabularyBonus: number;
  accuracyBonus: number;
  collaborationBonus: number;
  streakBonus: number;
}

export interface SessionStats {
  sessionId: string;
  startedAt: number;
  endedAt: number | null;
  mode: Mode;
  scenarioId: string;
  linesSpoken: number;
  wordsEncountered: number;
  newVocabulary: number;
  errorsDetected: number;
  errorsCorrected: number;
  xpEarned: number;
  xpBreakdown: XPBreakdown;
}

export type HistorySaveResult =
  | { status: 'Success' }
  | { status: 'Error'; reason: 'featureLocked' | 'networkError' };

/** One participant's figures (`stats` broadcasts; with `history` in `ended`). */
export interface ParticipantStats {
  userId: string;
  stats: SessionStats;
  collaboration: { successfulRepairs: number; helpGiven: number; teamWins: number };
  weakSpots: Record<string, number>;
  history?: HistorySaveResult;
}

export interface Welcome {
  type: 'welcome';
  ref?: string;
  protocolVersion: number;
  userId: string;
  displayName: string;
  serverTime: number;
  limits: {
    maxTextLength: number;
    maxMessageBytes: number;
    graceSeconds: number;
    linesPerSecond: number;
    maxPlayersPerSession: number;
    [key: string]: number;
  };
  resumableSessionId: string | null;
  resumableNode?: string;
  resumableUrl?: string;
}

interface Broadcast<T extends string> {
  type: T;
  sessionId: string;
  seq: number;
}

export type ParticipantChangeKind = 'joined' | 'left' | 'disconnected' | 'reconnected' | 'expired' | 'removed';
export interface ParticipantsBroadcast extends Broadcast<'participants'> {
  change: { userId: string; kind: ParticipantChangeKind };
  participants: ParticipantInfo[];
}
export interface LineBroadcast extends Broadcast<'line'> { ref?: string; line: DialogLine }
export interface RecastBroadcast extends Broadcast<'recast'> { ref?: string; recast: Recast }
export interface RecastAcceptedBroadcast extends Broadcast<'recastAccepted'> {
  ref?: string;
  recastId: string;
  lineId: string;
  userId: string;
}
export interface HostChangedBroadcast extends Broadcast<'hostChanged'> { userId: string }
export interface StatsBroadcast extends Broadcast<'stats'> { participants: ParticipantStats[] }
export type EndCause = 'hostEnded' | 'goalReached' | 'abandoned' | 'operatorEnded' | 'serverShutdown';
export interface EndedBroadcast extends Broadcast<'ended'> {
  ref?: string;
  cause: EndCause;
  endedAt: number;
  durationSeconds: number;
  goalReached: boolean;
  participants: ParticipantStats[];
}

export type BroadcastMessage =
  | ParticipantsBroadcast | LineBroadcast | RecastBroadcast | RecastAcceptedBroadcast
  | HostChangedBroadcast | StatsBroadcast | EndedBroadcast;

export interface JoinedReply { type: 'joined'; ref?: string; resumeToken: string; session: SessionSnapshot }
export interface ResumedReply {
  type: 'resumed';
  ref?: string;
  resumeToken: string;
  mode: 'replay' | 'snapshot';
  replayed: number;
  session?: SessionSnapshot;
}
export type LeftReason = 'left' | 'ended' | 'replaced' | 'removed' | 'moved' | 'handedOver';
export interface LeftReply { type: 'left'; ref?: string; reason: LeftReason }
export interface ErrorReply {
  type: 'error';
  ref?: string;
  code: string;
  message: string;
  retryAfter?: number;
  node?: string;
  url?: string;
}
export interface PongReply { type: 'pong'; ref?: string; serverTime: number }
export interface ScenariosReply { type: 'scenarios'; ref?: string; scenarios: Scenario[] }

export interface HistorySummary {
  sessionId: string;
  scenarioTitle: string;
  timestamp: number;
  targetLanguage: string;
  durationSeconds: number;
  lineCount: number;
  xpEarned: number;
}

/** Any message from the hub; unknown types are passed on as they came. */
export type ServerMessage =
  | Welcome | JoinedReply | ResumedReply | LeftReply | ErrorReply | PongReply | ScenariosReply
  | BroadcastMessage
  | { type: string; [key: string]: unknown };

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

export declare const ErrorKind: Readonly<{
  REFUSED: 'refused';
  ELSEWHERE: 'elsewhere';
  NOT_CONNECTED: 'notConnected';
  CONNECTION_CLOSED: 'connectionClosed';
  TIMED_OUT: 'timedOut';
  WRONG_STATE: 'wrongState';
  TRANSPORT: 'transport';
}>;
export type ErrorKindValue = (typeof ErrorKind)[keyof typeof ErrorKind];

/** Why a call failed; `code` is always a stable string (docs/WEB.md, "Errors"). */
export declare class SessionHubError extends Error {
  constructor(kind: ErrorKindValue, code: string, message: string, details?: {
    retryAfter?: number; node?: string; url?: string; closeCode?: number | null; closeReason?: string; request?: string;
  });
  readonly name: 'SessionHubError';
  readonly kind: ErrorKindValue;
  /** The hub's code (`unknown_join_code`, …), a close reason's code (`token_signature`, …), or the client's own. */
  readonly code: string;
  readonly retryAfter?: number;
  readonly node?: string;
  readonly url?: string;
  readonly closeCode?: number | null;
  readonly closeReason?: string;
  readonly request?: string;
  static fromReply(reply: ErrorReply): SessionHubError;
  static connectionClosed(closeCode: number | null, closeReason: string): SessionHubError;
  static notConnected(): SessionHubError;
  static timedOut(request: string): SessionHubError;
  static wrongState(why: string): SessionHubError;
  static transport(why: string): SessionHubError;
}

// ---------------------------------------------------------------------------------------------
// Reconnect policy and the connection state machine
// ---------------------------------------------------------------------------------------------

export interface ReconnectOptions {
  /** The cap of the first wait, ms (250). */
  initialDelay?: number;
  /** The largest cap, ms (10 000). */
  maxDelay?: number;
  /** Attempts before giving up; null: until close() (null). */
  maxAttempts?: number | null;
}

export declare class ReconnectPolicy {
  constructor(options?: ReconnectOptions);
  readonly initialDelay: number;
  readonly maxDelay: number;
  readonly maxAttempts: number | null;
  /** The wait (ms) before attempt `attempt` (1, 2, …), with `random` in [0, 1). */
  delay(attempt: number, random: number): number;
  /** Whether a close with `code` (null: no close frame) and `reason` is worth reconnecting. */
  static reconnects(code: number | null, reason: string): boolean;
}

export declare const ConnectionState: Readonly<{
  IDLE: 'idle';
  CONNECTING: 'connecting';
  CONNECTED: 'connected';
  RECONNECTING: 'reconnecting';
  CLOSED: 'closed';
}>;

/** Where the connection stands. */
export type ConnectionStateValue =
  | { kind: 'idle' }
  | { kind: 'connecting' }
  | { kind: 'connected'; userId: string }
  | { kind: 'reconnecting'; attempt: number; code: number | null; reason: string }
  | { kind: 'closed'; code: number | null; reason: string };

export declare const Action: Readonly<{
  OPEN: 'open';
  CLOSE_SOCKET: 'closeSocket';
  FAIL_REQUESTS: 'failRequests';
  FAIL_LINES: 'failLines';
  HOLD_SEAT: 'holdSeat';
  DROP_SEAT: 'dropSeat';
  SCHEDULE_ATTEMPT: 'scheduleAttempt';
  CANCEL_ATTEMPT: 'cancelAttempt';
}>;
export type ActionValue = (typeof Action)[keyof typeof Action];

export type ConnectionEvent =
  | { type: 'connect' }
  | { type: 'welcomed'; userId: string }
  | { type: 'openFailed'; reason: string }
  | { type: 'socketClosed'; code: number | null; reason: string; onPurpose?: boolean; inSession?: boolean; welcomed?: boolean }
  | { type: 'attemptFailed' }
  | { type: 'back'; userId: string }
  | { type: 'redirectFailed'; reason: string }
  | { type: 'close' };

/** The state machine: the next state and the actions for `event` in `state` (pure). */
export declare function transition(
  state: ConnectionStateValue,
  event: ConnectionEvent,
  context: { policy: ReconnectPolicy | null },
): { state: ConnectionStateValue; actions: ActionValue[] };

// ---------------------------------------------------------------------------------------------
// Parts (exported for tests and for apps that build their own client)
// ---------------------------------------------------------------------------------------------

export interface Waiter<T> { resolve(value: T): void; reject(error: SessionHubError): void }

export declare class RequestBook {
  readonly size: number;
  add(id: string, answer: string, waiter: Waiter<ServerMessage>): void;
  remove(id: string): Waiter<ServerMessage> | undefined;
  answer(message: ServerMessage, userId: string | undefined):
    | null
    | { waiter: Waiter<ServerMessage>; message?: ServerMessage; error?: SessionHubError };
  removeAll(): Waiter<ServerMessage>[];
}

export interface OutboxLine {
  clientId: string;
  text: string;
  translation: string;
  waiter: Waiter<DialogLine>;
  requestId: string | null;
  timer: unknown;
}

export declare class LineOutbox {
  lines: OutboxLine[];
  readonly isEmpty: boolean;
  add(clientId: string, text: string, translation: string, waiter: Waiter<DialogLine>): void;
  sent(clientId: string, requestId: string): void;
  takeClientId(clientId: string): OutboxLine | null;
  takeRequestId(requestId: string): OutboxLine | null;
  removeAll(): OutboxLine[];
}

// ---------------------------------------------------------------------------------------------
// Session model
// ---------------------------------------------------------------------------------------------

export declare const ApplyOutcome: Readonly<{
  APPLIED: 'applied';
  DUPLICATE: 'duplicate';
  FOREIGN: 'foreign';
  GAP: 'gap';
  NOT_A_BROADCAST: 'notABroadcast';
}>;
export type ApplyResult =
  | { kind: 'applied' | 'duplicate' | 'foreign' | 'notABroadcast' }
  | { kind: 'gap'; expected: number; got: number };

/** The model as plain JSON (`SessionModel#toJSON`), e.g. inside a saved seat. */
export interface SessionModelJSON extends SessionSnapshot {
  stats: ParticipantStats[];
}

/** A session as the client sees it: the snapshot with every later broadcast applied once, in order. */
export declare class SessionModel {
  constructor(snapshot: SessionSnapshot | SessionModelJSON);
  sessionId: string;
  scenario: Scenario;
  joinCode: string | null;
  hostId: string | null;
  maxPlayers: number;
  startedAt: number;
  /** The seq of the last broadcast applied (a resume's lastSeq). */
  seq: number;
  you: ParticipantInfo | null;
  participants: ParticipantInfo[];
  lines: DialogLine[];
  recasts: Recast[];
  /** Latest figures by user id (live from `stats`; final once ended). */
  stats: Map<string, ParticipantStats>;
  ended: EndedBroadcast | null;
  participant(userId: string): ParticipantInfo | undefined;
  xp(userId: string): number | undefined;
  apply(message: ServerMessage): ApplyResult;
  toJSON(): SessionModelJSON;
}

// ---------------------------------------------------------------------------------------------
// The client
// ---------------------------------------------------------------------------------------------

/** A WebSocket constructor with the browser's surface (native WebSocket, or Node's `ws`). */
export interface WebSocketLike {
  readonly readyState: number;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}
export type WebSocketConstructor = new (url: string) => WebSocketLike;

export interface ClientOptions {
  /** Returns a current token; called on every connect and reconnect, and before expiry. */
  token: () => string | Promise<string>;
  /** Default `globalThis.WebSocket`; in Node pass the `ws` package's class. */
  WebSocket?: WebSocketConstructor | unknown;
  /** How long a request may wait for its answer, ms (10 000). */
  requestTimeout?: number;
  /** How to come back after a drop; null: not at all. */
  reconnect?: ReconnectPolicy | ReconnectOptions | null;
  /** Renew the token in place before it expires (true). */
  renewToken?: boolean;
  /** The jitter's random source (Math.random). */
  random?: () => number;
}

/** What to keep to take a seat back after a page reload (holds the resume token). */
export interface Seat {
  resumeToken: string;
  session: SessionModelJSON;
  unsentLines: { clientId: string; text: string; translation: string }[];
}

/** Events and their listener arguments. Every message type is also an event of its own name. */
export interface ClientEvents {
  state: [state: ConnectionStateValue, previous: ConnectionStateValue];
  model: [model: SessionModel, message: ServerMessage];
  /** `seat` changed (new token, lines said or acknowledged, seat gone): save it again. */
  seat: [seat: Seat | null];
  message: [message: ServerMessage];
  broadcast: [message: BroadcastMessage, outcome: ApplyResult];
  welcome: [message: Welcome];
  joined: [message: JoinedReply];
  resumed: [message: ResumedReply];
  left: [message: LeftReply];
  /** The hub's `error` message (also the rejection of the request it answers). */
  error: [message: ErrorReply];
  pong: [message: PongReply];
  scenarios: [message: ScenariosReply];
  participants: [message: ParticipantsBroadcast];
  line: [message: LineBroadcast];
  recast: [message: RecastBroadcast];
  recastAccepted: [message: RecastAcceptedBroadcast];
  hostChanged: [message: HostChangedBroadcast];
  stats: [message: StatsBroadcast];
  ended: [message: EndedBroadcast];
  historyUpdated: [message: { type: 'historyUpdated'; session: HistorySummary }];
}

export declare class SessionHubClient {
  constructor(url: string, options: ClientOptions);

  readonly state: ConnectionStateValue;
  /** The session this client plays in, or played in last. */
  readonly session: SessionModel | null;
  /** In `session` (also while coming back to it after a drop). */
  readonly inSession: boolean;
  readonly welcome: Welcome | null;
  readonly resumeToken: string | null;
  /** Where the current connection goes (after a redirect: the owner node). */
  readonly url: string;
  /** Lines said and not yet acknowledged, in order. */
  readonly pendingLines: { clientId: string; text: string; translation: string }[];
  /** What to save to take the seat back after a reload; null when no seat is held (close() keeps it). */
  readonly seat: Seat | null;

  on<K extends keyof ClientEvents>(type: K, listener: (...args: ClientEvents[K]) => void): () => void;
  on(type: string, listener: (...args: any[]) => void): () => void;
  off(type: string, listener: (...args: any[]) => void): void;
  waitFor<K extends keyof ClientEvents>(type: K, predicate?: (...args: ClientEvents[K]) => boolean, timeout?: number): Promise<ClientEvents[K][0]>;
  waitFor(type: string, predicate?: (...args: any[]) => boolean, timeout?: number): Promise<any>;

  connect(options?: { seat?: Seat | null }): Promise<Welcome>;
  close(): void;
  dropConnection(): void;
  renewToken(): Promise<Welcome>;

  scenarios(): Promise<Scenario[]>;
  ping(): Promise<number>;
  host(options: { scenarioId: string; maxPlayers?: number }): Promise<SessionModel>;
  startSolo(scenarioId: string): Promise<SessionModel>;
  join(code: string): Promise<SessionModel>;
  say(text: string, options?: { translation?: string; clientId?: string }): Promise<DialogLine>;
  recast(recast: { lineId: string; correctedText: string; explanation?: string; issueTypes: IssueType[] }): Promise<Recast>;
  acceptRecast(recastId: string): Promise<RecastAcceptedBroadcast>;
  leave(): Promise<LeftReply>;
  end(): Promise<EndedBroadcast>;
  profile(): Promise<Record<string, unknown>>;
  updateProfile(profile: Record<string, unknown>): Promise<Record<string, unknown>>;
  history(options?: { limit?: number; before?: number }): Promise<{ total: number; sessions: HistorySummary[] }>;
  historySession(sessionId: string): Promise<Record<string, unknown>>;
}

/** Makes a client and connects it. */
export declare function connect(url: string, options: ClientOptions): Promise<SessionHubClient>;
