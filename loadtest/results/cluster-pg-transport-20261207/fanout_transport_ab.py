# Fan-out-only A/B: one PostgreSQL node over TCP loopback vs over the Unix socket, alternated.
import argparse, asyncio, os, subprocess, sys
sys.path.insert(0, "/work/main/loadtest")
import cluster_bench as cb
p = argparse.ArgumentParser()
p.add_argument("--bin"); p.add_argument("--loadtest"); p.add_argument("--work"); p.add_argument("--postgres-url")
p.add_argument("--socket-dir"); p.add_argument("--variants", default="tcp,unix"); p.add_argument("--pairs", type=int, default=2)
a = p.parse_args()
args = argparse.Namespace(bin=a.bin, loadtest=a.loadtest, work=a.work, postgres_url=a.postgres_url, postgres_dir=None,
    root="/work/main", kills=0, sessions=200, players=4, rate=0.5, seconds=40.0, rounds=1, json=None)
args.secret = os.path.join(a.work, "secret")
if not os.path.exists(args.secret):
    open(args.secret, "w").write(os.urandom(24).hex() + "\n")
port = a.postgres_url.rsplit(":", 1)[1].split("/")[0]
original = cb.fresh_database
async def main():
    n = 100
    for pair in range(a.pairs):
        for v in a.variants.split(","):
            n += 1
            if v == "unix":
                def fresh(args_, name):
                    original(args_, name)
                    return "postgres://postgres@:%s/%s?host=%s" % (port, name, a.socket_dir)
                cb.fresh_database = fresh
            else:
                cb.fresh_database = original
            if v == "sqlite":
                r = await cb.single_node(args, postgres=False, round_=n)
            else:
                r = await cb.single_node(args, postgres=True, round_=n)
            f = r["fanout"]; s = r.get("steadyFanout") or {}
            print("%-7s pair %d  p50 %.2f  p99 %.2f  steady p99 %s  lost %d dup %d" % (v, pair, f["p50"], f["p99"], s.get("p99"), r["lost"], r["duplicated"]), flush=True)
asyncio.run(main())
