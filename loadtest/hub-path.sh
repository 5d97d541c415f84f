#!/usr/bin/env bash
# hub-path.sh (also `loadtest/compare.sh hub-path`): the hub's own cost per delivery against the raw
# relay's, in one run. For each offered rate D (deliveries/s), two runs on a fresh release hub pinned
# to one core (load generator on the other), with the same shape: R sessions of K players over /ws
# with the full protocol (JSON, validation, the default journal, stats), then R rooms of K members on the
# raw /room relay, every member sending RATE messages/s, R = D / (K * K * RATE). Prints server CPU µs
# per delivery for both and their ratio (issue 11's figure), with p99 and what was delivered, and the
# messages the clients received per delivery (a session also broadcasts its stats, participants and
# end; the relay sends only the deliveries) with the CPU per message.
#
#   loadtest/hub-path.sh                  # D = 9000 and 30000
#   loadtest/hub-path.sh 9000             # one rate
#   PLAYERS=6 RATE=0.5 DURATION=40 loadtest/hub-path.sh 18000
#
# Environment: PLAYERS [6] RATE [0.5] DURATION [40] SIZE [200] (room message bytes, about a line's JSON),
#   HUB_BIN / HUB_ARGS [--threads 1] / PIN as loadtest/run.sh; OUT [loadtest/results/hub-path-<date>].
# The journal is the hub's default, the log journal (`--journal log`; runs before 2026-12-02 measured
# the SQLite journal, then the default): HUB_ARGS="--threads 1 --journal sqlite" measures that one.
# Loopback only; every run is bounded (run.sh, the load generator's own watchdog).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
: "${PLAYERS:=6}" "${RATE:=0.5}" "${DURATION:=40}" "${SIZE:=200}"
# One event loop for one core (both runs alike); HUB_ARGS replaces it.
: "${HUB_ARGS:=--threads 1}"
export HUB_ARGS
: "${OUT:=$HERE/results/hub-path-$(date -u +%Y%m%d-%H%M)}"
RATES=("$@")
[ ${#RATES[@]} -gt 0 ] || RATES=(9000 30000)
mkdir -p "$OUT"
for D in "${RATES[@]}"; do
  N=$(python3 -c "print(max(1, round($D / ($PLAYERS * $PLAYERS * $RATE))))")
  echo "[hub-path] $D deliveries/s: $N sessions x $PLAYERS players, then $N rooms x $PLAYERS members, $RATE msg/s each" >&2
  "$HERE/run.sh" sessions --player lean --sessions "$N" --players "$PLAYERS" --rate "$RATE" --duration "$DURATION" --ramp 10 \
    --quiet --json "$OUT/sessions-$D.json" >/dev/null
  "$HERE/run.sh" rooms --rooms "$N" --members "$PLAYERS" --rate "$RATE" --duration "$((${DURATION%.*} - 10))" \
    --size "$SIZE" --quiet --json "$OUT/rooms-$D.json" >/dev/null
done
python3 - "$OUT" "${RATES[@]}" <<'PY'
import json, os, sys
out, rates = sys.argv[1], sys.argv[2:]
def figures(path, steady):
    r = json.load(open(path))
    rate = (r.get("steadyDeliveriesPerSecond") if steady else None) or r["deliveriesPerSecond"]
    cpu = (r.get("server") or {}).get("cpuPct")
    us = cpu / 100 * 1e6 / rate if cpu and rate else float("nan")
    # Messages the clients received per delivery counted: a session's players also get its other
    # broadcasts (stats, participants, ends; a speaker's acknowledgement is its own line, and the
    # few replies to joins are left out); the relay sends nothing else.
    received = r.get("received") or 0
    frames = (received + (r.get("otherBroadcasts") or 0)) / received if received else float("nan")
    return rate, cpu, us, r["fanout"]["p99"], r["lost"], r["duplicated"], frames
print("| offered/s | run | delivered/s | server CPU | µs CPU per delivery | p99 | lost / dup | messages per delivery | µs per message |")
print("|---:|---|---:|---:|---:|---:|---|---:|---:|")
for d in rates:
    s = figures(os.path.join(out, "sessions-%s.json" % d), True)
    r = figures(os.path.join(out, "rooms-%s.json" % d), False)
    for name, f in (("/ws sessions (full protocol)", s), ("/room raw relay", r)):
        print("| %s | %s | %.0f | %.0f %% | %.1f | %.2f ms | %d / %d | %.2f | %.1f |"
              % (d, name, f[0], f[1] or 0, f[2], f[3], f[4], f[5], f[6], f[2] / f[6]))
    print("| %s | **ratio hub / relay** | | | **%.2f ×** | | | | %.2f × |" % (d, s[2] / r[2], (s[2] / s[6]) / (r[2] / r[6])))
PY
echo "[hub-path] results in $OUT" >&2
