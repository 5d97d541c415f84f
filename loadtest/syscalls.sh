#!/usr/bin/env bash
# syscalls.sh [RATE] [RUNS]: what the hub asks of the kernel per delivery, a figure that moves far
# less from run to run than CPU time on a shared VM. Each run starts a fresh release hub (run.sh:
# pinned to one core, `--threads 1`, new files, the default journal: the log) under the hub-path
# shape (sessions of 6 players, 0.5 lines/s each, `--player lean`) at RATE deliveries/s (default
# 6000), waits for the steady state, records the hub's system calls for WINDOW seconds with
# `perf record` on the syscall tracepoints, and prints them per delivery: file writes and reads
# (the log journal's segments; SQLite's WAL and checkpoints), socket writes, futex waits and
# wakes, epoll waits, and the hub's context switches (from /proc), with the run's delivered rate,
# CPU and p99.
#
#   loadtest/syscalls.sh                 # 6,000/s, one run
#   HUB_BIN=/tmp/old-sessionhub loadtest/syscalls.sh 6000 3
#
# Environment: HUB_BIN, PIN as run.sh; HUB_ARGS [--threads 1] (`PIN=0 HUB_ARGS="--threads 2"`: both
# cores; `HUB_ARGS="--threads 1 --journal sqlite"`: the SQLite journal instead of the default log);
# WINDOW [8] seconds; OUT [loadtest/results/syscalls-<date>].
# Needs `perf` (Debian: linux-perf) and root (or perf_event_paranoid <= 1). Loopback only; every
# run is bounded by run.sh and the load generator's own watchdog.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
RATE="${1:-6000}"
RUNS="${2:-1}"
: "${WINDOW:=8}" "${OUT:=$HERE/results/syscalls-$(date -u +%Y%m%d-%H%M)}"
command -v perf >/dev/null || { echo "syscalls.sh: perf is missing (apt-get install -y linux-perf)" >&2; exit 1; }
export HUB_ARGS="${HUB_ARGS:---threads 1}"
SESSIONS=$(python3 -c "print(max(1, round($RATE / 18)))")
EVENTS=pwrite64,pread64,write,writev,read,futex,epoll_wait
mkdir -p "$OUT"
for run in $(seq "$RUNS"); do
  dir="$OUT/run-$run"
  mkdir -p "$dir"
  "$HERE/run.sh" sessions --player lean --sessions "$SESSIONS" --players 6 --rate 0.5 --duration 40 --ramp 10 \
    --quiet --json "$dir/run.json" >/dev/null 2>"$dir/run.err" &
  loadtest=$!
  pid=""
  for _ in $(seq 240); do
    pid=$(grep -o "hub pid [0-9]*" "$dir/run.err" 2>/dev/null | awk '{print $3}' || true)
    [ -n "$pid" ] && break
    sleep 0.5
  done
  [ -n "$pid" ] || { echo "syscalls.sh: the hub did not start (see $dir/run.err)" >&2; wait "$loadtest" || true; exit 1; }
  # The load has begun once the hub uses CPU; then the ramp (10 s) and a few seconds more.
  ticks() { awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0; }
  for _ in $(seq 120); do
    before=$(ticks); sleep 1; after=$(ticks)
    [ $((after - before)) -gt 15 ] && break
  done
  sleep 14
  switches() { awk '/ctxt_switches/ {n += $2} END {print n + 0}' /proc/"$pid"/task/*/status 2>/dev/null || echo 0; }
  ls -l "/proc/$pid/fd" 2>/dev/null | awk 'NF >= 11 {print $9, $11}' >"$dir/fds.txt"
  cs0=$(switches)
  tracepoints=()
  for event in ${EVENTS//,/ }; do tracepoints+=(-e "syscalls:sys_enter_$event"); done
  timeout -s INT "$WINDOW" perf record -q -a "${tracepoints[@]}" -o "$dir/perf.data" >/dev/null 2>&1 || true
  cs1=$(switches)
  perf script -i "$dir/perf.data" -F pid,event,trace 2>/dev/null | awk -v pid="$pid" '$1 == pid' >"$dir/calls.txt" || true
  rm -f "$dir/perf.data" "$dir/perf.data.old"
  echo "$((cs1 - cs0))" >"$dir/switches.txt"
  wait "$loadtest"
  python3 - "$dir" "$WINDOW" <<'PY'
import collections, json, re, sys
d, window = sys.argv[1], float(sys.argv[2])
r = json.load(open(d + "/run.json"))
rate = r.get("steadyDeliveriesPerSecond") or r["deliveriesPerSecond"]
fds = dict(line.split(None, 1) for line in open(d + "/fds.txt") if len(line.split()) == 2)
def kind(fd):
    target = fds.get(str(int(fd, 16)), "").strip()
    if target.startswith("socket:"): return "socket"
    # The log journal's segments (data/…-journal.log/journal-NNNNNNNN.log).
    if "-journal.log/" in target: return "journal-log"
    # The SQLite journal's own file (data/…-journal.sqlite) apart from the store's.
    owner = "journal-" if "-journal.sqlite" in target else ""
    if target.endswith("-wal"): return owner + "wal"
    if target.endswith(".sqlite"): return owner + "db"
    return "other"
counts = collections.Counter()
for line in open(d + "/calls.txt"):
    m = re.match(r"\s*\d+\s+syscalls:sys_enter_(\w+):(?:\s+fd: (0x[0-9a-f]+))?", line)
    if not m: continue
    call, fd = m.groups()
    counts[call + ("" if fd is None or call in ("futex", "epoll_wait") else ":" + kind(fd))] += 1
counts["context switches"] = int(open(d + "/switches.txt").read())
per = {k: v / window / rate for k, v in counts.items()} if rate else {}
summary = {"deliveredPerSecond": rate, "p99ms": r["fanout"]["p99"], "cpuPct": (r.get("server") or {}).get("cpuPct"),
           "lost": r["lost"], "duplicated": r["duplicated"], "perDelivery": dict(sorted(per.items()))}
json.dump(summary, open(d + "/summary.json", "w"), indent=1)
print("delivered %.0f/s, p99 %.2f ms, CPU %s %%, lost %d, duplicated %d" % (rate, r["fanout"]["p99"], summary["cpuPct"], r["lost"], r["duplicated"]))
for k, v in sorted(per.items(), key=lambda kv: -kv[1]):
    if v >= 0.005: print("  %-22s %6.2f per delivery" % (k, v))
PY
done
echo "[syscalls] results in $OUT" >&2
