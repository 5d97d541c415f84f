#!/usr/bin/env bash
# ceiling.sh: the most deliveries/s a server keeps at p99 <= 10 ms with nothing lost, on one core
# (issue 11: "the hub's ceiling over the relay's"). Steps through the offered rates given, in the
# hub-path shape (loadtest/hub-path.sh: R sessions or rooms of 6, each member sending 0.5 messages/s,
# R = D / 18), each step a fresh release hub pinned to one core with one event loop (`--threads 1`)
# and the default journal (the log journal; until 2026-12-02 the SQLite journal; HUB_ARGS="--threads 1
# --journal sqlite" for that one), the load generator on the other core, and stops after the second
# step over the bound.
#
#   loadtest/ceiling.sh sessions 6000 7500 9000 10500 12000   # the /ws path, full protocol
#   loadtest/ceiling.sh rooms 30000 45000 60000 75000         # the raw /room relay
#
# Prints one row per step (delivered/s, p99, hub CPU, load generator CPU, lost/dup) and the ceiling:
# the highest step delivered at >= 97 % of the offered rate with p99 <= 10 ms, 0 lost, 0 duplicated.
# A step whose load generator used more than 90 % of its core measured the load generator too:
# it is marked, and a ceiling at or above it is a lower bound of the server's.
#
# Environment: PLAYERS [6] RATE [0.5] DURATION [30] BOUND_MS [10], HUB_BIN / HUB_ARGS [--threads 1]
#   / PIN as loadtest/run.sh; OUT [loadtest/results/ceiling-MODE-<date>] keeps each step's JSON.
# Loopback only; every step is bounded (run.sh and the load generator's own watchdog).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
MODE="${1:-}"
case "$MODE" in
  sessions|rooms) shift ;;
  *) sed -n '2,20p' "$0" >&2; exit 64 ;;
esac
[ $# -gt 0 ] || { echo "[ceiling] give the offered deliveries/s to try, lowest first" >&2; exit 64; }
: "${PLAYERS:=6}" "${RATE:=0.5}" "${DURATION:=30}" "${BOUND_MS:=10}"
: "${HUB_ARGS:=--threads 1}"
export HUB_ARGS
: "${OUT:=$HERE/results/ceiling-$MODE-$(date -u +%Y%m%d-%H%M)}"
mkdir -p "$OUT"
over=0
for D in "$@"; do
  [[ "$D" =~ ^[0-9]+$ ]] || { echo "[ceiling] not a rate: $D" >&2; exit 64; }
  N=$(python3 -c "print(max(1, round($D / ($PLAYERS * $PLAYERS * $RATE))))")
  echo "[ceiling] $MODE at $D deliveries/s: $N x $PLAYERS, $RATE messages/s each" >&2
  if [ "$MODE" = sessions ]; then
    "$HERE/run.sh" sessions --player lean --sessions "$N" --players "$PLAYERS" --rate "$RATE" --duration "$DURATION" \
      --ramp 10 --quiet --json "$OUT/$D.json" >"$OUT/$D.log" 2>&1 || true
  else
    "$HERE/run.sh" rooms --rooms "$N" --members "$PLAYERS" --rate "$RATE" --duration "$DURATION" --size 200 \
      --quiet --json "$OUT/$D.json" >"$OUT/$D.log" 2>&1 || true
  fi
  verdict=$(python3 - "$OUT/$D.json" "$D" "$BOUND_MS" <<'PY'
import json, sys
path, offered, bound = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
try:
    r = json.load(open(path))
except (OSError, ValueError):
    print("over")
    sys.exit()
rate = r.get("steadyDeliveriesPerSecond") or r["deliveriesPerSecond"]
ok = rate >= 0.97 * offered and r["fanout"]["p99"] <= bound and r["lost"] == 0 and r["duplicated"] == 0
print("ok" if ok else "over")
PY
)
  if [ "$verdict" = over ]; then over=$((over + 1)); else over=0; fi
  [ "$over" -ge 2 ] && break
done
SETUP="one core"
[ "${PIN:-1}" = 1 ] || SETUP="unpinned"
SETUP="$SETUP, $HUB_ARGS"
python3 - "$OUT" "$BOUND_MS" "$MODE" "$SETUP" "$@" <<'PY'
import json, os, sys
out, bound, mode, setup, rates = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:]
print("| %s offered/s | delivered/s | p99 | hub CPU | µs per delivery | load generator CPU | lost / dup |" % mode)
print("|---:|---:|---:|---:|---:|---:|---|")
best, bound_by_loadgen = None, False
for d in rates:
    path = os.path.join(out, "%s.json" % d)
    if not os.path.exists(path):
        continue
    try:
        r = json.load(open(path))
    except ValueError:
        print("| %s | (no report: see %s.log) | | | | | |" % (d, d))
        continue
    rate = r.get("steadyDeliveriesPerSecond") or r["deliveriesPerSecond"]
    cpu = (r.get("server") or {}).get("cpuPct") or 0
    lg = r.get("loadtestCpuPct") or 0
    p99 = r["fanout"]["p99"]
    ok = rate >= 0.97 * float(d) and p99 <= bound and r["lost"] == 0 and r["duplicated"] == 0
    mark = " (load generator saturated)" if lg > 90 else ""
    print("| %s | %.0f | %.2f ms | %.0f %% | %.1f | %.0f %%%s | %d / %d |" % (
        d, rate, p99, cpu, cpu * 1e4 / rate if rate else float("nan"), lg, mark, r["lost"], r["duplicated"]))
    if ok and (best is None or rate > best):
        best, bound_by_loadgen = rate, lg > 90
if best is None:
    print("\nceiling: below the lowest rate tried")
else:
    print("\nceiling (%s, %s, p99 <= %g ms, 0 lost): %.0f deliveries/s%s" % (
        mode, setup, bound, best, " (a lower bound: the load generator was saturated)" if bound_by_loadgen else ""))
PY
echo "[ceiling] results in $OUT" >&2
