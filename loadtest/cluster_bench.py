#!/usr/bin/env python3
"""The cluster benchmark (issue 10): one run, three figures, printed as one table.

  1. journal append latency, SQLite vs PostgreSQL, at the fan-out run's line rate
     (`sessionhub-loadtest journal`), and PostgreSQL's own floor for such writes at that rate
     (pgbench: one-row inserts from 4 clients), so the hub's share of the journal's latency shows;
  2. fan-out latency p50/p99 of one SQLite node, one PostgreSQL node (the journal's share) and a
     3-node cluster on PostgreSQL (the same machine's cores shared by three processes) at the same
     offered load (`sessionhub-loadtest sessions`: session i on node i mod 3, every member on the
     node that owns it, as after a join followed its redirect: no data path between nodes). The three
     configurations take turns for --rounds rounds (default 3) and the table gives each one's
     median: this VM has slow spells of a minute or more, and one run of each in a row let a spell
     land on one configuration only;
  3. failover time over N kills: each round plays 3 shared sessions through HAProxy, kill -9s the
     busiest node, times every affected player from the kill to `resumed` on a survivor (reconnect
     through the front, follow redirects, resume), restarts the killed node and ends the sessions.

Usage (loadtest/cluster-bench.sh sets everything up):
  cluster_bench.py --bin sessionhub --loadtest sessionhub-loadtest --work DIR --postgres-url URL
                   --postgres-dir DIR [--kills 10] [--sessions 200] [--players 4] [--rate 0.5]
                   [--seconds 40] [--rounds 3] [--json FILE]

PostgreSQL is on the same machine; with --postgres-socket-dir (cluster-bench.sh's default) the
nodes, the journal benchmark and pgbench reach it over its Unix socket, as a node on the
database's machine would, and one PostgreSQL node is also measured over TCP loopback so the
transport's share shows. Without it, everything uses TCP loopback (the runs recorded before
2026-12-07 21:15 UTC did).

Nodes run with the product's defaults (heartbeat 0.5 s, liveness timeout 5 s), the single SQLite node
with the default local journal (the log journal since 2026-12-02; the runs recorded before that
date measured the SQLite journal, which `--journal sqlite` would pick). Every wait is bounded.
"""

import argparse
import asyncio
import glob
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "Tests", "Cluster"))
import cluster_test as ct  # noqa: E402  (the cluster and player of the failover test)

ct.LIVENESS = 5.0          # the product's default, not the test's shorter one
# Every connection comes from 127.0.0.1, and a user may hold many: lift the per-address and
# per-user caps (as loadtest/run.sh does).
LIFT_CAPS = ["--server-max-connections-per-address", "1000000", "--server-max-unauthenticated-per-address", "1000000",
             "--connection-max-per-user", "10000"]


def quantile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * q))] if values else float("nan")


def pgbench_floor(args, rate, seconds=15):
    """PostgreSQL's own latency for the journal's kind of write, without the hub: pgbench commits
    one-row inserts of a journal-sized body from 4 clients (the journal's commits in flight) at
    `rate` per second on a new database. The journal's p99 cannot go below this one's; the gap
    between them is the hub's share. None when pgbench is missing (it ships with `postgresql`)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pgbench"))
    if not found:
        return None
    url = fresh_database(args, "pgbench_floor")
    setup = subprocess.run(["psql", url, "-qc", "CREATE TABLE entries (id bigserial PRIMARY KEY, session_id text, body text)"],
                           capture_output=True, text=True, timeout=60)
    if setup.returncode != 0:
        raise SystemExit("pgbench floor: %s" % setup.stderr.strip())
    script = os.path.join(args.work, "pgbench-insert.sql")
    with open(script, "w") as f:
        f.write("\\set s random(1, %d)\n" % args.sessions)
        f.write("INSERT INTO entries (session_id, body) VALUES ('s' || :s, repeat('x', 300));\n")
    prefix = os.path.join(args.work, "pgbench")
    done = subprocess.run([found[-1], "-n", "-f", script, "-c", "4", "-j", "1", "-R", str(int(rate)), "-T", str(seconds),
                           "-l", "--log-prefix", prefix, url], capture_output=True, text=True, timeout=seconds + 60)
    if done.returncode != 0:
        raise SystemExit("pgbench: %s" % done.stderr.strip()[-500:])
    drop_database(args, "pgbench_floor")
    latencies = []
    for name in glob.glob(prefix + ".*"):
        with open(name) as f:
            latencies += [float(line.split()[2]) for line in f if line.strip()]
    if not latencies:
        return None
    return {"store": "PostgreSQL alone (pgbench, same rate)", "appends": len(latencies),
            "perSecond": len(latencies) / seconds, "p50": quantile(latencies, 0.5), "p90": quantile(latencies, 0.9),
            "p99": quantile(latencies, 0.99), "max": max(latencies)}


def loadtest_sessions(args, urls, label, out):
    """One fan-out run against `urls`; the token cache is per configuration, so later rounds reuse it."""
    cmd = [args.loadtest, "sessions", "--token-cmd", "%s token --secret-file %s" % (args.bin, args.secret),
           "--token-cache", os.path.join(args.work, "tokens-%s.json" % label), "--sessions", str(args.sessions),
           "--players", str(args.players), "--rate", str(args.rate), "--duration", str(args.seconds),
           "--ramp", "10", "--player", "lean", "--user-prefix", "cb-" + label, "--json", out, "--quiet"]
    for url in urls:
        cmd += ["--url", url]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=args.seconds + 120)
    try:
        with open(out) as f:
            report = json.load(f)
    except (OSError, ValueError):
        raise SystemExit("loadtest %s failed (%d): %s" % (label, done.returncode, done.stderr[-2000:]))
    if report.get("connectFailures"):
        raise SystemExit("loadtest %s: %d connections failed: %s" % (label, report["connectFailures"], report.get("errors")))
    return report


async def wait_http(port, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, _ = await ct.Cluster.http(None, port, "GET", "/readyz")
        if status == 200:
            return
        await asyncio.sleep(0.2)
    raise SystemExit("port %d not ready" % port)


def transport_url(args, url, tcp=False):
    """`url` (TCP loopback, postgres://user@127.0.0.1:PORT/DB) as the benchmark's nodes reach it:
    over the server's Unix socket when --postgres-socket-dir is given (and `tcp` is not asked),
    as a node on the database's machine would; else unchanged."""
    if tcp or not args.postgres_socket_dir:
        return url
    head, database = url.rsplit("/", 1)
    user = head.split("://", 1)[1].split("@", 1)[0]
    port = head.rsplit(":", 1)[1]
    return "postgres://%s@:%s/%s?host=%s" % (user, port, database, args.postgres_socket_dir)


def fresh_database(args, name, tcp=False):
    """A new, empty database on the benchmark's PostgreSQL; returns its URL (``transport_url``).
    Every configuration of every round starts from an empty store, as the SQLite node starts from
    a new file."""
    done = subprocess.run(["psql", args.postgres_url, "-Atc", "CREATE DATABASE %s" % name],
                          capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise SystemExit("CREATE DATABASE %s: %s" % (name, done.stderr.strip()))
    return transport_url(args, args.postgres_url.rsplit("/", 1)[0] + "/" + name, tcp=tcp)


def drop_database(args, name):
    """Drops a configuration's database once its nodes have stopped, so that every round runs on
    a server holding the same few databases: each one left behind adds its files to every
    checkpoint and its tables to autovacuum's rounds for the rest of the benchmark."""
    done = subprocess.run(["psql", args.postgres_url, "-Atc", "DROP DATABASE IF EXISTS %s WITH (FORCE)" % name],
                          capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        print("  (DROP DATABASE %s: %s)" % (name, done.stderr.strip()), flush=True)


async def single_node(args, postgres=False, round_=1, tcp=False):
    """One node alone, on a new SQLite file or a new PostgreSQL database (over TCP loopback when
    `tcp`, else as ``transport_url`` says); the sessions load against it."""
    port = ct.free_port()
    label = ("single-pg-tcp" if tcp else "single-pg") if postgres else "single"
    name = ("solo_tcp_%d" if tcp else "solo_%d") % round_
    store = (["--database-url", fresh_database(args, name, tcp=tcp), "--node-id", "solo"] if postgres
             else ["--database", os.path.join(args.work, "single-%d.sqlite" % round_)])
    log = open(os.path.join(args.work, label + ".log"), "ab")
    proc = subprocess.Popen([args.bin, "serve", "--host", "127.0.0.1", "--port", str(port), "--secret-file", args.secret,
                             "--threads", "1"] + store + LIFT_CAPS, stdout=log, stderr=log, stdin=subprocess.DEVNULL)
    try:
        await wait_http(port)
        return loadtest_sessions(args, ["ws://127.0.0.1:%d/ws" % port], label,
                                 os.path.join(args.work, "%s-%d.json" % (label, round_)))
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        if postgres:
            drop_database(args, name)


def fanout_summary(reports):
    """A configuration's rounds: the median of each figure, every round's p99, the sums of lost and duplicated."""
    def median(key, steady=False):
        values = [((r.get("steadyFanout") or {}) if steady else r["fanout"]).get(key) for r in reports]
        values = [v for v in values if v is not None]
        return statistics.median(values) if values else None
    return {"deliveriesPerSecond": statistics.median(r.get("steadyDeliveriesPerSecond") or r["deliveriesPerSecond"] for r in reports),
            "p50": median("p50"), "p99": median("p99"), "steadyP50": median("p50", True), "steadyP99": median("p99", True),
            "roundsP99": [r["fanout"]["p99"] for r in reports],
            "lost": sum(r["lost"] for r in reports), "duplicated": sum(r["duplicated"] for r in reports)}


def new_cluster(args, database_url):
    """Three nodes and HAProxy (not started) on `database_url`, with the benchmark's secret and caps."""
    # The work directory holds the benchmark's secret already: the cluster uses it too.
    cluster = ct.Cluster(argparse.Namespace(**{**vars(args), "postgres_url": database_url}))
    cluster.extra_args = LIFT_CAPS
    return cluster


async def three_nodes(args, round_):
    """Three nodes on a new database; the sessions load spread over them; then they stop."""
    name = "cluster_%d" % round_
    cluster = new_cluster(args, fresh_database(args, name))
    try:
        await cluster.start()
        urls = ["ws://127.0.0.1:%d/ws" % cluster.ports[n] for n in sorted(cluster.ports)]
        return loadtest_sessions(args, urls, "cluster", os.path.join(args.work, "cluster-%d.json" % round_))
    finally:
        cluster.stop()
        drop_database(args, name)


async def failover_round(cluster, r):
    groups = []
    for s in range(3):
        host, guest = ct.Player(cluster, "fh%d-%d" % (r, s)), ct.Player(cluster, "fg%d-%d" % (r, s))
        joined = await host.enter({"type": "host", "scenarioId": ct.SCENARIO, "maxPlayers": 2})
        await guest.enter({"type": "join", "code": joined["session"]["joinCode"]})
        groups.append([host, guest])
    for group in groups:
        for p in group:
            await p.say()
    alive = [n for n in cluster.ports if n not in cluster.stopped]
    counts = {n: len(await cluster.sessions_on(n)) for n in alive}
    victim = max(counts, key=counts.get)
    victim_sessions = {s["sessionId"] for s in await cluster.sessions_on(victim)}
    cluster.procs[victim].kill()
    killed_at = time.monotonic()
    cluster.stopped.add(victim)
    affected = [p for g in groups for p in g if p.session in victim_sessions]

    async def back(p):
        await p.come_back()
        return time.monotonic() - killed_at
    times = await asyncio.gather(*[back(p) for p in affected])
    # The node comes back (same id, new incarnation); the front takes it again once it is ready.
    cluster.procs[victim].wait(timeout=10)
    cluster.start_node(victim)
    await cluster.wait_ready(cluster.ports[victim])
    cluster.stopped.discard(victim)
    await ct.end_all(groups)
    for g in groups:
        for p in g:
            await p.drop()
    await asyncio.sleep(1.0)   # HAProxy sees the node ready again (rise 2 x 300 ms)
    return victim, counts, times


async def main(args):
    results = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": "%s, %d cores, %s" % (
        platform.node(), os.cpu_count(), platform.platform()), "parameters": vars(args).copy()}
    results["parameters"].pop("secret", None)
    results["postgresTransport"] = "unix socket" if args.postgres_socket_dir else "tcp loopback"
    lines_per_second = args.sessions * args.players * args.rate

    # 1. Journal.
    out = os.path.join(args.work, "journal.json")
    done = subprocess.run([args.loadtest, "journal", "--database-url", transport_url(args, args.postgres_url),
                           "--sessions", str(args.sessions),
                           "--rate", str(args.players * args.rate), "--seconds", "15", "--json", out],
                          capture_output=True, text=True, timeout=300)
    print(done.stdout, flush=True)
    with open(out) as f:
        results["journal"] = json.load(f)
    floor = pgbench_floor(args, lines_per_second)
    if floor:
        print("  %s: p50 %.0f µs, p99 %.0f µs" % (floor["store"], floor["p50"], floor["p99"]), flush=True)
        results["journal"].append(floor)

    # 2. Fan-out: one node on SQLite, one on PostgreSQL, three on PostgreSQL, taking turns; only
    # the configuration measured runs.
    # Over the Unix socket, one PostgreSQL node over TCP loopback too, for comparison.
    names = ["1 node, SQLite", "1 node, PostgreSQL", "3 nodes, PostgreSQL"]
    if args.postgres_socket_dir:
        names.append("1 node, PostgreSQL, TCP loopback")
    runs = {name: [] for name in names}
    for r in range(1, args.rounds + 1):
        print("fan-out round %d of %d: %d sessions x %d players, %.0f deliveries/s offered ..." % (
            r, args.rounds, args.sessions, args.players, lines_per_second * args.players), flush=True)
        runs[names[0]].append(await single_node(args, round_=r))
        runs[names[1]].append(await single_node(args, postgres=True, round_=r))
        runs[names[2]].append(await three_nodes(args, r))
        if len(names) > 3:
            runs[names[3]].append(await single_node(args, postgres=True, round_=r, tcp=True))
        for name in names:
            print("  %-22s p99 %.2f ms" % (name, runs[name][-1]["fanout"]["p99"]), flush=True)
    results["fanout"] = {name: fanout_summary(runs[name]) for name in names}

    # 3. Failover, on a cluster of its own.
    cluster = new_cluster(args, fresh_database(args, "failover"))
    try:
        await cluster.start()
        cluster.admin = cluster.mint("bench-admin", "Operator", admin=True)
        times, rounds = [], []
        for r in range(args.kills):
            victim, counts, took = await failover_round(cluster, r)
            times += took
            rounds.append({"victim": victim, "sessions": counts, "resumed": [round(t, 3) for t in took]})
            print("kill %2d: %s (%s): %d players resumed, max %.2f s" % (r + 1, victim, counts, len(took), max(took)), flush=True)
        results["failover"] = {"kills": args.kills, "players": len(times), "p50": quantile(times, 0.5),
                               "p99": quantile(times, 0.99), "max": max(times), "rounds": rounds}
    finally:
        cluster.stop()
        drop_database(args, "failover")

    print()
    print("== cluster benchmark, %s, %s; PostgreSQL over %s" % (results["date"], results["machine"],
                                                                  results["postgresTransport"]))
    print("journal append (%d sessions, %.0f appends/s offered)   p50        p99" % (args.sessions, lines_per_second))
    for r in results["journal"]:
        print("  %-40s %7.0f µs %7.0f µs" % (r["store"], r["p50"], r["p99"]))
    print("fan-out (%.0f deliveries/s offered; medians of %d rounds)  delivered/s    p50        p99    steady p50 / p99    lost dup   p99 of each round" % (
        lines_per_second * args.players, args.rounds))
    for name, f in results["fanout"].items():
        steady = "%6.2f / %6.2f ms" % (f["steadyP50"], f["steadyP99"]) if f.get("steadyP99") is not None else "         -        "
        print("  %-40s %8.0f %7.2f ms %7.2f ms  %s %5d %3d   %s" % (name, f["deliveriesPerSecond"], f["p50"], f["p99"], steady, f["lost"],
                                                                   f["duplicated"], " / ".join("%.2f" % p for p in f["roundsP99"])))
    fo = results["failover"]
    print("failover, kill -9 -> resumed (%d kills, %d players)   p50 %.2f s, p99 %.2f s, max %.2f s" % (
        fo["kills"], fo["players"], fo["p50"], fo["p99"], fo["max"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--loadtest", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--postgres-url", required=True)
    parser.add_argument("--postgres-dir", required=True)
    parser.add_argument("--postgres-socket-dir", help="the server's Unix socket directory: the hub, the journal "
                        "benchmark and pgbench connect through it (one PostgreSQL node over TCP is measured too)")
    parser.add_argument("--root", default=os.path.dirname(HERE))
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rate", type=float, default=0.5)
    parser.add_argument("--seconds", type=float, default=40)
    parser.add_argument("--rounds", type=int, default=3, help="fan-out rounds; each configuration's median is reported")
    parser.add_argument("--json")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    args.secret = os.path.join(args.work, "secret")
    with open(args.secret, "w") as f:
        f.write(os.urandom(24).hex() + "\n")
    try:
        sys.exit(asyncio.run(asyncio.wait_for(main(args), 2700)))
    except asyncio.TimeoutError:
        print("cluster bench: cut at 45 min", flush=True)
        sys.exit(1)
