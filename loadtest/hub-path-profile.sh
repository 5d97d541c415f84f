#!/usr/bin/env bash
# hub-path-profile.sh: where the hub's CPU goes on the hub path. Runs the hub-path sessions shape
# (loadtest/hub-path.sh: R sessions x 6 players x 0.5 lines/s, hub pinned to one core with
# --threads 1, the default journal: the log) and, once the hub is busy, records PROFILE_SECONDS of
# it with `perf` and DWARF call graphs (SQLite and the Swift runtime have no frame pointers), then prints
# the hub's CPU by part: socket writes, the ended sessions' writes, journal commits, ...
# (loadtest/profile_parts.py).
#
#   loadtest/hub-path-profile.sh                 # 9,000 deliveries/s offered
#   D=18000 HUB_BIN=/tmp/other/sessionhub loadtest/hub-path-profile.sh
#   MODE=rooms loadtest/hub-path-profile.sh      # the raw /room relay in the same shape (its kernel
#                                                # and NIO costs against the hub's)
#
# Environment: MODE [sessions] or rooms, D [9000] deliveries/s, PROFILE_SECONDS [5], PROFILE_DELAY [12] seconds
#   from the hub getting busy to the recording (the sessions shape's learners end their first sessions
#   some 10-25 s in; 30 records after that), HUB_BIN (as run.sh), HUB_ARGS [--threads 1]
#   (HUB_ARGS="--threads 1 --journal sqlite": the SQLite journal, the default before 2026-12-02), OUT
#   [loadtest/results/hub-path-profile-<date>]: perf.data, the run's JSON, parts.txt.
# Needs `perf` (Debian: linux-perf); on a VM without a PMU it samples cpu-clock. Bounded: the
# run is 60 s of load after connecting; perf records only while it runs.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
: "${MODE:=sessions}" "${D:=9000}" "${PROFILE_SECONDS:=5}" "${PROFILE_DELAY:=12}"
case "$MODE" in sessions|rooms) ;; *) echo "[profile] MODE is sessions or rooms, not $MODE" >&2; exit 64 ;; esac
: "${OUT:=$HERE/results/hub-path-profile-$(date -u +%Y%m%d-%H%M)}"
command -v perf >/dev/null || { . "$HERE/../scripts/deps.sh"; need_debs linux-perf; }
mkdir -p "$OUT"
# Both builds first (a first build of the load generator takes minutes): the wait for the hub
# below then times the hub's start, not a compiler.
. "$HERE/build.sh"
build_loadtest
build_hub
export LT_BIN="$LT" HUB_BIN
N=$(python3 -c "print(max(1, round($D / 18)))")
if [ "$MODE" = sessions ]; then
  HUB_ARGS="${HUB_ARGS:---threads 1}" "$HERE/run.sh" sessions --player lean --sessions "$N" --players 6 --rate 0.5 --duration 60 \
    --ramp 10 --quiet --json "$OUT/$MODE.json" >"$OUT/run.log" 2>&1 &
else
  HUB_ARGS="${HUB_ARGS:---threads 1}" "$HERE/run.sh" rooms --rooms "$N" --members 6 --rate 0.5 --duration 60 --size 200 \
    --quiet --json "$OUT/$MODE.json" >"$OUT/run.log" 2>&1 &
fi
RUN=$!
PID=""
for _ in $(seq 600); do
  PID=$(grep -o "hub pid [0-9]*" "$OUT/run.log" 2>/dev/null | grep -o "[0-9]*$" || true)
  [ -n "$PID" ] && break
  kill -0 "$RUN" 2>/dev/null || { cat "$OUT/run.log" >&2; exit 1; }
  sleep 0.2
done
[ -n "$PID" ] || { echo "[profile] the hub did not start" >&2; exit 1; }
# Busy: more than half a core for a second (tokens are minted and players connect first); the
# relay, a tenth.
ticks() { awk '{print $14 + $15}' "/proc/$PID/stat" 2>/dev/null || echo 0; }
hz=$(getconf CLK_TCK)
busy=$((hz / 2)); [ "$MODE" = rooms ] && busy=$((hz / 10))
for _ in $(seq 300); do
  a=$(ticks); sleep 1; b=$(ticks)
  [ $((b - a)) -gt "$busy" ] && break
done
sleep "$PROFILE_DELAY"   # past the ramp (12 s by default)
echo "[profile] recording hub pid $PID for $PROFILE_SECONDS s" >&2
perf record -e cpu-clock -F 499 --call-graph dwarf,16384 -p "$PID" -o "$OUT/perf.data" -- sleep "$PROFILE_SECONDS" \
  >"$OUT/perf.log" 2>&1 || true
wait "$RUN"
perf script -i "$OUT/perf.data" --no-inline -F comm,tid,ip,sym 2>/dev/null >"$OUT/perf.script"
python3 "$HERE/profile_parts.py" "$OUT/perf.script" | tee "$OUT/parts.txt"
python3 - "$OUT/$MODE.json" <<'PY' | tee -a "$OUT/parts.txt"
import json, sys
r = json.load(open(sys.argv[1]))
d = r.get("steadyDeliveriesPerSecond") or r["deliveriesPerSecond"]
c = r["server"]["cpuPct"]
print("delivered %d/s, hub CPU %.1f %%, %.1f µs per delivery, p99 %.1f ms, lost %d, duplicated %d, steal %s %%" % (
    d, c, c * 1e4 / d, r["fanout"]["p99"], r["lost"], r["duplicated"], r["server"].get("machineStealPct")))
PY
rm -f "$OUT/perf.script"
