// SessionHub web player. Served as is from /play/play.js (no build step), built on the JavaScript
// client module served next to it (/play/sessionhub.js, docs/WEB.md).
//
// Sign in (the hub's development sign-in, or a pasted token), host a scenario or join with a
// code, speak lines with their translation, correct the others' lines and accept corrections of
// yours, watch the live figures, and at the end see everyone's XP and, for a premium player, the
// session's entry in their history. The seat is kept in sessionStorage, so a reload takes it back.
//
// Everything from the hub or from other players is written with textContent, never as HTML.
// Nothing here reads a token from the URL or writes one to it.
import { SessionHubClient } from './sessionhub.js';

const KEYS = {
  identity: 'sessionhub.play.identity', // sessionStorage: {kind:'dev', name, userId, premium} | {kind:'token', token}
  seat: 'sessionhub.play.seat',         // sessionStorage: the client's seat (holds the resume token)
  player: 'sessionhub.play.player',     // localStorage: {name, userId} of the last development sign-in
  scenario: 'sessionhub.play.scenario', // localStorage: the last scenario hosted
};
const ISSUE_LABELS = {
  grammar: 'grammar', vocabulary: 'vocabulary', naturalness: 'naturalness', sentence_structure: 'sentence structure',
};
const CAUSES = {
  hostEnded: 'The host ended the session.',
  goalReached: 'Goal reached: well done, everyone!',
  abandoned: 'Everybody left, so the session ended.',
  operatorEnded: 'An operator ended the session.',
  serverShutdown: 'The hub is shutting down, so the session ended.',
};
const BREAKDOWN = [
  ['dialogCompletion', 'Dialogue'], ['vocabularyBonus', 'Vocabulary bonus'], ['accuracyBonus', 'Accuracy bonus'],
  ['collaborationBonus', 'Collaboration bonus'], ['streakBonus', 'Streak bonus'],
];
/** Friendlier words for the codes a player meets most; any other code shows the hub's message. */
const MESSAGES = {
  unknown_join_code: 'No session has that code. Check it with the host.',
  session_full: 'That session is full.',
  join_locked: 'Too many wrong codes for now.',
  rate_limited: 'Too fast: slow down a little.',
  already_in_session: 'You already have a seat in a session.',
  session_ended: 'The session has ended.',
  not_in_session: 'You are not in that session any more.',
  empty_text: 'Type something first.',
  not_connected: 'Not connected right now: wait until the connection is back.',
  timed_out: 'The hub did not answer in time.',
  connection_closed: 'The connection closed before the hub answered.',
  feature_locked: 'History is kept for premium players only.',
  dev_sign_in_off: 'Development sign-in is off on this hub: paste a token instead.',
  invalid_resume_token: 'Your seat in the session is gone (the grace window passed).',
};
/** Resume refusals after which the seat is gone (the client stays in the lobby). */
const SEAT_GONE = new Set(['invalid_resume_token', 'invalid_last_seq', 'session_ended', 'not_in_session']);

const $ = (id) => document.getElementById(id);
const ui = {
  status: $('status'), whoName: $('who-name'), whoPremium: $('who-premium'), signOut: $('sign-out'),
  notice: $('notice'), noticeText: $('notice-text'), noticeCode: $('notice-code'), noticeClose: $('notice-close'),
  reconnectBar: $('reconnect-bar'), reconnectText: $('reconnect-text'), reconnect: $('reconnect'),
  signin: $('signin'), devForm: $('dev-form'), devName: $('dev-name'), devPremium: $('dev-premium'),
  showTokenForm: $('show-token-form'), tokenForm: $('token-form'), tokenInput: $('token-input'), devOff: $('dev-off'),
  showDevForm: $('show-dev-form'),
  lobby: $('lobby'), hostForm: $('host-form'), scenario: $('scenario'), solo: $('solo'),
  scenarioLanguage: $('scenario-language'), scenarioLevel: $('scenario-level'), scenarioPlayers: $('scenario-players'),
  scenarioSummary: $('scenario-summary'), scenarioRoles: $('scenario-roles'), scenarioGoal: $('scenario-goal'),
  joinForm: $('join-form'), joinCode: $('join-code'),
  session: $('session'), sessionTitle: $('session-title'), sessionLanguage: $('session-language'),
  sessionLevel: $('session-level'), myRole: $('my-role'), sessionGoal: $('session-goal'), goalProgress: $('goal-progress'),
  codeBlock: $('code-block'), sessionCode: $('session-code'),
  transcriptBox: $('transcript-box'), transcript: $('transcript'), pending: $('pending'), noLines: $('no-lines'), lineCount: $('line-count'),
  recastPanel: $('recast-panel'), recastForm: $('recast-form'), recastSpeaker: $('recast-speaker'),
  recastOriginal: $('recast-original'), recastText: $('recast-text'), recastExplanation: $('recast-explanation'),
  recastSend: $('recast-send'), recastCancel: $('recast-cancel'),
  sayForm: $('say-form'), hint: $('hint'), sayText: $('say-text'), sayTranslation: $('say-translation'),
  participants: $('participants'), myXp: $('my-xp'), myStats: $('my-stats'), end: $('end'), leave: $('leave'),
  summary: $('summary'), summaryCause: $('summary-cause'), summaryMeta: $('summary-meta'),
  summaryPlayers: $('summary-players'), historyStatus: $('history-status'), historyEntry: $('history-entry'),
  backToLobby: $('back-to-lobby'),
};

let client = null;
let identity = null;       // see KEYS.identity
let tokenCache = null;     // {token, expiresAt (ms)} from the development sign-in
let providerError = null;  // why the last development sign-in failed ({code, message})
let closingOnPurpose = false;
let scenarios = [];
let recastTarget = null;   // the line being corrected
let hintList = [];         // the suggestions in the hint menu
const names = new Map();   // userId -> display name, from every participants list seen
const roles = new Map();   // userId -> role name
const shown = { sessionId: null, lines: new Map() }; // the transcript on screen: line id -> <li>

// ----- small helpers -----

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function storage(kind) {
  try { return kind === 'local' ? localStorage : sessionStorage; } catch { return null; }
}
function load(kind, key) {
  try { return JSON.parse(storage(kind)?.getItem(key) ?? 'null'); } catch { return null; }
}
function store(kind, key, value) {
  try {
    if (value == null) storage(kind)?.removeItem(key);
    else storage(kind)?.setItem(key, JSON.stringify(value));
  } catch { /* private mode or full: kept in memory only */ }
}

function formatDuration(seconds) {
  const s = Math.max(0, Math.round(Number(seconds) || 0));
  const m = Math.floor(s / 60);
  return m > 0 ? `${m} min ${s % 60} s` : `${s} s`;
}

function nameOf(userId) { return names.get(userId) ?? userId; }
function me() { return client?.welcome?.userId ?? null; }
function connected() { return client?.state.kind === 'connected'; }

function definitions(list, pairs) {
  list.replaceChildren();
  for (const [term, value, key] of pairs) {
    const dt = element('dt', null, term);
    const dd = element('dd', null, value);
    if (key) dd.dataset.key = key;
    list.append(dt, dd);
  }
}

// ----- notices and errors -----

function notice(text, code) {
  ui.noticeText.textContent = text;
  ui.noticeCode.textContent = code ?? '';
  ui.noticeCode.hidden = !code;
  ui.notice.hidden = false;
}

function clearNotice() { ui.notice.hidden = true; }

/** Shows why `what` failed: a sentence and the stable code (the hub's, or the client's own). */
function showError(what, error) {
  const code = typeof error?.code === 'string' ? error.code : 'error';
  let text = MESSAGES[code] ?? (code.startsWith('token_') ? `The hub refused the token: ${error.message}` : error?.message ?? String(error));
  if (Number.isFinite(error?.retryAfter)) text += ` Try again in ${error.retryAfter} s.`;
  notice(`${what}: ${text}`, code);
}

/** An error of the JSON API: its body is {code, message}. */
async function apiError(response) {
  let body = null;
  try { body = await response.json(); } catch { /* not JSON */ }
  const error = new Error(body?.message ?? `HTTP ${response.status}`);
  error.code = body?.code ?? `http_${response.status}`;
  return error;
}

// ----- views -----

function setView(view) {
  for (const name of ['signin', 'lobby', 'session', 'summary']) ui[name].hidden = name !== view;
  document.body.dataset.view = view;
}

function renderStatus(state) {
  const labels = {
    idle: ['idle', 'not connected'],
    connecting: ['connecting', 'connecting…'],
    connected: ['live', 'connected'],
    reconnecting: ['connecting', `reconnecting… (attempt ${state.attempt})`],
    closed: ['error', 'offline'],
  };
  const [style, text] = labels[state.kind] ?? ['idle', state.kind];
  ui.status.className = `status status-${style}`;
  ui.status.textContent = text;
  ui.status.dataset.state = state.kind;
  document.body.classList.toggle('offline', state.kind !== 'connected');
  renderPending();
}

function renderWho() {
  const welcome = client?.welcome;
  ui.whoName.textContent = welcome ? welcome.displayName : '';
  ui.whoPremium.hidden = !(welcome && identity?.kind === 'dev' && identity.premium);
  ui.signOut.hidden = !identity;
}

// ----- signing in -----

function wsURL() {
  return `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/ws`;
}

/** A current token: the pasted one, or one from the development sign-in (asked again near expiry). */
async function token() {
  if (identity?.kind === 'token') return identity.token;
  if (tokenCache && tokenCache.expiresAt - Date.now() > 120_000) return tokenCache.token;
  providerError = null;
  const body = { name: identity.name, premium: Boolean(identity.premium) };
  if (identity.userId) body.userId = identity.userId;
  let response;
  try {
    response = await fetch('/api/dev/sign-in', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), cache: 'no-store',
    });
  } catch (error) {
    providerError = { code: 'transport', message: 'the hub cannot be reached' };
    throw error;
  }
  if (!response.ok) {
    const error = await apiError(response);
    providerError = { code: response.status === 404 ? 'dev_sign_in_off' : error.code, message: error.message };
    throw error;
  }
  const answer = await response.json();
  identity.userId = answer.userId;
  identity.premium = answer.premium;
  store('session', KEYS.identity, identity);
  store('local', KEYS.player, { name: identity.name, userId: answer.userId });
  tokenCache = { token: answer.token, expiresAt: answer.expiresAt * 1000 };
  return answer.token;
}

async function showSignIn(error) {
  closeClient();
  identity = null;
  tokenCache = null;
  store('session', KEYS.identity, null);
  renderWho();
  renderStatus({ kind: 'idle' });
  ui.reconnectBar.hidden = true;
  setView('signin');
  ui.devName.value = load('local', KEYS.player)?.name ?? '';
  ui.tokenInput.value = '';
  if (error) showError('Sign-in failed', error);
  // Which form: the development sign-in answers 400 to an empty body when on, 404 when off.
  let devOn = true;
  try {
    const response = await fetch('/api/dev/sign-in', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    devOn = response.status !== 404;
  } catch { /* the hub is unreachable: leave both forms to try */ }
  showForm(devOn ? 'dev' : 'token');
  ui.devOff.hidden = devOn;
}

function showForm(which) {
  ui.devForm.hidden = which !== 'dev';
  ui.tokenForm.hidden = which !== 'token';
  (which === 'dev' ? ui.devName : ui.tokenInput).focus();
}

function closeClient() {
  if (!client) return;
  closingOnPurpose = true;
  client.close();
  closingOnPurpose = false;
  client = null;
}

/** Connects as `identity`, taking back the saved seat if the hub still holds it. */
async function start() {
  closeClient();
  clearNotice();
  ui.reconnectBar.hidden = true;
  const player = new SessionHubClient(wsURL(), { token });
  client = player;
  wire(player);
  renderWho(); // Sign out, even while the hub cannot be reached
  const seat = load('session', KEYS.seat);
  try {
    await player.connect({ seat });
  } catch (error) {
    if (player !== client) return;
    if (providerError?.code === 'dev_sign_in_off' || String(error.code).startsWith('token_')) {
      const cause = providerError?.code === 'dev_sign_in_off' ? { code: 'dev_sign_in_off', message: '' } : error;
      await showSignIn(cause);
      return;
    }
    showError('Could not connect', providerError ?? error);
    showReconnect();
    return;
  }
  if (player !== client) return;
  renderWho();
  if (seat && !player.inSession) {
    store('session', KEYS.seat, null);
    notice('Your seat in the last session is gone: it ended, or the grace window passed.');
  }
  if (player.inSession && player.session) showSession();
  else showLobby();
}

function showReconnect() {
  ui.reconnectText.textContent = 'The connection is closed.';
  ui.reconnect.hidden = false;
  ui.reconnectBar.hidden = false;
}

function wire(player) {
  const mine = (fn) => (...args) => { if (player === client) fn(...args); };
  player.on('state', mine((state) => {
    renderStatus(state);
    if (state.kind === 'closed' && !closingOnPurpose) showReconnect();
    if (state.kind === 'reconnecting') {
      ui.reconnectText.textContent = player.inSession
        ? 'Connection lost: reconnecting… Your seat is kept, and lines you say now are sent once it is back.'
        : 'Connection lost: reconnecting…';
      ui.reconnect.hidden = true;
      ui.reconnectBar.hidden = false;
    }
    if (state.kind === 'connected') {
      ui.reconnectBar.hidden = true;
      renderWho();
      // Back from a drop without the seat (the hub refused the resume): the lobby.
      if (document.body.dataset.view === 'session' && !player.inSession) showLobby();
    }
    if (document.body.dataset.view === 'session') renderSession();
  }));
  player.on('model', mine((model, message) => {
    if (model.ended) return; // the summary takes over
    if (message.type === 'joined' || message.type === 'resumed') showSession();
    else if (document.body.dataset.view === 'session') renderSession();
  }));
  player.on('seat', mine((seat) => {
    store('session', KEYS.seat, seat);
    renderPending();
  }));
  player.on('ended', mine((ended) => showSummary(ended)));
  player.on('left', mine((left) => {
    if (left.reason === 'replaced') {
      showLobby();
      notice('Your seat was taken over by another tab or device.', 'replaced');
    } else if (left.reason === 'removed') {
      showLobby();
      notice('An operator removed you from the session.', 'removed');
    }
  }));
  player.on('error', mine((error) => {
    // A resume refused while coming back (not a request of the page's: those show their own).
    if (player.state.kind !== 'connected' && SEAT_GONE.has(error.code)) {
      store('session', KEYS.seat, null);
      showError('Could not take your seat back', error);
    }
  }));
}

// ----- the lobby -----

async function showLobby() {
  setView('lobby');
  resetSession();
  if (scenarios.length || !connected()) return;
  try {
    scenarios = await client.scenarios();
  } catch (error) {
    showError('Could not load the scenarios', error);
    return;
  }
  ui.scenario.replaceChildren();
  for (const scenario of scenarios) {
    const option = element('option', null, `${scenario.title} (${scenario.targetLanguage}, ${scenario.level})`);
    option.value = scenario.id;
    ui.scenario.append(option);
  }
  const last = load('local', KEYS.scenario);
  if (scenarios.some((s) => s.id === last)) ui.scenario.value = last;
  renderScenario();
}

function renderScenario() {
  const scenario = scenarios.find((s) => s.id === ui.scenario.value);
  if (!scenario) return;
  ui.scenarioLanguage.textContent = scenario.targetLanguage;
  ui.scenarioLevel.textContent = scenario.level;
  ui.scenarioPlayers.textContent = `${scenario.minPlayers}–${scenario.maxPlayers} players`;
  ui.scenarioSummary.textContent = scenario.summary;
  ui.scenarioRoles.replaceChildren(...scenario.roles.map((role) => {
    const li = element('li');
    li.append(element('strong', null, role.name), document.createTextNode(` — ${role.description}`));
    return li;
  }));
  ui.scenarioGoal.textContent = `${scenario.goal.lines} lines. ${scenario.goal.description}`;
}

async function enter(what, call) {
  clearNotice();
  const buttons = [...ui.lobby.querySelectorAll('button')];
  buttons.forEach((b) => { b.disabled = true; });
  try {
    await call();
  } catch (error) {
    showError(what, error);
  } finally {
    buttons.forEach((b) => { b.disabled = false; });
  }
}

// ----- the session -----

function resetSession() {
  shown.sessionId = null;
  shown.lines.clear();
  ui.transcript.replaceChildren();
  ui.pending.replaceChildren();
  closeRecast();
}

function showSession() {
  const model = client?.session;
  if (!model) return;
  if (document.body.dataset.view !== 'session') {
    clearNotice();
    setView('session');
  }
  renderSession();
}

function renderSession() {
  const model = client?.session;
  if (!model) return;
  const myId = me();
  if (shown.sessionId !== model.sessionId) {
    resetSession();
    shown.sessionId = model.sessionId;
    renderHints(model);
  }
  for (const p of model.participants) {
    names.set(p.userId, p.displayName);
    roles.set(p.userId, p.roleName);
  }
  const scenario = model.scenario;
  ui.sessionTitle.textContent = scenario.title;
  ui.sessionLanguage.textContent = scenario.targetLanguage;
  ui.sessionLevel.textContent = scenario.level;
  ui.myRole.textContent = model.participant(myId)?.roleName ?? model.you?.roleName ?? '';
  ui.sessionGoal.textContent = `${model.lines.length} of ${scenario.goal.lines} lines · ${scenario.goal.description}`;
  ui.goalProgress.value = Math.min(1, model.lines.length / Math.max(1, scenario.goal.lines));
  ui.codeBlock.hidden = !model.joinCode;
  ui.sessionCode.textContent = model.joinCode ?? '';

  // Players, with their role, presence and XP so far.
  // (This player's own presence is this page's connection: the others see it once the hub does.)
  ui.participants.replaceChildren(...model.participants.map((p) => {
    const here = p.userId === myId ? connected() : p.connected;
    const li = element('li', `participant ${here ? 'connected' : 'away'}${p.userId === myId ? ' you' : ''}`);
    li.dataset.userId = p.userId;
    li.dataset.presence = here ? 'connected' : 'away';
    const head = element('span', 'person');
    head.append(element('span', 'name', p.displayName));
    if (p.userId === myId) head.append(element('span', 'badge', 'you'));
    if (p.userId === model.hostId) head.append(element('span', 'badge host', 'host'));
    li.append(head, element('span', 'role', p.roleName), element('span', 'presence', here ? 'connected' : 'away'),
      element('span', 'xp', `${model.xp(p.userId) ?? 0} XP`));
    return li;
  }));

  // The transcript: lines appended once (new ones flash, and scroll into view if the reader was
  // at the bottom), their speaker and corrections kept up to date.
  const initial = shown.lines.size === 0;
  const box = ui.transcriptBox;
  const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
  let added = false;
  for (const line of model.lines) {
    let li = shown.lines.get(line.id);
    if (!li) {
      li = lineElement(line, myId);
      if (!initial) li.classList.add('new');
      shown.lines.set(line.id, li);
      ui.transcript.append(li);
      added = true;
    }
    li.querySelector('.speaker').textContent = nameOf(line.speakerId);
    renderRecasts(li, line, model, myId);
  }
  if (added && (initial || atBottom)) box.scrollTop = box.scrollHeight;
  ui.lineCount.textContent = model.lines.length ? `(${model.lines.length})` : '';
  renderPending();

  // My figures.
  const figures = model.stats.get(myId);
  const stats = figures?.stats;
  ui.myXp.textContent = String(stats?.xpEarned ?? 0);
  definitions(ui.myStats, [
    ['Lines spoken', stats?.linesSpoken ?? 0, 'linesSpoken'],
    ['Words met', stats?.wordsEncountered ?? 0, 'wordsEncountered'],
    ['New words', stats?.newVocabulary ?? 0, 'newVocabulary'],
    ['Corrections received', stats?.errorsDetected ?? 0, 'errorsDetected'],
    ['Corrections you accepted', stats?.errorsCorrected ?? 0, 'errorsCorrected'],
    ['Your corrections accepted', figures?.collaboration?.helpGiven ?? 0, 'helpGiven'],
  ]);
  ui.end.hidden = model.hostId !== myId;
}

function lineElement(line, myId) {
  const li = element('li', `line${line.speakerId === myId ? ' mine' : ''}`);
  li.dataset.lineId = line.id;
  li.dataset.speakerId = line.speakerId;
  const head = element('div', 'line-head');
  head.append(element('span', 'speaker'), element('span', 'role', line.roleName));
  if (line.speakerId !== myId) {
    const correct = element('button', 'small correct', 'Correct');
    correct.type = 'button';
    correct.addEventListener('click', () => openRecast(line.id));
    head.append(correct);
  }
  li.append(head, element('p', 'native', line.textNative));
  if (line.textTranslated) li.append(element('p', 'translated', line.textTranslated));
  li.append(element('ul', 'recasts'));
  return li;
}

function renderRecasts(li, line, model, myId) {
  const list = li.querySelector('.recasts');
  const recasts = model.recasts.filter((r) => r.lineId === line.id);
  // Rebuilt only when something in it changed (a button is not replaced under the pointer).
  const signature = JSON.stringify(recasts.map((r) => [r.id, r.accepted, nameOf(r.authorId), nameOf(r.speakerId)]));
  if (list.dataset.signature === signature) return;
  list.dataset.signature = signature;
  list.replaceChildren(...recasts.map((recast) => {
    const item = element('li', `recast${recast.accepted ? ' accepted' : ''}`);
    item.dataset.recastId = recast.id;
    item.append(element('span', 'corrected', recast.correctedText));
    const meta = element('span', 'recast-meta');
    for (const issue of recast.issueTypes) meta.append(element('span', 'badge issue', ISSUE_LABELS[issue] ?? issue));
    meta.append(element('span', 'author', `by ${nameOf(recast.authorId)}`));
    item.append(meta);
    if (recast.explanation) item.append(element('span', 'explanation', recast.explanation));
    if (recast.accepted) {
      item.append(element('span', 'state accepted', '✓ accepted'));
    } else if (recast.speakerId === myId) {
      const accept = element('button', 'small accept', 'Accept');
      accept.type = 'button';
      accept.addEventListener('click', async () => {
        accept.disabled = true;
        try {
          await client.acceptRecast(recast.id);
        } catch (error) {
          accept.disabled = false;
          showError('Could not accept the correction', error);
        }
      });
      item.append(accept);
    } else {
      item.append(element('span', 'state', `waiting for ${nameOf(recast.speakerId)}`));
    }
    return item;
  }));
}

/** Lines said and not yet acknowledged by the hub (they go out again after a drop). */
function renderPending() {
  if (!client || !client.session || document.body.dataset.view !== 'session') {
    ui.pending.replaceChildren();
    return;
  }
  const recorded = new Set(client.session.lines.map((l) => l.clientId).filter(Boolean));
  const waiting = connected() ? 'sending…' : 'waiting for the connection…';
  const pending = client.pendingLines.filter((l) => !recorded.has(l.clientId));
  ui.noLines.hidden = client.session.lines.length > 0 || pending.length > 0;
  ui.pending.replaceChildren(...pending.map((line) => {
    const li = element('li', 'line mine pending');
    li.dataset.clientId = line.clientId;
    const head = element('div', 'line-head');
    head.append(element('span', 'speaker', nameOf(me())), element('span', 'role', waiting));
    li.append(head, element('p', 'native', line.text));
    if (line.translation) li.append(element('p', 'translated', line.translation));
    return li;
  }));
}

function renderHints(model) {
  const role = model.participant(me())?.roleName ?? model.you?.roleName;
  let hints = model.scenario.hints.filter((h) => h.roleName === role);
  if (!hints.length) hints = model.scenario.hints;
  const first = element('option', null, hints.length ? '— pick a suggestion, or type your own —' : '— no suggestions —');
  first.value = '';
  ui.hint.replaceChildren(first, ...hints.map((hint, index) => {
    const option = element('option', null, `${hint.textNative} — ${hint.textTranslated}`);
    option.value = String(index);
    return option;
  }));
  hintList = hints;
}

function openRecast(lineId) {
  const line = client?.session?.lines.find((l) => l.id === lineId);
  if (!line) return;
  recastTarget = lineId;
  ui.recastSpeaker.textContent = nameOf(line.speakerId);
  ui.recastOriginal.textContent = line.textNative;
  ui.recastText.value = line.textNative;
  ui.recastExplanation.value = '';
  for (const box of ui.recastForm.querySelectorAll('input[name=issue]')) box.checked = false;
  ui.recastPanel.hidden = false;
  ui.recastPanel.scrollIntoView({ block: 'nearest' });
  ui.recastText.focus();
}

function closeRecast() {
  recastTarget = null;
  ui.recastPanel.hidden = true;
}

// ----- the end -----

function showSummary(ended) {
  const myId = me();
  const model = client?.session;
  if (model) for (const p of model.participants) names.set(p.userId, p.displayName);
  clearNotice();
  setView('summary');
  ui.summary.dataset.sessionId = ended.sessionId;
  ui.summaryCause.textContent = CAUSES[ended.cause] ?? ended.cause;
  ui.summaryCause.dataset.cause = ended.cause;
  const lines = model?.lines.length ?? 0;
  ui.summaryMeta.textContent = `${model?.scenario.title ?? ''} · ${formatDuration(ended.durationSeconds)} · ${lines} lines`
    + (ended.goalReached ? ' · goal reached' : '');

  const made = (userId) => model?.recasts.filter((r) => r.authorId === userId).length ?? 0;
  const players = [...ended.participants].sort((a, b) => b.stats.xpEarned - a.stats.xpEarned);
  ui.summaryPlayers.replaceChildren(...players.map((p) => {
    const card = element('article', `card player${p.userId === myId ? ' you' : ''}`);
    card.dataset.userId = p.userId;
    const head = element('div', 'player-head');
    const who = element('h3');
    who.append(element('span', 'name', nameOf(p.userId)));
    if (p.userId === myId) who.append(element('span', 'badge', 'you'));
    head.append(who, element('span', 'role', roles.get(p.userId) ?? ''));
    const total = element('p', 'xp');
    total.append(element('span', 'xp-total', p.stats.xpEarned), element('span', 'unit', ' XP'));
    const breakdown = element('dl', 'figures breakdown');
    definitions(breakdown, BREAKDOWN.map(([key, label]) => [label, p.stats.xpBreakdown?.[key] ?? 0, key]));
    const counts = element('dl', 'figures counts');
    definitions(counts, [
      ['Lines spoken', p.stats.linesSpoken, 'linesSpoken'],
      ['New words', p.stats.newVocabulary, 'newVocabulary'],
      ['Corrections received (accepted)', `${p.stats.errorsCorrected} of ${p.stats.errorsDetected}`, 'errorsCorrected'],
      ['Corrections made (accepted)', `${p.collaboration?.helpGiven ?? 0} of ${made(p.userId)}`, 'helpGiven'],
    ]);
    card.append(head, total, breakdown, counts);
    return card;
  }));

  ui.historyEntry.hidden = true;
  ui.historyEntry.replaceChildren();
  delete ui.historyEntry.dataset.sessionId;
  const result = ended.participants.find((p) => p.userId === myId)?.history;
  if (result?.status === 'Success') {
    ui.historyStatus.textContent = 'Saved. Reading your history…';
    showHistoryEntry(ended.sessionId);
  } else if (result?.reason === 'featureLocked') {
    ui.historyStatus.textContent = 'Only premium players\u2019 sessions are kept in their history (featureLocked).';
  } else {
    ui.historyStatus.textContent = `This session could not be saved to your history (${result?.reason ?? 'no answer'}).`;
  }
}

/** Reads GET /api/history and shows the entry of `sessionId` (asked a few times: it may lag). */
async function showHistoryEntry(sessionId) {
  let lastError = null;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (attempt) await new Promise((resolve) => setTimeout(resolve, 600));
    if (ui.summary.dataset.sessionId !== sessionId || !identity) return; // moved on, or signed out
    try {
      const response = await fetch('/api/history?limit=10', {
        headers: { Authorization: `Bearer ${await token()}` }, cache: 'no-store',
      });
      if (!response.ok) throw await apiError(response);
      const page = await response.json();
      const entry = page.sessions.find((s) => s.sessionId === sessionId);
      if (!entry) continue;
      ui.historyStatus.textContent = `Saved in your history (${page.total} session${page.total === 1 ? '' : 's'} in all):`;
      definitions(ui.historyEntry, [
        ['Scenario', entry.scenarioTitle, 'scenarioTitle'],
        ['Played', new Date(entry.timestamp).toLocaleString(), 'timestamp'],
        ['Language', entry.targetLanguage, 'targetLanguage'],
        ['Duration', formatDuration(entry.durationSeconds), 'durationSeconds'],
        ['Lines', entry.lineCount, 'lineCount'],
        ['XP', entry.xpEarned, 'xpEarned'],
      ]);
      ui.historyEntry.dataset.sessionId = entry.sessionId;
      ui.historyEntry.hidden = false;
      return;
    } catch (error) {
      lastError = error;
      if (error.code === 'feature_locked') break;
    }
  }
  if (lastError) {
    ui.historyStatus.textContent = '';
    showError('Could not read your history', lastError);
  } else {
    ui.historyStatus.textContent = 'This session is not in your history yet.';
  }
}

// ----- actions -----

/** A button that asks for a second click (within 4 s) before doing something final. */
function twoStep(button, question, action) {
  const label = button.textContent;
  let timer = null;
  button.addEventListener('click', () => {
    if (!button.classList.contains('armed')) {
      button.classList.add('armed');
      button.textContent = question;
      timer = setTimeout(() => { button.classList.remove('armed'); button.textContent = label; }, 4000);
      return;
    }
    clearTimeout(timer);
    button.classList.remove('armed');
    button.textContent = label;
    action();
  });
}

ui.devForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const name = ui.devName.value.trim();
  if (!name) { notice('Type your name first.'); ui.devName.focus(); return; }
  // The same name in this browser signs in as the same player again (same user id: same history).
  const last = load('local', KEYS.player);
  identity = { kind: 'dev', name, premium: ui.devPremium.checked };
  if (last?.name === name && last.userId) identity.userId = last.userId;
  tokenCache = null;
  store('session', KEYS.identity, identity);
  store('session', KEYS.seat, null);
  start();
});

ui.tokenForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const pasted = ui.tokenInput.value.trim();
  if (!pasted) { notice('Paste a token first.'); ui.tokenInput.focus(); return; }
  identity = { kind: 'token', token: pasted };
  store('session', KEYS.identity, identity);
  store('session', KEYS.seat, null);
  start();
});

ui.showTokenForm.addEventListener('click', () => showForm('token'));
ui.showDevForm.addEventListener('click', () => showForm('dev'));
ui.noticeClose.addEventListener('click', clearNotice);
ui.reconnect.addEventListener('click', () => { if (identity) start(); else showSignIn(); });

ui.signOut.addEventListener('click', async () => {
  if (client?.inSession && connected()) {
    try { await client.leave(); } catch { /* the seat expires by itself */ }
  }
  store('session', KEYS.seat, null);
  clearNotice();
  showSignIn();
});

ui.scenario.addEventListener('change', renderScenario);

ui.hostForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const scenarioId = ui.scenario.value;
  if (!scenarioId) return;
  store('local', KEYS.scenario, scenarioId);
  enter('Could not host', () => client.host({ scenarioId }));
});

ui.solo.addEventListener('click', () => {
  const scenarioId = ui.scenario.value;
  if (scenarioId) enter('Could not start', () => client.startSolo(scenarioId));
});

ui.joinForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const code = ui.joinCode.value.trim();
  if (!code) { notice('Type the join code first.'); ui.joinCode.focus(); return; }
  enter('Could not join', () => client.join(code));
});

ui.hint.addEventListener('change', () => {
  if (ui.hint.value === '') return;
  const hint = hintList[Number(ui.hint.value)];
  if (!hint) return;
  ui.sayText.value = hint.textNative;
  ui.sayTranslation.value = hint.textTranslated;
  ui.sayText.focus();
});

ui.sayForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const text = ui.sayText.value.trim();
  const translation = ui.sayTranslation.value.trim();
  if (!text) { notice('Type a line or pick a suggestion first.'); ui.sayText.focus(); return; }
  ui.sayText.value = '';
  ui.sayTranslation.value = '';
  ui.hint.value = '';
  client.say(text, { translation }).catch((error) => {
    if (!ui.sayText.value) { ui.sayText.value = text; ui.sayTranslation.value = translation; }
    showError('Your line was not recorded', error);
  });
  renderPending();
});

ui.recastForm.addEventListener('submit', async (event) => {
  event.preventDefault();
  const lineId = recastTarget;
  const correctedText = ui.recastText.value.trim();
  const issueTypes = [...ui.recastForm.querySelectorAll('input[name=issue]:checked')].map((box) => box.value);
  const explanation = ui.recastExplanation.value.trim();
  if (!lineId) return;
  if (!correctedText) { notice('Type the corrected text.'); return; }
  if (!issueTypes.length) { notice('Choose at least one kind of issue.', 'missing_field'); return; }
  ui.recastSend.disabled = true;
  try {
    await client.recast({ lineId, correctedText, issueTypes, ...(explanation ? { explanation } : {}) });
    if (recastTarget === lineId) closeRecast();
    clearNotice();
  } catch (error) {
    showError('Your correction was not sent', error);
  } finally {
    ui.recastSend.disabled = false;
  }
});

ui.recastCancel.addEventListener('click', closeRecast);

twoStep(ui.end, 'Click again to end it for everyone', async () => {
  try { await client.end(); } catch (error) { showError('Could not end the session', error); }
});

twoStep(ui.leave, 'Click again to leave for good', async () => {
  try {
    await client.leave();
    store('session', KEYS.seat, null);
    showLobby();
  } catch (error) {
    showError('Could not leave', error);
  }
});

ui.backToLobby.addEventListener('click', () => {
  delete ui.summary.dataset.sessionId;
  if (connected()) showLobby();
  else start();
});

// For the page's own tests and the browser console: the client (its `dropConnection()` cuts the
// connection as a lost network would). Holds no token.
Object.defineProperty(window, 'sessionhubPlay', { value: Object.freeze({ get client() { return client; } }) });

// ----- start -----

identity = load('session', KEYS.identity);
if (identity?.kind === 'dev' && identity.name || identity?.kind === 'token' && identity.token) {
  renderStatus({ kind: 'connecting' });
  setView('connecting');
  start();
} else {
  showSignIn();
}
