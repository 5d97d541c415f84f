#!/usr/bin/env bash
# Wire-protocol interop run for the hub's /ws endpoint (docs/PROTOCOL.md).
#
#   bash scripts/hub-interop.sh [client args...]   # e.g. --no-compression, --only reconnect
#
# Starts the hub on a free loopback port with a temporary token secret, runs
# Tests/Interop/hub_python_client.py (an independent Python `websockets` client that mints its
# tokens with `sessionhub token`), stops the server and exits with the client's status (1 when
# the server cannot start, or dies during the run while the client reported no failure).
# The server binary is $SESSIONHUB_BIN, else .build/debug/sessionhub (built with
# `swift build --product sessionhub` when absent). Installs what is missing: python3-venv
# from Debian and the pinned `websockets` from PyPI into .venv/.
# Environment: SERVE_ARGS (more `serve` options, word-split: e.g. --database-url URL to run the
# suite on PostgreSQL), GRACE_SECONDS (server grace window, default 6, so the grace-expiry check runs;
# the client skips it above 10), BOOT_TIMEOUT (s, default 60), MAX_MESSAGE_SIZE (server
# --websocket-max-message-size, default 1048576).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export DEBIAN_FRONTEND=noninteractive

case "${1:-}" in
  -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
esac

GRACE="${GRACE_SECONDS:-6}"
BOOT_TIMEOUT="${BOOT_TIMEOUT:-60}"
LIMIT="${MAX_MESSAGE_SIZE:-1048576}"

log() { echo "[hub-interop] $*" >&2; }

. "$ROOT/scripts/deps.sh"
need_interop_venv "$ROOT" || exit 1
VENV="$ROOT/.venv"

BIN="${SESSIONHUB_BIN:-.build/debug/sessionhub}"
case "$BIN" in /*) ;; *) BIN="$ROOT/$BIN" ;; esac
if [ ! -x "$BIN" ]; then
  SWIFT="${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}"
  log "$BIN not found; building with $SWIFT build --product sessionhub"
  "$SWIFT" build --product sessionhub >&2 || { log "build failed"; exit 1; }
  BIN="$ROOT/.build/debug/sessionhub"
fi

# ---- server ----
WORK="$(mktemp -d "${TMPDIR:-/tmp}/hub-interop.XXXXXX")"
SECRET_FILE="$WORK/secret"
PORT_FILE="$WORK/port"
LOG_FILE="$WORK/server.log"
SERVER_PID=""

stop_server() { stop_hub "$SERVER_PID"; SERVER_PID=""; }
cleanup() { stop_server; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

new_secret "$SECRET_FILE"

"$BIN" serve --host 127.0.0.1 --port 0 --port-file "$PORT_FILE" --secret-file "$SECRET_FILE" \
  --session-grace-window "$GRACE" --websocket-max-message-size "$LIMIT" --database "$WORK/hub.sqlite" \
  ${SERVE_ARGS:-} >"$LOG_FILE" 2>&1 &
SERVER_PID=$!
deadline=$((SECONDS + BOOT_TIMEOUT))
while [ ! -s "$PORT_FILE" ]; do
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    log "server exited before listening; log:"; tail -n 30 "$LOG_FILE" >&2; SERVER_PID=""; exit 1
  fi
  if [ $SECONDS -ge $deadline ]; then
    log "no port file after ${BOOT_TIMEOUT}s; log:"; tail -n 30 "$LOG_FILE" >&2; exit 1
  fi
  sleep 0.1
done
sleep 0.05 # the port file may be written in more than one write
PORT="$(tr -dc '0-9' <"$PORT_FILE")"
[ -n "$PORT" ] || { log "empty port file"; exit 1; }
log "server pid $SERVER_PID listening on 127.0.0.1:$PORT (grace ${GRACE}s)"

# ---- client ----
TOKEN_CMD="$(printf '%q token --secret-file %q' "$BIN" "$SECRET_FILE")"
"$VENV/bin/python" "$ROOT/Tests/Interop/hub_python_client.py" \
  --url "ws://127.0.0.1:$PORT/ws" --token-cmd "$TOKEN_CMD" --max-message-size "$LIMIT" "$@"
STATUS=$?

if ! kill -0 "$SERVER_PID" 2>/dev/null; then
  log "the server died during the run; end of its log:"
  grep -m 3 -E 'Fatal error|Program crashed' "$LOG_FILE" >&2 || tail -n 5 "$LOG_FILE" >&2
  wait "$SERVER_PID" 2>/dev/null
  SERVER_PID=""
  [ $STATUS -eq 0 ] && STATUS=1
fi
stop_server
exit $STATUS
