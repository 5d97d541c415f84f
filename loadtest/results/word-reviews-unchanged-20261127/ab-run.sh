#!/bin/bash
# Fan-out runs: MODES x BUILDS x ROUNDS; prints p50/p99/steady p99, machine CPU us per delivery, PG exec ms, journal inserts.
cd /tmp/s22
U=$(cat pgurl.txt)
for round in $(seq ${ROUNDS:-1}); do
 for mode in ${MODES:-single single-pg cluster}; do
  for b in ${BUILDS:-head}; do
   rm -f w/tokens-*.json
   psql -qAt "$U" -c "SELECT pg_stat_statements_reset()" >/dev/null
   ( while true; do for p in $(pgrep -f "/tmp/s22/$b/sessionhub serve"); do t=$(awk '{print $14+$15}' /proc/$p/stat 2>/dev/null) && echo "$p $t"; done; sleep 0.5; done > w/nodecpu.txt ) &
   SAMPLER=$!
   r=$(timeout 600 /work/main/.venv/bin/python /tmp/s22/fanout.py /tmp/s22/$b/sessionhub /work/main/loadtest/.build/release/sessionhub-loadtest /tmp/s22/w $U $mode 2>&1 | tail -1 | python3 -c "import sys,re; l=sys.stdin.read(); m=re.search(r\"p50 (\S+) p99 (\S+) steady .*'p99': (\S+?)[,}]\", l); print(m.group(1), m.group(2), m.group(3)) if m else print(l)")
   kill $SAMPLER; nodecpu=$(awk '{m[$1]=$2} END{s=0; for(k in m) s+=m[k]; print s/100}' w/nodecpu.txt)
   f=w/$mode.json; [ $mode = cluster ] && f=w/cluster-cluster.json
   cpu=$(python3 - $mode $f $nodecpu <<'PY'
import sys, json
mode, f, nodecpu = sys.argv[1], sys.argv[2], float(sys.argv[3])
r = json.load(open(f)); dps = r["deliveriesPerSecond"]
rows = [l.split() for l in open("/tmp/s22/w/vmstat-%s.txt" % mode) if l.strip() and l.split()[0].isdigit()]
# the steady middle: skip the first 15 and last 5 samples
rows = rows[15:-5]
busy = sum(int(x[12]) + int(x[13]) for x in rows) / len(rows)
total = sum(t["deliveries"] for t in r["timeline"])
print("busy %.1f%% dps %.0f machine_us/delivery %.0f node_cpu_s %.1f node_us/delivery %.1f" % (busy, dps, busy / 100 * 2e6 / dps, nodecpu, nodecpu * 1e6 / total))
PY
)
   ex=$(psql -qAt "$U" -c "SELECT round(sum(total_exec_time)::numeric) || ' ' || coalesce((SELECT calls FROM pg_stat_statements WHERE query LIKE 'INSERT INTO journal%' LIMIT 1),0) FROM pg_stat_statements")
   echo "$round $mode $b p50/p99/steady99=$r $cpu pg_exec_ms/journal_calls=$ex"
  done
 done
done
