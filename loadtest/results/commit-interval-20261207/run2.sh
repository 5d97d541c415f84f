#!/usr/bin/env bash
# run2.sh BIN OUT D EXTRA_HUB_ARGS
cd /work/main
BIN=$1; OUT=$2; D=${3:-19000}; EXTRA=${4:-}
METRICS_OUT=$OUT.metrics HUB_BIN=$BIN LT_BIN=loadtest/.build/release/sessionhub-loadtest HUB_ARGS="--threads 1 $EXTRA" loadtest/run.sh sessions --player lean --sessions $((D/18)) --players 6 --rate 0.5 --duration 40 --ramp 10 --quiet --json $OUT > $OUT.log 2>&1
python3 - "$OUT" <<'PY'
import json,sys
d=json.load(open(sys.argv[1]))
def find(o,k):
    if isinstance(o,dict):
        if k in o: return o[k]
        for v in o.values():
            r=find(v,k)
            if r is not None: return r
    return None
cpu=find(d,'cpuPct'); dps=find(d,'steadyDeliveriesPerSecond')
f=find(d,'fanout'); rss=find(d,'rssPeakMiB') or find(d,'peakRSSMiB')
print(sys.argv[1], 'us/delivery %.1f'%(cpu*1e4/dps), 'dps %.0f'%dps, 'p99', (f or {}).get('p99') if isinstance(f,dict) else f, 'lost', find(d,'lost'), 'dup', find(d,'duplicated'))
PY
