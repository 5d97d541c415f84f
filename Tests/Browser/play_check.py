#!/usr/bin/env python3
"""Plays a whole session on the web player (/play) in headless Chromium over the DevTools protocol.

    python play_check.py --hub http://127.0.0.1:PORT --bot BOT --token-cmd CMD
                         [--hub-off http://127.0.0.1:PORT2 --paste-token-file FILE] [--screenshots DIR]

Standard library plus `websockets` (the CDP connection). Started by scripts/play-test.sh, which
runs the hub(s). Two players, each in a browser context of its own (own storage), Ana on a
desktop-sized page and Ben on a 360 x 740 phone-sized one, plus a `sessionhub-bot` joining by the
code. Steps, each bounded:

 1. Ana opens /play: the sign-in form; she signs in (development sign-in) as premium, picks
    "Checking into a Hotel" and hosts: the page shows the join code.
 2. Ben signs in; a wrong code is refused on the page with `unknown_join_code`; he joins with the
    code read from Ana's page (typed in lower case with a dash). The bot joins with the same code
    and says two lines.
 3. Lines from both pages (a suggestion for the role picked from the menu, and typed lines, one of
    them with HTML in it that must show as text); every line on both pages, once.
 4. Ben corrects Ana's line (issue types and a corrected text); Ana accepts it on her page; both
    pages show it accepted. Ana corrects the bot's line and the bot accepts it.
 5. Live figures: both pages show XP above zero.
 6. Ben's network goes offline (DevTools network emulation, and the page's client drops its
    connection, as the emulation leaves open WebSockets alone): his page shows reconnecting (every
    attempt fails while offline), Ana's shows him away; Ben says a line offline (shown as waiting) and Ana says one; back online, Ben's
    page shows connected again, both transcripts are complete and equal, no line twice.
 7. Ben reloads his page: it takes the seat back from sessionStorage (same user, same transcript).
 8. Ana ends the session (the button asks twice): both pages show the summary with every
    player's XP breakdown; Ana's (premium) shows the session's entry of GET /api/history, which the
    API confirms; Ben's says history is premium only. The bot exits 0 with cause hostEnded. Ana
    plays again (the lobby), signs out (identity and seat forgotten) and signs in again with the
    same name: the same user id.
 9. With --hub-off (a hub whose development sign-in is off): the page offers the token form, a
    bad token is refused with its code, a pasted token signs in.
10. Throughout: no JavaScript exception, no Content-Security-Policy violation, no console error,
    no horizontal overflow on the 360 px page, no token in any URL.

Screenshots (--screenshots DIR): play-lobby.png, play-session.png, play-summary.png.
Exits 0 when every step passed, 1 otherwise (with the reason on standard error).
"""

import argparse
import asyncio
import base64
import json
import os
import shlex
import signal
import sys
import time
import urllib.error
import urllib.request

import websockets

from cdp import CDP, Failure, devtools_endpoint, headless_chromium, run_check


def log(message):
    print(f"[play-check] {message}", file=sys.stderr, flush=True)


STATE = """(() => {
  if (document.readyState === 'loading' || !document.getElementById('summary')) return null; // not loaded yet
  const q = (s) => Array.from(document.querySelectorAll(s));
  const shown = (id) => { const n = document.getElementById(id); return !!n && !n.hidden; };
  const text = (s, root = document) => { const n = root.querySelector(s); return n ? n.textContent : null; };
  let identity = null;
  try { identity = JSON.parse(sessionStorage.getItem('sessionhub.play.identity')); } catch (e) {}
  return {
    view: document.body.dataset.view || '',
    status: document.getElementById('status').dataset.state || '',
    statusText: text('#status'),
    notice: shown('notice') ? text('#notice-text') : '',
    noticeCode: shown('notice') && shown('notice-code') ? text('#notice-code') : '',
    devForm: shown('signin') && shown('dev-form'),
    tokenForm: shown('signin') && shown('token-form'),
    devOff: shown('dev-off'),
    reconnectBar: shown('reconnect-bar') ? text('#reconnect-text') : '',
    who: text('#who-name'),
    premiumBadge: shown('who-premium'),
    scenarios: q('#scenario option').length,
    scenario: document.getElementById('scenario').value,
    code: text('#session-code'),
    codeShown: shown('code-block'),
    sessionId: window.sessionhubPlay && window.sessionhubPlay.client && window.sessionhubPlay.client.session
      ? window.sessionhubPlay.client.session.sessionId : null,
    myRole: text('#my-role'),
    hints: q('#hint option').length,
    participants: q('#participants .participant').map((n) => ({
      id: n.dataset.userId, name: text('.name', n), role: text('.role', n), presence: n.dataset.presence,
      host: !!n.querySelector('.host'), xp: text('.xp', n) })),
    lines: q('#transcript .line').map((n) => ({
      id: n.dataset.lineId, speaker: n.dataset.speakerId, speakerName: text('.speaker', n),
      text: text('.native', n), translated: text('.translated', n), canCorrect: !!n.querySelector('button.correct'),
      recasts: q('.recast').filter((r) => n.contains(r)).map((r) => ({
        id: r.dataset.recastId, text: text('.corrected', r), accepted: r.classList.contains('accepted'),
        canAccept: !!r.querySelector('button.accept'),
        issues: Array.from(r.querySelectorAll('.issue')).map((i) => i.textContent) })) })),
    pending: q('#pending .line').map((n) => text('.native', n)),
    markupInTranscript: document.querySelectorAll('#transcript *:not(li):not(div):not(span):not(p):not(ul):not(button)').length,
    myXp: Number(text('#my-xp')),
    stats: Object.fromEntries(q('#my-stats dd').map((d) => [d.dataset.key, d.textContent])),
    endShown: shown('end'),
    recastOpen: shown('recast-panel'),
    summarySession: document.getElementById('summary').dataset.sessionId || null,
    cause: document.getElementById('summary-cause').dataset.cause || null,
    summaryPlayers: q('#summary-players .player').map((n) => ({
      id: n.dataset.userId, name: text('h3 .name', n), you: n.classList.contains('you'), xp: Number(text('.xp-total', n)),
      breakdown: Object.fromEntries(Array.from(n.querySelectorAll('dd')).map((d) => [d.dataset.key, d.textContent])) })),
    historyStatus: text('#history-status'),
    historyEntry: shown('history-entry') ? {
      sessionId: document.getElementById('history-entry').dataset.sessionId,
      fields: Object.fromEntries(q('#history-entry dd').map((d) => [d.dataset.key, d.textContent])) } : null,
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
    url: location.href,
    seatSaved: !!sessionStorage.getItem('sessionhub.play.seat'),
    identity,
    states: window.__states || [],
  };
})()"""

# Records every connection state the page shows (read back as `states`).
WATCH_STATES = """(() => {
  window.__states = [document.getElementById('status').dataset.state];
  new MutationObserver(() => {
    const s = document.getElementById('status').dataset.state;
    if (window.__states[window.__states.length - 1] !== s) window.__states.push(s);
  }).observe(document.getElementById('status'), { attributes: true, attributeFilter: ['data-state'] });
  return true;
})()"""


class Page:
    """One player's tab: its CDP connection, the problems seen in it, and small actions."""

    def __init__(self, cdp, name, width):
        self.cdp = cdp
        self.name = name
        self.width = width
        self.problems = []
        cdp.listeners.append(self._watch)

    def _watch(self, event):
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            self.problems.append("JavaScript exception: " + str(details.get("exception", {}).get("description")
                                                               or details.get("text")))
        elif method == "Log.entryAdded":
            entry = params.get("entry", {})
            text = entry.get("text", "")
            if "Content Security Policy" in text or entry.get("source") == "security":
                self.problems.append("CSP: " + text)
            elif entry.get("level") == "error" and entry.get("source") not in ("network",):
                self.problems.append(f"console error ({entry.get('source')}): {text}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
            self.problems.append("console.error: " + " ".join(str(a.get("value") or a.get("description"))
                                                              for a in params.get("args", [])))

    async def state(self):
        return await self.cdp.evaluate(STATE)

    async def wait(self, ok, what, timeout=15):
        """Polls the page's state every 150 ms until `ok(state)`; returns the state."""
        deadline = time.monotonic() + timeout
        state = None
        while time.monotonic() < deadline:
            try:
                current = await self.state()
            except Failure as failure:  # between two documents (a reload): ask again
                if "evaluate failed" not in str(failure) and "context" not in str(failure):
                    raise
                current = None
            if current is not None:
                state = current
                if ok(state):
                    return state
            await asyncio.sleep(0.15)
        brief = {k: state.get(k) for k in ("view", "status", "notice", "noticeCode", "participants", "lines",
                                            "pending", "cause", "historyStatus")} if state else None
        raise Failure(f"{self.name}: timed out after {timeout} s waiting for {what}; page: {json.dumps(brief)[:1500]}")

    async def navigate(self, url):
        self.cdp.events.clear()
        await self.cdp.send("Page.navigate", {"url": url})
        await self.cdp.wait_for_event("Page.loadEventFired", 15)

    async def run(self, script):
        """Runs `script` (a function body) in the page; `null` means it could not (raised)."""
        value = await self.cdp.evaluate(f"(() => {{ {script} }})()")
        if isinstance(value, str) and value.startswith("ERR "):
            raise Failure(f"{self.name}: {value[4:]}")
        return value

    async def click(self, selector):
        await self.run(f"""const n = document.querySelector({json.dumps(selector)});
          if (!n) return 'ERR no element ' + {json.dumps(selector)};
          if (n.disabled || n.closest('[hidden]')) return 'ERR ' + {json.dumps(selector)} + ' is not usable';
          n.click(); return true;""")

    async def type(self, selector, text):
        """Clears the field and types `text` into it as keyboard input (Input.insertText)."""
        await self.run(f"""const n = document.querySelector({json.dumps(selector)});
          if (!n) return 'ERR no element ' + {json.dumps(selector)};
          n.value = ''; n.focus(); return true;""")
        await self.cdp.send("Input.insertText", {"text": text})

    async def choose(self, selector, value):
        await self.run(f"""const n = document.querySelector({json.dumps(selector)});
          if (!n) return 'ERR no element ' + {json.dumps(selector)};
          n.value = {json.dumps(value)};
          if (n.value !== {json.dumps(value)}) return 'ERR no option ' + {json.dumps(value)};
          n.dispatchEvent(new Event('change', {{ bubbles: true }})); return true;""")

    async def screenshot(self, path):
        shot = await self.cdp.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True},
                                   timeout=20)
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "wb") as file:
            file.write(base64.b64decode(shot["data"]))
        log(f"screenshot: {path}")

    def check_problems(self):
        if self.problems:
            raise Failure(f"{self.name}: problems in the page: " + " | ".join(self.problems[:5]))


def http_json(url, method="GET", body=None, token=None, timeout=5):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read())


def unique_lines(state):
    """The transcript's texts; fails on a line shown twice (same id, or same text)."""
    ids = [line["id"] for line in state["lines"]]
    texts = [line["text"] for line in state["lines"]]
    if len(set(ids)) != len(ids) or len(set(texts)) != len(texts):
        raise Failure(f"a line is shown twice: {texts}")
    return texts


async def run(args):
    async with headless_chromium("play", args.chromium, "1280,1000", log, lifetime=args.browser_lifetime,
                                 extra=("--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                                        "--disable-backgrounding-occluded-windows")) as (profile, browser):
        bot = {"process": None}
        try:
            return await drive(args, profile, browser, bot)
        finally:
            process = bot["process"]
            if process and process.returncode is None:
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                try:
                    await asyncio.wait_for(process.wait(), 5)
                except asyncio.TimeoutError:
                    pass


async def open_page(browser_ws, devtools_port, name, width, height, mobile):
    """A new tab in a browser context of its own (own storage), with its CDP connection."""
    context = (await browser_ws.send("Target.createBrowserContext", {"disposeOnDetach": True}))["browserContextId"]
    target = (await browser_ws.send("Target.createTarget", {"url": "about:blank", "browserContextId": context}))["targetId"]
    ws = await websockets.connect(f"ws://127.0.0.1:{devtools_port}/devtools/page/{target}", max_size=None,
                                  open_timeout=10)
    cdp = CDP(ws, name)
    page = Page(cdp, name, width)
    for domain in ("Page", "Runtime", "Log", "Network"):
        await cdp.send(f"{domain}.enable")
    await cdp.send("Emulation.setDeviceMetricsOverride",
                   {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
    return page


async def sign_in(page, hub, name, premium):
    await page.navigate(f"{hub}/play")
    state = await page.wait(lambda s: s["devForm"], "the sign-in form")
    if state["view"] != "signin" or state["lines"] or state["participants"] or state["tokenForm"]:
        raise Failure(f"{page.name}: before signing in the page must show only the sign-in form: {state}")
    await page.type("#dev-name", name)
    if premium:
        await page.click("#dev-premium")
    await page.click("#dev-submit")
    state = await page.wait(lambda s: s["view"] == "lobby" and s["status"] == "connected" and s["scenarios"] >= 10,
                            "the lobby with the scenarios")
    if state["who"] != name or state["premiumBadge"] != premium:
        raise Failure(f"{page.name}: the header shows {state['who']!r} (premium {state['premiumBadge']})")
    if not (state["identity"] or {}).get("userId", "").startswith("dev-"):
        raise Failure(f"{page.name}: the dev userId is not kept in sessionStorage: {state['identity']}")
    log(f"{name} signed in as {state['identity']['userId']} (premium {premium})")
    return state["identity"]["userId"]


async def say(page, text, translation=""):
    await page.type("#say-text", text)
    await page.type("#say-translation", translation)
    await page.click("#say")


def texts_of(state):
    return [line["text"] for line in state["lines"]]


async def drive(args, profile, browser, bot):
    started = time.monotonic()
    port_lines = await devtools_endpoint(profile, browser)
    devtools_port = int(port_lines[0])
    browser_url = f"ws://127.0.0.1:{devtools_port}{port_lines[1].strip()}"
    log(f"Chromium up after {time.monotonic() - started:.1f} s (DevTools port {devtools_port})")

    async with websockets.connect(browser_url, max_size=None, open_timeout=10) as bws:
        browser_cdp = CDP(bws, "browser")
        ana = await open_page(browser_cdp, devtools_port, "Ana's page", 1280, 1000, False)
        ben = await open_page(browser_cdp, devtools_port, "Ben's page", 360, 740, True)
        pages = [ana, ben]
        try:
            await play(args, ana, ben, bot)
            if args.hub_off:
                paula = await open_page(browser_cdp, devtools_port, "Paula's page", 390, 800, True)
                pages.append(paula)
                await paste_token(args, paula)
            await asyncio.sleep(0.3)
            for page in pages:
                page.check_problems()
        finally:
            for page in pages:
                page.cdp.reader.cancel()
                await page.cdp.ws.close()
            browser_cdp.reader.cancel()
    log(f"passed in {time.monotonic() - started:.1f} s")
    return 0


async def play(args, ana, ben, bot):
    hub = args.hub
    # 1. Ana signs in (premium) and hosts.
    ana_id = await sign_in(ana, hub, "Ana", True)
    await ana.choose("#scenario", "hotel-check-in")
    if args.screenshots:
        await ana.screenshot(os.path.join(args.screenshots, "play-lobby.png"))
    await ana.click("#host")
    state = await ana.wait(lambda s: s["view"] == "session" and s["code"] and s["codeShown"], "the join code")
    code = state["code"]
    session_id = state["sessionId"]
    if len(code) != 6 or state["myRole"] != "Receptionist" or not state["endShown"] or state["hints"] < 2:
        raise Failure(f"Ana's session page: code {code!r}, role {state['myRole']!r}, end button {state['endShown']}, "
                      f"{state['hints']} hint options")
    log(f"Ana hosts session {session_id}: the page shows the code {code}")

    # 2. Ben signs in, a wrong code is refused, then he joins with the code from Ana's page.
    ben_id = await sign_in(ben, hub, "Ben", False)
    wrong = "ZZZZZ2" if code != "ZZZZZ2" else "ZZZZZ3"
    await ben.type("#join-code", wrong)
    await ben.click("#join")
    state = await ben.wait(lambda s: s["noticeCode"], "the refusal of a wrong code")
    if state["noticeCode"] != "unknown_join_code" or state["view"] != "lobby":
        raise Failure(f"a wrong code must show unknown_join_code in the lobby: {state['noticeCode']!r}, {state['notice']!r}")
    log(f"wrong code refused on the page: {state['notice']!r} [{state['noticeCode']}]")
    await ben.type("#join-code", f"{code[:3].lower()}-{code[3:].lower()}")
    await ben.click("#join")
    state = await ben.wait(lambda s: s["view"] == "session" and len(s["participants"]) == 2, "Ben in the session")
    if state["sessionId"] != session_id or state["notice"] or state["endShown"] or state["myRole"] != "Guest":
        raise Failure(f"Ben's session page: {state['sessionId']} (want {session_id}), notice {state['notice']!r}, "
                      f"end button {state['endShown']}, role {state['myRole']!r}")

    # The bot joins by the same code and says two lines; it accepts corrections, makes none.
    bot_user = f"playbot{os.getpid()}-1"
    bot_command = ["timeout", "-k", "5", str(int(args.bot_timeout) + 10), args.bot, "play",
                   "--url", hub.replace("http://", "ws://") + "/ws", "--token-cmd", args.token_cmd,
                   "--join", code, "--lines", "2", "--pace-ms", "600", "--recast-probability", "0",
                   "--accept-probability", "1", "--user-prefix", f"playbot{os.getpid()}",
                   "--timeout", str(int(args.bot_timeout)), "--json"]
    bot["process"] = await asyncio.create_subprocess_exec(*bot_command, stdout=asyncio.subprocess.PIPE,
                                                          stderr=asyncio.subprocess.PIPE, start_new_session=True)
    log(f"bot {bot_user} joining with {code}")

    def with_bot_lines(s):
        return len(s["participants"]) == 3 and sum(1 for l in s["lines"] if l["speaker"] == bot_user) == 2
    for page in (ana, ben):
        state = await page.wait(with_bot_lines, "the bot and its two lines")
    bot_lines = [l for l in state["lines"] if l["speaker"] == bot_user]

    # 3. Lines: a suggestion for Ana's role, a typed line with HTML in it, a typed line of Ben's.
    state = await ana.state()
    await ana.choose("#hint", "0")
    filled = await ana.run("return [document.getElementById('say-text').value, document.getElementById('say-translation').value];")
    if not filled[0] or not filled[1]:
        raise Failure(f"picking a suggestion must fill the line and its translation: {filled}")
    await ana.click("#say")
    hint_line = filled[0]
    html_line = "<b>Bienvenue</b> à l'hôtel <img src=x>"
    await say(ana, html_line, "Welcome to the hotel")
    ben_line = "Je ai une réservation au nom de Martin."
    await say(ben, ben_line, "I have a booking in the name of Martin.")
    wanted = {hint_line, html_line, ben_line}
    for page in (ana, ben):
        state = await page.wait(lambda s: wanted <= set(texts_of(s)) and not s["pending"], "the players' lines")
        unique_lines(state)
        if state["markupInTranscript"]:
            raise Failure(f"{page.name}: player text was rendered as HTML")
    translated = {l["text"]: l["translated"] for l in state["lines"]}
    if translated[hint_line] != filled[1] or translated[ben_line] != "I have a booking in the name of Martin.":
        raise Failure(f"translations missing: {translated}")
    log(f"lines on both pages, once each, player text as text ({len(state['lines'])} lines)")

    # 4. Ben corrects Ana's line; Ana accepts. Ana corrects the bot's line; the bot accepts.
    state = await ben.state()
    target = next(l for l in state["lines"] if l["text"] == hint_line)
    if not target["canCorrect"] or next(l for l in state["lines"] if l["text"] == ben_line)["canCorrect"]:
        raise Failure("Correct must be offered on the others' lines only")
    await ben.click(f'#transcript li[data-line-id="{target["id"]}"] button.correct')
    await ben.wait(lambda s: s["recastOpen"], "the correction form")
    await ben.click("#recast-send")  # no issue type chosen: refused on the page
    state = await ben.wait(lambda s: s["noticeCode"] == "missing_field", "the missing issue type")
    correction = hint_line.rstrip(" .!?") + " (corrigé)."
    await ben.type("#recast-text", correction)
    await ben.click('#recast-form input[value="grammar"]')
    await ben.click('#recast-form input[value="naturalness"]')
    await ben.type("#recast-explanation", "a test correction")
    await ben.click("#recast-send")
    await ben.wait(lambda s: not s["recastOpen"], "the correction form to close")

    def recast_on(line_id, text=None, accepted=None, can_accept=None):
        """A predicate: the line `line_id` shows a correction (with `text`) in that state."""
        def ok(s):
            line = next((l for l in s["lines"] if l["id"] == line_id), None)
            return bool(line) and any((text is None or r["text"] == text)
                                      and (accepted is None or r["accepted"] == accepted)
                                      and (can_accept is None or r["canAccept"] == can_accept)
                                      for r in line["recasts"])
        return ok
    state = await ana.wait(recast_on(target["id"], correction, accepted=False, can_accept=True), "Ben's correction on Ana's page")
    recast = next(l for l in state["lines"] if l["id"] == target["id"])["recasts"][0]
    if sorted(recast["issues"]) != ["grammar", "naturalness"]:
        raise Failure(f"the correction's issue types: {recast['issues']}")
    await ana.click(f'#transcript li[data-recast-id="{recast["id"]}"] button.accept')
    for page in (ana, ben):
        await page.wait(recast_on(target["id"], correction, accepted=True, can_accept=False), "the accepted correction")
    log("Ben's correction reached Ana's page; she accepted it; both pages show it accepted")

    bot_line = bot_lines[0]
    await ana.click(f'#transcript li[data-line-id="{bot_line["id"]}"] button.correct')
    await ana.wait(lambda s: s["recastOpen"], "the correction form")
    await ana.type("#recast-text", bot_line["text"] + " !")
    await ana.click('#recast-form input[value="vocabulary"]')
    await ana.click("#recast-send")
    for page in (ana, ben):
        await page.wait(recast_on(bot_line["id"], accepted=True), "the bot's acceptance of Ana's correction")
    log("Ana corrected the bot's line; the bot accepted it; both pages show it")

    # 5. Live figures.
    for page in (ana, ben):
        await page.wait(lambda s: s["myXp"] > 0 and all(p["xp"] != "0 XP" for p in s["participants"]), "live XP")
    ana_state = await ana.wait(lambda s: s["stats"].get("linesSpoken") == "2" and s["stats"].get("errorsCorrected") == "1"
                               and s["stats"].get("helpGiven") == "1", "Ana's live figures (2 lines, 1 correction "
                               "accepted, 1 of hers accepted)")
    log(f"live XP: Ana {ana_state['myXp']}, Ben {(await ben.state())['myXp']}")

    # 6. Ben's network drops: reconnecting, a line said offline, back, everything once.
    before = await ben.state()
    await ben.cdp.evaluate(WATCH_STATES)
    # Chromium's offline emulation fails new connections but leaves an open WebSocket alone, so
    # the open one is cut by the client's dropConnection() (no leave: the hub holds the seat), and
    # every reconnect attempt fails until the network is back.
    await ben.cdp.send("Network.emulateNetworkConditions", {"offline": True, "latency": 0, "downloadThroughput": -1,
                                                            "uploadThroughput": -1})
    await ben.run("window.sessionhubPlay.client.dropConnection(); return true;")
    await ben.wait(lambda s: s["status"] == "reconnecting", "Ben's page to show reconnecting", timeout=15)
    await ana.wait(lambda s: any(p["id"] == ben_id and p["presence"] == "away" for p in s["participants"]),
                   "Ben away on Ana's page", timeout=15)
    offline_line = "Voici mon passeport."
    await say(ben, offline_line, "Here is my passport.")
    state = await ben.wait(lambda s: offline_line in s["pending"], "Ben's line waiting for the connection")
    if offline_line in texts_of(state):
        raise Failure("a line said offline cannot be in the transcript yet")
    if "reconnecting" not in state["reconnectBar"] or not any(
            p["id"] == ben_id and p["presence"] == "away" for p in state["participants"]):
        raise Failure(f"offline, Ben's page must say it is reconnecting and show him away: {state['reconnectBar']!r}, "
                      f"{state['participants']}")
    missed_line = "Votre chambre est au deuxième étage."
    await say(ana, missed_line, "Your room is on the second floor.")
    await ana.wait(lambda s: missed_line in texts_of(s), "Ana's line while Ben is away")
    await asyncio.sleep(1.0)
    await ben.cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1,
                                                            "uploadThroughput": -1})
    wanted = set(texts_of(before)) | {offline_line, missed_line}

    def complete(s):
        return s["status"] == "connected" and wanted <= set(texts_of(s)) and not s["pending"]
    ben_state = await ben.wait(complete, "Ben back with the whole transcript", timeout=25)
    if ben_state["reconnectBar"]:
        raise Failure(f"back online, the reconnecting notice must go: {ben_state['reconnectBar']!r}")
    ana_state = await ana.wait(lambda s: offline_line in texts_of(s) and all(
        p["presence"] == "connected" for p in s["participants"]), "Ben's offline line and Ben back on Ana's page")
    if texts_of(ben_state) != texts_of(ana_state):
        raise Failure(f"transcripts differ after the drop:\n  Ana {texts_of(ana_state)}\n  Ben {texts_of(ben_state)}")
    unique_lines(ben_state)
    unique_lines(ana_state)
    states = ben_state["states"]
    if "reconnecting" not in states or states[-1] != "connected" or states.index("reconnecting") > len(states) - 2:
        raise Failure(f"Ben's page must show reconnecting, then connected: {states}")
    log(f"drop: Ben's page went {' -> '.join(states)}; {len(ben_state['lines'])} lines on both pages, none twice")

    # 7. Ben reloads: the seat comes back from sessionStorage.
    count = len(ben_state["lines"])
    await ben.cdp.send("Page.reload", {"ignoreCache": True})
    state = await ben.wait(lambda s: s["view"] == "session" and s["status"] == "connected" and len(s["lines"]) == count,
                           "Ben's seat taken back after the reload", timeout=20)
    if (state["identity"] or {}).get("userId") != ben_id or state["sessionId"] != session_id:
        raise Failure(f"after the reload: user {state['identity']}, session {state['sessionId']}")
    unique_lines(state)
    await ana.wait(lambda s: all(p["presence"] == "connected" for p in s["participants"]), "everyone connected")
    log("reload: Ben's page took his seat back (same user, same transcript)")
    if ben.width <= 360 and state["scrollWidth"] > state["innerWidth"]:
        raise Failure(f"Ben's page overflows its {state['innerWidth']} px width ({state['scrollWidth']} px)")

    if args.screenshots:
        await ana.screenshot(os.path.join(args.screenshots, "play-session.png"))

    # 8. Ana ends the session: the summary on both pages, and Ana's history entry.
    await ana.click("#end")
    state = await ana.state()
    if state["view"] != "session":
        raise Failure("one click on End must not end the session")
    await ana.click("#end")
    results = {}
    for page in (ana, ben):
        results[page.name] = await page.wait(lambda s: s["view"] == "summary" and len(s["summaryPlayers"]) == 3,
                                             "the summary", timeout=15)
    ana_state, ben_state = results[ana.name], results[ben.name]
    for state in (ana_state, ben_state):
        if state["cause"] != "hostEnded" or state["summarySession"] != session_id:
            raise Failure(f"summary: cause {state['cause']}, session {state['summarySession']}")
        for player in state["summaryPlayers"]:
            parts = [int(player["breakdown"][k]) for k in ("dialogCompletion", "vocabularyBonus", "accuracyBonus",
                                                            "collaborationBonus", "streakBonus")]
            if player["xp"] <= 0 or sum(parts) != player["xp"]:
                raise Failure(f"summary of {player['name']}: XP {player['xp']} vs breakdown {player['breakdown']}")
    def figures(state):
        return [{k: v for k, v in p.items() if k != "you"} for p in state["summaryPlayers"]]
    if figures(ana_state) != figures(ben_state):
        raise Failure(f"the two pages show different summaries:\n  {figures(ana_state)}\n  {figures(ben_state)}")
    for state, mine in ((ana_state, ana_id), (ben_state, ben_id)):
        if [p["id"] for p in state["summaryPlayers"] if p["you"]] != [mine]:
            raise Failure(f"the summary must mark the page's own player: {state['summaryPlayers']}")
    names = {p["id"]: p["name"] for p in ana_state["summaryPlayers"]}
    if not (names.get(ana_id, "").startswith("Ana") and names.get(ben_id, "").startswith("Ben") and bot_user in names):
        raise Failure(f"summary players: {names}")
    ana_state = await ana.wait(lambda s: s["historyEntry"], "Ana's history entry", timeout=10)
    entry = ana_state["historyEntry"]
    token = http_json(f"{hub}/api/dev/sign-in", "POST", {"name": "Ana", "userId": ana_id})["token"]
    history = http_json(f"{hub}/api/history", token=token)
    stored = next((s for s in history["sessions"] if s["sessionId"] == session_id), None)
    me = next(p for p in ana_state["summaryPlayers"] if p["id"] == ana_id)
    if (not stored or entry["sessionId"] != session_id or entry["fields"].get("xpEarned") != str(stored["xpEarned"])
            or entry["fields"].get("scenarioTitle") != stored["scenarioTitle"] or stored["xpEarned"] != me["xp"]
            or entry["fields"].get("lineCount") != str(stored["lineCount"])):
        raise Failure(f"Ana's history entry on the page {entry} vs GET /api/history {stored} (summary XP {me['xp']})")
    ben_state = await ben.state()
    if ben_state["historyEntry"] or "featureLocked" not in (ben_state["historyStatus"] or ""):
        raise Failure(f"Ben is not premium: no history entry, and the page says why: {ben_state['historyStatus']!r}")
    log(f"summary on both pages (XP {', '.join(f'{names[p]}: {x}' for p, x in ((p['id'], p['xp']) for p in ana_state['summaryPlayers']))}); "
        f"Ana's history entry matches GET /api/history ({stored['scenarioTitle']}, {stored['lineCount']} lines, "
        f"{stored['xpEarned']} XP); Ben: {ben_state['historyStatus']!r}")
    if ben.width <= 360 and ben_state["scrollWidth"] > ben_state["innerWidth"]:
        raise Failure(f"Ben's summary overflows its {ben_state['innerWidth']} px width ({ben_state['scrollWidth']} px)")
    if args.screenshots:
        await ana.screenshot(os.path.join(args.screenshots, "play-summary.png"))

    # The bot saw the same session end.
    try:
        out, err = await asyncio.wait_for(bot["process"].communicate(), 20)
    except asyncio.TimeoutError:
        raise Failure("the bot did not finish within 20 s of the end")
    report = None
    try:
        report = json.loads(out.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        pass
    if bot["process"].returncode != 0 or not report or report.get("cause") != "hostEnded":
        raise Failure(f"the bot exited {bot['process'].returncode}: {out.decode()[-600:]} {err.decode()[-600:]}")
    log("the bot exited 0: cause hostEnded")

    # Play again, sign out, sign in again with the same name: the same player (same user id).
    await ana.click("#back-to-lobby")
    await ana.wait(lambda s: s["view"] == "lobby" and s["status"] == "connected", "the lobby after Play again")
    await ana.click("#sign-out")
    state = await ana.wait(lambda s: s["devForm"] and s["status"] == "idle", "the sign-in form after signing out")
    if state["identity"] or state["seatSaved"] or state["who"]:
        raise Failure(f"signing out must forget the identity and the seat: {state['identity']}, seat {state['seatSaved']}")
    prefilled = await ana.run("return document.getElementById('dev-name').value;")
    if prefilled != "Ana":
        raise Failure(f"the sign-in form should offer the last name: {prefilled!r}")
    await ana.click("#dev-submit")
    state = await ana.wait(lambda s: s["view"] == "lobby" and s["status"] == "connected", "the lobby after signing in again")
    if (state["identity"] or {}).get("userId") != ana_id:
        raise Failure(f"the same name in the same browser must be the same player: {state['identity']} vs {ana_id}")
    log("play again, sign out, sign in again: the same player")

    for page in (ana, ben):
        state = await page.state()
        for url in [state["url"]]:
            if "token" in url or "eyJ" in url:
                raise Failure(f"{page.name}: a token in the URL: {url}")


async def paste_token(args, page):
    """A hub whose development sign-in is off: the token form, a refused token, a pasted one."""
    await page.navigate(f"{args.hub_off}/play")
    state = await page.wait(lambda s: s["tokenForm"] and s["devOff"], "the token form (development sign-in off)")
    await page.type("#token-input", "not-a-token")
    await page.click("#token-submit")
    state = await page.wait(lambda s: s["view"] == "signin" and s["noticeCode"].startswith("token_"),
                            "the refusal of a bad token")
    log(f"bad token refused: {state['notice']!r} [{state['noticeCode']}]")
    token = open(args.paste_token_file).read().strip()
    await page.type("#token-input", token)
    await page.click("#token-submit")
    state = await page.wait(lambda s: s["view"] == "lobby" and s["status"] == "connected" and s["scenarios"] >= 10,
                            "the lobby after pasting a token")
    if state["who"] != "Paula" or token in state["url"]:
        raise Failure(f"pasted token: header {state['who']!r}, url {state['url']}")
    log("development sign-in off: the page offered the token form; a pasted token signed in")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hub", required=True, help="http://HOST:PORT of the hub (development sign-in on)")
    parser.add_argument("--bot", required=True, help="the sessionhub-bot binary")
    parser.add_argument("--token-cmd", required=True, help="the bot's --token-cmd")
    parser.add_argument("--bot-timeout", type=float, default=90, help="the bot's --timeout")
    parser.add_argument("--hub-off", help="http://HOST:PORT of a hub whose development sign-in is off")
    parser.add_argument("--paste-token-file", help="a token (user Paula) to paste on --hub-off")
    parser.add_argument("--screenshots", help="a folder for play-lobby.png, play-session.png, play-summary.png")
    parser.add_argument("--chromium", help="the browser binary (default: chromium on PATH)")
    parser.add_argument("--browser-lifetime", type=float, default=150, help="seconds after which Chromium is killed")
    args = parser.parse_args()
    args.hub = args.hub.rstrip("/")
    if args.hub_off:
        args.hub_off = args.hub_off.rstrip("/")
        if not args.paste_token_file:
            parser.error("--hub-off needs --paste-token-file")
    return run_check(run(args), log)


if __name__ == "__main__":
    sys.exit(main())
