#!/usr/bin/env bash
# trace.sh BIN OUTDIR: 1,800/s sessions load, strace the hub's socket writes for 10 s in the steady state
BIN=$1; D=$2; mkdir -p $D; cd /work/main
(HUB_BIN=$BIN LT_BIN=loadtest/.build/release/sessionhub-loadtest HUB_ARGS="--threads 1" loadtest/run.sh sessions --player lean --sessions 100 --players 6 --rate 0.5 --duration 40 --ramp 10 --quiet --json $D/run.json > $D/run.out 2>$D/run.err &)
sleep 3; for i in $(seq 60); do pid=$(grep -o "hub pid [0-9]*" $D/run.err | awk '{print $3}'); [ -n "$pid" ] && break; sleep 0.5; done
sleep 20; timeout -s INT 10 strace -f -p $pid -e trace=write,writev -s 2000 -o $D/trace.txt 2>/dev/null; sleep 25
python3 /tmp/st/parse.py $D/trace.txt | head -12; rm -f $D/trace.txt
