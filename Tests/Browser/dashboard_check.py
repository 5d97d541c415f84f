#!/usr/bin/env python3
"""Drives the operator dashboard (/admin) in headless Chromium over the Chrome DevTools Protocol.

    python dashboard_check.py --hub http://127.0.0.1:PORT --token-file FILE [--screenshot PNG]

Standard library plus `websockets` (the CDP connection). Started by scripts/dashboard-test.sh,
which runs the hub and bot players. Steps, each bounded:

 1. starts Chromium (headless, its own profile in a temporary directory, DevTools on a free
    loopback port) and opens /admin: the login form shows, no session and no data;
 2. types a wrong token: the feed closes with 1008 and the page shows the refusal, still no data;
 3. types the admin token (Input.insertText: into the field, never into a URL) and connects;
 4. waits until the page lists live sessions (count > 0) and shows at least one line that the
    hub's admin API also reports for a live session (the bots' lines), and the chart has drawn;
 5. checks the token is in sessionStorage only and not in the URL; no JavaScript exception and
    no Content-Security-Policy violation happened;
 6. after --watch seconds more of live updates, saves a screenshot;
 7. ends one session with the page's own button (the confirmation accepted) and waits until the
    page shows it gone: an operator action through fetch with the Authorization header.

Exits 0 when every step passed, 1 otherwise (with the reason on standard error).
"""

import argparse
import asyncio
import base64
import json
import os
import sys
import time
import urllib.request

import websockets

from cdp import CDP, Failure, devtools_endpoint, headless_chromium, poll, run_check


def log(message):
    print(f"[dashboard-check] {message}", file=sys.stderr, flush=True)


def http_json(url, token=None, timeout=5):
    request = urllib.request.Request(url)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read())


def hub_lines(hub, token):
    """Every line of every live session, from the admin API (what the page should show)."""
    texts = set()
    for session in http_json(f"{hub}/admin/api/sessions", token)["sessions"]:
        detail = http_json(f"{hub}/admin/api/sessions/{session['sessionId']}", token)
        texts.update(line["textNative"] for line in detail.get("lines", []))
    return texts


STATE = """(() => {
  const q = (s) => Array.from(document.querySelectorAll(s));
  return {
    loginShown: !document.getElementById('login').hidden,
    dashboardShown: !document.getElementById('dashboard').hidden,
    loginError: document.getElementById('login-error').hidden ? '' : document.getElementById('login-error').textContent,
    status: document.getElementById('status').textContent,
    sessions: q('#sessions .session:not(.gone)').length,
    sessionIds: q('#sessions .session:not(.gone)').map((n) => n.dataset.sessionId),
    participants: q('#sessions .participant').length,
    lines: q('#sessions .line-text').map((n) => n.textContent),
    chartPaths: q('#chart path').length,
    connections: document.getElementById('f-connections').textContent,
    liveSessions: document.getElementById('f-sessions').textContent,
    activity: q('#activity li').length,
    url: location.href,
    stored: sessionStorage.length,
    local: localStorage.length,
  };
})()"""


async def run(args):
    token = open(args.token_file).read().strip()
    async with headless_chromium("dashboard", args.chromium, "1280,1400", log) as (profile, browser):
        return await drive(args, token, profile, browser)


async def drive(args, token, profile, browser):
    started = time.monotonic()
    # 1. DevTools port from the profile, then the page target.
    devtools_port = int((await devtools_endpoint(profile, browser))[0])
    targets = http_json(f"http://127.0.0.1:{devtools_port}/json/list")
    page = next(t for t in targets if t.get("type") == "page")
    log(f"Chromium up after {time.monotonic() - started:.1f} s (DevTools port {devtools_port})")

    async with websockets.connect(page["webSocketDebuggerUrl"], max_size=None, open_timeout=10) as ws:
        cdp = CDP(ws)
        problems = []

        def watch(event):
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                problems.append("JavaScript exception: " + str(details.get("exception", {}).get("description")
                                                              or details.get("text")))
            elif method == "Log.entryAdded":
                entry = params.get("entry", {})
                text = entry.get("text", "")
                if "Content Security Policy" in text or entry.get("source") == "security":
                    problems.append("CSP: " + text)
                elif entry.get("level") == "error" and entry.get("source") not in ("network",):
                    problems.append(f"console error ({entry.get('source')}): {text}")
            elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
                problems.append("console.error: " + " ".join(str(a.get("value")) for a in params.get("args", [])))

        cdp.listeners.append(watch)
        for domain in ("Page", "Runtime", "Log"):
            await cdp.send(f"{domain}.enable")
        await cdp.send("Emulation.setDeviceMetricsOverride",
                       {"width": args.width, "height": args.height, "deviceScaleFactor": 1, "mobile": False})
        await cdp.send("Page.navigate", {"url": f"{args.hub}/admin/"})
        await cdp.wait_for_event("Page.loadEventFired", 15)

        state = await cdp.evaluate(STATE)
        if not state["loginShown"] or state["dashboardShown"] or state["sessions"] or state["lines"]:
            raise Failure(f"before a token the page must show only the login form: {state}")
        log("login form shown, no data")

        # 2. A wrong token: refused (1008), the form comes back with the reason, still no data.
        await type_token(cdp, "not-a-valid-token")
        state = await poll(cdp, STATE, lambda s: s["loginShown"] and s["loginError"], 10, "the refusal")
        if "refused" not in state["loginError"] or state["sessions"] or state["dashboardShown"]:
            raise Failure(f"a wrong token must be refused without data: {state}")
        if state["stored"] != 0:
            raise Failure("a refused token must not stay in sessionStorage")
        log(f"wrong token refused: {state['loginError']!r}")

        # 3. The admin token.
        await type_token(cdp, token)

        # 4. Live sessions and the bots' lines.
        def shows_bot_lines(s):
            if not (s["dashboardShown"] and s["sessions"] > 0 and s["lines"] and s["chartPaths"] > 0):
                return False
            known = hub_lines(args.hub, token)
            return any(text in known for text in s["lines"])

        state = await poll(cdp, STATE, shows_bot_lines, args.timeout, "live sessions with the bots' lines")
        log(f"page shows {state['sessions']} live sessions, {state['participants']} participants, "
            f"{len(state['lines'])} lines (e.g. {state['lines'][-1]!r}), connections {state['connections']}")

        # 5. Token handling.
        if token in state["url"] or state["local"] != 0:
            raise Failure("the token must be in neither the URL nor localStorage")
        stored = await cdp.evaluate("sessionStorage.getItem('sessionhub.adminToken')")
        if stored != token:
            raise Failure("the token is not in sessionStorage")

        # 6. Live updates for a while, then the screenshot.
        before = state
        await asyncio.sleep(args.watch)
        state = await cdp.evaluate(STATE)
        if not state["status"].startswith("live") or state["status"] == before["status"]:
            raise Failure(f"the feed stopped updating: {before['status']!r}, then {state['status']!r}")
        # Bring the first live session into view and take the shot.
        await cdp.evaluate("window.scrollTo(0, 0)")
        shot = await cdp.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": False}, timeout=20)
        if args.screenshot:
            os.makedirs(os.path.dirname(os.path.abspath(args.screenshot)), exist_ok=True)
            with open(args.screenshot, "wb") as file:
                file.write(base64.b64decode(shot["data"]))
            log(f"screenshot: {args.screenshot} ({state['sessions']} sessions, {len(state['lines'])} lines, "
                f"{state['activity']} activity entries)")

        # 7. End a session with the page's button.
        if args.end_session:
            target = await cdp.evaluate("""(() => {
              window.confirm = () => true;
              const card = document.querySelector('#sessions .session:not(.gone)');
              if (!card) return null;
              const button = card.querySelector('button.end');
              if (button.disabled) return null;
              button.click();
              return card.dataset.sessionId;
            })()""")
            if target:
                check = ("(() => { const c = Array.from(document.querySelectorAll('#sessions .session'))"
                         f".find((n) => n.dataset.sessionId === {json.dumps(target)}); "
                         "return !c || c.classList.contains('gone'); })()")
                await poll(cdp, check, bool, 10, f"session {target} to end after the operator's click")
                live = {s["sessionId"] for s in http_json(f"{args.hub}/admin/api/sessions", token)["sessions"]}
                if target in live:
                    raise Failure(f"session {target} is still live after the operator ended it")
                log(f"operator action: ended session {target} from the page")
            else:
                log("no live session left to end (the bots finished it first); action not checked")

        await asyncio.sleep(0.3)
        if problems:
            raise Failure("problems in the page: " + " | ".join(problems[:5]))
        cdp.reader.cancel()
        log(f"passed in {time.monotonic() - started:.1f} s")
        return 0


async def type_token(cdp, token):
    """Focuses the password field, types `token` as keyboard input, clicks Connect."""
    await cdp.evaluate("document.getElementById('token').focus()")
    await cdp.send("Input.insertText", {"text": token})
    await cdp.evaluate("document.getElementById('connect').click()")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hub", required=True, help="http://HOST:PORT of the hub")
    parser.add_argument("--token-file", required=True, help="file holding an admin token")
    parser.add_argument("--screenshot", help="where to save a PNG of the page")
    parser.add_argument("--chromium", help="the browser binary (default: chromium on PATH)")
    parser.add_argument("--timeout", type=float, default=20, help="seconds to wait for live sessions")
    parser.add_argument("--watch", type=float, default=8, help="seconds of live updates before the screenshot")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=1400)
    parser.add_argument("--no-end-session", dest="end_session", action="store_false",
                        help="do not end a session from the page")
    args = parser.parse_args()
    args.hub = args.hub.rstrip("/")
    return run_check(run(args), log)


if __name__ == "__main__":
    sys.exit(main())
