#!/usr/bin/env bash
# Starts the hub (as scripts/serve.sh does: 127.0.0.1:8080, embedded defaults, release build) and
# opens the web player at http://127.0.0.1:PORT/play in the desktop's browser once the hub
# answers (or prints the URL when there is no browser to open). Ctrl-C stops the hub.
#   ./scripts/play.sh                 # port 8080
#   ./scripts/play.sh --port 9000     # extra arguments go to `sessionhub serve`
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=8080
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  [ "${args[$i]}" = "--port" ] && [ $((i + 1)) -lt ${#args[@]} ] && PORT="${args[$((i + 1))]}"
done
URL="http://127.0.0.1:$PORT/play"
bash scripts/serve.sh "$@" &
HUB=$!
trap 'kill -TERM "$HUB" 2>/dev/null || true; wait "$HUB" 2>/dev/null || true' EXIT INT TERM
# The first start builds the hub (minutes); the wait is bounded by the build and 30 s more.
while kill -0 "$HUB" 2>/dev/null; do
  if curl -fsS -o /dev/null "http://127.0.0.1:$PORT/healthz" 2>/dev/null; then
    echo "[play] the web player: $URL (open it once per player; sign in with a name)" >&2
    if command -v xdg-open >/dev/null && [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then xdg-open "$URL" >/dev/null 2>&1 || true; fi
    break
  fi
  sleep 0.5
done
wait "$HUB"
