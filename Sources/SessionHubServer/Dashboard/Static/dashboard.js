// SessionHub operator dashboard. Served as is from /admin/dashboard.js: no build step, no library.
//
// Asks for an admin token (kept in sessionStorage, this tab only), opens the /admin/feed
// WebSocket of the same origin, sends {"type":"auth","token":…} as its first message, then
// applies a snapshot every second: server figures, a chart of the last two minutes, and the
// live sessions diffed against what is on screen (sessions appearing and ending, new lines,
// players joining, dropping into their grace window and leaving). Operator actions go to the
// admin API with the token in the Authorization header. Everything from the hub is written
// with textContent, never as HTML.
'use strict';

(function () {
  const TOKEN_KEY = 'sessionhub.adminToken';
  const WINDOW_MS = 120000;      // the chart's width: two minutes
  const GAP_MS = 3500;           // a hole in the samples longer than this breaks the lines
  const STALE_MS = 3500;         // no snapshot for this long: the status says so
  const LEFT_VISIBLE_MS = 6000;  // a player who left stays crossed out this long
  const GONE_VISIBLE_MS = 5000;  // an ended session stays greyed out this long
  const MAX_ACTIVITY = 80;
  const SVG_NS = 'http://www.w3.org/2000/svg';

  const $ = (id) => document.getElementById(id);
  const ui = {
    status: $('status'), operator: $('operator'), signOut: $('sign-out'),
    login: $('login'), form: $('login-form'), token: $('token'), loginError: $('login-error'),
    dashboard: $('dashboard'),
    fConnections: $('f-connections'), fSessions: $('f-sessions'), fShared: $('f-shared'),
    fSeats: $('f-seats'), fGrace: $('f-grace'), fIn: $('f-in'), fOut: $('f-out'), fLines: $('f-lines'),
    fUptime: $('f-uptime'), fVersion: $('f-version'),
    chart: $('chart'), lConnections: $('l-connections'), lIn: $('l-in'), lOut: $('l-out'),
    sessions: $('sessions'), sessionCount: $('session-count'), noSessions: $('no-sessions'),
    truncated: $('truncated'), activity: $('activity'),
  };

  let socket = null;
  let reconnectTimer = null;
  let reconnectDelay = 1000;
  let live = false;            // a welcome came on the current socket
  let firstSnapshot = true;    // the first snapshot after signing in is shown without highlights
  let lastSnapshotAt = 0;
  let samples = [];            // {t, connections, inRate, outRate}
  const sessions = new Map();  // sessionId -> entry (see createSession)

  // ----- small helpers -----

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function number(value) {
    return typeof value === 'number' && isFinite(value) ? value : null;
  }

  function formatRate(value) {
    const v = number(value);
    if (v === null) return '–';
    return v < 10 ? v.toFixed(1) : String(Math.round(v));
  }

  function formatCount(value) {
    const v = number(value);
    return v === null ? '–' : String(v);
  }

  function formatDuration(seconds) {
    const s = Math.max(0, Math.floor(number(seconds) || 0));
    const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
    if (h > 0) return h + ' h ' + m + ' min';
    if (m > 0) return m + ' min ' + r + ' s';
    return r + ' s';
  }

  function clockTime(ms) {
    const d = new Date(ms);
    const pad = (n) => String(n).padStart(2, '0');
    return pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds());
  }

  function flash(node, className) {
    node.classList.remove(className);
    void node.offsetWidth; // restart the animation
    node.classList.add(className);
  }

  function setStatus(kind, text) {
    ui.status.className = 'status status-' + kind;
    ui.status.textContent = text;
  }

  // ----- the token: sessionStorage only -----

  function storedToken() {
    try { return sessionStorage.getItem(TOKEN_KEY); } catch (e) { return null; }
  }

  function storeToken(token) {
    try { sessionStorage.setItem(TOKEN_KEY, token); } catch (e) { /* private mode: kept in memory below */ }
    memoryToken = token;
  }

  function forgetToken() {
    try { sessionStorage.removeItem(TOKEN_KEY); } catch (e) { /* nothing stored */ }
    memoryToken = null;
  }

  let memoryToken = null;
  function currentToken() {
    return storedToken() || memoryToken;
  }

  // ----- the feed -----

  function connect() {
    clearTimeout(reconnectTimer);
    const token = currentToken();
    if (!token) { showLogin(''); return; }
    closeSocket();
    live = false;
    setStatus('connecting', 'connecting…');
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(scheme + '//' + location.host + '/admin/feed');
    socket = ws;
    ws.onopen = function () {
      ws.send(JSON.stringify({ type: 'auth', token: token }));
    };
    ws.onmessage = function (event) {
      if (ws !== socket) return;
      let message;
      try { message = JSON.parse(event.data); } catch (e) { return; }
      handle(message);
    };
    ws.onclose = function (event) {
      if (ws !== socket) return;
      socket = null;
      feedClosed(event);
    };
  }

  function closeSocket() {
    if (!socket) return;
    const ws = socket;
    socket = null;
    ws.onopen = ws.onmessage = ws.onclose = null;
    try { ws.close(1000, 'closed by the operator'); } catch (e) { /* already closed */ }
  }

  function feedClosed(event) {
    live = false;
    if (event.code === 1008) {
      // Bad, expired or non-admin token: forget it, show nothing, ask again.
      forgetToken();
      showLogin('The hub refused the token: ' + (event.reason || 'policy violation (1008)'));
      return;
    }
    let why = 'connection lost';
    if (event.code === 1013) why = event.reason || 'too many dashboards open';
    if (event.code === 1001) why = 'the hub is shutting down';
    ui.dashboard.classList.add('stale');
    const seconds = Math.round(reconnectDelay / 1000);
    setStatus('stale', why + ' — retrying in ' + seconds + ' s');
    reconnectTimer = setTimeout(connect, reconnectDelay);
    reconnectDelay = Math.min(reconnectDelay * 2, 15000);
  }

  function handle(message) {
    if (message.type === 'welcome') {
      live = true;
      reconnectDelay = 1000;
      ui.login.hidden = true;
      ui.loginError.hidden = true;
      ui.dashboard.hidden = false;
      ui.signOut.hidden = false;
      const who = message.operator || {};
      ui.operator.textContent = 'operator ' + (who.name || who.userId || '');
      setStatus('live', 'live');
      return;
    }
    if (message.type === 'snapshot' && live) applySnapshot(message);
  }

  // ----- sign in and out -----

  function showLogin(error) {
    clearTimeout(reconnectTimer);
    closeSocket();
    live = false;
    clearData();
    ui.dashboard.hidden = true;
    ui.signOut.hidden = true;
    ui.operator.textContent = '';
    ui.login.hidden = false;
    ui.loginError.textContent = error || '';
    ui.loginError.hidden = !error;
    setStatus(error ? 'error' : 'idle', error ? 'refused' : 'not connected');
    ui.token.value = '';
    ui.token.focus();
  }

  function clearData() {
    for (const entry of sessions.values()) clearTimers(entry);
    sessions.clear();
    ui.sessions.replaceChildren();
    ui.activity.replaceChildren();
    ui.chart.replaceChildren();
    samples = [];
    firstSnapshot = true;
    for (const node of [ui.fConnections, ui.fSessions, ui.fSeats, ui.fIn, ui.fOut, ui.fLines, ui.fUptime]) node.textContent = '–';
    for (const node of [ui.fShared, ui.fGrace, ui.fVersion, ui.lConnections, ui.lIn, ui.lOut, ui.sessionCount]) node.textContent = '';
    ui.noSessions.hidden = false;
    ui.truncated.hidden = true;
    ui.dashboard.classList.remove('stale');
  }

  ui.form.addEventListener('submit', function (event) {
    event.preventDefault();
    const token = ui.token.value.trim();
    ui.token.value = '';
    if (!token) {
      ui.loginError.textContent = 'Paste an admin token first.';
      ui.loginError.hidden = false;
      return;
    }
    ui.loginError.hidden = true;
    storeToken(token);
    clearData();
    connect();
  });

  ui.signOut.addEventListener('click', function () {
    forgetToken();
    showLogin('');
  });

  // ----- snapshots -----

  function applySnapshot(snap) {
    lastSnapshotAt = performance.now();
    ui.dashboard.classList.remove('stale');
    setStatus('live', 'live · ' + clockTime(snap.serverTime));
    const s = snap.server || {};
    ui.fConnections.textContent = formatCount(s.connections);
    ui.fSessions.textContent = formatCount(s.liveSessions);
    ui.fShared.textContent = formatCount(s.sharedSessions) + ' shared';
    ui.fSeats.textContent = formatCount(s.seats);
    ui.fGrace.textContent = formatCount(s.connectedSeats) + ' connected · ' + formatCount(s.graceSeats) + ' in grace';
    ui.fIn.textContent = formatRate(s.messagesInPerSecond);
    ui.fOut.textContent = formatRate(s.messagesOutPerSecond);
    ui.fLines.textContent = formatRate(s.linesPerSecond);
    ui.fUptime.textContent = formatDuration(s.uptimeSeconds);
    ui.fVersion.textContent = 'v' + (s.version || '?') + (s.draining ? ' · draining' : '')
      + ' · ' + formatCount(s.dashboards) + ' dashboard' + (s.dashboards === 1 ? '' : 's');
    record(snap.serverTime, s);
    drawChart(snap.serverTime);
    applySessions(snap);
    firstSnapshot = false;
  }

  function applySessions(snap) {
    const quiet = firstSnapshot;
    // Oldest first, as the hub lists them: a new session is added at the bottom, so the cards
    // an operator is looking at (and their buttons) do not move when one appears.
    const list = (snap.sessions || []).slice().sort(function (a, b) {
      return (a.startedAt - b.startedAt) || (a.sessionId < b.sessionId ? -1 : 1);
    });
    const seen = new Set();
    for (const data of list) {
      seen.add(data.sessionId);
      let entry = sessions.get(data.sessionId);
      const fresh = !entry;
      if (!entry) {
        entry = createSession(data, quiet);
        sessions.set(data.sessionId, entry);
        if (!quiet) {
          addActivity('session', 'Session started: ' + data.scenario.title
            + (data.joinCode ? ' (' + data.joinCode + ')' : ' (solo)'));
        }
      } else if (entry.gone) {
        entry.gone = false;
        entry.card.classList.remove('gone');
        clearTimeout(entry.removeTimer);
      }
      updateSession(entry, data, fresh || quiet);
    }
    for (const [id, entry] of sessions) {
      if (seen.has(id) || entry.gone) continue;
      entry.gone = true;
      entry.card.classList.add('gone');
      entry.phase.textContent = 'ended';
      entry.phase.className = 'badge phase-ended';
      entry.endButton.disabled = true;
      // With a truncated list a missing session may only be left out, not ended.
      if (!snap.truncated) addActivity('session', 'Session ended: ' + entry.title);
      entry.removeTimer = setTimeout(function () {
        clearTimers(entry);
        entry.card.remove();
        sessions.delete(id);
        ui.noSessions.hidden = sessions.size > 0;
      }, snap.truncated ? 0 : GONE_VISIBLE_MS);
    }
    const order = list.map(function (data) { return sessions.get(data.sessionId).card; });
    for (const entry of sessions.values()) if (entry.gone) order.push(entry.card);
    order.forEach(function (card, index) {
      const at = ui.sessions.children[index];
      if (at !== card) ui.sessions.insertBefore(card, at || null);
    });
    ui.sessionCount.textContent = '(' + formatCount(snap.sessionCount) + ')';
    ui.noSessions.hidden = sessions.size > 0;
    ui.truncated.hidden = !snap.truncated;
    ui.truncated.textContent = snap.truncated
      ? 'showing the ' + list.length + ' most recently active of ' + snap.sessionCount : '';
  }

  function createSession(data, quiet) {
    const card = element('article', 'session ' + (data.mode === 'solo' ? 'solo' : 'shared'));
    card.dataset.sessionId = data.sessionId;
    const head = element('div', 'session-head');
    const title = element('h3', null, data.scenario.title);
    const mode = element('span', 'badge', data.mode);
    const phase = element('span', 'badge');
    const code = element('span', 'join-code', data.joinCode || '');
    const endButton = element('button', 'danger small end', 'End session');
    endButton.type = 'button';
    head.append(title, mode, phase, code, endButton);
    const meta = element('p', 'session-meta');
    const participants = element('ul', 'participants');
    const lines = element('ol', 'lines');
    const recasts = element('ul', 'recasts');
    recasts.hidden = true;
    card.append(head, meta, participants, lines, recasts);
    if (!quiet) card.classList.add('appeared');
    const entry = {
      id: data.sessionId, title: data.scenario.title, card: card, phase: phase, meta: meta,
      endButton: endButton, participantList: participants, lineList: lines, recastList: recasts,
      people: new Map(), lines: new Map(), recasts: new Map(), gone: false, removeTimer: null,
    };
    endButton.addEventListener('click', function () { endSession(entry); });
    return entry;
  }

  function clearTimers(entry) {
    clearTimeout(entry.removeTimer);
    for (const person of entry.people.values()) clearTimeout(person.timer);
  }

  function updateSession(entry, data, quiet) {
    entry.title = data.scenario.title;
    entry.phase.textContent = data.phase;
    entry.phase.className = 'badge phase-' + data.phase;
    entry.card.classList.toggle('ending', data.phase !== 'live');
    entry.endButton.disabled = data.phase !== 'live';
    const facts = [
      'node ' + (data.node || 'local'),
      data.scenario.targetLanguage,
      (data.participants || []).length + '/' + data.maxPlayers + ' players',
      'started ' + formatDuration(data.ageSeconds) + ' ago',
      data.lineCount + ' lines',
      data.recastCount + ' recasts (' + data.acceptedRecastCount + ' accepted)',
      formatRate(data.messagesPerSecond) + ' msg/s',
      'idle ' + formatDuration(data.idleSeconds),
      'seq ' + data.seq,
    ];
    if (data.goalReached) facts.push('goal reached');
    if (data.failedJournalAppends > 0) facts.push(data.failedJournalAppends + ' failed journal appends');
    entry.meta.textContent = facts.join(' · ');

    const names = new Map();
    for (const p of (data.departed || [])) names.set(p.userId, p.displayName);
    for (const p of (data.participants || [])) names.set(p.userId, p.displayName);
    for (const [userId, person] of entry.people) if (!names.has(userId)) names.set(userId, person.name);
    updateParticipants(entry, data, quiet);
    updateLines(entry, data, names, quiet);
    updateRecasts(entry, data, names, quiet);
  }

  function updateParticipants(entry, data, quiet) {
    const present = new Map();
    for (const p of (data.participants || [])) present.set(p.userId, p);
    for (const p of present.values()) {
      let person = entry.people.get(p.userId);
      if (!person) {
        person = createParticipant(entry, p);
        entry.people.set(p.userId, person);
        entry.participantList.append(person.node);
        if (!quiet) {
          flash(person.node, 'joined');
          addActivity('join', p.displayName + ' joined ' + entry.title + ' as ' + p.role);
        }
      } else if (person.left) {
        person.left = false;
        clearTimeout(person.timer);
        person.node.classList.remove('left');
        flash(person.node, 'joined');
        addActivity('join', p.displayName + ' is back in ' + entry.title);
      } else if (person.status !== p.status) {
        flash(person.node, 'changed');
        if (p.status === 'grace') {
          addActivity('grace', p.displayName + ' disconnected from ' + entry.title
            + ' — seat held ' + formatCount(p.graceSecondsLeft) + ' s');
        } else {
          addActivity('join', p.displayName + ' reconnected to ' + entry.title);
        }
      }
      person.status = p.status;
      person.name = p.displayName;
      person.node.classList.toggle('connected', p.status === 'connected');
      person.node.classList.toggle('grace', p.status === 'grace');
      person.nameNode.textContent = p.displayName;
      person.roleNode.textContent = p.role;
      person.hostNode.hidden = !p.isHost;
      person.stateNode.textContent = p.status === 'grace'
        ? 'in grace ' + formatCount(p.graceSecondsLeft) + ' s' : 'connected';
      person.linesNode.textContent = p.linesSpoken + ' lines';
      person.removeButton.hidden = false;
    }
    for (const [userId, person] of entry.people) {
      if (present.has(userId) || person.left) continue;
      person.left = true;
      person.node.classList.remove('connected', 'grace');
      person.node.classList.add('left');
      person.stateNode.textContent = 'left';
      person.hostNode.hidden = true;
      person.removeButton.hidden = true;
      if (!quiet) addActivity('leave', person.name + ' left ' + entry.title);
      person.timer = setTimeout(function () {
        person.node.remove();
        entry.people.delete(userId);
      }, quiet ? 0 : LEFT_VISIBLE_MS);
    }
  }

  function createParticipant(entry, p) {
    const node = element('li', 'participant');
    node.dataset.userId = p.userId;
    const nameNode = element('span', 'name', p.displayName);
    const roleNode = element('span', 'role', p.role);
    const hostNode = element('span', 'host', 'host');
    const stateNode = element('span', 'state');
    const linesNode = element('span', 'role');
    const removeButton = element('button', 'danger small remove', '×');
    removeButton.type = 'button';
    removeButton.title = 'Remove ' + p.displayName + ' from the session';
    removeButton.setAttribute('aria-label', removeButton.title);
    node.append(nameNode, roleNode, hostNode, stateNode, linesNode, removeButton);
    const person = {
      userId: p.userId, name: p.displayName, status: p.status, left: false, timer: null,
      node: node, nameNode: nameNode, roleNode: roleNode, hostNode: hostNode, stateNode: stateNode,
      linesNode: linesNode, removeButton: removeButton,
    };
    removeButton.addEventListener('click', function () { removeParticipant(entry, person); });
    return person;
  }

  function updateLines(entry, data, names, quiet) {
    const current = data.lines || [];
    const keep = new Set(current.map(function (line) { return line.id; }));
    for (const [id, node] of entry.lines) {
      if (!keep.has(id)) { node.remove(); entry.lines.delete(id); }
    }
    for (const line of current) {
      if (entry.lines.has(line.id)) continue;
      const node = element('li', 'line');
      node.dataset.lineId = line.id;
      const speaker = element('span', 'speaker', names.get(line.speakerId) || line.speakerId);
      speaker.title = line.roleName;
      const body = element('span', 'line-body');
      body.append(element('span', 'line-text', line.textNative));
      if (line.textTranslated) body.append(element('span', 'translated', line.textTranslated));
      node.append(speaker, body);
      if (!quiet) node.classList.add('new');
      entry.lineList.append(node);
      entry.lines.set(line.id, node);
    }
  }

  function updateRecasts(entry, data, names, quiet) {
    const current = data.recasts || [];
    const keep = new Set(current.map(function (recast) { return recast.id; }));
    for (const [id, item] of entry.recasts) {
      if (!keep.has(id)) { item.node.remove(); entry.recasts.delete(id); }
    }
    for (const recast of current) {
      let item = entry.recasts.get(recast.id);
      if (!item) {
        const node = element('li', 'recast');
        const text = (names.get(recast.authorId) || recast.authorId) + ' → ' + (names.get(recast.speakerId) || recast.speakerId)
          + ' (' + recast.lineId + '): ';
        node.append(element('span', 'recast-who', '↳ ' + text), element('span', 'recast-text', recast.correctedText));
        node.append(element('span', 'issues', (recast.issueTypes || []).join(', ')));
        const accepted = element('span', 'accepted', '✓ accepted');
        node.append(accepted);
        if (!quiet) node.classList.add('new');
        item = { node: node, accepted: accepted, wasAccepted: null };
        entry.recasts.set(recast.id, item);
        entry.recastList.append(node);
      }
      if (item.wasAccepted === false && recast.accepted && !quiet) flash(item.node, 'new');
      item.accepted.hidden = !recast.accepted;
      item.wasAccepted = !!recast.accepted;
    }
    entry.recastList.hidden = entry.recasts.size === 0;
  }

  // ----- activity -----

  function addActivity(kind, text) {
    const item = element('li', 'new');
    item.append(element('time', null, clockTime(Date.now())), element('span', 'kind-' + kind, text));
    ui.activity.prepend(item);
    while (ui.activity.children.length > MAX_ACTIVITY) ui.activity.lastElementChild.remove();
  }

  // ----- chart: connections (left scale) and messages per second (right scale) -----

  function record(time, server) {
    samples.push({
      t: time,
      connections: number(server.connections),
      inRate: number(server.messagesInPerSecond),
      outRate: number(server.messagesOutPerSecond),
    });
    const cutoff = time - WINDOW_MS - GAP_MS;
    while (samples.length > 0 && samples[0].t < cutoff) samples.shift();
  }

  function niceMax(value) {
    if (!(value > 0)) return 1;
    const power = Math.pow(10, Math.floor(Math.log10(value)));
    for (const step of [1, 2, 2.5, 5, 10]) if (value <= step * power) return step * power;
    return 10 * power;
  }

  function svg(tag, attributes) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const name in attributes) node.setAttribute(name, String(attributes[name]));
    return node;
  }

  function drawChart(now) {
    const width = 800, height = 170, top = 8, bottom = 4;
    const plot = height - top - bottom;
    const start = now - WINDOW_MS;
    const visible = samples.filter(function (s) { return s.t >= start; });
    let maxConnections = 0, maxRate = 0;
    for (const s of visible) {
      maxConnections = Math.max(maxConnections, s.connections || 0);
      maxRate = Math.max(maxRate, s.inRate || 0, s.outRate || 0);
    }
    const scaleConnections = niceMax(maxConnections), scaleRate = niceMax(maxRate);
    const nodes = [];
    for (const fraction of [0, 0.25, 0.5, 0.75, 1]) {
      const y = top + plot * fraction;
      nodes.push(svg('line', { x1: 0, x2: width, y1: y, y2: y, class: 'grid' }));
    }
    for (const fraction of [0.5]) {
      nodes.push(svg('line', { x1: width * fraction, x2: width * fraction, y1: top, y2: top + plot, class: 'grid' }));
    }
    function series(key, scale, className) {
      let d = '', previous = null;
      for (const s of visible) {
        const value = s[key];
        if (value === null) { previous = null; continue; }
        const x = ((s.t - start) / WINDOW_MS) * width;
        const y = top + plot * (1 - Math.min(value, scale) / scale);
        const move = previous === null || s.t - previous > GAP_MS;
        d += (move ? 'M' : 'L') + x.toFixed(1) + ' ' + y.toFixed(1) + ' ';
        previous = s.t;
      }
      if (d) nodes.push(svg('path', { d: d.trim(), class: 'series ' + className }));
    }
    series('connections', scaleConnections, 'series-connections');
    series('inRate', scaleRate, 'series-in');
    series('outRate', scaleRate, 'series-out');
    ui.chart.replaceChildren.apply(ui.chart, nodes);
    const last = visible.length > 0 ? visible[visible.length - 1] : null;
    ui.lConnections.textContent = last ? formatCount(last.connections) + ' (scale 0–' + scaleConnections + ')' : '';
    ui.lIn.textContent = last ? formatRate(last.inRate) : '';
    ui.lOut.textContent = last ? formatRate(last.outRate) + ' (scale 0–' + scaleRate + ')' : '';
  }

  // ----- operator actions: the admin API, token in the Authorization header -----

  async function adminRequest(method, path) {
    const token = currentToken();
    if (!token) { showLogin('Sign in again to act on sessions.'); return null; }
    let response;
    try {
      response = await fetch(path, {
        method: method, headers: { Authorization: 'Bearer ' + token },
        cache: 'no-store', credentials: 'omit', redirect: 'error',
      });
    } catch (error) {
      addActivity('error', method + ' failed: ' + error.message);
      return null;
    }
    let body = null;
    try { body = await response.json(); } catch (error) { body = null; }
    if (!response.ok) {
      const message = (body && body.message) || response.statusText;
      addActivity('error', 'The hub refused the action (' + response.status + '): ' + message);
      if (response.status === 401) {
        forgetToken();
        showLogin('The hub refused the token: ' + message);
      }
      return null;
    }
    return body || {};
  }

  function endSession(entry) {
    if (!window.confirm('End the session "' + entry.title + '" for everyone in it?\n\n'
      + 'The players get "ended" and go back to the lobby; the session is saved to their history.')) return;
    entry.endButton.disabled = true;
    adminRequest('POST', '/admin/api/sessions/' + encodeURIComponent(entry.id) + '/end').then(function (body) {
      if (body) {
        addActivity('session', 'You ended ' + entry.title + ' (' + (body.participants || []).length + ' participants)');
      } else {
        entry.endButton.disabled = false;
      }
    });
  }

  function removeParticipant(entry, person) {
    if (!window.confirm('Remove ' + person.name + ' from "' + entry.title + '"?\n\n'
      + 'Their seat is released and they go back to the lobby; they can join again with the code.')) return;
    person.removeButton.disabled = true;
    const path = '/admin/api/sessions/' + encodeURIComponent(entry.id) + '/participants/' + encodeURIComponent(person.userId);
    adminRequest('DELETE', path).then(function (body) {
      person.removeButton.disabled = false;
      if (body) {
        addActivity('leave', 'You removed ' + person.name + ' from ' + entry.title
          + (body.sessionEnded ? ' (the session ended)' : ''));
      }
    });
  }

  // ----- staleness and start -----

  setInterval(function () {
    if (!live || lastSnapshotAt === 0) return;
    const age = performance.now() - lastSnapshotAt;
    if (age > STALE_MS) {
      ui.dashboard.classList.add('stale');
      setStatus('stale', 'no update for ' + Math.round(age / 1000) + ' s');
    }
  }, 1000);

  if (currentToken()) {
    connect(); // a reload of this tab: the token is still in its sessionStorage
  } else {
    showLogin('');
  }
})();
