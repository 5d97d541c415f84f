# Fan-out-only A/B: single PostgreSQL node (and SQLite reference), alternated variants.
import argparse, asyncio, json, os, subprocess, sys
sys.path.insert(0, "/work/main/loadtest")
import cluster_bench as cb
p = argparse.ArgumentParser()
p.add_argument("--bin"); p.add_argument("--loadtest"); p.add_argument("--work"); p.add_argument("--postgres-url")
p.add_argument("--variants", default="on,off"); p.add_argument("--pairs", type=int, default=2)
a = p.parse_args()
args = argparse.Namespace(bin=a.bin, loadtest=a.loadtest, work=a.work, postgres_url=a.postgres_url, postgres_dir=None,
    root="/work/main", kills=0, sessions=200, players=4, rate=0.5, seconds=40.0, rounds=1, json=None)
args.secret = os.path.join(a.work, "secret")
if not os.path.exists(args.secret):
    open(args.secret, "w").write(os.urandom(32).hex())
def psql(sql):
    subprocess.run(["psql", a.postgres_url, "-Atc", sql], check=True, capture_output=True)
async def main():
    n = 0
    for pair in range(a.pairs):
        for v in a.variants.split(","):
            n += 1
            if v == "sqlite":
                r = await cb.single_node(args, postgres=False, round_=n)
            else:
                psql("ALTER SYSTEM SET synchronous_commit = %s" % ("on" if v == "on" else "off")); psql("SELECT pg_reload_conf()")
                r = await cb.single_node(args, postgres=True, round_=n)
            f = r["fanout"]; s = r.get("steadyFanout") or {}
            print("%-7s pair %d  p50 %.2f  p99 %.2f  steady p99 %s  lost %d dup %d" % (v, pair, f["p50"], f["p99"], s.get("p99"), r["lost"], r["duplicated"]), flush=True)
    psql("ALTER SYSTEM SET synchronous_commit = on"); psql("SELECT pg_reload_conf()")
asyncio.run(main())
