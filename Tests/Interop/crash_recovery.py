#!/usr/bin/env python3
"""Crash-recovery check: a shared session survives `kill -9` of the hub (docs/PROTOCOL.md,
section 13, "Across a hub restart").

Usage:
  crash_recovery.py --bin PATH/sessionhub --work DIR [--killed-threads N] [--journal log|sqlite]

Starts `sessionhub serve` itself on a fresh SQLite database in DIR (secret, port files, server
logs go there too), so that it can kill it. The run:

  1. three players (two made premium with the admin API, one free) play `town-hall-meeting`:
     lines in turns, a recast accepted, a recast left open, one player drops and resumes;
  2. each player fires `say` requests without waiting and the hub is killed with SIGKILL;
     (`--killed-threads N` sets the killed hub's event loops: with 1 its journal commits on that
     loop, with more on a thread of its own; the restarted hub always runs with the default;
     `--journal` names the journal both hubs keep, else SESSIONHUB_JOURNAL is left unset and
     they keep the default, the log journal);
  3. the hub restarts on the same database and secret; every player reconnects
     (`welcome.resumableSessionId`), resumes with the last token it held and its last seq, and
     must get exactly the broadcasts it missed (`mode` replay, seqs lastSeq+1 ... contiguous,
     the same text for everyone);
  4. the session goes on (line ids continue, the open recast is accepted), the host ends it;
     premium players get their history (`GET /api/history/{id}`) holding every acknowledged
     line once, the free one gets 403 feature_locked;
  5. neither server logged at level error/critical, and the restarted one stops on SIGTERM
     with exit code 0.

The binary (and its resource bundles) is copied into DIR first, so that a rebuild of the tree
during the run cannot swap it between the two starts. Prints one line per check
(`PASS name -- detail` / `FAIL name -- reason`) and `crash recovery (CONFIG): N passed, M failed`;
exits 0 iff every check passed. Every wait is bounded (10 s); the whole run is cut at 55 s.
"""

import argparse
import asyncio
import glob
import json
import os
import random
import re
import secrets
import shutil
import signal
import struct
import sqlite3
import subprocess
import sys
import time
import traceback
import urllib.error
import urllib.request
import zlib

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

import hub_python_client  # this directory: the wire-protocol suite's connection, PASS/FAIL lines
from hub_python_client import RESULTS, expect, record

TIMEOUT = 10.0
RUN_BUDGET = 55.0
SCENARIO = "town-hall-meeting"  # roles Moderator, Mayor, Resident, Shop Owner; 2-6 players; goal 30 lines


class Abort(Exception):
    """A step the rest of the run depends on failed."""


def brief(message, limit=200):
    text = message if isinstance(message, str) else json.dumps(message, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "..."


LINE_FIELDS = ("id", "speakerId", "roleName", "textNative", "textTranslated", "timestamp")


def line_key(line):
    return tuple(line.get(k) for k in LINE_FIELDS) if isinstance(line, dict) else None


# ---------------------------------------------------------------------------------------------
# The hub process (also used by Tests/Soak/soak.py)


async def wait_port_file(port_file, proc, timeout):
    """The port the hub started as `proc` writes to `port_file` (atomically, once listening),
    polled every 50 ms; None when `proc` exits or `timeout` seconds pass first (proc.poll() tells which)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with open(port_file) as f:
                text = f.read().strip()
        except FileNotFoundError:
            text = ""
        if text.isdigit():
            return int(text)
        if proc.poll() is not None or time.monotonic() > deadline:
            return None
        await asyncio.sleep(0.05)


def log_tail(path, n=5):
    try:
        with open(path, errors="replace") as f:
            return " | ".join(l.rstrip() for l in f.readlines()[-n:]) or "(empty)"
    except OSError:
        return "(no log)"


def api_request(port, method, path, token=None, body=None, timeout=TIMEOUT):
    """(status, parsed JSON body or raw text) of one API request to the hub on 127.0.0.1:`port`
    (blocking: callers run it in a thread)."""
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), data=data, method=method, headers=headers)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: no proxy
    try:
        with opener.open(req, timeout=timeout) as resp:
            status, raw = resp.status, resp.read()
    except urllib.error.HTTPError as e:
        status, raw = e.code, e.read()
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, raw.decode(errors="replace")


def scan_logs(paths):
    """(the error/critical and crash lines as "file: line", the number of warning lines) of hub logs."""
    bad = re.compile(r"^\S+\s+(error|critical)\b|Fatal error|Program crashed|Segmentation fault|Illegal instruction")
    found, warnings = [], 0
    for path in paths:
        with open(path, errors="replace") as f:
            for line in f:
                if bad.search(line):
                    found.append("%s: %s" % (os.path.basename(path), line.strip()[:300]))
                elif re.match(r"^\S+\s+warning\b", line):
                    warnings += 1
    return found, warnings


def kill_processes(procs, wait):
    """SIGKILL to each of `procs` still running, then waits for it (`wait` seconds at most)."""
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
            try:
                proc.wait(wait)
            except subprocess.TimeoutExpired:
                pass


# ---------------------------------------------------------------------------------------------
# One WebSocket connection that records everything it receives


class Peer(hub_python_client.Connection):
    """Like hub_python_client's Peer, but keeps (raw text, parsed) pairs and hands out indexes."""

    def __init__(self, label, ws):
        self.label = label
        self.ws = ws
        self.msgs = []      # (raw text, parsed) in arrival order
        self.used = set()
        self.changed = asyncio.Event()
        self.closed = False
        self.reader = asyncio.create_task(self._read())

    async def _read(self):
        try:
            async for frame in self.ws:
                try:
                    parsed = json.loads(frame) if isinstance(frame, str) else {"type": "<binary>"}
                except ValueError:
                    parsed = {"type": "<invalid JSON>"}
                if not isinstance(parsed, dict):
                    parsed = {"type": "<not an object>"}
                self.msgs.append((frame, parsed))
                self.changed.set()
        except ConnectionClosed:
            pass
        except Exception as e:  # a socket error ends the connection like a close
            self.msgs.append(("", {"type": "<reader error>", "error": "%s: %s" % (type(e).__name__, e)}))
        finally:
            self.closed = True
            self.changed.set()

    def tail(self, n=2):
        return " | ".join(brief(m, 160) for _, m in self.msgs[-n:]) or "nothing"

    async def next(self, pred, what, timeout=TIMEOUT):
        """The first message not handed out yet that matches `pred` (its index and value)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            for i, (_, m) in enumerate(self.msgs):
                if i not in self.used and pred(m):
                    self.used.add(i)
                    return i, m
            if self.closed:
                raise AssertionError("%s: connection closed while waiting for %s; last received: %s"
                                     % (self.label, what, self.tail()))
            await self.wait_changed(deadline, what, timeout)

    async def seen(self, pred, what, timeout=TIMEOUT):
        """Waits until some message (handed out or not) matches `pred`."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not any(pred(m) for _, m in self.msgs):
            if self.closed:
                raise AssertionError("%s: connection closed while waiting for %s" % (self.label, what))
            await self.wait_changed(deadline, what, timeout)

    async def send(self, message):
        await self.ws.send(json.dumps(message, ensure_ascii=False))

    def broadcasts(self, start=0):
        """(index, raw, parsed) of every session broadcast from message index `start` on."""
        return [(i, raw, m) for i, (raw, m) in enumerate(self.msgs)
                if i >= start and isinstance(m.get("seq"), int) and "sessionId" in m]

    async def wait_closed(self, timeout=TIMEOUT):
        try:
            await asyncio.wait_for(asyncio.shield(self.reader), timeout)
        except asyncio.TimeoutError:
            raise AssertionError("%s: connection still open %.0fs after the kill" % (self.label, timeout))


# ---------------------------------------------------------------------------------------------
# A player: a user across its connections


class Player:
    def __init__(self, label, name, premium, nonce):
        self.label = label
        self.name = name
        self.premium = premium
        self.user = "%s-%s" % (label, nonce)
        self.bearer = None
        self.conns = []           # every Peer this player used, in order
        self.peer = None          # the current one
        self.resume_token = None
        self.base_seq = 0         # the seq of its `joined` snapshot
        self.ids = 0
        self.sent = {}            # say request id -> (textNative, textTranslated)

    def next_id(self, kind):
        self.ids += 1
        return "%s-%s%d" % (self.label, kind, self.ids)

    def broadcasts(self):
        """(raw, parsed) of every broadcast this player received, over all its connections, in order."""
        return [(raw, m) for c in self.conns for _, raw, m in c.broadcasts()]

    def last_seq(self):
        return max([self.base_seq] + [m["seq"] for _, m in self.broadcasts()])

    def lines(self):
        """Line broadcasts received (parsed), in order."""
        return [m for _, m in self.broadcasts() if m.get("type") == "line"]

    def acked(self):
        """Request id -> line of every `say` of this player it saw acknowledged (its own line with its ref)."""
        return {m["ref"]: m["line"] for m in self.lines()
                if m["line"].get("speakerId") == self.user and m.get("ref") in self.sent}


# ---------------------------------------------------------------------------------------------
# The run


class Run:
    def __init__(self, args):
        self.work = os.path.abspath(args.work)
        self.src_bin = os.path.abspath(args.bin)
        self.killed_threads = args.killed_threads
        self.bin = None
        self.secret = os.path.join(self.work, "secret")
        self.db = os.path.join(self.work, "hub.sqlite")
        self.logs = []
        self.proc = None
        self.port = None
        self.nonce = secrets.token_hex(3)
        self.env = {k: v for k, v in os.environ.items() if k not in ("SESSIONHUB_SECRET", "SESSIONHUB_JOURNAL")}
        # Without --journal the hubs run with the binary's default: the log journal (checked in
        # s_journal, so a change of the default shows here).
        self.journal = args.journal or "log"
        if args.journal:
            self.env["SESSIONHUB_JOURNAL"] = args.journal
        self.players = [Player("ana", "Ana", True, self.nonce), Player("ben", "Ben", True, self.nonce),
                        Player("chloe", "Chloé", False, self.nonce)]
        self.admin = None
        self.sid = None
        self.code = None
        self.texts = 0
        self.procs = []
        self.burst = []           # (player, request id) fired just before the kill
        self.acked_before_kill = {}
        self.seen_before_kill = {}
        self.recovered_seq = None
        self.lines_after_restart = None

    # --- the binary and the server ---

    def install_binary(self):
        """Copies the binary and its resource bundles into the work dir once its size is stable."""
        deadline = time.monotonic() + TIMEOUT
        last = None
        while True:
            size = os.path.getsize(self.src_bin) if os.access(self.src_bin, os.X_OK) else None
            if size and size == last:
                break
            if time.monotonic() > deadline:
                raise Abort("%s is missing or still changing after %.0fs" % (self.src_bin, TIMEOUT))
            last = size
            time.sleep(0.3)
        target = os.path.join(self.work, "bin")
        os.makedirs(target, exist_ok=True)
        self.bin = os.path.join(target, "sessionhub")
        shutil.copy2(self.src_bin, self.bin)
        bundles = glob.glob(os.path.join(os.path.dirname(self.src_bin), "*.resources"))
        for bundle in bundles:
            shutil.copytree(bundle, os.path.join(target, os.path.basename(bundle)), dirs_exist_ok=True)
        return "%s (%d bytes, %d resource bundle(s)) copied to %s" % (self.src_bin, last, len(bundles), target)

    async def start_server(self, n):
        port_file = os.path.join(self.work, "port%d" % n)
        log = os.path.join(self.work, "server%d.log" % n)
        self.logs.append(log)
        with open(log, "wb") as err, open(os.path.join(self.work, "server%d.out" % n), "wb") as out:
            self.proc = subprocess.Popen(
                [self.bin, "serve", "--host", "127.0.0.1", "--port", "0", "--port-file", port_file,
                 "--database", self.db, "--secret-file", self.secret, "--session-grace-window", "30"]
                + (["--threads", str(self.killed_threads)] if n == 1 and self.killed_threads else []),
                stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=self.env)
        self.procs.append(self.proc)
        port = await wait_port_file(port_file, self.proc, TIMEOUT)
        if port is None:
            if self.proc.poll() is not None:
                raise Abort("server %d exited with %s before listening; log: %s" % (n, self.proc.returncode, log_tail(log)))
            raise Abort("server %d wrote no port file within %.0fs; log: %s" % (n, TIMEOUT, log_tail(log)))
        self.port = port
        return "pid %d on 127.0.0.1:%d" % (self.proc.pid, self.port)

    async def mint(self, user, name, admin=False):
        cmd = [self.bin, "token", "--user", user, "--name", name, "--secret-file", self.secret] + (["--admin"] if admin else [])
        done = await asyncio.to_thread(subprocess.run, cmd, capture_output=True, text=True, timeout=TIMEOUT, env=self.env)
        if done.returncode != 0 or not done.stdout.strip():
            raise Abort("token command failed (%d): %s" % (done.returncode, done.stderr.strip()[:200]))
        return done.stdout.strip()

    async def http(self, method, path, token, body=None):
        """(status, parsed JSON body or raw text) of one API request."""
        return await asyncio.to_thread(api_request, self.port, method, path, token, body)

    async def connect(self, player):
        ws = await connect("ws://127.0.0.1:%d/ws?token=%s" % (self.port, player.bearer), proxy=None,
                           ping_interval=None, open_timeout=TIMEOUT, close_timeout=3, max_size=None)
        peer = Peer("%s#%d" % (player.label, len(player.conns) + 1), ws)
        player.conns.append(peer)
        player.peer = peer
        _, welcome = await peer.next(lambda m: m.get("type") == "welcome", "welcome")
        expect(welcome.get("userId") == player.user, "%s: welcome for %r" % (peer.label, welcome.get("userId")))
        return welcome

    async def request(self, player, message, pred=None, what=None):
        """Sends `message` with a fresh id; returns the first message with that ref (matching `pred`, or an error)."""
        message = dict(message)
        rid = message.setdefault("id", player.next_id(message["type"][:2]))
        await player.peer.send(message)
        _, answer = await player.peer.next(
            lambda m: m.get("ref") == rid and (pred is None or m.get("type") == "error" or pred(m)),
            what or "answer to %s (ref %s)" % (message["type"], rid))
        return answer

    def text(self, player, native):
        self.texts += 1
        return "%s (%d)" % (native, self.texts), "[%s %d] %s" % (player.label, self.texts, native)

    async def say(self, player, native):
        tn, tt = self.text(player, native)
        rid = player.next_id("say")
        player.sent[rid] = (tn, tt)
        answer = await self.request(player, {"type": "say", "textNative": tn, "textTranslated": tt, "id": rid},
                                    lambda m: m.get("type") == "line" and m["line"].get("speakerId") == player.user)
        expect(answer.get("type") == "line", "%s say -> %s" % (player.label, brief(answer)))
        line = answer["line"]
        expect((line["textNative"], line["textTranslated"]) == (tn, tt), "%s: line text changed: %s" % (player.label, brief(line)))
        return line

    async def recast(self, author, line_id, corrected):
        answer = await self.request(author, {"type": "recast", "lineId": line_id, "correctedText": corrected,
                                             "explanation": "forma corretta", "issueTypes": ["grammar"]},
                                    lambda m: m.get("type") == "recast" and m["recast"].get("authorId") == author.user)
        expect(answer.get("type") == "recast", "%s recast %s -> %s" % (author.label, line_id, brief(answer)))
        return answer["recast"]

    async def accept(self, speaker, recast_id):
        answer = await self.request(speaker, {"type": "acceptRecast", "recastId": recast_id},
                                    lambda m: m.get("type") == "recastAccepted" and m.get("userId") == speaker.user)
        expect(answer.get("type") == "recastAccepted" and answer.get("recastId") == recast_id,
               "%s acceptRecast %s -> %s" % (speaker.label, recast_id, brief(answer)))
        return answer

    async def presence(self, player, user, kind):
        await player.peer.next(lambda m: m.get("type") == "participants" and m.get("change") == {"userId": user, "kind": kind},
                               "participants{%s %s}" % (user, kind))

    async def resume(self, player):
        """Resumes `player`'s seat on its current connection with its last token and seq, checks the
        replay (exactly the seqs after lastSeq, then its own `reconnected`); returns (resumed,
        replayed broadcasts as (raw, parsed), lastSeq sent)."""
        last, old = player.last_seq(), player.resume_token
        peer = player.peer
        answer = await self.request(player, {"type": "resume", "resumeToken": old, "lastSeq": last})
        expect(answer.get("type") == "resumed", "%s resume(lastSeq %d) -> %s" % (player.label, last, brief(answer)))
        expect(answer.get("mode") == "replay", "%s resumed in mode %r, expected replay" % (player.label, answer.get("mode")))
        token = answer.get("resumeToken")
        expect(isinstance(token, str) and 0 < len(token) <= 128 and token != old, "%s: resume token not rotated: %r" % (player.label, token))
        player.resume_token = token
        at = next(i for i, (_, m) in enumerate(peer.msgs) if m is answer)
        expect(not peer.broadcasts(0) or peer.broadcasts(0)[0][0] > at,
               "%s: a broadcast arrived before resumed" % player.label)
        idx, _ = await peer.next(lambda m: m.get("type") == "participants"
                                 and m.get("change") == {"userId": player.user, "kind": "reconnected"},
                                 "participants{%s reconnected}" % player.user)
        following = [(raw, m) for i, raw, m in peer.broadcasts(at + 1) if i < idx]
        seqs = [m["seq"] for _, m in following]
        n = answer.get("replayed")
        expect(seqs == list(range(last + 1, last + 1 + len(seqs))),
               "%s: replay after lastSeq %d carried seqs %s" % (player.label, last, seqs))
        expect(n == len(seqs), "%s: resumed.replayed %s but %d broadcasts (seqs %s) came before reconnected"
               % (player.label, n, len(seqs), seqs))
        expect(peer.msgs[idx][1]["seq"] == last + n + 1, "%s: reconnected has seq %s, expected %d"
               % (player.label, peer.msgs[idx][1]["seq"], last + n + 1))
        expect(all(m.get("sessionId") == self.sid for _, m in following), "%s: replay from another session" % player.label)
        return answer, following, last

    # --- consistency of what the players saw ---

    def check_streams(self, players=None):
        """Each player's broadcasts run base+1, base+2, ... without gap or repeat, and a seq carries
        the same text for everyone. Returns (highest seq, number of distinct seqs)."""
        texts = {}
        for p in players or self.players:
            seqs = [m["seq"] for _, m in p.broadcasts()]
            expect(seqs == list(range(p.base_seq + 1, p.base_seq + 1 + len(seqs))),
                   "%s received seqs %s (from snapshot seq %d): gap, repeat or disorder" % (p.label, seqs, p.base_seq))
            for raw, m in p.broadcasts():
                expect(m.get("sessionId") == self.sid, "%s: broadcast of session %s" % (p.label, m.get("sessionId")))
                other = texts.setdefault(m["seq"], (p.label, raw))
                expect(other[1] == raw, "seq %d differs: %s got %s, %s got %s"
                       % (m["seq"], other[0], brief(other[1], 300), p.label, brief(raw, 300)))
        return (max(texts) if texts else 0), len(texts)

    def transcript(self, player):
        """Line id -> line as `player` saw it; fails on a line id seen twice or a hole in the numbering."""
        seen = {}
        for m in player.lines():
            line = m["line"]
            expect(line["id"] not in seen, "%s saw line %s twice (seq %s)" % (player.label, line["id"], m["seq"]))
            seen[line["id"]] = line
        ids = list(seen)
        expect(ids == ["l%d" % i for i in range(1, len(ids) + 1)], "%s: line ids %s" % (player.label, ids))
        return seen

    # --- steps ---

    async def s_start(self):
        detail = self.install_binary()
        with open(self.secret, "w") as f:
            f.write(secrets.token_urlsafe(32) + "\n")
        os.chmod(self.secret, 0o600)
        return detail + "; server " + await self.start_server(1)

    async def s_accounts(self):
        tokens = await asyncio.gather(self.mint("admin-" + self.nonce, "Operator", admin=True),
                                      *(self.mint(p.user, p.name) for p in self.players))
        self.admin = tokens[0]
        for p, t in zip(self.players, tokens[1:]):
            p.bearer = t
        for p in self.players:
            if not p.premium:
                continue
            status, body = await self.http("PUT", "/admin/users/%s/premium" % p.user, self.admin, {"isPremium": True})
            expect(status == 200 and isinstance(body, dict) and body.get("isPremium") is True and body.get("id") == p.user,
                   "PUT premium for %s -> %s %s" % (p.user, status, brief(body)))
        return "users %s; premium: %s" % (", ".join(p.user for p in self.players),
                                          ", ".join(p.label for p in self.players if p.premium))

    async def s_session(self):
        host, others = self.players[0], self.players[1:]
        await self.connect(host)
        joined = await self.request(host, {"type": "host", "scenarioId": SCENARIO, "maxPlayers": 3})
        expect(joined.get("type") == "joined", "host -> %s" % brief(joined))
        s = joined["session"]
        expect(s["maxPlayers"] == 3 and s["you"]["mode"] == "HOST", "snapshot maxPlayers %s, mode %s" % (s["maxPlayers"], s["you"]["mode"]))
        self.sid, self.code = s["sessionId"], s["joinCode"]
        host.resume_token, host.base_seq = joined["resumeToken"], s["seq"]
        for i, p in enumerate(others):
            welcome = await self.connect(p)
            expect(welcome.get("resumableSessionId") is None, "%s: resumableSessionId %r before joining" % (p.label, welcome.get("resumableSessionId")))
            answer = await self.request(p, {"type": "join", "code": self.code.lower()})
            expect(answer.get("type") == "joined" and answer["session"]["sessionId"] == self.sid, "%s join -> %s" % (p.label, brief(answer)))
            p.resume_token, p.base_seq = answer["resumeToken"], answer["session"]["seq"]
            for q in self.players[:i + 1]:
                await self.presence(q, p.user, "joined")
        roles = {p.label: None for p in self.players}
        for _, m in host.broadcasts():
            if m.get("type") == "participants":
                roles = {x["userId"].split("-")[0]: x["roleName"] for x in m["participants"]}
        return "session %s code %s, roles %s" % (self.sid, self.code, roles)

    async def s_play(self):
        ana, ben, chloe = self.players
        texts = {
            ana: ["Buonasera a tutti, apriamo la riunione sul centro storico.", "La parola passa al sindaco.",
                  "Vi ricordo che ognuno ha tre minuti.", "Passiamo alle domande dei cittadini."],
            ben: ["Il piano chiude il centro alle auto dal prossimo mese.", "Ci saranno parcheggi gratuiti fuori dalle mura.",
                  "Siamo pronti a una fase di prova di sei mesi."],
            chloe: ["E come arrivano i clienti nei nostri negozi?", "Chiediamo orari di carico e scarico al mattino.",
                    "Con queste condizioni possiamo sostenere il piano."],
        }
        lines = {}
        for turn in range(2):
            for p in self.players:
                lines.setdefault(p, []).append(await self.say(p, texts[p][turn]))
        r1 = await self.recast(chloe, lines[ben][0]["id"], "Il piano chiuderà il centro alle auto dal mese prossimo.")
        await self.accept(ben, r1["id"])
        r2 = await self.recast(ana, lines[chloe][0]["id"], "E come arriveranno i clienti nei nostri negozi?")
        # Chloé's network drops: she resumes with her token (which rotates) before the crash.
        chloe.peer.abort()
        await chloe.peer.wait_closed()
        await self.presence(ana, chloe.user, "disconnected")
        await self.say(ana, texts[ana][2])
        welcome = await self.connect(chloe)
        expect(welcome.get("resumableSessionId") == self.sid, "chloe: resumableSessionId %r" % welcome.get("resumableSessionId"))
        _, replayed, last = await self.resume(chloe)
        expect(any(m.get("type") == "line" and m["line"]["speakerId"] == ana.user for _, m in replayed),
               "chloe's replay lacks ana's line spoken while she was away")
        for q in (ana, ben):
            await self.presence(q, chloe.user, "reconnected")
        for p in self.players:
            lines[p].append(await self.say(p, texts[p][-1]))
        self.r1, self.r2 = r1["id"], r2["id"]
        # Ben's network drops and he is still away when the hub dies: after the restart his
        # replay must hold what the others got from the first process.
        ben.peer.abort()
        await ben.peer.wait_closed()
        for q in (ana, chloe):
            await self.presence(q, ben.user, "disconnected")
        while_away = [await self.say(ana, "Il sindaco è momentaneamente assente."),
                      await self.say(chloe, "Allora aspettiamo il suo ritorno.")]
        for q in (ana, chloe):
            await q.peer.seen(lambda m: m.get("type") == "line" and m["line"]["id"] == while_away[-1]["id"],
                              "line " + while_away[-1]["id"])
        top, _ = self.check_streams()
        return ("%d lines acknowledged, recast %s accepted, %s open; chloe dropped and resumed after lastSeq %d "
                "(%d replayed); ben dropped at seq %d and stays away; seq %d"
                % (sum(len(p.acked()) for p in self.players), r1["id"], r2["id"], last, len(replayed),
                   ben.last_seq(), top))

    async def s_kill(self):
        burst_texts = ["Scusate, posso aggiungere una cosa?", "Il traffico è già un problema oggi.",
                       "Proponiamo una navetta elettrica ogni dieci minuti."]
        order = []
        senders = [p for p in self.players if not p.peer.closed]
        for k in range(3):
            for i, p in enumerate(senders):
                tn, tt = self.text(p, burst_texts[(i + k) % len(burst_texts)])
                rid = p.next_id("say")
                p.sent[rid] = (tn, tt)
                order.append((p, rid, {"type": "say", "textNative": tn, "textTranslated": tt, "id": rid}))
        for p, rid, message in order:
            await p.peer.send(message)
        # Kill as soon as the first of them is acknowledged: that one must survive, the others
        # may be anywhere between unread and journaled.
        rids = {rid for _, rid, _ in order}
        waiters = [asyncio.create_task(p.peer.seen(
            lambda m, p=p: m.get("type") == "line" and m.get("ref") in rids and m["line"].get("speakerId") == p.user,
            "an acknowledgement of the burst")) for p in senders]
        delay = random.uniform(0, 0.004)
        try:
            done, _ = await asyncio.wait(waiters, timeout=TIMEOUT, return_when=asyncio.FIRST_COMPLETED)
            await asyncio.sleep(delay)
        finally:
            os.kill(self.proc.pid, signal.SIGKILL)
            for w in waiters:
                w.cancel()
        expect(any(w.exception() is None for w in done), "no say of the burst was acknowledged within %.0fs" % TIMEOUT)
        self.burst = [(p, rid) for p, rid, _ in order]
        rc = await asyncio.to_thread(self.proc.wait, TIMEOUT)
        expect(rc == -signal.SIGKILL, "server 1 exit status %s, expected -9" % rc)
        for p in self.players:
            await p.peer.wait_closed()
        for p in self.players:
            for m in p.lines():
                self.seen_before_kill[m["line"]["id"]] = m["line"]
            for rid, line in p.acked().items():
                self.acked_before_kill[rid] = (p, line)
        top, _ = self.check_streams()
        fired = sum(1 for p, rid in self.burst if rid in self.acked_before_kill)
        self.top_before_kill = top
        return ("%s fired %d says; SIGKILL %.1f ms after the first ack; %d acknowledged before it; %d lines acknowledged in all, %d seen by someone; "
                "highest seq received %d; last seqs %s" % ("+".join(p.label for p in senders), len(self.burst),
                                                           delay * 1000, fired, len(self.acked_before_kill),
                                                           len(self.seen_before_kill), top,
                                                           {p.label: p.last_seq() for p in self.players}))

    async def s_restart(self):
        detail = await self.start_server(2)
        with open(self.logs[-1], errors="replace") as f:
            notes = [l.strip() for l in f if "recovered" in l]
        return detail + ("; " + notes[0].split(" ", 1)[-1] if notes else "")

    async def s_resume(self):
        details = []
        for p in self.players:
            welcome = await self.connect(p)
            expect(welcome.get("resumableSessionId") == self.sid,
                   "%s: welcome.resumableSessionId %r, expected %s" % (p.label, welcome.get("resumableSessionId"), self.sid))
            answer, replayed, last = await self.resume(p)
            if self.recovered_seq is None:
                self.recovered_seq = last + answer["replayed"]
                expect(self.recovered_seq >= self.top_before_kill,
                       "the hub came back at seq %d, but seq %d had been broadcast before the kill"
                       % (self.recovered_seq, self.top_before_kill))
            details.append("%s %d+%d" % (p.label, last, answer["replayed"]))
        # Everyone sees everyone come back.
        for i, p in enumerate(self.players):
            for q in self.players[i + 1:]:
                await self.presence(p, q.user, "reconnected")
        top, _ = self.check_streams()
        return "seq %d rebuilt; resumed (lastSeq+replayed): %s; streams consistent up to seq %d" % (
            self.recovered_seq, ", ".join(details), top)

    async def s_burst_fate(self):
        """Burst says: acked before the kill, journaled (acked by the replay), or lost."""
        acked_now = {}
        for p in self.players:
            acked_now.update({rid: line for rid, line in p.acked().items()})
        views = [self.transcript(p) for p in self.players]
        expect(all(v == views[0] for v in views), "players disagree on the transcript after the restart")
        self.lines_after_restart = len(views[0])
        for lid, line in self.seen_before_kill.items():
            expect(views[0].get(lid) == line, "line %s seen before the kill is %s after the restart"
                   % (brief(line), brief(views[0].get(lid))))
        fates = {"before the kill": 0, "by the replay": 0, "lost": 0}
        for p, rid in self.burst:
            if rid in self.acked_before_kill:
                fates["before the kill"] += 1
            elif rid in acked_now:
                fates["by the replay"] += 1
            else:
                fates["lost"] += 1
                tn = p.sent[rid][0]
                expect(not any(l["textNative"] == tn for l in views[0].values()),
                       "say %s is in the transcript but its speaker got no ack" % rid)
        return "%d lines after restart; burst acknowledged %s" % (
            self.lines_after_restart, ", ".join("%s: %d" % kv for kv in fates.items()))

    async def s_continue(self):
        ana, ben, chloe = self.players
        first = await self.say(ben, "Allora aspettiamo una proposta scritta.")
        expect(first["id"] == "l%d" % (self.lines_after_restart + 1),
               "first line after the restart is %s, expected l%d" % (first["id"], self.lines_after_restart + 1))
        again = await self.request(ben, {"type": "acceptRecast", "recastId": self.r1})
        expect(again.get("type") == "error" and again.get("code") == "already_accepted",
               "accepting %s again after the restart -> %s" % (self.r1, brief(again)))
        await self.accept(chloe, self.r2)
        more = [await self.say(chloe, "Ci servono garanzie per i fornitori."),
                await self.say(ana, "Mettiamo ai voti la fase di prova.")]
        ids = [first["id"]] + [l["id"] for l in more]
        expect(ids == ["l%d" % (self.lines_after_restart + i) for i in (1, 2, 3)], "line ids after the restart: %s" % ids)
        for p in self.players:
            await p.peer.seen(lambda m: m.get("type") == "line" and m["line"]["id"] == ids[-1], "line " + ids[-1])
        self.check_streams()
        return "lines %s; %s accepted again -> already_accepted; %s accepted" % (", ".join(ids), self.r1, self.r2)

    async def s_end(self):
        ana = self.players[0]
        rid = ana.next_id("end")
        await ana.peer.send({"type": "end", "id": rid})
        ended = {}
        for p in self.players:
            _, m = await p.peer.next(lambda m: m.get("type") == "ended", "ended")
            ended[p] = m
            await p.peer.next(lambda m: m.get("type") == "left" and m.get("reason") == "ended", "left{ended}")
        expect(ended[ana].get("ref") == rid and ended[ana].get("cause") == "hostEnded",
               "ended ref %r cause %r" % (ended[ana].get("ref"), ended[ana].get("cause")))
        top, count = self.check_streams()
        expect(all(m["seq"] == top for m in ended.values()), "ended is not the last broadcast")
        view = self.transcript(ana)
        by = {x["userId"]: x for x in ended[ana]["participants"]}
        expect(set(by) == {p.user for p in self.players}, "ended.participants %s" % sorted(by))
        for p in self.players:
            want = {"status": "Success"} if p.premium else {"status": "Error", "reason": "featureLocked"}
            expect(by[p.user].get("history") == want, "%s history %s, expected %s" % (p.label, by[p.user].get("history"), want))
        ben, chloe = self.players[1], self.players[2]
        figures = {p.label: (by[p.user]["stats"]["linesSpoken"], by[p.user]["stats"]["errorsDetected"],
                             by[p.user]["stats"]["errorsCorrected"], by[p.user]["collaboration"]["helpGiven"],
                             by[p.user]["collaboration"]["successfulRepairs"]) for p in self.players}
        want = {p.label: (sum(1 for l in view.values() if l["speakerId"] == p.user),) + {
            "ana": (0, 0, 1, 0), "ben": (1, 1, 0, 1), "chloe": (1, 1, 1, 1)}[p.label] for p in self.players}
        expect(figures == want, "final figures (linesSpoken, errorsDetected, errorsCorrected, helpGiven, "
               "successfulRepairs) %s, expected %s" % (figures, want))
        self.final = view
        return "ended at seq %d (%d broadcasts, same text for all); %d lines; figures %s" % (top, count, len(view), figures)

    async def s_history(self):
        acked = {}
        for p in self.players:
            for rid, line in p.acked().items():
                acked[line["id"]] = line
        for rid, (p, line) in self.acked_before_kill.items():
            expect(acked.get(line["id"]) == line, "line acknowledged before the kill %s is %s afterwards"
                   % (brief(line), brief(acked.get(line["id"]))))
        sent = {(p.user,) + t for p in self.players for t in p.sent.values()}
        details = []
        for p in self.players:
            status, body = await self.http("GET", "/api/history/%s" % self.sid, p.bearer)
            if not p.premium:
                expect(status == 403 and isinstance(body, dict) and body.get("code") == "feature_locked",
                       "%s (free) GET history -> %s %s" % (p.label, status, brief(body)))
                details.append("%s 403 feature_locked" % p.label)
                continue
            expect(status == 200 and isinstance(body, dict), "%s GET history -> %s %s" % (p.label, status, brief(body)))
            expect(body.get("sessionId") == self.sid and body.get("scenarioId") == SCENARIO,
                   "%s history is of %s/%s" % (p.label, body.get("sessionId"), body.get("scenarioId")))
            lines = body.get("dialogLines") or []
            ids = [l["id"] for l in lines]
            expect(len(ids) == len(set(ids)), "%s history repeats line ids: %s" % (p.label, ids))
            texts = [(l["speakerId"], l["textNative"]) for l in lines]
            expect(len(texts) == len(set(texts)), "%s history holds a line twice (same speaker and text)" % p.label)
            for l in lines:
                expect((l["speakerId"], l["textNative"], l["textTranslated"]) in sent,
                       "%s history holds a line nobody sent: %s" % (p.label, brief(l)))
            mine = {l["id"]: l for l in lines}
            for lid, line in acked.items():
                got = mine.get(lid)
                expect(got is not None and line_key(got) == line_key(line),
                       "%s history: acknowledged line %s is %s" % (p.label, brief(line), brief(got)))
            expect(len(lines) == len(acked), "%s history has %d lines, %d distinct lines were acknowledged"
                   % (p.label, len(lines), len(acked)))
            expect([line_key(l) for l in lines] == [line_key(l) for l in self.final.values()],
                   "%s history transcript differs from the one broadcast" % p.label)
            recasts = {r["id"]: r for r in body.get("recasts") or []}
            expect(set(recasts) == {self.r1, self.r2} and all(r.get("accepted") is True for r in recasts.values()),
                   "%s history recasts %s" % (p.label, brief(list(recasts.values()))))
            details.append("%s 200: %d lines, 2 recasts accepted" % (p.label, len(lines)))
        return "; ".join(details) + " (%d lines acknowledged, %d of them before the kill)" % (
            len(acked), len(self.acked_before_kill))

    async def s_shutdown(self):
        for p in self.players:
            if p.peer:
                await p.peer.close()
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = await asyncio.to_thread(self.proc.wait, TIMEOUT)
        except subprocess.TimeoutExpired:
            raise AssertionError("server 2 still running %.0fs after SIGTERM" % TIMEOUT)
        expect(rc == 0, "server 2 exited with %s after SIGTERM; log: %s" % (rc, log_tail(self.logs[-1])))
        return "exit code 0"

    def s_journal(self):
        """After the end, the session is gone from the journal (it would otherwise come back on the next start).

        The SQLite journal has a file of its own beside the store's (`-journal.sqlite`); the store's
        file keeps its old, emptied journal tables. Both are checked. The log journal
        (`--journal log`) is a directory of segments (`-journal.log/`): read back record by record,
        the session must have no header left without its drop."""
        stem = self.db[:-len(".sqlite")] if self.db.endswith(".sqlite") else self.db
        if self.journal == "log":
            directory = stem + "-journal.log"
            expect(os.path.isdir(directory), "no journal directory beside %s" % self.db)
            expect(not os.path.exists(stem + "-journal.sqlite"), "an SQLite journal beside the log journal")
            open_sessions, records = log_journal_open_sessions(directory)
            expect(self.sid not in open_sessions, "the ended session is still open in the log journal")
            return "%d records read; the session is not open" % records
        counts = {}
        for path in (self.db, stem + "-journal.sqlite"):
            if not os.path.exists(path):
                continue
            db = sqlite3.connect(path, timeout=TIMEOUT)
            try:
                tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                for t in ("journal", "journal_sessions"):
                    if t in tables:
                        counts["%s:%s" % (os.path.basename(path), t)] = db.execute(
                            "SELECT count(*) FROM %s WHERE session_id = ?" % t, (self.sid,)).fetchone()[0]
            finally:
                db.close()
        expect(any(k.split(":")[0].endswith("-journal.sqlite") for k in counts),
               "no journal file beside %s" % self.db)
        expect(all(n == 0 for n in counts.values()), "journal rows left for the ended session: %s" % counts)
        expect(not os.path.exists(stem + "-journal.log"), "a log journal beside the SQLite journal")
        return "no rows in %s" % ", ".join(sorted(counts))

    def s_logs(self):
        found, warnings = scan_logs(self.logs)
        expect(not found, "%d line(s): %s" % (len(found), " | ".join(found[:5])))
        return "%s: no error/critical lines (%d warning lines)" % (", ".join(os.path.basename(p) for p in self.logs), warnings)

    def cleanup_processes(self):
        kill_processes(self.procs, 5)


async def step(name, fn):
    t0 = time.monotonic()
    try:
        detail = await fn() if asyncio.iscoroutinefunction(fn) else fn()
        record(name, True, "%s (%.2fs)" % (detail or "", time.monotonic() - t0))
        return True
    except (AssertionError, Abort) as e:
        record(name, False, str(e))
    except asyncio.TimeoutError:
        record(name, False, "timeout")
    except Exception as e:  # a library or socket error fails the step
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
        where = " (line %d)" % frames[-1].lineno if frames else ""
        record(name, False, "%s: %s%s" % (type(e).__name__, e, where))
    return False


async def main_async(run):
    steps = [("start hub", run.s_start), ("accounts and premium", run.s_accounts),
             ("3-player session", run.s_session), ("play before the crash", run.s_play),
             ("say burst then kill -9", run.s_kill), ("restart on the same database", run.s_restart),
             ("reconnect and resume with replay", run.s_resume), ("burst says after recovery", run.s_burst_fate),
             ("play on after the restart", run.s_continue), ("end with history results", run.s_end),
             ("history of the session", run.s_history)]
    completed = True
    for i, (name, fn) in enumerate(steps):
        ok = await step(name, fn)
        if not ok and name != "burst says after recovery":
            rest = [n for n, _ in steps[i + 1:]]
            if rest:
                print("note: not run after that failure: %s" % ", ".join(rest), flush=True)
            completed = False
            break
    # The restarted server is stopped the normal way even after a failure.
    if len(run.procs) == 2 and run.proc.poll() is None:
        if await step("SIGTERM shutdown", run.s_shutdown) and completed:
            await step("journal closed", run.s_journal)


def log_journal_open_sessions(directory):
    """The sessions a log journal would rebuild (a header and no drop after it), and the records
    read: segments in order, records as docs/STORAGE.md describes them (length, CRC-32, kind,
    session id), up to the first record that is cut short or damaged."""
    open_sessions, records = set(), 0
    for name in sorted(n for n in os.listdir(directory) if n.startswith("journal-") and n.endswith(".log")):
        with open(os.path.join(directory, name), "rb") as f:
            data = f.read()
        offset = 0
        while len(data) - offset >= 8:
            length, crc = struct.unpack_from("<II", data, offset)
            payload = data[offset + 8:offset + 8 + length]
            if length == 0 or len(payload) < length or zlib.crc32(payload) != crc:
                break
            kind = payload[0]
            (id_length,) = struct.unpack_from("<H", payload, 1)
            session = payload[3:3 + id_length].decode()
            if kind == 1:
                open_sessions.add(session)
            elif kind == 3:
                open_sessions.discard(session)
            records += 1
            offset += 8 + length
    return open_sessions, records


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", required=True, help="path of the sessionhub binary")
    parser.add_argument("--work", required=True, help="directory for the database, secret, port files and logs")
    parser.add_argument("--killed-threads", type=int, default=0,
                        help="event loops of the hub that is killed (default: the server's default)")
    parser.add_argument("--journal", choices=("sqlite", "log"), default=None,
                        help="the journal the hub keeps its live sessions in (SESSIONHUB_JOURNAL; "
                             "default: left unset, the binary's default, the log journal)")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    run = Run(args)
    t0 = time.monotonic()
    try:
        asyncio.run(asyncio.wait_for(main_async(run), RUN_BUDGET))
    except asyncio.TimeoutError:
        record("run time", False, "the run took over %.0fs" % RUN_BUDGET)
    except KeyboardInterrupt:
        record("run", False, "interrupted")
    finally:
        run.cleanup_processes()
    if run.logs:
        asyncio.run(step("server logs", run.s_logs))
    passed = sum(RESULTS)
    failed = len(RESULTS) - passed
    config = "%s journal%s, killed hub --threads %s" % (run.journal, "" if args.journal else " (the default)",
                                                         args.killed_threads or "default")
    print("crash recovery (%s): %d passed, %d failed (%.1fs; work dir %s)"
          % (config, passed, failed, time.monotonic() - t0, run.work),
          flush=True)
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
