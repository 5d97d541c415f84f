# Experiment: only the 3-node (or 1-node) fan-out part of the cluster bench, with vmstat sampling.
import asyncio, json, os, subprocess, sys, time
sys.path.insert(0, "/work/main/loadtest")
import cluster_bench as cb
ct = cb.ct

async def main(args, mode):
    vm = subprocess.Popen(["vmstat", "-t", "1"], stdout=open(os.path.join(args.work, "vmstat-%s.txt" % mode), "w"))
    try:
        if mode == "single":
            r = await cb.single_node(args)
        elif mode == "single-pg":
            r = await cb.single_node(args, postgres=True)
        else:
            cluster = ct.Cluster(args); cluster.secret = args.secret; cluster.extra_args = cb.LIFT_CAPS + EXTRA
            try:
                await cluster.start()
                urls = ["ws://127.0.0.1:%d/ws" % cluster.ports[n] for n in sorted(cluster.ports)]
                r = cb.loadtest_sessions(args, urls, "cluster", os.path.join(args.work, "cluster-%s.json" % mode))
            finally:
                cluster.stop()
    finally:
        vm.terminate()
    print(mode, "p50", r["fanout"]["p50"], "p99", r["fanout"]["p99"], "steady", r.get("steadyFanout"), "lost", r["lost"], "dup", r["duplicated"])

EXTRA = os.environ.get("EXTRA", "").split()
class A: pass
args = A()
args.bin = sys.argv[1]; args.loadtest = sys.argv[2]; args.work = sys.argv[3]; args.postgres_url = sys.argv[4]
args.postgres_dir = os.path.join(args.work, "pg"); args.root = "/work/main"; args.kills = 0
args.sessions = 200; args.players = 4; args.rate = 0.5; args.seconds = float(os.environ.get("SECS", "40")); args.json = None
args.secret = os.path.join(args.work, "secret")
if not os.path.exists(args.secret):
    open(args.secret, "w").write(os.urandom(24).hex() + "\n")
for mode in sys.argv[5:]:
    asyncio.run(main(args, mode))
