#!/usr/bin/env bash
# Conformance + interop run for the sessionhub WebSocket echo endpoint.
#
#   bash scripts/interop.sh                      # start our server twice (compression on, then
#                                                # --no-compression) and run everything against it
#   bash scripts/interop.sh --url ws://127.0.0.1:PORT/echo [--max-message-size N] [--no-compression]
#                                                # run against an already running server
#
# Steps per server: Tests/Conformance/conformance.py (raw-socket RFC 6455/7692 suite),
# Tests/Interop/python_client.py (Python websockets), Tests/Interop/node_client.js (Node ws).
# Installs what is missing: python3-venv, nodejs and node-ws from Debian, and the pinned
# `websockets` from PyPI into .venv/. The server binary is $SESSIONHUB_BIN, else
# .build/debug/sessionhub (built with `swift build --product sessionhub` when absent).
# Environment: MAX_MESSAGE_SIZE (default 4194304), BOOT_TIMEOUT (s, default 60),
# CONFORMANCE_ARGS (extra arguments for conformance.py, e.g. "--case 6.*").
# Exits non-zero if any step failed; the last line is "interop: N passed, N failed".
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export DEBIAN_FRONTEND=noninteractive

URL=""
LIMIT="${MAX_MESSAGE_SIZE:-4194304}"
NO_COMPRESSION=0
BOOT_TIMEOUT="${BOOT_TIMEOUT:-60}"
while [ $# -gt 0 ]; do
  case "$1" in
    --url) URL="${2:?--url needs a value}"; shift 2 ;;
    --max-message-size) LIMIT="${2:?--max-message-size needs a value}"; shift 2 ;;
    --no-compression) NO_COMPRESSION=1; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "interop.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

log() { echo "[interop] $*" >&2; }

. "$ROOT/scripts/deps.sh"
need_interop_venv "$ROOT" || exit 1
VENV="$ROOT/.venv"

command -v node >/dev/null || need_debs nodejs
export NODE_PATH="/usr/share/nodejs:/usr/lib/nodejs${NODE_PATH:+:$NODE_PATH}"
node -e "require('ws')" 2>/dev/null || need_debs node-ws
node -e "require('ws')" || { log "node cannot load ws"; exit 1; }

# ---- running the steps ----
PASSED=0
FAILED=0
FAILED_STEPS=()
WORK="$(mktemp -d "${TMPDIR:-/tmp}/interop.XXXXXX")"
SERVER_PID=""

stop_server() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" 2>/dev/null
  fi
  SERVER_PID=""
}
cleanup() { stop_server; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

step() { # step NAME CMD... : run, count, remember failures
  local name="$1"; shift
  log "== $name"
  if "$@"; then
    PASSED=$((PASSED + 1))
  else
    FAILED=$((FAILED + 1)); FAILED_STEPS+=("$name")
  fi
}

run_all() { # run_all URL NOCOMP LABEL
  local url="$1" nocomp="$2" label="$3" flags=()
  [ "$nocomp" = 1 ] && flags+=(--no-compression)
  local extra=()
  [ -n "${CONFORMANCE_ARGS:-}" ] && read -r -a extra <<<"$CONFORMANCE_ARGS"
  [ -n "$SERVER_PID" ] && extra+=(--healthz)
  step "conformance ($label)" "$VENV/bin/python" "$ROOT/Tests/Conformance/conformance.py" \
    --url "$url" --max-message-size "$LIMIT" "${flags[@]}" "${extra[@]}" \
    --json "$WORK/conformance-$label.json"
  step "python websockets client ($label)" "$VENV/bin/python" "$ROOT/Tests/Interop/python_client.py" \
    --url "$url" --max-message-size "$LIMIT" "${flags[@]}"
  step "node ws client ($label)" node "$ROOT/Tests/Interop/node_client.js" \
    --url "$url" --max-message-size "$LIMIT" "${flags[@]}"
}

start_server() { # start_server LABEL [extra server args]; sets SERVER_PID and PORT
  local label="$1"; shift
  local port_file="$WORK/$label.port" log_file="$WORK/$label.log"
  rm -f "$port_file"
  "$BIN" serve --host 127.0.0.1 --port 0 --port-file "$port_file" --enable-echo --in-memory \
    --websocket-max-message-size "$LIMIT" "$@" >"$log_file" 2>&1 &
  SERVER_PID=$!
  local deadline=$((SECONDS + BOOT_TIMEOUT))
  while [ ! -s "$port_file" ]; do
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      log "server exited before listening; log:"; tail -n 30 "$log_file" >&2; SERVER_PID=""; return 1
    fi
    if [ $SECONDS -ge $deadline ]; then
      log "no port file after ${BOOT_TIMEOUT}s; log:"; tail -n 30 "$log_file" >&2; stop_server; return 1
    fi
    sleep 0.1
  done
  sleep 0.05 # the port file may be written in more than one write
  PORT="$(tr -dc '0-9' <"$port_file")"
  [ -n "$PORT" ] || { log "empty port file"; stop_server; return 1; }
  log "server ($label) pid $SERVER_PID listening on 127.0.0.1:$PORT"
}

if [ -n "$URL" ]; then
  label=compression; [ "$NO_COMPRESSION" = 1 ] && label=no-compression
  run_all "$URL" "$NO_COMPRESSION" "$label"
else
  BIN="${SESSIONHUB_BIN:-$ROOT/.build/debug/sessionhub}"
  if [ ! -x "$BIN" ]; then
    SWIFT="${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}"
    log "$BIN not found; building with $SWIFT build --product sessionhub"
    "$SWIFT" build --product sessionhub >&2 || { log "build failed"; exit 1; }
    BIN="$ROOT/.build/debug/sessionhub"
  fi
  for mode in compression no-compression; do
    args=(); nocomp=0
    [ "$mode" = no-compression ] && { args+=(--no-compression); nocomp=1; }
    if start_server "$mode" "${args[@]}"; then
      run_all "ws://127.0.0.1:$PORT/echo" "$nocomp" "$mode"
      if ! kill -0 "$SERVER_PID" 2>/dev/null; then
        log "server ($mode) died during the run; log:"; tail -n 30 "$WORK/$mode.log" >&2
        FAILED=$((FAILED + 1)); FAILED_STEPS+=("server alive ($mode)")
        SERVER_PID=""
      fi
      stop_server
    else
      FAILED=$((FAILED + 1)); FAILED_STEPS+=("server start ($mode)")
    fi
  done
fi

if [ $FAILED -gt 0 ]; then
  log "failed steps:"; for s in "${FAILED_STEPS[@]}"; do log "  - $s"; done
fi
echo "interop: $PASSED passed, $FAILED failed"
[ $FAILED -eq 0 ]
