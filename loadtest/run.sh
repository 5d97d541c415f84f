#!/usr/bin/env bash
# run.sh MODE [sessionhub-loadtest options…]: starts a fresh hub (release build, new database
# under loadtest/.run/), runs one `sessionhub-loadtest MODE` against it with --url,
# --token-cmd and --server-pid filled in, and stops the hub (by its own PID) afterwards.
#
#   loadtest/run.sh sessions --sessions 200 --players 4 --duration 60 --rate 0.5 --ramp 10 \
#       --json loadtest/results/sessions.json --html loadtest/results/sessions.html
#   loadtest/run.sh idle --connections 10000 --hold 20
#   loadtest/run.sh idle-echo --connections 10000        (idle connections on /echo, no token)
#   loadtest/run.sh rooms --rooms 100 --members 5 --rate 10 --duration 20
#
# Environment: HUB_BIN (default: loadtest/.hub-build/release/sessionhub, brought up to date first),
#   LT_BIN (a sessionhub-loadtest already built; default: this package's, brought up to date first),
#   HUB_ARGS (extra `sessionhub serve` options, e.g. "--in-memory", "--no-compression" or
#   "--journal sqlite": the hub runs with its default journal, the log journal, unless told),
#   PIN [1]: hub on CPU 1, load generator on CPU 0 (taskset), as the peers' bench.sh.
#   METRICS_OUT (a file): the hub's /metrics (Prometheus text) as they stand when the load ends,
#   e.g. to set its own fan-out and journal-commit histograms beside the load generator's figures.
#
# The signing secret is the benchmark's own, kept in loadtest/.run/secret (created on first use,
# mode 0600, never a deployment's), so the tokens minted for one run serve the next: minting
# 3,000 of them one `sessionhub token` process at a time takes about 90 s on 2 cores. The token
# cache is named after the secret's digest; a new secret starts a new cache.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
MODE="${1:?usage: run.sh sessions|idle|idle-echo|rooms [options]}"; shift
: "${PIN:=1}"
. "$HERE/build.sh"
build_loadtest
build_hub
SRV_PIN=() LG_PIN=()
if [ "$PIN" = 1 ] && [ "$(nproc)" -ge 2 ]; then SRV_PIN=(taskset -c 1); LG_PIN=(taskset -c 0); fi
# As many open files as allowed, for the hub and for the load generator (both inherit it).
ulimit -Sn "$(ulimit -Hn)" 2>/dev/null || true

mkdir -p "$HERE/.run"
DATA="$(mktemp -d "$HERE/.run/hub.XXXXXX")"
SECRET="$HERE/.run/secret"
# `sessionhub token` creates the file, in the hub's own format, when it is missing.
[ -s "$SECRET" ] || "$HUB_BIN" token --secret-file "$SECRET" --user run-sh-setup --name setup >/dev/null
TOKENS="$HERE/.run/tokens-$(sha256sum "$SECRET" | cut -c1-16).json"
HUB_PID=""
cleanup() {
  if [ -n "$HUB_PID" ] && kill -0 "$HUB_PID" 2>/dev/null; then
    kill -TERM "$HUB_PID" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$HUB_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$HUB_PID" 2>/dev/null || true
  fi
  rm -rf "$DATA"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Every connection comes from 127.0.0.1, and a user may hold many: lift the per-address and
# per-user caps (docs/OPERATIONS.md) far above any run's connection count.
LIFT_CAPS=(--server-max-connections-per-address 1000000 --server-max-unauthenticated-per-address 1000000 --connection-max-per-user 10000)
"${SRV_PIN[@]}" "$HUB_BIN" serve --port 0 --port-file "$DATA/port" --enable-rooms --enable-echo --log-level "${HUB_LOG_LEVEL:-warning}" \
  --secret-file "$SECRET" --database "$DATA/hub.sqlite" "${LIFT_CAPS[@]}" ${HUB_ARGS:-} >"$HERE/.run/hub-$MODE.log" 2>&1 &
HUB_PID=$!
for _ in $(seq 300); do [ -s "$DATA/port" ] && break; kill -0 "$HUB_PID" 2>/dev/null || { cat "$HERE/.run/hub-$MODE.log" >&2; exit 1; }; sleep 0.1; done
PORT="$(tr -d '\n' <"$DATA/port")"
echo "[run] hub pid $HUB_PID on 127.0.0.1:$PORT ($HUB_BIN; open-file limit $(ulimit -n))" >&2
TOKEN_CMD="$(printf '%q' "$HUB_BIN") token --secret-file $(printf '%q' "$SECRET")"
case "$MODE" in
  sessions) "${LG_PIN[@]}" "$LT" sessions --url "ws://127.0.0.1:$PORT/ws" --token-cmd "$TOKEN_CMD" --token-cache "$TOKENS" --server-pid "$HUB_PID" "$@" ;;
  idle)     "${LG_PIN[@]}" "$LT" idle --url "ws://127.0.0.1:$PORT/ws" --token-cmd "$TOKEN_CMD" --token-cache "$TOKENS" --server-pid "$HUB_PID" "$@" ;;
  idle-echo) "${LG_PIN[@]}" "$LT" idle --url "ws://127.0.0.1:$PORT/echo" --server-pid "$HUB_PID" "$@" ;;
  rooms)    "${LG_PIN[@]}" "$LT" rooms --url "ws://127.0.0.1:$PORT/room" --server-pid "$HUB_PID" "$@" ;;
  *) echo "unknown mode $MODE" >&2; exit 2 ;;
esac
if [ -n "${METRICS_OUT:-}" ]; then
  curl -sf --max-time 10 "http://127.0.0.1:$PORT/metrics" >"$METRICS_OUT" || echo "[run] could not read /metrics" >&2
fi
