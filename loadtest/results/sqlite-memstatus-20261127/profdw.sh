#!/bin/bash
cd /work/main
HUB_ARGS="--threads 1" HUB_BIN=/tmp/s21/$1/sessionhub loadtest/run.sh sessions --player lean --sessions 500 --players 6 --rate 0.5 --duration 45 --ramp 10 --quiet --json /tmp/s21/prof-$2.json > /tmp/s21/prof-$2.log 2>&1 &
for i in $(seq 120); do sleep 1; P=$(pgrep -f "/tmp/s21/$1/sessionhub serve" | head -1); [ -n "$P" ] && break; done
prev=$(awk '{print $14+$15}' /proc/$P/stat)
for i in $(seq 200); do sleep 1; cur=$(awk '{print $14+$15}' /proc/$P/stat); [ $((cur-prev)) -gt 40 ] && break; prev=$cur; done
sleep 15
perf record -F 1000 --call-graph dwarf,16384 -p $P -o /tmp/s21/$2.data -- sleep 8 2>&1 | tail -1
wait
perf script -i /tmp/s21/$2.data -F comm,tid,ip,sym 2>/dev/null > /tmp/s21/$2.txt
