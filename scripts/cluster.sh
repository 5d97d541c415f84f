#!/usr/bin/env bash
# A cluster to try by hand (docs/CLUSTER.md): a throw-away PostgreSQL, three nodes and HAProxy on
# loopback. Stops everything on Ctrl-C (or after --minutes, default 60).
#
#   bash scripts/cluster.sh [--front 8080] [--minutes 60]
#
# Prints the front URL (bare /ws goes to the least-loaded ready node; /node/<id>/ws to one node),
# each node's port, an operator token for the dashboard (http://127.0.0.1:FRONT/admin), and a bot
# command to play through the front. Uses the debug build (.build/debug/sessionhub; built here
# when missing) and installs haproxy and postgresql from Debian when missing.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
. scripts/deps.sh

FRONT=8080; MINUTES=60
while [ $# -gt 0 ]; do
  case "$1" in
    --front) FRONT="$2"; shift 2 ;;
    --minutes) MINUTES="$2"; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 64 ;;
  esac
done

need_build_debs
need_debs haproxy postgresql-client
[ -x .build/debug/sessionhub ] || swift build --product sessionhub
[ -x .build/debug/sessionhub-bot ] || swift build --product sessionhub-bot
BIN="$ROOT/.build/debug/sessionhub"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/sessionhub-cluster.XXXXXX")"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do timeout 15 tail --pid="$pid" -f /dev/null 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true; done
  bash scripts/postgres.sh stop "$WORK/pg" >/dev/null 2>&1 || true
  echo "[cluster] stopped; logs kept in $WORK" >&2
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bash scripts/postgres.sh start "$WORK/pg" >/dev/null
# The nodes run beside the database: they reach it over its Unix socket, and each keeps one
# journal commit in flight, as nodes sharing a database with peers should (docs/CLUSTER.md).
URL="$(bash scripts/postgres.sh socket-url "$WORK/pg")"
head -c 32 /dev/urandom | base64 | tr -d '\n=' >"$WORK/secret"
declare -A PORT
for n in n1 n2 n3; do
  PORT[$n]=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  "$BIN" serve --port "${PORT[$n]}" --database-url "$URL" --node-id "$n" --secret-file "$WORK/secret" \
    --cluster-journal-commits-in-flight 1 --public-url "ws://127.0.0.1:$FRONT/node/$n/ws" >"$WORK/$n.log" 2>&1 &
  PIDS+=($!)
done
for n in n1 n2 n3; do
  timeout 60 bash -c "until curl -fs http://127.0.0.1:${PORT[$n]}/readyz >/dev/null; do sleep 0.2; done" \
    || { echo "[cluster] node $n did not become ready; log: $WORK/$n.log" >&2; exit 1; }
done
# The shipped configuration (deploy/haproxy/sessionhub.cfg) on this run's ports.
sed -e "s/bind 127\.0\.0\.1:8080\b/bind 127.0.0.1:$FRONT/" \
    -e "s/127\.0\.0\.1:8081\b/127.0.0.1:${PORT[n1]}/" -e "s/127\.0\.0\.1:8082\b/127.0.0.1:${PORT[n2]}/" \
    -e "s/127\.0\.0\.1:8083\b/127.0.0.1:${PORT[n3]}/" "$ROOT/deploy/haproxy/sessionhub.cfg" >"$WORK/haproxy.cfg"
haproxy -db -f "$WORK/haproxy.cfg" >"$WORK/haproxy.log" 2>&1 &
PIDS+=($!)

ADMIN=$("$BIN" token --user ops --name Ops --admin --secret-file "$WORK/secret")
cat <<INFO
[cluster] PostgreSQL: $URL
[cluster] nodes: n1 127.0.0.1:${PORT[n1]}, n2 127.0.0.1:${PORT[n2]}, n3 127.0.0.1:${PORT[n3]} (logs in $WORK)
[cluster] front:  ws://127.0.0.1:$FRONT/ws   (dashboard of one node: http://127.0.0.1:$FRONT/node/n1/admin)
[cluster] operator token: $ADMIN
[cluster] a bot through the front:
    .build/debug/sessionhub-bot play --url ws://127.0.0.1:$FRONT/ws --solo \\
      --token "\$(.build/debug/sessionhub token --user bot1 --name Bot --secret-file $WORK/secret)"
[cluster] kill a node to see its sessions move: kill -9 \$(pgrep -f 'node-id n1')
[cluster] running for $MINUTES minutes; Ctrl-C stops everything.
INFO
sleep $((MINUTES * 60))
