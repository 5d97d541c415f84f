#!/usr/bin/env python3
"""Soak test of the hub: real binary, SQLite file, loopback, mixed load, one restart (docs/SOAK.md).

Usage:
  soak.py --bin PATH/sessionhub --bot-bin PATH/sessionhub-bot --work DIR [--minutes N] [--seed S]
          [--report FILE] [--serve-arg ARG ...]

For `--minutes` of load it runs, side by side, against `sessionhub serve` on a fresh SQLite file:

  - tables of well-behaved players (host + clients, premium) in shared sessions: they speak,
    recast and accept, drop their connection at random (abort, close 1001, or a second
    connection that replaces the first) and resume with their newest token and lastSeq; one
    table has a member that stops reading for a few seconds now and then (a slow reader that
    catches up); each session ends with the host's `end` and is checked;
  - a firehose session: six members send the largest recasts the hub accepts while one member
    stops reading for good, until the hub drops it as a slow consumer (or a time cap); it then
    resumes and must get an exact replay, and the others must not notice;
  - `sessionhub-bot play` runs one after another (their own checks, exit code 0);
  - offenders, one short connection each: request floods and line bursts (rate limits, error
    budget), invalid JSON and unknown types, binary and invalid UTF-8 messages, oversize
    messages, bad tokens, no token, and raw frames that break RFC 6455 (unmasked, reserved
    opcode, RSV bits, long or fragmented control frames, orphan continuation, bad close frames);
  - in the first load cycle the hub is killed with SIGKILL mid-play and restarted on the same
    database; every player resumes across it.

The run is divided in cycles: after each the load stops, every client disconnects and every
session ends, and the hub's RSS and open descriptors are sampled while idle (after 12 s: the hub
trims its heap every 10 s). The restart happens in the middle of cycle 0; the idle sample after
cycle 1 (the restarted hub after a warm-up of a cycle and a half) is the baseline, the one after
the last cycle the end. Checks (exit 1 when any fails):

  - for every well-behaved player and session: every broadcast seq from its snapshot to `ended`
    received exactly once across all its connections (lost 0, duplicated 0), the same text for
    every member; every acknowledged `say` in the transcript exactly once, no unacknowledged one
    in it; the stored history (GET /api/history/{id}) holds the same lines;
  - each offender got its documented error codes and close code;
  - every bot run exited 0;
  - the hub became idle after each cycle (0 connections, 0 sessions); open descriptors at the end
    at most the baseline + 2; RSS at the end at most the baseline + max(64 MiB, 50 %), and no rise
    after every cycle (with four or more idle samples);
  - the hub logged no error/critical line and stopped on SIGTERM with exit code 0.

Prints a report and writes it as JSON (--report, default DIR/soak-report.json). Every wait is
bounded; every child process is killed on the way out.
"""

import argparse
import asyncio
import base64
import collections
import glob
import hashlib
import json
import os
import random
import re
import secrets
import shlex
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import time
import traceback
import urllib.error

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Interop"))
# The crash-recovery test's hub process helpers (waiting for the port file, HTTP, the logs).
from crash_recovery import api_request, kill_processes, log_tail, scan_logs, wait_port_file  # noqa: E402

ANSWER_TIMEOUT = 20.0      # a request's answer (loaded CI machine, debug build)
RECOVER_TIMEOUT = 90.0     # reconnect + resume, including a hub restart
IDLE_SETTLE = 12.0         # idle seconds before RSS is sampled (the hub trims its heap every 10 s)
TABLE_SCENARIO = "town-hall-meeting"       # 2-6 players, goal 30 lines
FIREHOSE_SCENARIO = "dinner-with-friends"  # 2-8 players, goal 24 lines
BOT_SCENARIO = "ordering-coffee"           # 1-4 players, goal 12 lines
FAMILY = "\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466"  # one grapheme, 25 bytes
PHRASES = ["Buonasera a tutti, apriamo la riunione.", "La parola passa al sindaco.",
           "Il piano chiude il centro alle auto.", "Ci saranno parcheggi fuori dalle mura.",
           "E come arrivano i clienti nei negozi?", "Chiediamo orari di carico al mattino.",
           "Mettiamo ai voti la fase di prova.", "Servono garanzie per i fornitori.",
           "Il traffico è già un problema oggi.", "Proponiamo una navetta elettrica."]


class SoakError(Exception):
    """A step that the rest of a task depends on failed (already recorded as a failure)."""


class ConnLost(Exception):
    """The connection closed while a request or wait was pending."""


def brief(value, limit=200):
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "..."


def now():
    return time.monotonic()


# ---------------------------------------------------------------------------------------------
# The hub process


class Hub:
    def __init__(self, soak):
        self.soak = soak
        self.proc = None
        self.port = None
        self.generation = 0
        self.ready = asyncio.Event()
        self.logs = []
        self.procs = []

    def install(self, src_bin, src_bot):
        """Copies both binaries and the resource bundles into WORK/bin: a rebuild of the tree
        during the run cannot swap them, and every process of the run is named by WORK."""
        target = os.path.join(self.soak.work, "bin")
        os.makedirs(target, exist_ok=True)
        out = []
        for src in (src_bin, src_bot):
            dst = os.path.join(target, os.path.basename(src))
            shutil.copy2(src, dst)
            out.append(dst)
            for bundle in glob.glob(os.path.join(os.path.dirname(src), "*.resources")):
                shutil.copytree(bundle, os.path.join(target, os.path.basename(bundle)), dirs_exist_ok=True)
        return out

    async def start(self):
        self.generation += 1
        n = self.generation
        port_file = os.path.join(self.soak.work, "port%d" % n)
        log = os.path.join(self.soak.work, "hub%d.log" % n)
        self.logs.append(log)
        cmd = [self.soak.bin, "serve", "--host", "127.0.0.1", "--port", "0", "--port-file", port_file,
               "--database", self.soak.db, "--secret-file", self.soak.secret] + self.soak.serve_args
        with open(log, "wb") as err, open(os.path.join(self.soak.work, "hub%d.out" % n), "wb") as out:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=self.soak.env)
        self.procs.append(self.proc)
        port = await wait_port_file(port_file, self.proc, 60)
        if port is None:
            if self.proc.poll() is not None:
                raise SoakError("hub %d exited with %s before listening: %s" % (n, self.proc.returncode, log_tail(log)))
            raise SoakError("hub %d wrote no port file within 60 s: %s" % (n, log_tail(log)))
        self.port = port
        self.ready.set()
        return "hub %d: pid %d on 127.0.0.1:%d" % (n, self.proc.pid, self.port)

    async def kill(self):
        self.ready.clear()
        self.proc.send_signal(signal.SIGKILL)
        return await asyncio.to_thread(self.proc.wait, 30)

    async def terminate(self, timeout=60):
        self.ready.clear()
        self.proc.send_signal(signal.SIGTERM)
        try:
            return await asyncio.to_thread(self.proc.wait, timeout)
        except subprocess.TimeoutExpired:
            return None

    def cleanup(self):
        kill_processes(self.procs, 10)

    def proc_sample(self):
        """(rss KiB, open fds, threads) of the running hub, or None."""
        if self.proc is None or self.proc.poll() is not None:
            return None
        pid = self.proc.pid
        try:
            rss = threads = None
            with open("/proc/%d/status" % pid) as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        rss = int(line.split()[1])
                    elif line.startswith("Threads:"):
                        threads = int(line.split()[1])
            fds = len(os.listdir("/proc/%d/fd" % pid))
        except (OSError, ValueError):
            return None
        return rss, fds, threads

    async def http(self, method, path, token=None, body=None, timeout=ANSWER_TIMEOUT):
        return await asyncio.to_thread(api_request, self.port, method, path, token, body, timeout)

    async def metrics(self):
        status, body = await self.http("GET", "/metrics", timeout=10)
        if status != 200 or not isinstance(body, str):
            raise SoakError("GET /metrics -> %s" % status)
        values = {}
        for line in body.splitlines():
            if line.startswith("#") or " " not in line:
                continue
            name, _, value = line.rpartition(" ")
            try:
                values[name] = float(value)
            except ValueError:
                pass
        return values


# ---------------------------------------------------------------------------------------------
# One WebSocket connection


async def open_ws(port, token=None, addr="127.0.0.1", compression=True, rcvbuf=None, path="/ws"):
    uri = "ws://127.0.0.1:%d%s" % (port, path) + ("?token=%s" % token if token else "")
    kwargs = dict(proxy=None, ping_interval=None, open_timeout=15, close_timeout=5, max_size=None,
                  compression="deflate" if compression else None)
    if rcvbuf:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        sock.bind((addr, 0))
        sock.setblocking(False)
        try:
            await asyncio.wait_for(asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port)), 15)
        except BaseException:
            sock.close()
            raise
        kwargs["sock"] = sock
    else:
        kwargs["local_addr"] = (addr, 0)
    return await connect(uri, **kwargs)


class Conn:
    """A connection whose reader hands every message to its owner, resolves request waiters by
    `ref` and watchers by predicate. Clearing `gate` stops reading (a slow reader)."""

    def __init__(self, ws, owner, label):
        self.ws = ws
        self.owner = owner
        self.label = label
        self.gate = asyncio.Event()
        self.gate.set()
        self.waiters = {}
        self.watchers = []
        self.recent = collections.deque(maxlen=20)
        self.closed = asyncio.Event()
        self.close_code = None
        self.close_reason = None
        self.replaced = False
        self.task = asyncio.create_task(self._read())

    async def _read(self):
        try:
            while True:
                if not self.gate.is_set():
                    await self.gate.wait()
                raw = await self.ws.recv()
                if isinstance(raw, bytes):
                    m = {"type": "<binary>"}
                else:
                    try:
                        m = json.loads(raw)
                    except ValueError:
                        m = {"type": "<invalid JSON>"}
                    if not isinstance(m, dict):
                        m = {"type": "<not an object>"}
                self.recent.append(m)
                self.owner.on_message(self, raw, m)
                ref = m.get("ref")
                if ref is not None and ref in self.waiters:
                    pred, fut = self.waiters.pop(ref)
                    if not fut.done() and (m.get("type") == "error" or pred(m)):
                        fut.set_result(m)
                    elif not fut.done():
                        self.waiters[ref] = (pred, fut)
                for item in list(self.watchers):
                    pred, fut = item
                    if not fut.done() and pred(m):
                        fut.set_result(m)
                        self.watchers.remove(item)
        except ConnectionClosed as e:
            if e.rcvd is not None:
                self.close_code, self.close_reason = e.rcvd.code, e.rcvd.reason
        except Exception:  # a socket error ends the connection like a close
            pass
        finally:
            self.closed.set()
            for _, fut in list(self.waiters.values()) + self.watchers:
                if not fut.done():
                    fut.set_exception(ConnLost(self.label))
                    fut.exception()
            self.waiters.clear()
            self.watchers.clear()
            self.owner.on_closed(self)

    async def send(self, message):
        text = message if isinstance(message, (str, bytes)) else json.dumps(message, ensure_ascii=False)
        try:
            await asyncio.wait_for(self.ws.send(text), ANSWER_TIMEOUT)
        except (ConnectionClosed, OSError) as e:
            raise ConnLost("%s: %s" % (self.label, e))

    async def request(self, message, pred, timeout=ANSWER_TIMEOUT):
        """Sends `message` (which has an `id`) and returns the first message with that ref that
        is an error or matches `pred`. Raises ConnLost or asyncio.TimeoutError."""
        if self.closed.is_set():
            raise ConnLost(self.label)
        fut = asyncio.get_running_loop().create_future()
        self.waiters[str(message["id"])] = (pred, fut)
        try:
            await self.send(message)
            return await asyncio.wait_for(fut, timeout)
        finally:
            self.waiters.pop(str(message["id"]), None)

    def watch(self, pred):
        fut = asyncio.get_running_loop().create_future()
        if self.closed.is_set():
            fut.set_exception(ConnLost(self.label))
            fut.exception()
        else:
            self.watchers.append((pred, fut))
        return fut

    def abort(self):
        try:
            self.ws.transport.abort()
        except Exception:
            pass

    async def close(self, code=1000, reason=""):
        self.gate.set()
        if not self.closed.is_set():
            try:
                await asyncio.wait_for(self.ws.close(code, reason), 6)
            except Exception:
                self.abort()
        try:
            await asyncio.wait_for(self.closed.wait(), 6)
        except asyncio.TimeoutError:
            self.abort()


# ---------------------------------------------------------------------------------------------
# What the members of one session saw


class Member:
    def __init__(self, base_seq):
        self.base = base_seq
        self.seen = collections.Counter()


class Ledger:
    """One session as its well-behaved members saw it."""

    def __init__(self, soak, kind, sid, code):
        self.soak = soak
        self.kind = kind
        self.sid = sid
        self.code = code
        self.texts = {}            # seq -> digest of the text (the same for every member)
        self.mismatches = 0
        self.lines = {}            # line id -> (speakerId, textNative)
        self.recasts = {}          # recast id -> speakerId
        self.accepted = set()
        self.ended_seq = None
        self.ended = None
        self.members = {}          # user -> Member
        self.disconnected = collections.Counter()   # user -> participants{disconnected} count (as broadcast)

    def note_text(self, seq, raw, who):
        digest = hashlib.sha1(raw.encode()).digest()
        first = self.texts.setdefault(seq, digest)
        if first != digest:
            self.mismatches += 1
            self.soak.fail("stream", "%s session %s: seq %d has another text for %s" % (self.kind, self.sid, seq, who))


# ---------------------------------------------------------------------------------------------
# A well-behaved player


class Player:
    def __init__(self, soak, user, name, addr, compression=True, kind="player"):
        self.soak = soak
        self.user = user
        self.name = name
        self.addr = addr
        self.compression = compression
        self.kind = kind
        self.token = None
        self.conn = None
        self.changed = asyncio.Event()
        self.ids = 0
        self.connections = 0
        self.rcvbuf = None
        self.reset()

    def reset(self):
        self.ledger = None
        self.sid = None
        self.resume_token = None
        self.last_seq = 0
        self.sent = {}             # say id -> textNative
        self.acked = {}            # say id -> line id
        self.sent_at = {}          # request id -> send time (latency)
        self.to_accept = []
        self.ended_seq = None
        self.left_ended = False
        self.joining = None        # joined message -> the Ledger to enter (set while host/join is pending)

    def rid(self, kind):
        self.ids += 1
        return "%s.%s%d" % (self.user, kind, self.ids)

    async def setup(self):
        self.token = await self.soak.mint(self.user, self.name)
        status, body = await self.soak.hub_http("PUT", "/admin/users/%s/premium" % self.user, self.soak.admin, {"isPremium": True})
        if status != 200:
            self.soak.fail("setup", "PUT premium for %s -> %s %s" % (self.user, status, brief(body)))
            raise SoakError("premium")

    # --- messages ---

    def on_message(self, conn, raw, m):
        self.changed.set()
        t = m.get("type")
        if conn is not self.conn:
            if t == "left" and m.get("reason") == "replaced":
                conn.replaced = True
            return
        if isinstance(m.get("seq"), int) and "sessionId" in m:
            self.on_broadcast(raw, m)
            return
        if t == "joined":
            if self.joining is not None:
                ledger, self.joining = self.joining(m), None
                self.enter(ledger, m)
            else:
                self.soak.fail("player", "%s: unexpected joined" % self.user)
        elif t == "resumed":
            self.resume_token = m.get("resumeToken")
        elif t == "error":
            self.soak.codes["error %s (well-behaved player)" % m.get("code")] += 1
            if m.get("ref") is None:
                self.soak.fail("player", "%s: unsolicited error %s" % (self.user, brief(m)))
        elif t == "left":
            if m.get("reason") == "ended":
                self.left_ended = True
            else:
                self.soak.fail("player", "%s: unexpected %s" % (self.user, brief(m)))
        elif t in ("welcome", "pong", "historyUpdated", "profile"):
            pass
        else:
            self.soak.fail("player", "%s: unexpected message %s" % (self.user, brief(m)))

    def on_broadcast(self, raw, m):
        L = self.ledger
        if L is None or m["sessionId"] != self.sid:
            self.soak.fail("stream", "%s: broadcast of session %s while in %s" % (self.user, m["sessionId"], self.sid))
            return
        seq = m["seq"]
        member = L.members[self.user]
        member.seen[seq] += 1
        self.soak.totals["deliveries"] += 1
        if seq != self.last_seq + 1:
            what = "duplicate" if member.seen[seq] > 1 else ("gap" if seq > self.last_seq + 1 else "out of order")
            self.soak.fail("stream", "%s session %s: seq %d after %d (%s)" % (self.user, self.sid, seq, self.last_seq, what))
        self.last_seq = max(self.last_seq, seq)
        L.note_text(seq, raw, self.user)
        t = m.get("type")
        if t == "line":
            line = m["line"]
            known = L.lines.setdefault(line["id"], (line["speakerId"], line["textNative"]))
            if known != (line["speakerId"], line["textNative"]):
                self.soak.fail("stream", "%s: line %s differs" % (self.user, line["id"]))
            ref = m.get("ref")
            if line["speakerId"] == self.user and ref in self.sent:
                if ref in self.acked:
                    self.soak.fail("stream", "%s: say %s acknowledged twice (%s, %s)" % (self.user, ref, self.acked[ref], line["id"]))
                self.acked[ref] = line["id"]
                self.latency(ref)
        elif t == "recast":
            r = m["recast"]
            L.recasts[r["id"]] = r["speakerId"]
            if r["speakerId"] == self.user and r["id"] not in L.accepted:
                self.to_accept.append(r["id"])
            if r["authorId"] == self.user:
                self.latency(m.get("ref"))
        elif t == "recastAccepted":
            L.accepted.add(m["recastId"])
            if m.get("userId") == self.user:
                self.latency(m.get("ref"))
        elif t == "participants":
            change = m.get("change") or {}
            if change.get("kind") == "disconnected":
                L.disconnected[change.get("userId")] += 1
        elif t == "ended":
            self.ended_seq = seq
            if L.ended_seq is None:
                L.ended_seq, L.ended = seq, m
            elif L.ended_seq != seq:
                self.soak.fail("stream", "%s: ended at seq %d, others at %d" % (self.user, seq, L.ended_seq))

    def latency(self, ref):
        t0 = self.sent_at.pop(ref, None)
        if t0 is not None:
            self.soak.latencies.append(now() - t0)

    def on_closed(self, conn):
        self.changed.set()

    async def wait_until(self, cond, what, timeout=ANSWER_TIMEOUT):
        deadline = now() + timeout
        while not cond():
            remaining = deadline - now()
            if remaining <= 0:
                last = " | ".join(brief(m, 120) for m in list(self.conn.recent)[-3:]) if self.conn else "no connection"
                raise asyncio.TimeoutError("%s: no %s within %.0f s; last received: %s" % (self.user, what, timeout, last))
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), min(remaining, 1.0))
            except asyncio.TimeoutError:
                pass

    # --- connections ---

    async def connect(self):
        """A new connection with its `welcome` (retried while the hub is down or restarting)."""
        deadline = now() + RECOVER_TIMEOUT
        problem = None
        while now() < deadline:
            try:
                await asyncio.wait_for(self.soak.hub.ready.wait(), max(0.1, deadline - now()))
            except asyncio.TimeoutError:
                break
            gen = self.soak.hub.generation
            try:
                ws = await open_ws(self.soak.hub.port, self.token, self.addr, self.compression, self.rcvbuf)
            except (OSError, asyncio.TimeoutError, InvalidHandshake, ConnectionClosed) as e:
                problem = "%s: %s" % (type(e).__name__, e)
                await asyncio.sleep(0.3)
                continue
            self.connections += 1
            self.soak.totals["connections"] += 1
            conn = Conn(ws, self, "%s#%d" % (self.user, self.connections))
            try:
                welcome = await asyncio.wait_for(conn.watch(lambda m: m.get("type") == "welcome"), ANSWER_TIMEOUT)
                return conn, welcome
            except (ConnLost, asyncio.TimeoutError) as e:
                problem = "no welcome (%s; close %s %s)" % (type(e).__name__, conn.close_code, conn.close_reason)
                conn.abort()
                if gen == self.soak.hub.generation and self.soak.hub.ready.is_set():
                    await asyncio.sleep(0.5)
        self.soak.fail("player", "%s: cannot connect within %.0f s: %s" % (self.user, RECOVER_TIMEOUT, problem))
        raise SoakError("connect")

    async def ensure_lobby_connection(self):
        if self.conn is None or self.conn.closed.is_set():
            conn, welcome = await self.connect()
            if welcome.get("resumableSessionId") is not None:
                self.soak.fail("player", "%s: holds a seat in %s before a new session" % (self.user, welcome["resumableSessionId"]))
                raise SoakError("seat")
            self.conn = conn

    async def req(self, message, pred, what):
        """A request on the current connection; an `error` answer is a failure (returned as None)."""
        self.sent_at[message["id"]] = now()
        answer = await self.conn.request(message, pred)
        if answer.get("type") == "error":
            self.sent_at.pop(message["id"], None)
            self.soak.fail("player", "%s: %s -> %s" % (self.user, what, brief(answer)))
            return None
        return answer

    def enter(self, ledger, joined):
        s = joined["session"]
        self.reset()
        self.ledger = ledger
        self.sid = s["sessionId"]
        self.resume_token = joined["resumeToken"]
        self.last_seq = s["seq"]
        ledger.members[self.user] = Member(s["seq"])
        for line in s.get("lines") or []:
            ledger.lines.setdefault(line["id"], (line["speakerId"], line["textNative"]))

    async def host(self, ledger_kind, scenario, max_players):
        await self.ensure_lobby_connection()
        rid = self.rid("host")
        self.joining = lambda m: Ledger(self.soak, ledger_kind, m["session"]["sessionId"], m["session"]["joinCode"])
        answer = await self.req({"type": "host", "scenarioId": scenario, "maxPlayers": max_players, "id": rid},
                                lambda m: m.get("type") == "joined", "host")
        if answer is None or self.ledger is None:
            raise SoakError("host")
        return self.ledger

    async def join(self, ledger):
        await self.ensure_lobby_connection()
        rid = self.rid("join")
        self.joining = lambda m: ledger
        answer = await self.req({"type": "join", "code": ledger.code.lower(), "id": rid},
                                lambda m: m.get("type") == "joined", "join")
        if answer is None or answer["session"]["sessionId"] != ledger.sid or self.ledger is not ledger:
            raise SoakError("join")

    # --- actions ---

    async def say(self, text=None, translated=""):
        n = self.soak.next_text()
        text = text or "%s [%s %d]" % (random.choice(PHRASES), self.user.rsplit("-", 1)[-1], n)
        rid = self.rid("s")
        self.sent[rid] = text
        self.soak.totals["says"] += 1
        await self.req({"type": "say", "textNative": text, "textTranslated": translated or "(%d)" % n, "id": rid},
                       lambda m: m.get("type") == "line", "say")

    def recast_target(self):
        L = self.ledger
        others = [lid for lid, (speaker, _) in L.lines.items() if speaker != self.user]
        return random.choice(others[-8:]) if others else None

    async def recast(self, big=False):
        target = self.recast_target()
        if target is None:
            return False
        rid = self.rid("r")
        if big:
            corrected, explanation = FAMILY * 300, FAMILY * 300
        else:
            corrected, explanation = "%s (corretto %d)" % (self.ledger.lines[target][1][:200], self.ids), "forma corretta"
        self.soak.totals["recasts"] += 1
        await self.req({"type": "recast", "lineId": target, "correctedText": corrected, "explanation": explanation,
                        "issueTypes": ["grammar"], "id": rid}, lambda m: m.get("type") == "recast", "recast")
        return True

    async def accept(self):
        while self.to_accept:
            recast_id = self.to_accept.pop(0)
            if recast_id in self.ledger.accepted:
                continue
            rid = self.rid("a")
            self.soak.totals["accepts"] += 1
            await self.req({"type": "acceptRecast", "recastId": recast_id, "id": rid},
                           lambda m: m.get("type") == "recastAccepted", "acceptRecast")
            return True
        return False

    async def drop(self, how):
        """Drops the connection (abort: TCP gone; close: 1001 going away), then resumes."""
        self.soak.totals["drops " + how] += 1
        conn = self.conn
        if how == "abort":
            conn.abort()
        else:
            try:
                await asyncio.wait_for(conn.ws.close(1001, "going away"), 6)
            except Exception:
                conn.abort()
        try:
            await asyncio.wait_for(conn.closed.wait(), 10)
        except asyncio.TimeoutError:
            conn.abort()
        await asyncio.sleep(random.uniform(0.05, 1.5))
        await self.recover()

    async def replace(self):
        """Resumes on a second connection while the first is still open: the first must be told
        left{replaced}."""
        self.soak.totals["drops replace"] += 1
        old = self.conn
        conn, welcome = await self.connect()
        if welcome.get("resumableSessionId") != self.sid:
            self.soak.fail("player", "%s: welcome.resumableSessionId %r while seated in %s" % (self.user, welcome.get("resumableSessionId"), self.sid))
        told = old.watch(lambda m: m.get("type") == "left" and m.get("reason") == "replaced")
        self.conn = conn
        try:
            await self.resume()
        except ConnLost:
            await self.recover()
        try:
            await asyncio.wait_for(told, ANSWER_TIMEOUT)
        except ConnLost:
            if not old.replaced and self.soak.hub.ready.is_set():
                self.soak.fail("player", "%s: the replaced connection closed without left{replaced}" % self.user)
        except asyncio.TimeoutError:
            self.soak.fail("player", "%s: no left{replaced} on the replaced connection" % self.user)
        await old.close()

    async def recover(self):
        """Reconnects (waiting for the hub if it is restarting) and resumes the seat."""
        for attempt in range(6):
            conn, welcome = await self.connect()
            if welcome.get("resumableSessionId") != self.sid:
                self.soak.fail("player", "%s: welcome.resumableSessionId %r, seated in %s" % (self.user, welcome.get("resumableSessionId"), self.sid))
                conn.abort()
                raise SoakError("resumable")
            self.conn = conn
            try:
                await self.resume()
                return
            except ConnLost:
                self.soak.totals["resumes interrupted"] += 1
                continue
        self.soak.fail("player", "%s: resume interrupted 6 times" % self.user)
        raise SoakError("resume")

    async def resume(self):
        last = self.last_seq
        rid = self.rid("res")
        answer = await self.conn.request({"type": "resume", "resumeToken": self.resume_token, "lastSeq": last, "id": rid},
                                         lambda m: m.get("type") == "resumed")
        if answer.get("type") != "resumed":
            self.soak.codes["error %s (well-behaved player)" % answer.get("code")] += 1
            self.soak.fail("player", "%s: resume(lastSeq %d) -> %s" % (self.user, last, brief(answer)))
            raise SoakError("resume")
        self.soak.totals["resumes"] += 1
        if answer.get("mode") != "replay":
            self.soak.fail("stream", "%s: resumed in mode %r after lastSeq %d" % (self.user, answer.get("mode"), last))
            raise SoakError("snapshot")
        replayed = answer.get("replayed", 0)
        self.soak.totals["replayed"] += replayed
        self.soak.max_replay = max(self.soak.max_replay, replayed)
        await self.wait_until(lambda: self.last_seq >= last + replayed or self.conn.closed.is_set(),
                              "replay of %d after seq %d" % (replayed, last), RECOVER_TIMEOUT)
        if self.last_seq < last + replayed:
            raise ConnLost("closed during the replay")

    async def leave_all(self):
        if self.conn is not None:
            await self.conn.close()
            self.conn = None


# ---------------------------------------------------------------------------------------------
# Sessions of well-behaved players


class SessionRun:
    """Setup, play and check of one shared session; used by Table and Firehose."""

    def __init__(self, soak, kind, players, scenario):
        self.soak = soak
        self.kind = kind
        self.players = players
        self.scenario = scenario
        self.ledger = None
        self.ending = False

    async def setup(self):
        async with self.soak.critical():
            host = self.players[0]
            self.ledger = await host.host(self.kind, self.scenario, len(self.players))
            for p in self.players[1:]:
                await p.join(self.ledger)

    async def guarded(self, p, coro):
        """Runs one action; a lost connection (restart, slow consumer) is recovered."""
        try:
            await coro
        except ConnLost:
            await p.recover()

    async def finish(self):
        """Everyone connected and caught up, the host ends, everyone gets ended + left{ended}."""
        async with self.soak.critical():
            for p in self.players:
                if p.conn is not None:
                    p.conn.gate.set()
            # A reader that was stalled drains what it holds before it sees the end of a
            # connection the restart cut: wait for that, or the player would miss `ended`.
            top = max(p.last_seq for p in self.players)
            for p in self.players:
                if p.conn is not None and not p.conn.closed.is_set():
                    try:
                        await p.wait_until(lambda: p.conn.closed.is_set() or p.last_seq >= top, "catching up before the end")
                    except asyncio.TimeoutError as e:
                        self.soak.fail("player", str(e))
            for p in self.players:
                if p.conn is None or p.conn.closed.is_set():
                    await p.recover()
            host = self.players[0]
            for attempt in range(3):
                rid = host.rid("end")
                try:
                    await host.req({"type": "end", "id": rid}, lambda m: m.get("type") == "ended", "end")
                    break
                except ConnLost:
                    await host.recover()
                    if host.ended_seq is not None:
                        break
            for p in self.players:
                for attempt in range(3):
                    try:
                        await p.wait_until(lambda: (p.ended_seq is not None and p.left_ended) or p.conn.closed.is_set(),
                                           "ended and left{ended}")
                    except asyncio.TimeoutError as e:
                        self.soak.fail("player", str(e))
                        break
                    if p.ended_seq is not None and p.left_ended:
                        break
                    if p.ended_seq is None:
                        await p.recover()  # dropped before `ended` reached it: the replay brings it
                    else:
                        break
        self.check()
        await self.check_history()

    def check(self):
        L = self.ledger
        s = self.soak
        s.totals["sessions " + self.kind] += 1
        if L.ended_seq is None:
            s.fail("stream", "%s session %s: no ended received" % (self.kind, L.sid))
            return
        for p in self.players:
            m = L.members.get(p.user)
            if m is None:
                continue
            expected = range(m.base + 1, L.ended_seq + 1)
            lost = [q for q in expected if m.seen[q] == 0]
            dup = sum(c - 1 for c in m.seen.values() if c > 1)
            extra = [q for q in m.seen if q <= m.base or q > L.ended_seq]
            s.totals["lost"] += len(lost)
            s.totals["duplicated"] += dup
            s.totals["expected deliveries"] += len(expected)
            if lost or dup or extra:
                s.fail("stream", "%s session %s, %s: lost seqs %s, %d duplicated, unexpected seqs %s (snapshot %d, ended %d)"
                       % (self.kind, L.sid, p.user, lost[:10], dup, extra[:10], m.base, L.ended_seq))
        ids = list(L.lines)
        if sorted(ids, key=lambda x: int(x[1:])) != ["l%d" % i for i in range(1, len(ids) + 1)]:
            s.fail("stream", "%s session %s: line ids %s" % (self.kind, L.sid, ids[:20]))
        texts = collections.Counter((sp, t) for sp, t in L.lines.values())
        for p in self.players:
            for rid, text in p.sent.items():
                n = texts[(p.user, text)]
                if rid in p.acked:
                    s.totals["says acknowledged"] += 1
                    if n != 1 or L.lines.get(p.acked[rid]) != (p.user, text):
                        s.totals["acknowledged not in transcript once"] += 1
                        s.fail("stream", "%s: acknowledged say %s is %d times in the transcript" % (p.user, rid, n))
                else:
                    s.totals["says not acknowledged"] += 1
                    if n:
                        s.totals["in transcript without ack"] += 1
                        s.fail("stream", "%s: say %s is in the transcript but was never acknowledged" % (p.user, rid))
        s.totals["lines in transcripts"] += len(L.lines)
        s.totals["recasts in transcripts"] += len(L.recasts)
        cause = (L.ended or {}).get("cause")
        if cause != "hostEnded":
            s.fail("stream", "%s session %s ended with cause %r" % (self.kind, L.sid, cause))
        for part in (L.ended or {}).get("participants", []):
            if part.get("history") != {"status": "Success"}:
                s.fail("history", "%s session %s: %s history %s" % (self.kind, L.sid, part.get("userId"), part.get("history")))

    async def check_history(self):
        L = self.ledger
        host = self.players[0]
        status, body = await self.soak.hub_http("GET", "/api/history/%s" % L.sid, host.token)
        if status != 200 or not isinstance(body, dict):
            self.soak.fail("history", "GET /api/history/%s -> %s %s" % (L.sid, status, brief(body)))
            return
        stored = {l["id"]: (l["speakerId"], l["textNative"]) for l in body.get("dialogLines") or []}
        if stored != L.lines:
            self.soak.fail("history", "%s session %s: stored history has %d lines, the transcript %d (or they differ)"
                           % (self.kind, L.sid, len(stored), len(L.lines)))
        if len(body.get("recasts") or []) != len(L.recasts):
            self.soak.fail("history", "%s session %s: stored history has %d recasts, %d were broadcast"
                           % (self.kind, L.sid, len(body.get("recasts") or []), len(L.recasts)))
        self.soak.totals["histories checked"] += 1


class Table:
    """A group of well-behaved players playing one session after another."""

    def __init__(self, soak, index, size, lagger=False):
        self.soak = soak
        self.index = index
        self.size = size
        self.lagger = lagger
        self.generation = 0
        self.players = []
        self.sessions = 0

    async def make_players(self):
        self.generation += 1
        self.players = []
        for i in range(self.size):
            kind = "lagger" if (self.lagger and i == self.size - 1) else "player"
            p = Player(self.soak, "%s-t%dg%d-%s%d" % (self.soak.nonce, self.index, self.generation, kind[0], i),
                       "T%d %s %d" % (self.index, kind, i), "127.0.0.%d" % (10 + self.index), compression=(i % 2 == 0), kind=kind)
            await p.setup()
            self.players.append(p)
        self.soak.totals["players"] += len(self.players)

    async def run(self, deadline):
        if not self.players:
            await self.make_players()
        while now() < deadline:
            await self.soak.wait_not_restarting()
            order = self.players[self.sessions % self.size:] + self.players[:self.sessions % self.size]
            order = [p for p in order if p.kind != "lagger"] + [p for p in order if p.kind == "lagger"]
            self.sessions += 1
            run = SessionRun(self.soak, "table", order, TABLE_SCENARIO)
            try:
                await asyncio.wait_for(self.play(run, deadline), max(120, deadline - now() + 120))
            except (SoakError, asyncio.TimeoutError, ConnLost) as e:
                self.soak.fail("table", "table %d session %s: %s: %s" % (self.index, run.ledger.sid if run.ledger else None, type(e).__name__, e))
                for p in self.players:
                    await p.leave_all()
                await self.make_players()   # seats may be held: start over with new users
                continue
            # Between sessions, some players close their connection, the others stay in the lobby.
            for p in self.players:
                if random.random() < 0.5 or now() >= deadline:
                    await p.leave_all()
            await asyncio.sleep(random.uniform(0.2, 1.0))
        for p in self.players:
            await p.leave_all()

    async def play(self, run, deadline):
        await run.setup()
        target = random.randint(8, 20)
        L = run.ledger
        acts = [asyncio.create_task(self.act(run, p, target)) for p in run.players]
        try:
            while not (len(L.lines) >= target or now() >= deadline) and not all(a.done() for a in acts):
                await asyncio.sleep(0.2)
            run.ending = True
            await asyncio.gather(*acts)
        finally:
            for a in acts:
                a.cancel()
        await run.finish()

    async def act(self, run, p, target):
        while not run.ending and len(run.ledger.lines) < target:
            await asyncio.sleep(random.uniform(0.4, 1.6))
            if run.ending:
                break
            r = random.random()
            if p.conn is None or p.conn.closed.is_set():
                await p.recover()
            elif p.kind == "lagger" and r < 0.15:
                p.conn.gate.clear()
                self.soak.totals["slow reader stalls"] += 1
                await asyncio.sleep(random.uniform(2, 8))
                p.conn.gate.set()
            elif r < 0.04:
                await run.guarded(p, p.drop("abort"))
            elif r < 0.07:
                await run.guarded(p, p.drop("close"))
            elif r < 0.085:
                await run.guarded(p, p.replace())
            elif r < 0.25 and p.to_accept:
                await run.guarded(p, p.accept())
            elif r < 0.40:
                await run.guarded(p, p.recast())
            else:
                await run.guarded(p, p.say())


class Firehose:
    """Six members send the largest recasts the hub takes while a seventh does not read: the hub
    must drop it as a slow consumer (or it catches up), it must then resume with an exact replay,
    and the others must not notice."""

    def __init__(self, soak):
        self.soak = soak
        self.runs = 0

    async def run(self, deadline, start_after=0.0):
        await asyncio.sleep(start_after)
        while now() + 20 < deadline:
            await self.soak.wait_not_restarting()
            self.runs += 1
            try:
                await asyncio.wait_for(self.once(deadline), 240)
            except (SoakError, asyncio.TimeoutError, ConnLost) as e:
                self.soak.fail("firehose", "firehose %d: %s: %s" % (self.runs, type(e).__name__, e))
            await asyncio.sleep(random.uniform(3, 8))

    async def once(self, deadline):
        s = self.soak
        players = []
        for i in range(8):
            kind = "sink" if i == 7 else "talker"
            p = Player(s, "%s-f%d-%s%d" % (s.nonce, self.runs, kind[0], i), "F%d %d" % (self.runs, i),
                       "127.0.0.%d" % (40 + i), compression=(i < 2), kind=kind)
            if kind == "sink":
                p.rcvbuf = 16384
            await p.setup()
            players.append(p)
        s.totals["players"] += len(players)
        sink = players[-1]
        run = SessionRun(s, "firehose", players, FIREHOSE_SCENARIO)
        try:
            await run.setup()
            L = run.ledger
            await run.guarded(players[0], players[0].say())
            await run.guarded(players[1], players[1].say())
            sink.conn.gate.clear()
            t0, gen = now(), s.hub.generation
            cap = min(60.0, max(15.0, deadline - now()))
            stop = asyncio.Event()

            async def talk(p):
                while not stop.is_set():
                    t = now()
                    await run.guarded(p, p.recast(big=True))
                    await asyncio.sleep(max(0.0, 0.25 - (now() - t)))

            talkers = [asyncio.create_task(talk(p)) for p in players[:-1]]
            try:
                # A restart kills the sink's connection without a presence broadcast: it must then
                # read again and resume within the grace window.
                while (L.disconnected[sink.user] == 0 and now() - t0 < cap and gen == s.hub.generation
                       and not all(t.done() for t in talkers)):
                    await asyncio.sleep(0.2)
            finally:
                stop.set()
                await asyncio.gather(*talkers, return_exceptions=False)
            dropped = L.disconnected[sink.user] > 0
            restarted = gen != s.hub.generation
            s.firehose.append({"dropped": dropped, "restart": restarted, "seconds": round(now() - t0, 1),
                               "recasts": len(L.recasts), "sinkSeqBefore": sink.last_seq})
            outcome = "dropped" if dropped else ("cut by the restart" if restarted else "caught up")
            s.totals["slow readers " + outcome] += 1
            sink.conn.gate.set()
            if restarted:
                await asyncio.wait_for(sink.conn.closed.wait(), ANSWER_TIMEOUT)
                await sink.recover()
            elif dropped:
                try:
                    await asyncio.wait_for(sink.conn.closed.wait(), ANSWER_TIMEOUT)
                except asyncio.TimeoutError:
                    s.fail("firehose", "the hub announced %s disconnected but its connection stays open" % sink.user)
                if sink.conn.closed.is_set():
                    await sink.recover()
            s.firehose[-1]["replayed"] = sink.last_seq - s.firehose[-1]["sinkSeqBefore"]
            await run.finish()
        finally:
            for p in players:
                await p.leave_all()


# ---------------------------------------------------------------------------------------------
# Offenders: each a short connection that must get documented errors and close codes


def ws_frame(opcode, payload=b"", fin=True, mask=True, rsv=0):
    b0 = (0x80 if fin else 0) | (rsv << 4) | opcode
    n = len(payload)
    mbit = 0x80 if mask else 0
    if n < 126:
        head = bytes([b0, mbit | n])
    elif n < 65536:
        head = bytes([b0, mbit | 126]) + struct.pack("!H", n)
    else:
        head = bytes([b0, mbit | 127]) + struct.pack("!Q", n)
    if mask:
        key = os.urandom(4)
        payload = bytes(b ^ key[i % 4] for i, b in enumerate(payload))
        head += key
    return head + payload


async def raw_close_code(port, token, addr, frames, timeout=ANSWER_TIMEOUT):
    """Opens /ws by hand, sends `frames` and returns (close code, reason) of the server's close
    frame (None if the connection ended without one)."""
    reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port, local_addr=(addr, 0)), 15)
    try:
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(("GET /ws?token=%s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (token, port, key)).encode())
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
        if not head.startswith(b"HTTP/1.1 101"):
            return ("upgrade", head.split(b"\r\n")[0].decode(errors="replace"))
        for f in frames:
            writer.write(f)
        await writer.drain()
        deadline = now() + timeout
        while now() < deadline:
            b = await asyncio.wait_for(reader.readexactly(2), deadline - now())
            n = b[1] & 0x7F
            if n == 126:
                n = struct.unpack("!H", await reader.readexactly(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", await reader.readexactly(8))[0]
            payload = await asyncio.wait_for(reader.readexactly(n), deadline - now())
            if b[0] & 0x0F == 0x8:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                return (code, payload[2:].decode(errors="replace"))
        return ("timeout", "")
    except (asyncio.IncompleteReadError, ConnectionError):
        return (None, "closed without a close frame")
    finally:
        writer.close()


class Offender:
    """A throw-away client: records what it received and how it was closed."""

    def __init__(self, soak, kind, user, token, addr):
        self.soak, self.kind, self.user, self.token, self.addr = soak, kind, user, token, addr
        self.msgs = []
        self.conn = None
        self.n = 0

    def on_message(self, conn, raw, m):
        self.msgs.append(m)
        if m.get("type") == "error":
            self.soak.codes["error %s (offender)" % m.get("code")] += 1

    def on_closed(self, conn):
        pass

    async def open(self, token=True, compression=False):
        ws = await open_ws(self.soak.hub.port, self.token if token else None, self.addr, compression)
        self.conn = Conn(ws, self, "%s/%s" % (self.kind, self.user))
        if token:
            await asyncio.wait_for(self.conn.watch(lambda m: m.get("type") == "welcome"), ANSWER_TIMEOUT)
        return self.conn

    def rid(self):
        self.n += 1
        return "%s-%d" % (self.kind, self.n)

    async def closed(self, timeout=ANSWER_TIMEOUT):
        try:
            await asyncio.wait_for(self.conn.closed.wait(), timeout)
        except asyncio.TimeoutError:
            return None
        code, reason = self.conn.close_code, self.conn.close_reason or ""
        self.soak.codes["close %s %s (offender)" % (code, re.sub(r"[:(].*", "", reason).strip())] += 1
        return code, reason

    async def blast(self, texts):
        for t in texts:
            try:
                await self.conn.send(t)
            except ConnLost:
                break

    def errors(self, code=None):
        return [m for m in self.msgs if m.get("type") == "error" and (code is None or m.get("code") == code)]

    async def pong(self):
        rid = self.rid()
        m = await self.conn.request({"type": "ping", "id": rid}, lambda m: m.get("type") == "pong")
        return m.get("type") == "pong"


def expect(cond, detail):
    if not cond:
        raise AssertionError(detail)


async def off_ping_flood(o):
    """200 pings at once: over the request rate (burst 40, 20/s) -> rate_limited, then the error
    budget (20) runs out -> close 1008 `too many invalid requests`."""
    await o.open()
    await o.blast([json.dumps({"type": "ping", "id": i}) for i in range(200)])
    closed = await o.closed()
    expect(o.errors("rate_limited"), "no rate_limited among %d replies" % len(o.msgs))
    expect(closed and closed[0] == 1008 and "too many invalid requests" in closed[1], "close %s" % (closed,))
    return "%d rate_limited, close 1008" % len(o.errors("rate_limited"))


async def off_line_burst(o):
    """24 says at once in a solo session (goal 30 lines): over the line rate (burst 10, 5/s) -> some
    rate_limited, the rest are lines; the connection stays usable; the solo session ends."""
    conn = await o.open(compression=True)
    rid = o.rid()
    joined = await conn.request({"type": "startSolo", "scenarioId": TABLE_SCENARIO, "id": rid}, lambda m: m.get("type") == "joined")
    expect(joined.get("type") == "joined", "startSolo -> %s" % brief(joined))
    ids = [o.rid() for _ in range(24)]
    futs = []
    for i in ids:
        fut = asyncio.get_running_loop().create_future()
        conn.waiters[i] = (lambda m: m.get("type") == "line", fut)
        futs.append(fut)
    await o.blast([json.dumps({"type": "say", "textNative": "Passiamo alle domande %s" % i, "id": i}) for i in ids])
    answers = await asyncio.wait_for(asyncio.gather(*futs), ANSWER_TIMEOUT)
    lines = [a for a in answers if a.get("type") == "line"]
    limited = [a for a in answers if a.get("type") == "error" and a.get("code") == "rate_limited"]
    expect(len(lines) + len(limited) == len(ids), "other answers: %s" % [brief(a) for a in answers if a not in lines + limited][:3])
    expect(limited, "24 says at once, none rate_limited")
    expect(await o.pong(), "no pong after the burst")
    rid = o.rid()
    ended = await conn.request({"type": "end", "id": rid}, lambda m: m.get("type") == "ended")
    expect(ended.get("type") == "ended", "end -> %s" % brief(ended))
    spoken = ended["participants"][0]["stats"]["linesSpoken"]
    expect(spoken == len(lines), "linesSpoken %d, %d lines acknowledged" % (spoken, len(lines)))
    await conn.close()
    return "%d lines, %d rate_limited, still usable" % (len(lines), len(limited))


async def off_garbage_json(o):
    """Invalid JSON, a non-object, a missing field, an unknown type, a request out of state:
    each gets its error code and the connection stays usable."""
    await o.open()
    cases = [("{nope", "malformed_json"), ("[1]", "malformed_json"), ('{"id":"g1"}', "missing_field"),
             ('{"type":"frobnicate","id":"g2"}', "unknown_type"), ('{"type":"say","textNative":"x","id":"g3"}', "not_in_session"),
             ('{"type":"say","textNative":5,"id":"g4"}', "invalid_field")]
    for text, code in cases:
        before = len(o.errors())
        await o.conn.send(text)
        deadline = now() + ANSWER_TIMEOUT
        while len(o.errors()) == before and now() < deadline and not o.conn.closed.is_set():
            await asyncio.sleep(0.02)
        got = o.errors()[before:] if len(o.errors()) > before else []
        expect(got and got[0].get("code") == code, "%s -> %s, expected %s" % (text, brief(got[:1]), code))
    expect(await o.pong(), "no pong after the garbage")
    await o.conn.close()
    return "%d errors with the right codes, still usable" % len(cases)


async def off_error_budget(o):
    """40 invalid messages at once: the error budget (20) runs out -> close 1008."""
    await o.open()
    await o.blast(["{nope"] * 40)
    closed = await o.closed()
    expect(len(o.errors("malformed_json")) >= 5, "%d malformed_json errors" % len(o.errors("malformed_json")))
    expect(closed and closed[0] == 1008 and "too many invalid requests" in closed[1], "close %s" % (closed,))
    return "%d malformed_json, close 1008" % len(o.errors("malformed_json"))


async def off_binary(o):
    await o.open()
    await o.blast([b"\x00\x01\x02"])
    closed = await o.closed()
    expect(closed and closed[0] == 1003, "close %s, expected 1003" % (closed,))
    return "close 1003"


async def off_bad_utf8(o):
    await o.open()
    try:
        await o.conn.ws.send(b'{"type":"ping","x":"\xc3\x28"}', text=True)
    except ConnectionClosed:
        pass
    closed = await o.closed()
    expect(closed and closed[0] == 1007, "close %s, expected 1007" % (closed,))
    return "close 1007"


async def off_oversize(o):
    """Over the hub's 16 KiB: the error message_too_large (connection usable) or, where the
    endpoint refuses it from the frame header, close 1009."""
    await o.open()
    await o.blast([json.dumps({"type": "ping", "id": "big", "pad": "x" * 20000})])
    deadline = now() + ANSWER_TIMEOUT
    while not o.errors() and not o.conn.closed.is_set() and now() < deadline:
        await asyncio.sleep(0.02)
    if o.errors():
        expect(o.errors()[0].get("code") == "message_too_large", "-> %s" % brief(o.errors()[0]))
        expect(await o.pong(), "no pong after message_too_large")
        await o.conn.close()
        return "message_too_large, still usable"
    closed = await o.closed()
    expect(closed and closed[0] == 1009, "close %s, expected 1009 or message_too_large" % (closed,))
    return "close 1009"


async def off_huge(o):
    """Over the WebSocket limit (1 MiB): close 1009."""
    await o.open()
    await o.blast(["x" * ((1 << 20) + 1)])
    closed = await o.closed()
    expect(closed and closed[0] == 1009, "close %s, expected 1009" % (closed,))
    return "close 1009"


async def off_no_auth(o):
    """No token, then garbage as the first message: close 1008 auth_required."""
    await o.open(token=False)
    await o.blast(["{garbage"])
    closed = await o.closed()
    expect(closed and closed[0] == 1008 and closed[1].startswith("auth_required"), "close %s" % (closed,))
    return "close 1008 auth_required"


async def off_bad_token(o):
    """A token whose signature is wrong (first signature character changed): close 1008
    token_signature."""
    head, body, sig = o.token.split(".")
    sig = ("B" if sig[0] != "B" else "C") + sig[1:]
    o.token = "%s.%s.%s" % (head, body, sig)
    ws = await open_ws(o.soak.hub.port, o.token, o.addr, False)
    o.conn = Conn(ws, o, "bad-token")
    closed = await o.closed()
    expect(closed and closed[0] == 1008 and closed[1].startswith("token_signature"), "close %s" % (closed,))
    return "close 1008 token_signature"


async def off_auth_timeout(o):
    """No token and silence: close 1008 auth_timeout after 10 s."""
    await o.open(token=False)
    closed = await o.closed(timeout=40)
    expect(closed and closed[0] == 1008 and closed[1].startswith("auth_timeout"), "close %s" % (closed,))
    return "close 1008 auth_timeout"


FRAME_CASES = [
    ("unmasked frame", [ws_frame(0x1, b'{"type":"ping"}', mask=False)], 1002),
    ("reserved opcode 3", [ws_frame(0x3, b"x")], 1002),
    ("RSV1 without extension", [ws_frame(0x1, b"{}", rsv=4)], 1002),
    ("control frame of 126 bytes", [ws_frame(0x9, b"x" * 126)], 1002),
    ("fragmented ping", [ws_frame(0x9, b"x", fin=False)], 1002),
    ("continuation without a message", [ws_frame(0x0, b"x")], 1002),
    ("text frame inside a fragmented message", [ws_frame(0x1, b'{"ty', fin=False), ws_frame(0x1, b'pe"}')], 1002),
    ("close frame of 1 byte", [ws_frame(0x8, b"\x03")], 1002),
    ("close code 1005 on the wire", [ws_frame(0x8, struct.pack("!H", 1005))], 1002),
    ("close reason not UTF-8", [ws_frame(0x8, struct.pack("!H", 1000) + b"\xff")], 1007),
]


async def off_frames(o):
    """Raw frames that break RFC 6455, one connection each: the documented close codes."""
    out = []
    for name, frames, want in FRAME_CASES:
        code, reason = await raw_close_code(o.soak.hub.port, o.token, o.addr, frames)
        o.soak.codes["close %s (raw frame offender)" % code] += 1
        expect(code == want, "%s: close %s %r, expected %d" % (name, code, reason, want))
        out.append(code)
    return "%d protocol violations, closes %s" % (len(out), dict(collections.Counter(out)))


OFFENDERS = [("ping flood", off_ping_flood, 3), ("line burst", off_line_burst, 3), ("garbage JSON", off_garbage_json, 3),
             ("error budget", off_error_budget, 2), ("binary message", off_binary, 2), ("invalid UTF-8", off_bad_utf8, 2),
             ("over 16 KiB", off_oversize, 2), ("over 1 MiB", off_huge, 1), ("no token", off_no_auth, 2),
             ("bad signature", off_bad_token, 2), ("auth timeout", off_auth_timeout, 1), ("frame violations", off_frames, 2)]


class Offenders:
    def __init__(self, soak):
        self.soak = soak
        self.pool = []
        self.busy = 0
        self.count = 0
        self.results = collections.defaultdict(lambda: {"runs": 0, "ok": 0, "failed": 0, "last": ""})

    async def run(self, deadline):
        s = self.soak
        if not self.pool:
            users = ["%s-o%d" % (s.nonce, i) for i in range(12)]
            tokens = await asyncio.gather(*(s.mint(u, "Offender %d" % i) for i, u in enumerate(users)))
            self.pool = list(zip(users, tokens))
        bag = []
        tasks = set()
        while now() < deadline - 12:
            await s.wait_not_restarting()
            if not bag:
                bag = [(name, fn) for name, fn, weight in OFFENDERS for _ in range(weight)]
                random.shuffle(bag)
            if len(tasks) >= 2 or not self.pool:
                await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
                tasks = {t for t in tasks if not t.done()}
                continue
            name, fn = bag.pop()
            user, token = self.pool.pop(0)
            tasks.add(asyncio.create_task(self.one(name, fn, user, token)))
            await asyncio.sleep(random.uniform(0.3, 1.5))
        if tasks:
            await asyncio.gather(*tasks)

    async def one(self, name, fn, user, token):
        s = self.soak
        self.busy += 1
        self.count += 1
        gen = s.hub.generation
        o = Offender(s, name, user, token, "127.0.1.%d" % (1 + self.count % 200))
        r = self.results[name]
        r["runs"] += 1
        try:
            detail = await asyncio.wait_for(fn(o), 60)
            r["ok"] += 1
            r["last"] = detail
        except Exception as e:
            if gen != s.hub.generation:
                r["runs"] -= 1   # cut by the restart: not counted
            else:
                r["failed"] += 1
                s.fail("offender", "%s (%s): %s: %s" % (name, user, type(e).__name__, e))
        finally:
            if o.conn is not None:
                await o.conn.close()
            self.pool.append((user, token))
            self.busy -= 1


# ---------------------------------------------------------------------------------------------
# Bots


class Bots:
    def __init__(self, soak):
        self.soak = soak
        self.running = False
        self.runs = []
        self.proc = None

    async def run(self, deadline):
        s = self.soak
        while now() < deadline - 25:
            await s.wait_not_restarting()
            n = len(self.runs) + 1
            args = [s.bot_bin, "play", "--url", "ws://127.0.0.1:%d/ws" % s.hub.port,
                    "--token-cmd", "%s token --secret-file %s" % (shlex.quote(s.bin), shlex.quote(s.secret)),
                    "--host", "--players", "3", "--scenario", BOT_SCENARIO, "--pace-ms", "150",
                    "--drop-after", "3", "--json", "--timeout", "90", "--seed", str(random.randrange(1 << 30)),
                    "--user-prefix", "%s-b%d" % (s.nonce, n)]
            if n % 2 == 0:
                args += ["--lines", "2"]
            self.running = True
            t0 = now()
            try:
                self.proc = await asyncio.create_subprocess_exec(*args, stdout=asyncio.subprocess.PIPE,
                                                                 stderr=asyncio.subprocess.PIPE, env=s.env)
                try:
                    out, err = await asyncio.wait_for(self.proc.communicate(), 110)
                except asyncio.TimeoutError:
                    self.proc.kill()
                    out, err = await self.proc.communicate()
                rc = self.proc.returncode
            finally:
                self.running = False
                self.proc = None
            try:
                summary = json.loads(out.decode().strip().splitlines()[-1])
            except (ValueError, IndexError):
                summary = {}
            self.runs.append({"rc": rc, "seconds": round(now() - t0, 1), "lines": summary.get("linesSpoken"),
                              "recasts": summary.get("recasts"), "cause": summary.get("cause"),
                              "resumes": len(summary.get("resumes") or [])})
            if rc != 0:
                s.fail("bot", "bot run %d exited %s: %s | %s" % (n, rc, brief(summary.get("problems"), 400),
                                                                 brief(err.decode(errors="replace").strip(), 400)))
            await asyncio.sleep(random.uniform(0.5, 2.0))

    def kill(self):
        if self.proc is not None and self.proc.returncode is None:
            try:
                self.proc.kill()
            except ProcessLookupError:
                pass


# ---------------------------------------------------------------------------------------------
# The run


class Soak:
    def __init__(self, args):
        self.args = args
        self.work = os.path.abspath(args.work)
        self.seconds = max(60.0, args.minutes * 60.0)
        self.seed = args.seed if args.seed is not None else random.randrange(1 << 31)
        random.seed(self.seed)
        self.nonce = "soak" + secrets.token_hex(3)
        self.secret = os.path.join(self.work, "secret")
        self.db = os.path.join(self.work, "hub.sqlite")
        self.env = {k: v for k, v in os.environ.items() if k != "SESSIONHUB_SECRET"}
        self.serve_args = list(args.serve_arg or [])
        self.parts = set(args.parts.split(","))
        self.hub = Hub(self)
        self.bin = self.bot_bin = None
        self.admin = None
        self.stuck_sessions = []
        self.failures = []
        self.failure_counts = collections.Counter()
        self.codes = collections.Counter()
        self.totals = collections.Counter()
        self.latencies = []
        self.max_replay = 0
        self.firehose = []
        self.texts = 0
        self.critical_count = 0
        self.restart_pending = False
        self.samples = []          # (t, generation, rss KiB, fds, threads)
        self.idle = []             # idle samples after each cycle
        self.events = []
        self.t0 = None
        self.restart = {}

    # --- bookkeeping ---

    def fail(self, category, message):
        self.failure_counts[category] += 1
        if len(self.failures) < 200:
            self.failures.append("[%s] %s" % (category, message))
        print("FAIL [%s] %s" % (category, message), flush=True)

    def event(self, text):
        t = now() - self.t0 if self.t0 else 0.0
        self.events.append("%7.1fs %s" % (t, text))
        print("[soak %6.1fs] %s" % (t, text), flush=True)

    def next_text(self):
        self.texts += 1
        return self.texts

    async def mint(self, user, name, admin=False):
        cmd = [self.bin, "token", "--user", user, "--name", name, "--secret-file", self.secret] + (["--admin"] if admin else [])
        done = await asyncio.to_thread(subprocess.run, cmd, capture_output=True, text=True, timeout=30, env=self.env)
        if done.returncode != 0 or not done.stdout.strip():
            raise SoakError("token command failed (%d): %s" % (done.returncode, done.stderr.strip()[:200]))
        return done.stdout.strip()

    async def hub_http(self, method, path, token=None, body=None):
        """An HTTP request to the hub, retried while it restarts."""
        for attempt in range(60):
            await asyncio.wait_for(self.hub.ready.wait(), RECOVER_TIMEOUT)
            try:
                return await self.hub.http(method, path, token, body)
            except (OSError, urllib.error.URLError) as e:
                problem = e
                await asyncio.sleep(0.5)
        raise SoakError("%s %s: %s" % (method, path, problem))

    class _Critical:
        def __init__(self, soak):
            self.soak = soak

        async def __aenter__(self):
            await self.soak.wait_not_restarting()
            self.soak.critical_count += 1

        async def __aexit__(self, *exc):
            self.soak.critical_count -= 1

    def critical(self):
        """Session setup and end: the restart waits until none is in progress."""
        return Soak._Critical(self)

    async def wait_not_restarting(self):
        while self.restart_pending:
            await asyncio.sleep(0.1)

    # --- phases ---

    async def sampler(self):
        while True:
            got = self.hub.proc_sample()
            if got:
                self.samples.append((round(now() - self.t0, 1), self.hub.generation) + got)
            await asyncio.sleep(1.0)

    async def cycle(self, index, seconds, restart_at=None):
        deadline = now() + seconds
        self.event("cycle %d: %.0f s of load%s" % (index, seconds, "; restart at +%.0f s" % restart_at if restart_at else ""))
        parts = self.parts
        tasks = [asyncio.create_task(t.run(deadline)) for t in self.tables] if "tables" in parts else []
        if "firehose" in parts:
            tasks.append(asyncio.create_task(self.fire.run(deadline)))
        if "bots" in parts:
            tasks.append(asyncio.create_task(self.bots.run(deadline)))
        if "offenders" in parts:
            tasks.append(asyncio.create_task(self.offenders.run(deadline)))
        if restart_at is not None:
            tasks.append(asyncio.create_task(self.restart_hub(restart_at)))
        done, pending = await asyncio.wait(tasks, timeout=seconds + 300)
        for t in pending:
            t.cancel()
            self.fail("run", "a load task was still running 300 s after its cycle: %r" % t)
        for t in done:
            if t.exception() is not None:
                e = t.exception()
                self.fail("run", "load task failed: %s: %s\n%s" % (type(e).__name__, e,
                                                                  "".join(traceback.format_exception(e))[-1500:]))

    async def restart_hub(self, after):
        await asyncio.sleep(after)
        self.restart_pending = True
        t0 = now()
        while self.critical_count or self.bots.running or self.offenders.busy:
            if now() - t0 > 150:
                self.fail("restart", "sessions, bots or offenders still busy after 150 s; killing anyway")
                break
            await asyncio.sleep(0.05)
        try:
            m = await self.hub.metrics()
            live = int(m.get('sessionhub_sessions{mode="shared"}', 0) + m.get('sessionhub_sessions{mode="solo"}', 0))
            conns = int(m.get("sessionhub_connections", 0))
        except Exception:
            live = conns = None
        sample = self.hub.proc_sample()
        rc = await self.hub.kill()
        self.restart.update({"liveSessionsAtKill": live, "connectionsAtKill": conns, "hub1ExitStatus": rc,
                             "hub1RssKiBAtKill": sample[0] if sample else None, "hub1FdsAtKill": sample[1] if sample else None})
        self.event("SIGKILL hub 1 (%s live sessions, %s connections): exit status %s" % (live, conns, rc))
        detail = await self.hub.start()
        try:
            m = await self.hub.metrics()
            recovered = int(m.get('sessionhub_sessions{mode="shared"}', 0) + m.get('sessionhub_sessions{mode="solo"}', 0))
        except Exception:
            recovered = None
        self.restart.update({"recoveredSessions": recovered, "downSeconds": round(now() - t0, 2)})
        if live is not None and recovered is not None and recovered != live:
            self.fail("restart", "%d sessions were live at the kill, %d recovered" % (live, recovered))
        self.restart_pending = False
        self.event("restarted: %s; %s sessions recovered" % (detail, recovered))

    async def record_stuck_sessions(self, label):
        """Puts what the operator API says of the sessions still live into the report (and the
        log), so a session that never ends can be told apart: stuck in its journal write,
        waiting for members, or not answering at all."""
        try:
            status, body = await asyncio.wait_for(self.hub_http("GET", "/admin/api/sessions?tail=3", self.admin), 10)
        except (SoakError, asyncio.TimeoutError) as e:
            body, status = None, "no answer (%s)" % type(e).__name__
        self.stuck_sessions.append({"label": label, "status": status, "body": body})
        print("[soak] sessions still live after %s: HTTP %s %s" % (label, status, json.dumps(body)[:4000]), flush=True)

    async def idle_sample(self, label):
        """Waits until the hub holds no connection and no session, then samples RSS and fds."""
        t0 = now()
        m = {}
        while True:
            try:
                m = await self.hub.metrics()
            except SoakError:
                m = {}
            conns = m.get("sessionhub_connections")
            sessions = m.get('sessionhub_sessions{mode="shared"}', 0) + m.get('sessionhub_sessions{mode="solo"}', 0)
            if conns == 0 and sessions == 0:
                break
            if now() - t0 > 90:
                self.fail("idle", "%s: the hub still holds %s connections and %s sessions 90 s after the load" % (label, conns, sessions))
                await self.record_stuck_sessions(label)
                break
            await asyncio.sleep(0.5)
        # Descriptors of closed sockets go away within the close timeout, and the hub trims its
        # heap every 10 s (HeapTrimmer): sample after IDLE_SETTLE s of idleness, once the
        # descriptor count has been stable for 3 s.
        idle_since = now()
        history = []
        while now() - t0 < 150:
            got = self.hub.proc_sample()
            if got is None:
                raise SoakError("the hub is gone")
            history.append(got)
            if (now() - idle_since >= IDLE_SETTLE and len(history) >= 6
                    and len({h[1] for h in history[-6:]}) == 1):
                break
            await asyncio.sleep(0.5)
        rss = int(statistics.median(h[0] for h in history[-6:]))
        fds = history[-1][1]
        entry = {"label": label, "t": round(now() - self.t0, 1), "hub": self.hub.generation, "rssKiB": rss, "fds": fds,
                 "threads": history[-1][2], "secondsToIdle": round(now() - t0, 1),
                 "slowConsumerDrops": int(m.get("sessionhub_slow_client_disconnects_total", 0))}
        self.idle.append(entry)
        self.event("idle after %s: RSS %.1f MiB, %d fds, %d threads" % (label, rss / 1024, fds, history[-1][2]))
        return entry

    async def main(self):
        args = self.args
        os.makedirs(self.work, exist_ok=True)
        self.bin, self.bot_bin = self.hub.install(os.path.abspath(args.bin), os.path.abspath(args.bot_bin))
        with open(self.secret, "w") as f:
            f.write(secrets.token_urlsafe(32) + "\n")
        os.chmod(self.secret, 0o600)
        self.t0 = now()
        self.event("seed %d, %.1f minutes of load, work dir %s" % (self.seed, self.seconds / 60, self.work))
        self.event(await self.hub.start())
        sampler = asyncio.create_task(self.sampler())
        self.admin = await self.mint(self.nonce + "-admin", "Operator", admin=True)
        self.tables = [Table(self, 0, 4, lagger=True), Table(self, 1, 3), Table(self, 2, 3)]
        self.fire = Firehose(self)
        self.bots = Bots(self)
        self.offenders = Offenders(self)
        # Cycle 0 holds the restart in its middle. The idle sample after cycle 1 (the restarted
        # hub after a warm-up of half a cycle and a whole one) is the baseline, the one after the
        # last cycle the end. The time after cycle 0 is split in cycles of about two minutes.
        first = max(40.0, 0.3 * self.seconds)
        rest = max(80.0, self.seconds - first)
        n = max(2, int(round(rest / 120.0)))
        try:
            await self.cycle(0, first, restart_at=first / 2)
            await self.idle_sample("cycle 0 (restart)")
            for i in range(1, n + 1):
                await self.cycle(i, rest / n)
                await self.idle_sample("cycle %d%s" % (i, " (baseline)" if i == 1 else ""))
        finally:
            sampler.cancel()
            self.bots.kill()
        hold = float(os.environ.get("SOAK_HOLD_IDLE", "0") or 0)
        if hold > 0:  # diagnosis: keep the idle hub up (e.g. to attach a debugger)
            self.event("holding the idle hub (pid %d) for %.0f s" % (self.hub.proc.pid, hold))
            await asyncio.sleep(hold)
        rc = await self.hub.terminate()
        self.restart["hub2ExitCode"] = rc
        self.event("SIGTERM hub %d: exit code %s" % (self.hub.generation, rc))
        if rc != 0:
            self.fail("hub", "hub %d exited with %s after SIGTERM (expected 0)" % (self.hub.generation, rc))
        self.elapsed = now() - self.t0

    # --- verdict ---

    def check_resources(self):
        if len(self.idle) < 3:
            self.fail("resources", "fewer than three idle samples")
            return {}
        base, end = self.idle[1], self.idle[-1]
        # glibc keeps freed memory, and what a trim can give back depends on how the last firehose
        # fragmented the arenas: idle samples of a hub with 4 MB of live heap vary by up to
        # ±45 MiB from cycle to cycle. A leak shows as a rise after every cycle (below).
        rss_tol = max(64 * 1024, int(0.5 * base["rssKiB"]))
        fd_tol = 2
        hub2 = [s for s in self.samples if s[1] == self.hub.generation]
        hub1 = [s for s in self.samples if s[1] == 1]
        res = {
            "rssKiB": {"hub1Peak": max((s[2] for s in hub1), default=None), "baseline": base["rssKiB"],
                       "peak": max((s[2] for s in hub2 if s[0] >= base["t"]), default=None), "end": end["rssKiB"],
                       "tolerance": rss_tol, "idle": [i["rssKiB"] for i in self.idle]},
            "fds": {"hub1Peak": max((s[3] for s in hub1), default=None), "baseline": base["fds"],
                    "peak": max((s[3] for s in hub2 if s[0] >= base["t"]), default=None), "end": end["fds"],
                    "tolerance": fd_tol, "idle": [i["fds"] for i in self.idle]},
        }
        if end["fds"] > base["fds"] + fd_tol:
            self.fail("resources", "open descriptors %d at the end, baseline %d (+%d allowed)" % (end["fds"], base["fds"], fd_tol))
        if end["rssKiB"] > base["rssKiB"] + rss_tol:
            self.fail("resources", "RSS %.1f MiB at the end, baseline %.1f MiB (+%.1f MiB allowed)"
                      % (end["rssKiB"] / 1024, base["rssKiB"] / 1024, rss_tol / 1024))
        rss = [i["rssKiB"] for i in self.idle[1:]]
        if len(rss) >= 4 and all(b > a for a, b in zip(rss, rss[1:])) and rss[-1] - rss[0] > rss_tol / 2:
            self.fail("resources", "RSS rose after every cycle: %s KiB" % rss)
        return res

    def check_logs(self):
        found, warnings = scan_logs(self.hub.logs)
        for line in found[:10]:
            self.fail("log", line)
        return {"errorLines": len(found), "warningLines": warnings}

    def report(self):
        resources = self.check_resources()
        logs = self.check_logs()
        lat = sorted(self.latencies)

        def pct(p):
            return round(lat[min(len(lat) - 1, int(p * len(lat)))] * 1000, 1) if lat else None

        off = {k: dict(v) for k, v in self.offenders.results.items()}
        for name, _, _ in OFFENDERS:
            if off.get(name, {}).get("ok", 0) == 0:
                self.fail("offender", "%s never ran to completion" % name)
        bots = self.bots.runs
        if not bots:
            self.fail("bot", "no bot run")
        if not self.firehose:
            self.fail("firehose", "no firehose session")
        if self.totals["lost"] or self.totals["duplicated"]:
            pass  # already failed per session
        t = self.totals
        report = {
            "ok": not self.failures,
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "machine": {"host": socket.gethostname(), "cpus": os.cpu_count(), "kernel": os.uname().release,
                        "binary": self.args.bin},
            "seed": self.seed, "minutes": round(self.seconds / 60, 2), "elapsedSeconds": round(self.elapsed, 1),
            "players": {"users": t["players"], "connections": t["connections"],
                        "sessions": {"table": t["sessions table"], "firehose": t["sessions firehose"]},
                        "drops": {"abort": t["drops abort"], "close1001": t["drops close"], "replaced": t["drops replace"]},
                        "resumes": t["resumes"], "resumesInterrupted": t["resumes interrupted"], "replayed": t["replayed"],
                        "largestReplay": self.max_replay, "slowReaderStalls": t["slow reader stalls"]},
            "lines": {"says": t["says"], "acknowledged": t["says acknowledged"], "notAcknowledged": t["says not acknowledged"],
                      "inTranscripts": t["lines in transcripts"], "recasts": t["recasts"], "accepts": t["accepts"],
                      "recastsInTranscripts": t["recasts in transcripts"], "historiesChecked": t["histories checked"]},
            "deliveries": {"received": t["deliveries"], "expected": t["expected deliveries"], "lost": t["lost"],
                           "duplicated": t["duplicated"], "acknowledgedNotOnce": t["acknowledged not in transcript once"],
                           "inTranscriptWithoutAck": t["in transcript without ack"]},
            "ackLatencyMs": {"count": len(lat), "p50": pct(0.5), "p99": pct(0.99), "max": pct(1.0)},
            "slowConsumers": {"firehose": self.firehose, "dropped": t["slow readers dropped"], "caughtUp": t["slow readers caught up"],
                              "cutByRestart": t["slow readers cut by the restart"]},
            "offenders": off,
            "bots": {"runs": len(bots), "ok": sum(1 for b in bots if b["rc"] == 0),
                     "lines": sum(b["lines"] or 0 for b in bots), "resumes": sum(b["resumes"] for b in bots)},
            "codes": dict(sorted(self.codes.items())),
            "restart": self.restart,
            "resources": resources,
            "idle": self.idle,
            "logs": logs,
            "failures": {"count": sum(self.failure_counts.values()), "byCategory": dict(self.failure_counts), "first": self.failures[:50]},
            "events": self.events,
            "stuckSessions": self.stuck_sessions,
            "samples": [list(s) for s in self.samples],
        }
        report["ok"] = not self.failures
        return report


def print_report(r):
    p, l, d = r["players"], r["lines"], r["deliveries"]
    rs, fd = r["resources"].get("rssKiB", {}), r["resources"].get("fds", {})
    mib = lambda k: "%.1f" % (k / 1024) if isinstance(k, (int, float)) else "?"
    out = [
        "",
        "==== soak report (%s, %s min, seed %s, %.0f s) ====" % (r["date"], r["minutes"], r["seed"], r["elapsedSeconds"]),
        "players      %d users, %d connections, %d table + %d firehose sessions" % (
            p["users"], p["connections"], p["sessions"]["table"], p["sessions"]["firehose"]),
        "drops        %d abort, %d close 1001, %d replaced; %d resumes (%d interrupted), %d broadcasts replayed (largest %d)" % (
            p["drops"]["abort"], p["drops"]["close1001"], p["drops"]["replaced"], p["resumes"], p["resumesInterrupted"],
            p["replayed"], p["largestReplay"]),
        "lines        %d says: %d acknowledged, %d not (refused or cut by a drop); %d lines in transcripts; %d recasts, %d accepts" % (
            l["says"], l["acknowledged"], l["notAcknowledged"], l["inTranscripts"], l["recasts"], l["accepts"]),
        "deliveries   %d received of %d expected: lost %d, duplicated %d; acknowledged not exactly once %d, in transcript without ack %d" % (
            d["received"], d["expected"], d["lost"], d["duplicated"], d["acknowledgedNotOnce"], d["inTranscriptWithoutAck"]),
        "histories    %d sessions compared with GET /api/history/{id}" % l["historiesChecked"],
        "ack latency  p50 %s ms, p99 %s ms, max %s ms (%d requests)" % (
            r["ackLatencyMs"]["p50"], r["ackLatencyMs"]["p99"], r["ackLatencyMs"]["max"], r["ackLatencyMs"]["count"]),
        "slow readers %d stalls that caught up in tables; firehose: %s" % (
            p["slowReaderStalls"], ", ".join("%s after %.0f s (%d recasts, replay %s)" % (
                "dropped" if f["dropped"] else ("cut by the restart" if f["restart"] else "caught up"), f["seconds"], f["recasts"], f.get("replayed")) for f in r["slowConsumers"]["firehose"]) or "none"),
        "bots         %d runs, %d ok, %d lines, %d resumes" % (r["bots"]["runs"], r["bots"]["ok"], r["bots"]["lines"], r["bots"]["resumes"]),
        "offenders    " + "; ".join("%s %d/%d" % (k, v["ok"], v["runs"]) for k, v in sorted(r["offenders"].items())),
        "codes        " + ", ".join("%s: %d" % kv for kv in r["codes"].items()),
        "restart      SIGKILL with %s live sessions and %s connections; %s recovered; down %s s; final SIGTERM exit %s" % (
            r["restart"].get("liveSessionsAtKill"), r["restart"].get("connectionsAtKill"), r["restart"].get("recoveredSessions"),
            r["restart"].get("downSeconds"), r["restart"].get("hub2ExitCode")),
        "RSS MiB      hub 1 peak %s; hub 2 baseline %s, peak %s, end %s (tolerance %s); idle %s" % (
            mib(rs.get("hub1Peak")), mib(rs.get("baseline")), mib(rs.get("peak")), mib(rs.get("end")), mib(rs.get("tolerance")),
            [mib(x) for x in rs.get("idle", [])]),
        "fds          hub 1 peak %s; hub 2 baseline %s, peak %s, end %s (tolerance %s); idle %s" % (
            fd.get("hub1Peak"), fd.get("baseline"), fd.get("peak"), fd.get("end"), fd.get("tolerance"), fd.get("idle")),
        "hub logs     %d error/critical lines, %d warning lines" % (r["logs"]["errorLines"], r["logs"]["warningLines"]),
    ]
    if r["failures"]["count"]:
        out.append("FAILED       %d failures: %s" % (r["failures"]["count"], r["failures"]["byCategory"]))
        out += ["  " + f for f in r["failures"]["first"][:20]]
    else:
        out.append("PASSED       0 lost, 0 duplicated, every offender and bot as documented, no leak")
    print("\n".join(out), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", required=True, help="the sessionhub binary")
    parser.add_argument("--bot-bin", required=True, help="the sessionhub-bot binary")
    parser.add_argument("--work", required=True, help="directory for the database, secret, copies of the binaries, logs")
    parser.add_argument("--minutes", type=float, default=20.0, help="minutes of load (at least 1)")
    parser.add_argument("--seed", type=int, help="seed of the random choices")
    parser.add_argument("--report", help="JSON report file (default WORK/soak-report.json)")
    parser.add_argument("--serve-arg", action="append", help="extra argument for `sessionhub serve` (repeat)")
    parser.add_argument("--parts", default="tables,firehose,bots,offenders",
                        help="comma-separated load kinds to run (diagnosis; the checks of missing parts fail)")
    args = parser.parse_args()
    soak = Soak(args)

    async def runner():
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, task.cancel)
        await asyncio.wait_for(soak.main(), soak.seconds + 900)

    status = 1
    try:
        asyncio.run(runner())
        report = soak.report()
        path = args.report or os.path.join(soak.work, "soak-report.json")
        with open(path, "w") as f:
            json.dump(report, f, indent=1, ensure_ascii=False)
        print_report(report)
        print("report: %s" % path, flush=True)
        status = 0 if report["ok"] else 1
    except (asyncio.CancelledError, KeyboardInterrupt):
        print("soak: interrupted", flush=True)
    except asyncio.TimeoutError:
        print("soak: the run exceeded its time limit", flush=True)
    except SoakError as e:
        print("soak: %s" % e, flush=True)
    finally:
        soak.hub.cleanup()
        soak.bots.kill() if hasattr(soak, "bots") else None
    return status


if __name__ == "__main__":
    sys.exit(main())
