#!/usr/bin/env bash
# Browser test of the operator dashboard (/admin, docs/DASHBOARD.md) in headless Chromium.
#
#   bash scripts/dashboard-test.sh
#
# Starts the hub on a free loopback port with a temporary secret and database, keeps three
# `sessionhub-bot play --host --players 3 --pace-ms 700` runs going in the background (a new
# session whenever one ends; one of them drops and resumes a player), then runs
# Tests/Browser/dashboard_check.py: Chromium opens the page, a wrong token is refused, the admin
# token is typed into the page (over the DevTools protocol, never in a URL), the live sessions
# and the bots' lines must appear, a screenshot is saved, and a session is ended from the page.
# Exit status: the checker's (0 only when the sessions appeared); 1 when the hub cannot start.
#
# Builds nothing: the binaries are $SESSIONHUB_BIN and $SESSIONHUB_BOT_BIN, else
# .build/debug/sessionhub and .build/debug/sessionhub-bot (`swift build` first).
# Installs what is missing: chromium from Debian, python3-venv and the pinned `websockets` in .venv/.
# Environment: DASHBOARD_SCREENSHOT (default docs/dashboard.png; empty for none),
# DASHBOARD_WATCH (seconds of live updates before the screenshot, default 8),
# DASHBOARD_DEADLINE (seconds after which everything is killed, default 60).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export DEBIAN_FRONTEND=noninteractive

case "${1:-}" in
  -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
esac

log() { echo "[dashboard-test] $*" >&2; }
DEADLINE="${DASHBOARD_DEADLINE:-60}"
SCREENSHOT="${DASHBOARD_SCREENSHOT-docs/dashboard.png}"
WATCH="${DASHBOARD_WATCH:-8}"

# Installs first: every timer below starts only once they are done (a fresh machine spends
# longer installing Chromium than any of them allows).
. "$ROOT/scripts/deps.sh"
if ! command -v chromium >/dev/null 2>&1; then
  need_debs chromium || { log "cannot install chromium"; exit 1; }
fi
need_interop_venv "$ROOT" || exit 1
PY="$ROOT/.venv/bin/python"

BIN="${SESSIONHUB_BIN:-.build/debug/sessionhub}"
BOT="${SESSIONHUB_BOT_BIN:-.build/debug/sessionhub-bot}"
case "$BIN" in /*) ;; *) BIN="$ROOT/$BIN" ;; esac
case "$BOT" in /*) ;; *) BOT="$ROOT/$BOT" ;; esac
for binary in "$BIN" "$BOT"; do
  [ -x "$binary" ] || { log "$binary not found: run swift build first (this script builds nothing)"; exit 1; }
done

START=$SECONDS
WORK="$(mktemp -d "${TMPDIR:-/tmp}/dashboard-test.XXXXXX")"
SERVER_PID=""
LOOP_PIDS=()
CHECK_PID=""

# No watchdog process: every child has a lifetime of its own (`timeout`), so nothing this script
# starts can outlive it by more than DEADLINE seconds, and nothing ever signals this script.
# The hub: DEADLINE + 30 s; each bot loop: until the stop file appears, this script is gone or
# DEADLINE passes; the browser checker: DEADLINE.
cleanup() {
  trap - EXIT INT TERM
  [ -n "$CHECK_PID" ] && kill -TERM "$CHECK_PID" 2>/dev/null && wait "$CHECK_PID" 2>/dev/null
  touch "$WORK/stop"
  # Each bot loop runs in its own process group (setsid): end the loop and its bot together.
  for pid in "${LOOP_PIDS[@]}"; do kill -TERM -- "-$pid" 2>/dev/null; done
  stop_hub "$SERVER_PID"
  for pid in "${LOOP_PIDS[@]}"; do kill -KILL -- "-$pid" 2>/dev/null; done
  # A last sweep: everything this run started names its work directory on its command line.
  pkill -KILL -f -- "$WORK/" 2>/dev/null
  rm -rf "$WORK"
}
on_exit cleanup

# ---- hub ----
SECRET="$WORK/secret"
new_secret "$SECRET"
start_hub $((DEADLINE + 30)) "$WORK/port" "$WORK/server.log" --database "$WORK/hub.sqlite" --session-grace-window 8
SERVER_PID=$HUB_PID
wait_hub_port "$SERVER_PID" "$WORK/port" "$WORK/server.log" || exit 1
PORT="$(cat "$WORK/port")"
log "hub on 127.0.0.1:$PORT"
(umask 077; "$BIN" token --admin --user ops --name "Ops Console" --ttl 600 --secret-file "$SECRET" >"$WORK/admin-token")

# ---- bots: three slots, each starting a new hosted session whenever its last one ends ----
bot_loop() {  # slot scenario [extra bot args...]
  local slot="$1" scenario="$2" run=0
  shift 2
  while [ ! -e "$WORK/stop" ] && kill -0 "$OWNER_PID" 2>/dev/null && [ "$SECONDS" -lt "$DEADLINE" ]; do
    run=$((run + 1))
    timeout --foreground -k 2 45 "$BOT" play --url "ws://127.0.0.1:$PORT/ws" --token-cmd "$BIN token --secret-file $SECRET --ttl 600" \
      --host --players 3 --pace-ms 700 --scenario "$scenario" --user-prefix "$slot-$run" \
      --timeout 40 --json "$@" >>"$WORK/bot-$slot.log" 2>&1
    sleep 0.3
  done
}
export -f bot_loop
OWNER_PID=$$
export WORK PORT BIN BOT SECRET OWNER_PID DEADLINE
setsid bash -c 'bot_loop hotel hotel-check-in' >/dev/null 2>&1 & LOOP_PIDS+=($!)
setsid bash -c 'bot_loop coffee ordering-coffee --drop-after 4' >/dev/null 2>&1 & LOOP_PIDS+=($!)
setsid bash -c 'bot_loop doctor at-the-doctor' >/dev/null 2>&1 & LOOP_PIDS+=($!)

# ---- the browser ----
timeout -k 5 "$DEADLINE" "$PY" "$ROOT/Tests/Browser/dashboard_check.py" --hub "http://127.0.0.1:$PORT" --token-file "$WORK/admin-token" \
  --screenshot "$SCREENSHOT" --watch "$WATCH" --timeout 25 &
CHECK_PID=$!
wait "$CHECK_PID"
STATUS=$?
CHECK_PID=""

if ! kill -0 "$SERVER_PID" 2>/dev/null; then
  log "the hub died during the run:"; tail -n 20 "$WORK/server.log" >&2
  [ "$STATUS" -eq 0 ] && STATUS=1
fi
if [ "$STATUS" -ne 0 ]; then
  log "hub log (tail):"; tail -n 15 "$WORK/server.log" >&2
  for f in "$WORK"/bot-*.log; do [ -e "$f" ] && { log "$(basename "$f") (tail):"; tail -n 3 "$f" >&2; }; done
fi
log "$([ "$STATUS" -eq 0 ] && echo passed || echo FAILED) in $((SECONDS - START)) s"
exit "$STATUS"
