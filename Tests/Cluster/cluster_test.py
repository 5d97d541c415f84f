#!/usr/bin/env python3
"""Failover test of a SessionHub cluster: 3 nodes on one PostgreSQL behind HAProxy (docs/CLUSTER.md).

Usage:
  cluster_test.py --bin PATH/sessionhub --work DIR --postgres-url URL --postgres-dir DIR [--root REPO]

Starts three `sessionhub serve` nodes on the database (fixed loopback ports, one shared secret,
heartbeat 0.5 s, liveness timeout 3 s) and HAProxy in front (bare /ws least-connections over the
ready nodes, /node/<id>/... to one node: deploy/haproxy/sessionhub.cfg on this run's ports), then runs three scenarios, each printing PASS/FAIL lines:

  kill      6 shared sessions of 3 premium players spread over the nodes (hosts through the front,
            guests following `session_elsewhere`); in the middle of a burst of lines the busiest
            node is killed with SIGKILL; its players reconnect through the front, resume with the
            tokens they hold and send again, with the same clientId, every line not acknowledged.
            Checked: every acknowledged line exactly once in every premium player's history, `seq`
            without gap or duplicate on every client, time from the kill to each `resumed`
            (p50 and max printed).
  sigstop   a session on one node; the node is SIGSTOPped for twice the liveness timeout; its
            players resume on the survivor that adopted the session; after SIGCONT the woken node
            writes nothing more to the session (no journal row at its old epoch after the takeover)
            and says it was declared dead.
  restart   PostgreSQL is restarted while players send lines (answers may be journal_unavailable:
            sent again with the same clientId): every acknowledged line is in history once.

Prints `cluster test: N passed, M failed`; exits 0 iff every check passed. Every wait is bounded.
"""

import argparse
import asyncio
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request

from websockets.asyncio.client import connect

TIMEOUT = 10.0
HEARTBEAT = 0.5
LIVENESS = 3.0
SCENARIO = "town-hall-meeting"   # up to 6 players, goal 30 lines: the test stays below it
RESULTS = []
# Closes that send a player to resume elsewhere: going away (1001), the session moved (1012).
MOVED_CODES = (1001, 1012)


def record(name, ok, detail=""):
    RESULTS.append(ok)
    print("%-4s %s%s" % ("PASS" if ok else "FAIL", name, (" -- " + detail) if detail else ""), flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Failed(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# The cluster


class Cluster:
    def __init__(self, args):
        self.bin = args.bin
        self.work = args.work
        self.db = args.postgres_url
        self.pg_dir = args.postgres_dir
        self.root = args.root
        self.secret = os.path.join(self.work, "secret")
        if not os.path.exists(self.secret):     # a benchmark's clusters share the secret it wrote
            with open(self.secret, "w") as f:
                f.write(os.urandom(24).hex() + "\n")
        self.front = free_port()
        self.ports = {"n%d" % i: free_port() for i in (1, 2, 3)}
        self.procs = {}
        self.haproxy = None
        self.admin = None
        self.stopped = set()
        self.extra_args = []     # more `serve` options for every node (the benchmark lifts the per-address caps)

    def public_url(self, node):
        return "ws://127.0.0.1:%d/node/%s/ws" % (self.front, node)

    def start_node(self, node):
        log = open(os.path.join(self.work, node + ".log"), "ab")
        self.procs[node] = subprocess.Popen(
            [self.bin, "serve", "--host", "127.0.0.1", "--port", str(self.ports[node]), "--database-url", self.db,
             "--node-id", node, "--public-url", self.public_url(node), "--secret-file", self.secret,
             "--cluster-heartbeat-interval", str(HEARTBEAT), "--cluster-liveness-timeout", str(LIVENESS),
             "--session-grace-window", "60", "--threads", "1", "--log-format", "json",
             # One journal commit in flight per node, as docs/CLUSTER.md advises for nodes that
             # share a database (the cluster benchmark's three nodes run with it too).
             "--cluster-journal-commits-in-flight", "1"] + self.extra_args,
            stdout=log, stderr=log, stdin=subprocess.DEVNULL)

    def start_haproxy(self):
        """HAProxy with the shipped configuration (deploy/haproxy/sessionhub.cfg), on this run's ports."""
        with open(os.path.join(self.root, "deploy", "haproxy", "sessionhub.cfg")) as f:
            text = f.read()
        text = re.sub(r"bind 127\.0\.0\.1:8080\b", "bind 127.0.0.1:%d" % self.front, text)
        text = re.sub(r"127\.0\.0\.1:808([1-3])\b", lambda m: "127.0.0.1:%d" % self.ports["n" + m.group(1)], text)
        path = os.path.join(self.work, "haproxy.cfg")
        with open(path, "w") as f:
            f.write(text)
        log = open(os.path.join(self.work, "haproxy.log"), "ab")
        self.haproxy = subprocess.Popen(["haproxy", "-db", "-f", path], stdout=log, stderr=log, stdin=subprocess.DEVNULL)

    async def http(self, port, method, path, token=None, body=None):
        def call():
            data = None if body is None else json.dumps(body).encode()
            headers = {"Content-Type": "application/json"}
            if token:
                headers["Authorization"] = "Bearer " + token
            req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), data=data, method=method, headers=headers)
            opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
            try:
                with opener.open(req, timeout=5) as resp:
                    status, raw = resp.status, resp.read()
            except urllib.error.HTTPError as e:
                status, raw = e.code, e.read()
            except OSError:
                return 0, None
            try:
                return status, json.loads(raw)
            except ValueError:
                return status, raw.decode(errors="replace")
        return await asyncio.to_thread(call)

    async def wait_ready(self, port, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status, _ = await self.http(port, "GET", "/readyz")
            if status == 200:
                return
            await asyncio.sleep(0.2)
        raise Failed("port %d not ready within %ds" % (port, timeout))

    async def start(self):
        for node in self.ports:
            self.start_node(node)
        for port in self.ports.values():
            await self.wait_ready(port)
        self.start_haproxy()
        await self.wait_ready(self.front, timeout=20)
        self.admin = self.mint("cluster-admin", "Operator", admin=True)

    def mint(self, user, name, admin=False):
        cmd = [self.bin, "token", "--user", user, "--name", name, "--secret-file", self.secret] + (["--admin"] if admin else [])
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
        if done.returncode != 0:
            raise Failed("token: %s" % done.stderr.strip()[:200])
        return done.stdout.strip()

    async def premium(self, user):
        status, body = await self.http(self.front, "PUT", "/admin/users/%s/premium" % user, self.admin, {"isPremium": True})
        if status != 200:
            raise Failed("premium %s: %s %s" % (user, status, body))

    async def cluster_sessions(self, port=None):
        """The operator list of the whole cluster, asked on `port` (default: the front)."""
        status, body = await self.http(port or self.front, "GET", "/admin/api/sessions", self.admin)
        return body if status == 200 and isinstance(body, dict) else {}

    async def sessions_on(self, node):
        listed = (await self.cluster_sessions()).get("sessions", [])
        return [s for s in listed if s.get("node") == node]

    def log(self, node):
        try:
            with open(os.path.join(self.work, node + ".log"), errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def psql(self, sql):
        done = subprocess.run(["psql", self.db, "-Atc", sql], capture_output=True, text=True, timeout=TIMEOUT)
        return done.stdout.strip()

    def stop(self):
        for node, proc in self.procs.items():
            if proc.poll() is None:
                try:
                    os.kill(proc.pid, signal.SIGCONT)
                except OSError:
                    pass
                proc.terminate()
        if self.haproxy and self.haproxy.poll() is None:
            self.haproxy.terminate()
        for proc in list(self.procs.values()) + ([self.haproxy] if self.haproxy else []):
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


# ---------------------------------------------------------------------------------------------
# A player: one user across connections, tracking seq and acknowledgements


class Player:
    def __init__(self, cluster, label):
        self.cluster = cluster
        self.user = "%s-%s" % (label, os.urandom(3).hex())
        self.token = cluster.mint(self.user, label.capitalize())
        self.ws = None
        self.reader = None
        self.msgs = []
        self.changed = asyncio.Event()
        self.closed = None
        self.resume_token = None
        self.session = None
        self.last_seq = None
        self.seq_problems = []
        self.sent = {}        # clientId -> text
        self.acked = {}       # clientId -> seq
        self.counter = 0
        self.moves = 0        # resumes after a 1001/1012 close (moved_away)

    async def open(self, url):
        if self.ws is not None:
            await self.drop()
        # A short opening timeout: a stopped node still accepts TCP connections (the kernel
        # does) but never answers the upgrade; the client gives up and tries elsewhere.
        self.ws = await connect(url + "?token=" + self.token, proxy=None, open_timeout=2, ping_interval=None,
                                close_timeout=2, max_size=None)
        self.msgs = []
        self.closed = None
        self.reader = asyncio.create_task(self._read(self.ws))
        return await self.expect(lambda m: m.get("type") == "welcome", "welcome")

    async def _read(self, ws):
        try:
            async for frame in ws:
                m = json.loads(frame)
                self._track(m)
                self.msgs.append(m)
                self.changed.set()
        except Exception:
            pass
        finally:
            if ws is self.ws:
                self.closed = (ws.close_code, ws.close_reason)
                self.changed.set()

    def _track(self, m):
        seq = m.get("seq")
        if isinstance(seq, int) and "sessionId" in m:
            if self.last_seq is not None and seq != self.last_seq + 1:
                self.seq_problems.append("%d after %d" % (seq, self.last_seq))
            if self.last_seq is None or seq > self.last_seq:
                self.last_seq = seq
            line = m.get("line") or {}
            if m.get("type") == "line" and line.get("speakerId") == self.user and line.get("clientId"):
                if line["clientId"] in self.acked:
                    self.seq_problems.append("line %s delivered twice" % line["clientId"])
                self.acked[line["clientId"]] = seq
        if m.get("type") in ("joined", "resumed") and m.get("resumeToken"):
            self.resume_token = m["resumeToken"]
            snap = m.get("session")
            if snap:
                self.session = snap["sessionId"]
                if m.get("type") == "joined" or m.get("mode") == "snapshot":
                    self.last_seq = snap["seq"]

    async def expect(self, pred, what, timeout=TIMEOUT, start=0):
        deadline = time.monotonic() + timeout
        while True:
            for m in self.msgs[start:]:
                if pred(m):
                    return m
            if self.closed is not None:
                raise Failed("%s: closed %s waiting for %s" % (self.user, self.closed, what))
            if time.monotonic() > deadline:
                raise Failed("%s: no %s within %.0fs (last: %s)" % (self.user, what, timeout, self.msgs[-2:]))
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), 0.5)
            except asyncio.TimeoutError:
                pass

    async def request(self, message, want, timeout=TIMEOUT):
        self.counter += 1
        rid = "r%d" % self.counter
        start = len(self.msgs)
        await self.ws.send(json.dumps(dict(message, id=rid)))
        return await self.expect(lambda m: m.get("ref") == rid and (m.get("type") in want or m.get("type") == "error"),
                                 "answer to %s" % message["type"], timeout, start)

    async def drop(self):
        ws, self.ws = self.ws, None
        if ws is not None:
            ws.transport.abort()
        if self.reader:
            self.reader.cancel()

    async def enter(self, message):
        """host/join through the front, following session_elsewhere."""
        url = "ws://127.0.0.1:%d/ws" % self.cluster.front
        for _ in range(20):
            await self.open(url)
            answer = await self.request(message, ("joined",))
            if answer["type"] == "joined":
                return answer
            if answer.get("code") != "session_elsewhere":
                raise Failed("%s: %s" % (self.user, answer))
            url = answer.get("url") or url
            if not answer.get("url"):
                await asyncio.sleep(answer.get("retryAfter", 1))
        raise Failed("%s: could not enter" % self.user)

    async def come_back(self):
        """Reconnects through the front and resumes the seat, following redirects; returns `resumed`."""
        front = "ws://127.0.0.1:%d/ws" % self.cluster.front
        url = front
        deadline = time.monotonic() + 30
        self.trail = []
        while time.monotonic() < deadline:
            try:
                welcome = await self.open(url)
            except Exception as e:
                # The node it points at is gone (or not adopted yet): back to the front.
                self.trail.append("connect %s: %s" % (url, type(e).__name__))
                url = front
                await asyncio.sleep(0.2)
                continue
            if welcome.get("resumableUrl") and welcome["resumableUrl"] != url:
                self.trail.append("welcome -> %s" % welcome["resumableUrl"])
                url = welcome["resumableUrl"]
                continue
            try:
                answer = await self.request({"type": "resume", "resumeToken": self.resume_token, "lastSeq": self.last_seq},
                                            ("resumed",), timeout=5)
            except Failed:
                await self.drop()
                await asyncio.sleep(0.2)
                continue
            if answer["type"] == "resumed":
                return answer
            self.trail.append("resume at %s: %s %s" % (url, answer.get("code"), answer.get("url")))
            if answer.get("code") == "session_elsewhere":
                if answer.get("url"):
                    url = answer["url"]
                else:
                    url = front
                    await asyncio.sleep(0.3)
                continue
            raise Failed("%s: resume answered %s" % (self.user, answer))
        raise Failed("%s: no resume within 30 s; trail: %s" % (self.user, " | ".join(self.trail[-6:])))

    async def moved_away(self):
        """After a failed send or wait: True once the player has resumed elsewhere because its
        socket was closed with 1012 (the session moved: its node was declared dead) or 1001 (the
        node is stopping), as the client library does. On a loaded machine a node that misses its
        heartbeats for the liveness timeout is declared dead although its process lives, and its
        sessions move; every check of the test must still hold across such a move. False for any
        other failure."""
        for _ in range(20):   # the reader records the close a moment after the send fails
            if self.closed is not None:
                break
            await asyncio.sleep(0.05)
        if self.closed is None or self.closed[0] not in MOVED_CODES:
            return False
        self.moves += 1
        await self.come_back()
        return True

    def next_line(self):
        self.counter += 1
        cid = "%s-l%d" % (self.user, self.counter)
        self.sent[cid] = "%s dice la frase %d" % (self.user, self.counter)
        return cid

    async def send_line(self, cid):
        await self.ws.send(json.dumps({"type": "say", "id": cid, "clientId": cid, "textNative": self.sent[cid]}))

    async def say(self, timeout=TIMEOUT):
        cid = self.next_line()
        return await self.settle(cid, timeout)

    async def settle(self, cid, timeout=TIMEOUT):
        """Sends `cid` (again) until it is acknowledged or known as a duplicate."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if cid in self.acked:
                return "acked"
            start = len(self.msgs)
            try:
                await self.send_line(cid)
                answer = await self.expect(lambda m: m.get("ref") == cid and m.get("type") in ("line", "error"),
                                           "answer to %s" % cid, max(1.0, deadline - time.monotonic()), start)
            except Exception:
                if await self.moved_away():
                    continue
                raise
            if answer["type"] == "line":
                return "acked"
            if answer.get("code") == "duplicate_line":
                return "duplicate"
            if answer.get("code") == "journal_unavailable":
                await asyncio.sleep(answer.get("retryAfter", 1))
                continue
            raise Failed("%s: say answered %s" % (self.user, answer))
        raise Failed("%s: %s not acknowledged within %.0fs" % (self.user, cid, timeout))


async def history_lines(cluster, player, session_id):
    status, body = await cluster.http(cluster.front, "GET", "/api/history/%s" % session_id, player.token)
    if status != 200 or not isinstance(body, dict):
        raise Failed("%s history %s: %s %s" % (player.user, session_id, status, body))
    return [l.get("clientId") for l in body.get("dialogLines", [])]


async def check_history(cluster, name, groups):
    """Every acknowledged line exactly once in every premium player's history."""
    lost = dup = 0
    for group in groups:
        acked = [cid for p in group for cid in p.acked]
        for p in group:
            ids = await history_lines(cluster, p, group[0].session)
            for cid in acked:
                n = ids.count(cid)
                lost += n == 0
                dup += n > 1
    record("%s: every acknowledged line exactly once in history" % name, lost == 0 and dup == 0,
           "%d lines, %d lost, %d duplicated" % (sum(len(p.acked) for g in groups for p in g), lost, dup))


def check_seqs(name, players):
    problems = ["%s: %s" % (p.user, q) for p in players for q in p.seq_problems]
    record("%s: seq without gap or duplicate on every client" % name, not problems, "; ".join(problems[:5]) or
           "%d clients" % len(players))


async def end_all(groups):
    for group in groups:
        host = group[0]
        while True:
            try:
                answer = await host.request({"type": "end"}, ("ended",), timeout=TIMEOUT)
                break
            except Exception:
                if not await host.moved_away():
                    raise
        if answer.get("type") != "ended":
            raise Failed("end: %s" % answer)


# ---------------------------------------------------------------------------------------------
# Scenarios


async def scenario_kill(cluster):
    groups = []
    for s in range(6):
        host = Player(cluster, "host%d" % s)
        guests = [Player(cluster, "guest%d%s" % (s, c)) for c in "ab"]
        for p in [host] + guests:
            await cluster.premium(p.user)
        joined = await host.enter({"type": "host", "scenarioId": SCENARIO, "maxPlayers": 4})
        code = joined["session"]["joinCode"]
        for g in guests:
            await g.enter({"type": "join", "code": code})
        groups.append([host] + guests)
    players = [p for g in groups for p in g]
    for p in players:
        await p.say()
    counts = {node: len(await cluster.sessions_on(node)) for node in cluster.ports}
    record("kill: sessions spread over the nodes", sum(1 for c in counts.values() if c > 0) >= 2, str(counts))
    views = {node: await cluster.cluster_sessions(cluster.ports[node]) for node in cluster.ports}
    same = all(sorted((s["sessionId"], s["node"]) for s in v.get("sessions", [])) ==
               sorted((s["sessionId"], s["node"]) for s in views["n1"].get("sessions", [])) for v in views.values())
    answered = all(sorted(n["node"] for n in v.get("nodes", []) if n.get("reachable")) == sorted(cluster.ports) for v in views.values())
    record("operators: every node lists the whole cluster's sessions, each with its owner", same and answered
           and len(views["n1"].get("sessions", [])) == len(groups), "%d sessions" % len(views["n1"].get("sessions", [])))
    victim = max(counts, key=counts.get)
    victim_sessions = {s["sessionId"] for s in await cluster.sessions_on(victim)}

    # A burst: every player fires lines without waiting, and the busiest node dies in the middle.
    burst = {p: [p.next_line() for _ in range(4)] for p in players}
    for i in range(4):
        for p in players:
            try:
                await p.send_line(burst[p][i])
            except Exception:
                pass
        if i == 1:
            cluster.procs[victim].kill()
            killed_at = time.monotonic()
            cluster.stopped.add(victim)
    affected = [p for p in players if p.session in victim_sessions]

    async def recover(p):
        await p.come_back()
        return time.monotonic() - killed_at
    times = await asyncio.gather(*[recover(p) for p in affected])
    record("kill: every player of the killed node resumed on a survivor", len(times) == len(affected),
           "%d players; kill -> resumed p50 %.2f s, max %.2f s" % (len(times), statistics.median(times), max(times)))
    print("failover (kill -9 -> resumed): p50 %.2f s, max %.2f s over %d players" % (statistics.median(times), max(times), len(times)),
          flush=True)
    outcomes = {"acked": 0, "duplicate": 0}
    for p in players:
        for cid in burst[p]:
            outcomes[await p.settle(cid, timeout=20)] += 1
    record("kill: lines of the burst sent again with their clientId", True,
           "%d acknowledged, %d already in (duplicate_line); %d players of live nodes moved (1001/1012)"
           % (outcomes["acked"], outcomes["duplicate"], sum(p.moves for p in players)))
    for p in players:
        await p.say()
    await end_all(groups)
    await check_history(cluster, "kill", groups)
    check_seqs("kill", players)
    return victim


async def scenario_sigstop(cluster, dead):
    alive = [n for n in cluster.ports if n not in cluster.stopped and n != dead]
    target = alive[0]
    host, guest = Player(cluster, "stophost"), Player(cluster, "stopguest")
    for p in (host, guest):
        await cluster.premium(p.user)
        await p.open(cluster.public_url(target))
    joined = await host.request({"type": "host", "scenarioId": SCENARIO, "maxPlayers": 2}, ("joined",))
    answer = await guest.request({"type": "join", "code": joined["session"]["joinCode"]}, ("joined",))
    if answer["type"] != "joined":
        raise Failed("sigstop join: %s" % answer)
    for p in (host, guest):
        await p.say()
    session = host.session
    os.kill(cluster.procs[target].pid, signal.SIGSTOP)
    stopped_at = time.monotonic()
    await asyncio.sleep(0.3)
    for p in (host, guest):
        await p.drop()       # a stalled socket: the client gives up on it
    await asyncio.gather(host.come_back(), guest.come_back())
    adopted = time.monotonic() - stopped_at
    owner = cluster.psql("SELECT owner_node || ' ' || epoch FROM sessions WHERE session_id = '%s'" % session).split()
    record("sigstop: a survivor adopted the hung node's session", len(owner) == 2 and owner[0] != target,
           "owner %s, players resumed %.1f s after SIGSTOP" % (owner, adopted))
    old_epoch = int(owner[1]) - 1 if len(owner) == 2 else 1
    before = cluster.psql("SELECT count(*) FROM journal WHERE session_id = '%s' AND epoch = %d" % (session, old_epoch))
    await asyncio.sleep(max(0.0, 2 * LIVENESS - (time.monotonic() - stopped_at)))
    os.kill(cluster.procs[target].pid, signal.SIGCONT)
    for p in (host, guest):
        await p.say()
    await asyncio.sleep(3 * HEARTBEAT + 1)
    # The woken node learns it was declared dead at its next heartbeat; on a loaded machine that
    # can take a while: waited for (bounded), and its journal rows counted after.
    deadline = time.monotonic() + 20
    while "declared this node dead" not in cluster.log(target) and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    after = cluster.psql("SELECT count(*) FROM journal WHERE session_id = '%s' AND epoch = %d" % (session, old_epoch))
    record("sigstop: the woken node wrote nothing after the takeover", before == after,
           "rows at epoch %d: %s before SIGCONT, %s after" % (old_epoch, before, after))
    record("sigstop: the woken node knows it was declared dead", "declared this node dead" in cluster.log(target))
    await end_all([[host, guest]])
    await check_history(cluster, "sigstop", [[host, guest]])
    check_seqs("sigstop", [host, guest])


async def scenario_restart(cluster, root):
    host, guest = Player(cluster, "pghost"), Player(cluster, "pgguest")
    for p in (host, guest):
        await cluster.premium(p.user)
    joined = await host.enter({"type": "host", "scenarioId": SCENARIO, "maxPlayers": 2})
    await guest.enter({"type": "join", "code": joined["session"]["joinCode"]})
    restart = asyncio.create_task(asyncio.to_thread(
        subprocess.run, ["bash", os.path.join(root, "scripts/postgres.sh"), "restart", cluster.pg_dir],
        capture_output=True, timeout=60))
    refused = 0
    # Six rounds of lines while the server restarts (well below the scenario's goal of 30 lines).
    for _ in range(6):
        for p in (host, guest):
            cid = p.next_line()
            try:
                await p.send_line(cid)
                answer = await p.expect(lambda m: m.get("ref") == cid and m.get("type") in ("line", "error"), "answer", 30)
            except Exception:
                # A node whose reconnect after the restart came later than a peer's check is
                # declared dead and its session adopted (close 1012): allowed, as long as the
                # players resume and no acknowledged line is lost (checked below).
                if not await p.moved_away():
                    raise
                await p.settle(cid, timeout=30)
                continue
            if answer["type"] == "error":
                if answer.get("code") != "journal_unavailable":
                    raise Failed("restart: %s" % answer)
                refused += 1
                await p.settle(cid, timeout=30)
        await asyncio.sleep(0.3)
    done = await restart
    record("restart: PostgreSQL restarted mid-session", done.returncode == 0,
           "%d lines refused during the restart and sent again, %d players moved to another node"
           % (refused, host.moves + guest.moves))
    for p in (host, guest):
        await p.say(timeout=30)
    await end_all([[host, guest]])
    await check_history(cluster, "restart", [[host, guest]])
    check_seqs("restart", [host, guest])


async def main(args):
    cluster = Cluster(args)
    try:
        await cluster.start()
        record("cluster: 3 nodes and HAProxy ready", True, "front 127.0.0.1:%d, nodes %s" % (cluster.front, cluster.ports))
        dead = None
        try:
            dead = await scenario_kill(cluster)
        except Failed as e:
            record("kill scenario", False, str(e))
        try:
            await scenario_sigstop(cluster, dead)
        except Failed as e:
            record("sigstop scenario", False, str(e))
        try:
            await scenario_restart(cluster, args.root)
        except Failed as e:
            record("restart scenario", False, str(e))
    except Failed as e:
        record("cluster start", False, str(e))
    finally:
        cluster.stop()
    failed = RESULTS.count(False)
    print("cluster test: %d passed, %d failed" % (RESULTS.count(True), failed), flush=True)
    return 1 if failed or not RESULTS else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--postgres-url", required=True)
    parser.add_argument("--postgres-dir", required=True)
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    args = parser.parse_args()
    try:
        code = asyncio.run(asyncio.wait_for(main(args), 240))
    except asyncio.TimeoutError:
        print("cluster test: cut at 240 s", flush=True)
        code = 1
    sys.exit(code)
