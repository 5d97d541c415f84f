#!/usr/bin/env bash
# Failover test of a cluster (docs/CLUSTER.md): PostgreSQL + 3 nodes + HAProxy on loopback.
#
#   bash scripts/cluster-test.sh
#
# Runs Tests/Cluster/cluster_test.py, which starts three `sessionhub serve` nodes on a throw-away
# PostgreSQL (scripts/postgres.sh) behind HAProxy, plays shared sessions spread over the nodes,
# kill -9s the busiest node mid-burst (every acknowledged line exactly once in history, seq without
# gap or duplicate, kill -> resumed p50/max printed), SIGSTOPs a node for twice the liveness
# timeout (it writes nothing after the takeover), and restarts PostgreSQL mid-session.
# The server binary is $SESSIONHUB_BIN, else .build/debug/sessionhub (not built here).
# Installs what is missing: haproxy and postgresql (Debian), python3-venv and `websockets` (.venv).
# The work directory (node and HAProxy logs) is removed after a passing run, kept otherwise.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export DEBIAN_FRONTEND=noninteractive
case "${1:-}" in
  -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
esac

log() { echo "[cluster-test] $*" >&2; }

. "$ROOT/scripts/deps.sh"
need_debs haproxy postgresql-client || exit 1
need_interop_venv "$ROOT" || exit 1
VENV="$ROOT/.venv"

BIN="${SESSIONHUB_BIN:-.build/debug/sessionhub}"
case "$BIN" in /*) ;; *) BIN="$ROOT/$BIN" ;; esac
[ -x "$BIN" ] || { log "$BIN not found (build it with: swift build --product sessionhub)"; exit 1; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/cluster-test.XXXXXX")"
STATUS=1
finish() {
  pkill -KILL -f "haproxy -db -f $WORK/" 2>/dev/null || true
  pkill -CONT -f -- "--secret-file $WORK/secret" 2>/dev/null || true
  pkill -KILL -f -- "--secret-file $WORK/secret" 2>/dev/null || true
  bash "$ROOT/scripts/postgres.sh" stop "$WORK/pg" >/dev/null 2>&1 || true
  if [ "$STATUS" -eq 0 ]; then
    rm -rf "$WORK"
  else
    log "kept the work directory (node logs, haproxy.log): $WORK"
  fi
}
trap finish EXIT
trap 'STATUS=130; exit 130' INT TERM

URL="$(bash "$ROOT/scripts/postgres.sh" start "$WORK/pg")" || { log "PostgreSQL did not start"; exit 1; }
timeout 300 "$VENV/bin/python" "$ROOT/Tests/Cluster/cluster_test.py" --bin "$BIN" --work "$WORK" \
  --postgres-url "$URL" --postgres-dir "$WORK/pg" --root "$ROOT"
STATUS=$?
exit $STATUS
