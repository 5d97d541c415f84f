"""What the headless-Chromium checks share (dashboard_check.py, play_check.py): a minimal Chrome
DevTools Protocol client, polling a page, how Chromium is found, started and stopped, and how a
check's `main` runs its coroutine.

Standard library plus `websockets`. Imported from the checks' own directory (Python puts a
script's directory first on its path).
"""

import asyncio
import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

import websockets


class Failure(Exception):
    """A check that did not pass; its message says why."""


class CDP:
    """A minimal Chrome DevTools Protocol client on one target (a page, or the browser)."""

    def __init__(self, ws, name="page"):
        self.ws = ws
        self.name = name
        self.next_id = 0
        self.pending = {}
        self.events = []
        self.listeners = []
        self.reader = asyncio.create_task(self._read())

    async def _read(self):
        try:
            async for raw in self.ws:
                message = json.loads(raw)
                if "id" in message:
                    future = self.pending.pop(message["id"], None)
                    if future and not future.done():
                        future.set_result(message)
                else:
                    self.events.append(message)
                    for listener in list(self.listeners):
                        listener(message)
        except websockets.ConnectionClosed:
            pass
        for future in self.pending.values():
            if not future.done():
                future.set_exception(Failure(f"{self.name}: the DevTools connection closed"))

    async def send(self, method, params=None, timeout=10):
        self.next_id += 1
        future = asyncio.get_running_loop().create_future()
        self.pending[self.next_id] = future
        await self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params or {}}))
        try:
            message = await asyncio.wait_for(future, timeout)
        except asyncio.TimeoutError:
            raise Failure(f"{self.name}: {method} got no answer within {timeout} s")
        if "error" in message:
            raise Failure(f"{self.name}: {method}: {message['error']}")
        return message.get("result", {})

    async def evaluate(self, expression):
        result = await self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                      "awaitPromise": True})
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise Failure(f"{self.name}: evaluate failed: {text}: {expression[:100]}")
        return result.get("result", {}).get("value")

    async def wait_for_event(self, method, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(event.get("method") == method for event in self.events):
                return
            await asyncio.sleep(0.05)
        raise Failure(f"{self.name}: no {method} within {timeout} s")


async def poll(cdp, expression, ok, timeout, what):
    """Evaluates `expression` every 200 ms until `ok(value)`; returns the value."""
    deadline = time.monotonic() + timeout
    value = None
    while time.monotonic() < deadline:
        value = await cdp.evaluate(expression)
        if ok(value):
            return value
        await asyncio.sleep(0.2)
    raise Failure(f"timed out after {timeout} s waiting for {what}; last state: {json.dumps(value)[:600]}")


def find_chromium(explicit):
    """The Chromium binary: `explicit` when given, else the first on the PATH."""
    for candidate in [explicit, "chromium", "chromium-browser", "google-chrome"]:
        if candidate and shutil.which(candidate):
            return shutil.which(candidate)
    raise Failure("no Chromium found (apt-get install chromium)")


def chromium_environment(base):
    """The environment for a Chromium whose scratch files stay in `base`: with
    `--disable-dev-shm-usage` it keeps its shared memory as `org.chromium.Chromium.*` files in
    TMPDIR, which a terminated browser leaves behind; `base` is removed after the run."""
    return {**os.environ, "TMPDIR": base}


def chromium_arguments(profile, window_size, extra=()):
    """Headless Chromium with its own profile, DevTools on a free loopback port (written to
    `profile`/DevToolsActivePort), nothing phoning home; `--no-sandbox` when run as root
    (Chromium refuses its sandbox then)."""
    arguments = [
        "--headless=new", "--disable-gpu", "--disable-dev-shm-usage",
        "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-sync",
        "--disable-background-networking", "--disable-component-update", "--password-store=basic",
        "--use-mock-keychain", "--mute-audio", "--hide-scrollbars", *extra,
        f"--user-data-dir={profile}", "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
        f"--window-size={window_size}", "about:blank",
    ]
    if os.geteuid() == 0:
        arguments.insert(0, "--no-sandbox")
    return arguments


@contextlib.asynccontextmanager
async def headless_chromium(name, explicit, window_size, log, extra=(), lifetime=None):
    """Starts headless Chromium (`chromium_arguments`) in a new temporary directory NAME-chromium.*
    (its profile, its output in chromium.log, its scratch files) and yields (profile, process).
    With `lifetime`, the browser runs under `timeout` (killed after that many seconds). On a
    Failure inside, logs the tail of Chromium's output; on the way out, always stops it (SIGTERM
    to its process group, SIGKILL after 5 s) and removes the directory."""
    base = tempfile.mkdtemp(prefix=f"{name}-chromium.")
    profile = os.path.join(base, "profile")
    command = [find_chromium(explicit), *chromium_arguments(profile, window_size, extra)]
    if lifetime is not None:
        # Bounded by `timeout` too, in a process group of its own (ended with it below).
        command = ["timeout", "-k", "5", str(int(lifetime)), *command]
    browser_log = open(os.path.join(base, "chromium.log"), "w")
    browser = subprocess.Popen(command, stdout=browser_log, stderr=subprocess.STDOUT, start_new_session=True,
                               env=chromium_environment(base))
    try:
        yield profile, browser
    except Failure:
        browser_log.flush()
        with open(browser_log.name, errors="replace") as file:
            tail = file.read()[-1500:]
        if tail.strip():
            log("Chromium's output (tail):\n" + tail)
        raise
    finally:
        try:
            os.killpg(browser.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            browser.wait(timeout=5)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(browser.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            browser.wait(timeout=5)
        browser_log.close()
        shutil.rmtree(base, ignore_errors=True)


async def devtools_endpoint(profile, browser):
    """Waits (20 s at most) for the DevToolsActivePort file Chromium writes into `profile` once
    DevTools listens; returns its lines: the port, then the browser target's path."""
    port_file = os.path.join(profile, "DevToolsActivePort")
    deadline = time.monotonic() + 20
    while not (os.path.exists(port_file) and open(port_file).read().strip()):
        if browser.poll() is not None:
            raise Failure(f"Chromium exited with {browser.returncode} before DevTools listened")
        if time.monotonic() > deadline:
            raise Failure("Chromium did not open DevTools within 20 s")
        await asyncio.sleep(0.1)
    return open(port_file).read().split("\n")


def run_check(check, log):
    """Runs the coroutine `check` and returns the exit status: its result, or 1 after a Failure or
    a SIGTERM (the script's `timeout`), with the reason logged."""
    def stop(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, stop)
    try:
        return asyncio.run(check)
    except Failure as failure:
        log(f"FAILED: {failure}")
        return 1
    except KeyboardInterrupt:
        log("FAILED: interrupted (timeout)")
        return 1
