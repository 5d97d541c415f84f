#!/bin/bash
# alternate hub-path sessions runs: BUILDS, ROUNDS, D (deliveries/s)
cd /work/main
D=${D:-9000}; N=$(python3 -c "print(round($D/18))")
for r in $(seq ${ROUNDS:-2}); do for b in ${BUILDS:-base wal}; do
  if [ $b = xnohist ]; then export XNOHIST=1; else unset XNOHIST; fi
  HUB_ARGS="--threads 1" HUB_BIN=/tmp/s19/hub-$b loadtest/run.sh sessions --player lean --sessions $N --players 6 --rate 0.5 --duration 40 --ramp 10 --quiet --json /tmp/s19/hp-$b-$r.json > /tmp/s19/hp-$b-$r.log 2>&1 &
  pid=$!; maxwal=0
  while kill -0 $pid 2>/dev/null; do w=$(stat -c %s loadtest/.run/hub.*/hub.sqlite-wal 2>/dev/null | head -1); [ -n "$w" ] && [ "$w" -gt "$maxwal" ] && maxwal=$w; sleep 2; done
  python3 -c "
import json; r=json.load(open('/tmp/s19/hp-$b-$r.json')); d=r['steadyDeliveriesPerSecond']; c=r['server']['cpuPct']
print('$r $b', 'deliv/s', d, 'cpu', c, 'us/deliv %.1f' % (c*1e4/d), 'p99', r['fanout']['p99'], 'lost', r['lost'], 'dup', r['duplicated'], 'maxwal MB %.0f' % ($maxwal/1e6))"
done; done
