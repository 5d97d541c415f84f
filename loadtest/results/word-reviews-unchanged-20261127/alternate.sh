#!/bin/bash
# alternate hub-path sessions runs: BUILDS (dirs /tmp/s22/NAME/sessionhub), ROUNDS, D (deliveries/s)
cd /work/main
D=${D:-9000}; N=$(python3 -c "print(round($D/18))")
for r in $(seq ${ROUNDS:-2}); do for v in ${BUILDS:-head long}; do b=${v%@*}; extra=""; [ "$v" != "$b" ] && extra="--server-journal-commit-interval ${v#*@}"
  HUB_ARGS="--threads 1 $extra" HUB_BIN=/tmp/s22/$b/sessionhub loadtest/run.sh sessions --player lean --sessions $N --players 6 --rate 0.5 --duration ${DUR:-40} --ramp 10 --quiet --json /tmp/s22/hp-$v-$D-$r.json > /tmp/s22/hp-$v-$D-$r.log 2>&1
  python3 -c "
import json; r=json.load(open('/tmp/s22/hp-$v-$D-$r.json')); d=r['steadyDeliveriesPerSecond']; c=r['server']['cpuPct']
print('$r $v $D', 'deliv/s', d, 'cpu', c, 'us/deliv %.1f' % (c*1e4/d), 'p99', r['fanout']['p99'], 'steady p99', (r.get('steadyFanout') or {}).get('p99'), 'lost', r['lost'], 'dup', r['duplicated'])"
done; done
