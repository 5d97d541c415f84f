#!/usr/bin/env bash
# compare.sh: the hub's /room relay and the peer servers of shared/peers under the same room load,
# all measured by the same instrument (`sessionhub-loadtest rooms`), then printed as one markdown
# table. Cross-checks: the peers' Go load generator (loadgen) against the hub's /echo (server CPU per
# echoed message, with gorilla's in the same run for the ratio) and against the hub's /room (so the
# two instruments can be compared on the same server).
#
#   loadtest/compare.sh                   hub + go node python swift
#   loadtest/compare.sh hub go            some of them (hub go node python swift)
#   loadtest/compare.sh hub-path [D ...]  the hub's /ws path against its raw relay: server CPU µs per
#                                         delivery and their ratio at D deliveries/s (loadtest/hub-path.sh)
#
# Environment (defaults in brackets):
#   ROOMS [100] MEMBERS [5] RATE [10] DURATION [20] SIZE [100]  the rooms load (as the peers' bench.sh)
#   PIN [1]: server on CPU SERVER_CPUS [1], load generator on CPU LOADGEN_CPUS [0] (taskset)
#   REPEAT [1]: run the whole set this many times, round-robin; the table shows medians
#   HUB_BIN: a sessionhub binary to use instead of building one (release build into loadtest/.hub-build)
#   PEERS_SRC [../../shared/peers from here]: the peer kit; it is copied to loadtest/.peers and built
#            there, so nothing is written into shared/
#   ECHO_CONNS [50] ECHO_MSGS [2000] ECHO_SIZE [128]            the loadgen echo cross-check; CROSSCHECK [1]
#   RESULTS_DIR [loadtest/results]
# Traffic goes to 127.0.0.1 only; every load run is bounded in count and time; servers started here
# are stopped by their process group id.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
MAIN="$(cd "$HERE/.." && pwd)"
: "${ROOMS:=100}" "${MEMBERS:=5}" "${RATE:=10}" "${DURATION:=20}" "${SIZE:=100}"
: "${PIN:=1}" "${SERVER_CPUS:=1}" "${LOADGEN_CPUS:=0}" "${CROSSCHECK:=1}" "${REPEAT:=1}"
: "${ECHO_CONNS:=50}" "${ECHO_MSGS:=2000}" "${ECHO_SIZE:=128}"
: "${PEERS_SRC:=$(cd "$MAIN/../shared/peers" 2>/dev/null && pwd || echo /work/shared/peers)}"
: "${RESULTS_DIR:=$HERE/results}"

if [ "${1:-}" = hub-path ]; then shift; exec "$HERE/hub-path.sh" "$@"; fi
WANT=()
for a in "$@"; do
  case "$a" in
    hub|go|node|python|swift) WANT+=("$a") ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "unknown argument: $a (hub go node python swift)" >&2; exit 2 ;;
  esac
done
[ ${#WANT[@]} -gt 0 ] || WANT=(hub go node python swift)
declare -A PEER_DIR=([go]=go-gorilla [node]=node-ws [python]=python-websockets [swift]=swift-hummingbird)
declare -A ROW_NAME=([hub]=sessionhub [go]=go-gorilla [node]=node-ws [python]=python-websockets [swift]=swift-hummingbird)

SRV_PIN=() LG_PIN=()
if [ "$PIN" = 1 ] && [ "$(nproc)" -ge 2 ]; then SRV_PIN=(taskset -c "$SERVER_CPUS"); LG_PIN=(taskset -c "$LOADGEN_CPUS"); fi

# ---- the peer kit, copied so its builds stay out of shared/ ----
PEERS_COPY="$HERE/.peers"
mkdir -p "$PEERS_COPY"
( cd "$PEERS_SRC" && tar --exclude=./bin --exclude=./.venv --exclude=./.gopath --exclude=./results --exclude='./*/.build' -cf - . ) | ( cd "$PEERS_COPY" && tar -xf - )
chmod -R u+w "$PEERS_COPY"
# shellcheck source=/dev/null
. "$PEERS_COPY/lib.sh"
need_deb iproute2 coreutils util-linux
raise_nofile 65536
echo "[compare] open-file limit: $(ulimit -n)" >&2

# ---- builds ----
echo "[compare] building sessionhub-loadtest and the hub (release; the hub into loadtest/.hub-build unless HUB_BIN is set)" >&2
. "$HERE/build.sh"
build_loadtest
build_hub
"$PEERS_COPY/loadgen/build.sh"
LOADGEN="$PEERS/bin/loadgen"
READY=()
for k in "${WANT[@]}"; do
  if [ "$k" != hub ]; then
    echo "[compare] preparing ${PEER_DIR[$k]}" >&2
    if ! "$PEERS_COPY/${PEER_DIR[$k]}/run.sh" --build; then echo "[compare] ${PEER_DIR[$k]} did not build: left out" >&2; continue; fi
  fi
  READY+=("$k")
done
WANT=("${READY[@]}")

RUN_ID="compare-$(date +%Y%m%d-%H%M%S)"
export HUB_REV="$(git -C "$MAIN" describe --always --dirty 2>/dev/null || echo unknown)"
export HUB_BIN
OUT="$RESULTS_DIR/$RUN_ID"
mkdir -p "$OUT"
exec 2> >(tee -a "$OUT/compare.log" >&2)

# ---- process helpers (act only on what this script started) ----
SPID=""
listening() { ss -Htln "sport = :$1" 2>/dev/null | grep -q .; }
listener_pid() { ss -Htlnp "sport = :$1" 2>/dev/null | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2; }
cpu_s() { local s f; s="$(cat "/proc/$1/stat" 2>/dev/null)" || { echo 0; return; }; f=(${s##*) }); awk -v t=$(( f[11] + f[12] )) -v hz="$(getconf CLK_TCK)" 'BEGIN{printf "%.3f", t/hz}'; }
alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }
stop_server() {
  [ -n "$SPID" ] || return 0
  kill -TERM -- "-$SPID" 2>/dev/null || kill -TERM "$SPID" 2>/dev/null || true
  for _ in $(seq 50); do alive "$SPID" || break; sleep 0.1; done
  kill -KILL -- "-$SPID" 2>/dev/null || true
  wait "$SPID" 2>/dev/null || true
  SPID=""
}
trap stop_server EXIT
trap 'exit 130' INT TERM
free_port() { local p=$1; while [ "$p" -le 19099 ]; do listening "$p" || { echo "$p"; return; }; p=$((p + 1)); done; return 1; }

start_server() { # NAME CMD -> sets SPID, PORT, LPID
  local name=$1 template=$2 t0
  PORT="$(free_port "$NEXT_PORT")"; NEXT_PORT=$((PORT + 1))
  local cmd="${template//\{port\}/$PORT}"
  echo "[compare] === $name on 127.0.0.1:$PORT" >&2
  PORT=$PORT setsid "${SRV_PIN[@]}" bash -c "$cmd" >"$OUT/$name.server.log" 2>&1 </dev/null &
  SPID=$!
  t0=$(date +%s)
  until listening "$PORT"; do
    if ! alive "$SPID" || [ $(($(date +%s) - t0)) -ge 180 ]; then
      echo "[compare] $name did not start (log: $OUT/$name.server.log)" >&2; stop_server; return 1
    fi
    sleep 0.2
  done
  LPID="$(listener_pid "$PORT")"; [ -n "$LPID" ] || LPID=$SPID
  sleep 0.5
}

mkdir -p "$HERE/.run"
HUB_DATA="$(mktemp -d "$HERE/.run/compare-hub.XXXXXX")"
# Every connection comes from 127.0.0.1: lift the per-address caps (docs/OPERATIONS.md).
HUB_CMD="exec $(printf '%q' "$HUB_BIN") serve --port {port} --enable-rooms --enable-echo --log-level warning --secret-file $(printf '%q' "$HUB_DATA/secret") --database $(printf '%q' "$HUB_DATA/hub.sqlite") --server-max-connections-per-address 1000000 --server-max-unauthenticated-per-address 1000000"

NEXT_PORT=19010
for REP in $(seq "$REPEAT"); do
for k in "${WANT[@]}"; do
  name="${ROW_NAME[$k]}"
  tag="$name.$REP"
  if [ "$k" = hub ]; then cmd="$HUB_CMD"; else cmd="exec $(printf '%q' "$PEERS_COPY/${PEER_DIR[$k]}/run.sh") {port}"; fi
  start_server "$tag" "$cmd" || continue
  timeout -k 5 $((DURATION + 120)) "${LG_PIN[@]}" "$LT" rooms --url "ws://127.0.0.1:$PORT/room" --rooms "$ROOMS" --members "$MEMBERS" \
    --rate "$RATE" --duration "$DURATION" --size "$SIZE" --label "$name" --server-pid "$LPID" --threads 1 --quiet \
    --json "$OUT/$tag.rooms.json" --html "$OUT/$tag.rooms.html" >"$OUT/$tag.rooms.txt" || echo "[compare] $name: rooms exited with $?" >&2
  if [ "$CROSSCHECK" = 1 ] && { [ "$k" = hub ] || [ "$k" = go ]; }; then
    c0=$(cpu_s "$LPID")
    timeout -k 5 150 "${LG_PIN[@]}" "$LOADGEN" -mode echo -name "$name" -url "ws://127.0.0.1:$PORT" -conns "$ECHO_CONNS" -msgs "$ECHO_MSGS" \
      -size "$ECHO_SIZE" -max-time 120s >"$OUT/$tag.loadgen-echo.json" 2>>"$OUT/compare.log" || echo "[compare] $name: loadgen echo exited with $?" >&2
    echo "{\"cpu_echo_s\": $(awk -v a="$c0" -v b="$(cpu_s "$LPID")" 'BEGIN{printf "%.3f", b-a}')}" >"$OUT/$tag.echo-cpu.json"
    if [ "$k" = hub ]; then
      c0=$(cpu_s "$LPID")
      timeout -k 5 $((DURATION + 90)) "${LG_PIN[@]}" "$LOADGEN" -mode rooms -name "$name" -url "ws://127.0.0.1:$PORT" -rooms "$ROOMS" -clients "$MEMBERS" \
        -rate "$RATE" -duration "${DURATION}s" -size "$SIZE" -max-time "$((DURATION + 60))s" >"$OUT/$tag.loadgen-rooms.json" 2>>"$OUT/compare.log" ||
        echo "[compare] $name: loadgen rooms exited with $?" >&2
      echo "{\"cpu_rooms_s\": $(awk -v a="$c0" -v b="$(cpu_s "$LPID")" 'BEGIN{printf "%.3f", b-a}')}" >"$OUT/$tag.loadgen-rooms-cpu.json"
    fi
  fi
  stop_server
done
done
rm -rf "$HUB_DATA"

# ---- the table ----
python3 - "$OUT" "$ROOMS" "$MEMBERS" "$RATE" "$DURATION" "$SIZE" "$REPEAT" "${WANT[@]}" <<'PY' | tee "$OUT/table.md"
import json, os, statistics, sys
out, rooms, members, rate, duration, size, repeat = sys.argv[1:8]
repeat = int(repeat)
names = {"hub": "sessionhub", "go": "go-gorilla", "node": "node-ws", "python": "python-websockets", "swift": "swift-hummingbird"}
keys = sys.argv[8:]
def load(p):
    try:
        with open(os.path.join(out, p)) as f:
            text = f.read().strip()
        return json.loads(text.splitlines()[-1] if "loadgen-" in p else text)
    except Exception:
        return None
def runs(name, kind):
    return [r for r in (load(f"{name}.{i}.{kind}.json") for i in range(1, repeat + 1)) if r]
def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else float("nan")
offered = int(rooms) * int(members) * float(rate) * int(members)
print(f"Rooms: {rooms} rooms x {members} members, {rate} msg/s each for {duration} s, {size}-byte messages "
      f"({offered:.0f} deliveries/s offered); measured by `sessionhub-loadtest rooms`"
      + (f"; medians of {repeat} runs" if repeat > 1 else "") + "; server pinned to one CPU, load generator to the other.")
print()
print(f"Hub: {os.environ.get('HUB_BIN', '?')} (source tree: {os.environ.get('HUB_REV', '?')}, binary built {__import__('time').strftime('%Y-%m-%d %H:%M', __import__('time').localtime(os.path.getmtime(os.environ['HUB_BIN']))) if os.path.exists(os.environ.get('HUB_BIN', '')) else '?'}); "
      "\"other procs\" is the CPU of everything else on the machine in the same window (noise).")
print()
print("| server | deliveries/s | p50 ms | p99 ms | p99.9 ms | max ms | lost | dup/ooo | server CPU % | server RSS MiB (peak) | load test CPU % | other procs CPU % |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for k in keys:
    rs = runs(names[k], "rooms")
    if not rs:
        print(f"| {names[k]} | did not run | | | | | | | | | | |"); continue
    f = lambda key: med([r["fanout"][key] for r in rs])
    sv = lambda key: med([(r.get("server") or {}).get(key) for r in rs])
    print(f"| {names[k]} | {med([r['deliveriesPerSecond'] for r in rs]):.0f} | {f('p50'):.3f} | {f('p99'):.3f} | {f('p999'):.3f} | {f('max'):.1f} | "
          f"{sum(r['lost'] for r in rs)} | {sum(r['duplicated'] + r['outOfOrder'] for r in rs)} | {sv('cpuPct'):.0f} | {sv('rssPeakMiB'):.1f} | "
          f"{med([r['loadtestCpuPct'] for r in rs]):.0f} | {sv('otherProcessesPct'):.0f} |")
hub_lg = runs("sessionhub", "loadgen-rooms"); hub_cpu = runs("sessionhub", "loadgen-rooms-cpu"); hub_lt = runs("sessionhub", "rooms")
if hub_lg and hub_lt:
    print()
    print("Cross-check, same hub and load, the two instruments (loadgen = shared/peers/loadgen, run right after):")
    print()
    print("| instrument | deliveries/s | p50 ms | p99 ms | max ms | lost | server CPU % |")
    print("|---|---|---|---|---|---|---|")
    print(f"| sessionhub-loadtest rooms | {med([r['deliveriesPerSecond'] for r in hub_lt]):.0f} | {med([r['fanout']['p50'] for r in hub_lt]):.3f} | "
          f"{med([r['fanout']['p99'] for r in hub_lt]):.3f} | {med([r['fanout']['max'] for r in hub_lt]):.1f} | {sum(r['lost'] for r in hub_lt)} | "
          f"{med([(r.get('server') or {}).get('cpuPct') for r in hub_lt]):.0f} |")
    cpu = med([100 * c["cpu_rooms_s"] / float(duration) for c in hub_cpu])
    print(f"| loadgen rooms | {med([r['deliveries_per_s'] for r in hub_lg]):.0f} | {med([r['p50_ms'] for r in hub_lg]):.3f} | "
          f"{med([r['p99_ms'] for r in hub_lg]):.3f} | {med([r['max_ms'] for r in hub_lg]):.1f} | {sum(r['lost'] for r in hub_lg)} | {cpu:.0f} |")
echo = {}
for k in ("hub", "go"):
    es, cs = runs(names[k], "loadgen-echo"), runs(names[k], "echo-cpu")
    pairs = [(e, c) for e, c in zip(es, cs) if e.get("received")]
    if pairs: echo[k] = pairs
if echo:
    print()
    print(f"Echo cross-check (loadgen -mode echo, {os.environ.get('ECHO_CONNS', '50')} conns x {os.environ.get('ECHO_MSGS', '2000')} msgs of {os.environ.get('ECHO_SIZE', '128')} B against /echo):")
    print()
    print("| server | echo msg/s | p50 ms | p99 ms | server µs/msg | loadgen CPU % |")
    print("|---|---|---|---|---|---|")
    us = {}
    for k, pairs in echo.items():
        us[k] = med([1e6 * c["cpu_echo_s"] / e["received"] for e, c in pairs])
        print(f"| {names[k]} | {med([e['msgs_per_s'] for e, _ in pairs]):.0f} | {med([e['p50_ms'] for e, _ in pairs]):.3f} | "
              f"{med([e['p99_ms'] for e, _ in pairs]):.3f} | {us[k]:.1f} | {med([e['loadgen_busy_pct'] for e, _ in pairs]):.0f} |")
    if len(us) == 2:
        print(f"\nhub / gorilla server CPU per echoed message: {us['hub'] / us['go']:.2f} (goal ≤ 0.9)")
PY
echo "[compare] results: ${OUT#$MAIN/}" >&2
