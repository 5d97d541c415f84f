#!/usr/bin/env python3
"""The cluster benchmark's fan-out part alone, for alternated A/B runs of its configurations.

    .venv/bin/python loadtest/fanout_ab.py --bin HUB --loadtest LT --work DIR --postgres-url URL [--socket-dir DIR]
                                           --variants sqlite,pg,pg-tcp [--pairs 3]

Each pair runs every variant once, in the order given, each on a new store (as
`loadtest/cluster_bench.py` does: 200 sessions x 4 players x 0.5 lines/s = 1,600 deliveries/s
offered, 40 s, nodes with `--threads 1`), and prints one line per run: p50, p99, the steady
state's p99, lost, duplicated and the p99 of every second. On this VM one run's p99 moves by tens
of percent from minute to minute; alternating the variants spreads those spells over all of them.

Variants:
  sqlite         one node on a new SQLite file (the benchmark's reference)
  pg             one node on a new PostgreSQL database (over the Unix socket with --socket-dir)
  pg-tcp         the same over TCP loopback
  pg-sync-off    `pg` with synchronous_commit off for the nodes' sessions (ALTER ROLE; reset after)
  three-sync-off `three` the same way
  three          three nodes on a new PostgreSQL database
  three-notrim   `three` with the nodes' heap trim off (SESSIONHUB_SERVER_HEAP_TRIM_INTERVAL=0)

Python: the repository's .venv (websockets; `loadtest/cluster-bench.sh` makes it).
PostgreSQL must be running (`bash scripts/postgres.sh start DIR`: --postgres-url is DIR/url,
--socket-dir is the directory named in DIR/datadir), with its WAL warmed as the benchmark's is
(`bash scripts/postgres.sh warm-wal DIR`). Loopback only; every run is bounded.
"""
import argparse
import asyncio
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cluster_bench as cb  # noqa: E402

VARIANTS = ("sqlite", "pg", "pg-tcp", "pg-sync-off", "three", "three-sync-off", "three-notrim")


def set_synchronous_commit(url, value):
    """synchronous_commit for every new session of the role in `url` (the nodes'), or the server's
    again with value None. Not ALTER SYSTEM: scripts/postgres.sh gives the setting on the
    server's command line, which outranks the configuration files, so ALTER SYSTEM changed
    nothing there. A role's setting outranks both. Checked on a new session."""
    role = url.split("://", 1)[1].split("@", 1)[0]
    sql = ("ALTER ROLE %s RESET synchronous_commit" % role if value is None
           else "ALTER ROLE %s SET synchronous_commit = %s" % (role, value))
    subprocess.run(["psql", url, "-Atc", sql], check=True, capture_output=True, timeout=60)
    shown = subprocess.run(["psql", url, "-Atc", "SHOW synchronous_commit"], check=True, capture_output=True,
                           text=True, timeout=60).stdout.strip()
    if value is not None and shown != value:
        raise SystemExit("synchronous_commit is %s, not %s" % (shown, value))


async def run(args, variant, round_):
    if variant == "three-notrim":
        os.environ["SESSIONHUB_SERVER_HEAP_TRIM_INTERVAL"] = "0"
    else:
        os.environ.pop("SESSIONHUB_SERVER_HEAP_TRIM_INTERVAL", None)
    if variant == "sqlite":
        return await cb.single_node(args, round_=round_)
    if variant in ("three", "three-notrim"):
        return await cb.three_nodes(args, round_)
    if variant in ("pg-sync-off", "three-sync-off"):
        set_synchronous_commit(args.postgres_url, "off")
        try:
            if variant == "three-sync-off":
                return await cb.three_nodes(args, round_)
            return await cb.single_node(args, postgres=True, round_=round_)
        finally:
            set_synchronous_commit(args.postgres_url, None)
    return await cb.single_node(args, postgres=True, round_=round_, tcp=variant == "pg-tcp")


async def main(args, variants):
    round_ = int(time.time()) % 1_000_000 * 100   # database names not taken by an earlier run on this server
    for pair in range(1, args.pairs + 1):
        for variant in variants:
            round_ += 1
            report = await run(args, variant, round_)
            fanout, steady = report["fanout"], report.get("steadyFanout") or {}
            seconds = " ".join("%.0f" % s["p99Ms"] for s in report.get("timeline", []))
            print("%-12s pair %d  p50 %.2f  p99 %.2f  steady p99 %s  lost %d dup %d | per second p99: %s" % (
                variant, pair, fanout["p50"], fanout["p99"], steady.get("p99"), report["lost"], report["duplicated"],
                seconds), flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--loadtest", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--postgres-url", required=True, help="TCP URL of the server's `sessionhub` database")
    parser.add_argument("--socket-dir", help="the server's Unix socket directory (the `pg` and `three` variants use it)")
    parser.add_argument("--variants", default="sqlite,pg")
    parser.add_argument("--pairs", type=int, default=2)
    parsed = parser.parse_args()
    chosen = parsed.variants.split(",")
    unknown = [v for v in chosen if v not in VARIANTS]
    if unknown:
        parser.error("unknown variant(s) %s; known: %s" % (", ".join(unknown), ", ".join(VARIANTS)))
    os.makedirs(parsed.work, exist_ok=True)
    bench = argparse.Namespace(bin=parsed.bin, loadtest=parsed.loadtest, work=parsed.work,
                               postgres_url=parsed.postgres_url, postgres_dir=None,
                               postgres_socket_dir=parsed.socket_dir, root=os.path.dirname(cb.HERE), kills=0,
                               sessions=200, players=4, rate=0.5, seconds=40.0, rounds=1, json=None, pairs=parsed.pairs)
    bench.secret = os.path.join(parsed.work, "secret")
    if not os.path.exists(bench.secret):
        with open(bench.secret, "w") as f:
            f.write(os.urandom(24).hex() + "\n")
    asyncio.run(main(bench, chosen))
