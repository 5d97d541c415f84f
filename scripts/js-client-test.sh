#!/usr/bin/env bash
# Tests of the JavaScript client module (clients/js/, docs/WEB.md) against the real hub, in Node.
#
#   bash scripts/js-client-test.sh
#
# Starts the hub on a free loopback port with a temporary secret and SQLite file (keepalive tick
# 1 s, so a connection that dies silently is noticed in seconds; grace window 20 s), then runs
# `node --test clients/js/test/*.test.mjs`: unit tests, a scripted fake hub (redirects between
# nodes, the lost-resume-answer rule), and players against the hub — a whole session, the error
# paths, a request timeout, token renewal and expiry, connections cut through a TCP proxy with a
# line in flight (every transcript holds it exactly once), a page reload taking its seat back, and,
# when Chromium is installed ($CHROMIUM, else chromium on PATH), the module in headless Chromium
# with the browser's own WebSocket. Stops the hub.
# Exit status: the tests' (0 only when all passed and the hub stayed up); 1 when the hub cannot start.
#
# The hub binary is $SESSIONHUB_BIN, else .build/release/sessionhub, built with
# `swift build -c release --product sessionhub` when missing.
# Installs what is missing: nodejs and node-ws from Debian.
# Environment: JS_CLIENT_DEADLINE (seconds after which the tests are killed, default 100).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export DEBIAN_FRONTEND=noninteractive

case "${1:-}" in
  -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
esac

log() { echo "[js-client-test] $*" >&2; }
DEADLINE="${JS_CLIENT_DEADLINE:-100}"

# Installs (and the build) first: every timer below starts only once they are done.
. "$ROOT/scripts/deps.sh"
command -v node >/dev/null || need_debs nodejs
export NODE_PATH="/usr/share/nodejs:/usr/lib/nodejs${NODE_PATH:+:$NODE_PATH}"
node -e "require('ws')" 2>/dev/null || need_debs node-ws
node -e "require('ws')" || { log "node cannot load ws"; exit 1; }

BIN="${SESSIONHUB_BIN:-}"
if [ -z "$BIN" ]; then
  BIN="$ROOT/.build/release/sessionhub"
  if [ ! -x "$BIN" ]; then
    need_build_debs
    SWIFT="${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}"
    log "building $BIN ($SWIFT build -c release --product sessionhub)"
    "$SWIFT" build -c release --product sessionhub >&2 || { log "build failed"; exit 1; }
  fi
fi
case "$BIN" in /*) ;; *) BIN="$ROOT/$BIN" ;; esac
[ -x "$BIN" ] || { log "$BIN is not an executable"; exit 1; }

START=$SECONDS
WORK="$(mktemp -d "${TMPDIR:-/tmp}/js-client-test.XXXXXX")"
SERVER_PID=""
TEST_PID=""

# Every child is bounded by `timeout`: the hub by DEADLINE + 30 s, the tests by DEADLINE.
cleanup() {
  trap - EXIT INT TERM
  [ -n "$TEST_PID" ] && kill -TERM "$TEST_PID" 2>/dev/null && wait "$TEST_PID" 2>/dev/null
  stop_hub "$SERVER_PID"
  rm -rf "$WORK"
}
on_exit cleanup

# ---- hub ----
SECRET="$WORK/secret"
new_secret "$SECRET"
start_hub $((DEADLINE + 30)) "$WORK/port" "$WORK/server.log" \
  --database "$WORK/hub.sqlite" --session-grace-window 20 --websocket-ping-interval 1
SERVER_PID=$HUB_PID
wait_hub_port "$SERVER_PID" "$WORK/port" "$WORK/server.log" || exit 1
PORT="$(tr -dc '0-9' <"$WORK/port")"
log "hub on 127.0.0.1:$PORT"

# ---- tests ----
# The browser test runs when Chromium is installed (scripts/dashboard-test.sh installs it).
CHROMIUM="${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}"
[ -n "$CHROMIUM" ] || log "no Chromium: the browser test is skipped"
SESSIONHUB_URL="ws://127.0.0.1:$PORT/ws" SESSIONHUB_BIN="$BIN" SESSIONHUB_SECRET_FILE="$SECRET" CHROMIUM="$CHROMIUM" \
  timeout -k 5 "$DEADLINE" node --test "$ROOT"/clients/js/test/*.test.mjs &
TEST_PID=$!
wait "$TEST_PID"
STATUS=$?
TEST_PID=""
[ "$STATUS" -eq 124 ] && log "the tests did not finish within $DEADLINE s"

if ! kill -0 "$SERVER_PID" 2>/dev/null; then
  log "the hub died during the run:"; tail -n 20 "$WORK/server.log" >&2
  [ "$STATUS" -eq 0 ] && STATUS=1
fi
[ "$STATUS" -ne 0 ] && { log "hub log (tail):"; tail -n 15 "$WORK/server.log" >&2; }
log "$([ "$STATUS" -eq 0 ] && echo passed || echo FAILED) in $((SECONDS - START)) s"
exit "$STATUS"
