#!/usr/bin/env bash
# Browser test of the web player (/play, docs/WEB.md) in headless Chromium.
#
#   bash scripts/play-test.sh
#
# Starts the hub on a free loopback port with a temporary secret and SQLite file (development
# sign-in on, as on any loopback hub; keepalive tick 1 s; grace window 20 s) and a second hub with
# the development sign-in turned off, then runs Tests/Browser/play_check.py: two players, each in a
# browser context of its own (one on a 360 px phone-sized page), sign in, host, join by the code
# the host's page shows (a sessionhub-bot joins it too), speak, correct and accept, lose the
# network and come back (reconnecting, then connected, every line once), reload and take the seat
# back, end the session, and check the summary on both pages and the premium player's history
# entry; on the second hub, a pasted token. Stops everything it started.
# Exit status: the checker's (0 only when every step passed and the hubs stayed up); 1 when a hub
# cannot start or a binary is missing.
#
# Binaries: $SESSIONHUB_BIN, else .build/debug/sessionhub built now (`swift build --product
# sessionhub`, which also copies the page's files into the resource bundle); $SESSIONHUB_BOT_BIN,
# else .build/debug/sessionhub-bot (built when missing).
# Installs what is missing: chromium from Debian, python3-venv and the pinned `websockets` in .venv/.
# Environment: PLAY_SCREENSHOTS=1 saves docs/play-lobby.png, docs/play-session.png and
# docs/play-summary.png (default off: the tree stays clean); PLAY_DEADLINE (seconds after which
# everything is killed, default 120).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export DEBIAN_FRONTEND=noninteractive

case "${1:-}" in
  -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
esac

log() { echo "[play-test] $*" >&2; }
DEADLINE="${PLAY_DEADLINE:-120}"

# Installs (and builds) first: every timer below starts only once they are done.
. "$ROOT/scripts/deps.sh"
if ! command -v chromium >/dev/null 2>&1; then
  need_debs chromium || { log "cannot install chromium"; exit 1; }
fi
need_interop_venv "$ROOT" || exit 1
PY="$ROOT/.venv/bin/python"

SWIFT="${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}"
BIN="${SESSIONHUB_BIN:-}"
if [ -z "$BIN" ]; then
  need_build_debs
  log "building .build/debug/sessionhub ($SWIFT build --product sessionhub)"
  "$SWIFT" build --product sessionhub >&2 || { log "build failed"; exit 1; }
  BIN="$ROOT/.build/debug/sessionhub"
fi
BOT="${SESSIONHUB_BOT_BIN:-$ROOT/.build/debug/sessionhub-bot}"
if [ -z "${SESSIONHUB_BOT_BIN:-}" ] && [ ! -x "$BOT" ]; then
  need_build_debs
  log "building $BOT ($SWIFT build --product sessionhub-bot)"
  "$SWIFT" build --product sessionhub-bot >&2 || { log "build failed"; exit 1; }
fi
case "$BIN" in /*) ;; *) BIN="$ROOT/$BIN" ;; esac
case "$BOT" in /*) ;; *) BOT="$ROOT/$BOT" ;; esac
for binary in "$BIN" "$BOT"; do
  [ -x "$binary" ] || { log "$binary is not an executable"; exit 1; }
done

SHOTS=""
[ "${PLAY_SCREENSHOTS:-0}" = "1" ] && SHOTS="$ROOT/docs"

START=$SECONDS
WORK="$(mktemp -d "${TMPDIR:-/tmp}/play-test.XXXXXX")"
SERVER_PID=""
OFF_PID=""
CHECK_PID=""

# No watchdog: every child is bounded by `timeout` (the hubs by DEADLINE + 30 s, the checker by
# DEADLINE; the checker bounds its Chromium and its bot itself), and the cleanup stops them by pid.
cleanup() {
  trap - EXIT INT TERM
  [ -n "$CHECK_PID" ] && kill -TERM "$CHECK_PID" 2>/dev/null && wait "$CHECK_PID" 2>/dev/null
  stop_hub "$SERVER_PID"
  stop_hub "$OFF_PID"
  rm -rf "$WORK"
}
on_exit cleanup

# ---- hubs ----
SECRET="$WORK/secret"
new_secret "$SECRET"
start_hub $((DEADLINE + 30)) "$WORK/port" "$WORK/server.log" \
  --database "$WORK/hub.sqlite" --session-grace-window 20 --websocket-ping-interval 1
SERVER_PID=$HUB_PID
start_hub $((DEADLINE + 30)) "$WORK/port-off" "$WORK/server-off.log" --database "$WORK/hub-off.sqlite" --http-dev-sign-in off
OFF_PID=$HUB_PID
wait_hub_port "$SERVER_PID" "$WORK/port" "$WORK/server.log" "a hub" || exit 1
wait_hub_port "$OFF_PID" "$WORK/port-off" "$WORK/server-off.log" "a hub" || exit 1
PORT="$(tr -dc '0-9' <"$WORK/port")"
PORT_OFF="$(tr -dc '0-9' <"$WORK/port-off")"
log "hub on 127.0.0.1:$PORT; hub without development sign-in on 127.0.0.1:$PORT_OFF"
(umask 077; "$BIN" token --user paste-1 --name Paula --ttl 600 --secret-file "$SECRET" >"$WORK/paste-token")

# ---- the browser ----
ARGS=(--hub "http://127.0.0.1:$PORT" --bot "$BOT" --token-cmd "$BIN token --secret-file $SECRET --ttl 600"
      --bot-timeout $((DEADLINE - 20)) --browser-lifetime "$DEADLINE" --hub-off "http://127.0.0.1:$PORT_OFF" --paste-token-file "$WORK/paste-token")
[ -n "$SHOTS" ] && ARGS+=(--screenshots "$SHOTS")
timeout -k 5 "$DEADLINE" "$PY" "$ROOT/Tests/Browser/play_check.py" "${ARGS[@]}" &
CHECK_PID=$!
wait "$CHECK_PID"
STATUS=$?
CHECK_PID=""
[ "$STATUS" -eq 124 ] && log "the checker did not finish within $DEADLINE s"

for pid in "$SERVER_PID" "$OFF_PID"; do
  if ! kill -0 "$pid" 2>/dev/null; then
    log "a hub died during the run:"; tail -n 20 "$WORK/server.log" "$WORK/server-off.log" >&2
    [ "$STATUS" -eq 0 ] && STATUS=1
  fi
done
[ "$STATUS" -ne 0 ] && { log "hub log (tail):"; tail -n 15 "$WORK/server.log" >&2; }
log "$([ "$STATUS" -eq 0 ] && echo passed || echo FAILED) in $((SECONDS - START)) s"
exit "$STATUS"
