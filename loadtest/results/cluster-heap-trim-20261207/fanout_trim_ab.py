# Fan-out-only A/B of the three-node configuration: heap trim on (default) vs off, alternated.
import argparse, asyncio, os, sys
sys.path.insert(0, "/work/main/loadtest")
import cluster_bench as cb
p = argparse.ArgumentParser()
p.add_argument("--bin"); p.add_argument("--loadtest"); p.add_argument("--work"); p.add_argument("--postgres-url")
p.add_argument("--socket-dir"); p.add_argument("--variants", default="trim,notrim"); p.add_argument("--pairs", type=int, default=2)
a = p.parse_args()
args = argparse.Namespace(bin=a.bin, loadtest=a.loadtest, work=a.work, postgres_url=a.postgres_url, postgres_dir=None,
    postgres_socket_dir=a.socket_dir, root="/work/main", kills=0, sessions=200, players=4, rate=0.5, seconds=40.0,
    rounds=1, json=None)
args.secret = os.path.join(a.work, "secret")
if not os.path.exists(args.secret):
    open(args.secret, "w").write(os.urandom(24).hex() + "\n")
async def main():
    n = 200
    for pair in range(a.pairs):
        for v in a.variants.split(","):
            n += 1
            if v == "notrim": os.environ["SESSIONHUB_SERVER_HEAP_TRIM_INTERVAL"] = "0"
            else: os.environ.pop("SESSIONHUB_SERVER_HEAP_TRIM_INTERVAL", None)
            r = await cb.three_nodes(args, n)
            f = r["fanout"]; s = r.get("steadyFanout") or {}
            per = " ".join("%.0f" % x["p99Ms"] for x in r["timeline"])
            print("%-7s pair %d  p50 %.2f  p99 %.2f  steady p99 %s  lost %d dup %d | %s" % (v, pair, f["p50"], f["p99"], s.get("p99"), r["lost"], r["duplicated"], per), flush=True)
asyncio.run(main())
