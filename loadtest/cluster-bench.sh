#!/usr/bin/env bash
# The cluster benchmark (docs/CLUSTER.md, "Numbers"): in one run, journal append latency on
# SQLite vs PostgreSQL, fan-out p50/p99 of one SQLite node vs three nodes on PostgreSQL at the same
# offered load, and failover time (kill -9 -> resumed) p50/p99 over KILLS kills. Release builds.
#
#   loadtest/cluster-bench.sh                     # 200 sessions x 4 players x 0.5 lines/s = 1,600 deliveries/s, 10 kills
#   KILLS=20 SECONDS_OF_LOAD=60 ROUNDS=5 loadtest/cluster-bench.sh
#   PG_TRANSPORT=tcp loadtest/cluster-bench.sh    # PostgreSQL over TCP loopback only (the default,
#                                                 # unix, reaches it over its Unix socket and adds
#                                                 # one PostgreSQL node over TCP for comparison)
#
# The fan-out configurations take turns for ROUNDS (3) rounds, each on a new store with only the
# configuration measured running, and the table gives each one's median p50/p99 (with every
# round's p99). Loopback only; takes about 15 minutes after the builds. Installs what is missing (postgresql,
# haproxy, python3-venv + websockets). The table is printed at the end and written, with every
# round, to loadtest/results/cluster-bench.json. Not part of CI (it measures; the failover is
# checked by scripts/cluster-test.sh).
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
cd "$ROOT"
export DEBIAN_FRONTEND=noninteractive
. "$ROOT/scripts/deps.sh"
need_debs haproxy postgresql-client || exit 1
need_interop_venv "$ROOT" || exit 1

. "$HERE/build.sh"
build_loadtest || exit 1
HUB_BIN=""
build_hub || exit 1
ulimit -Sn "$(ulimit -Hn)" 2>/dev/null || true

WORK="$(mktemp -d "${TMPDIR:-/tmp}/cluster-bench.XXXXXX")"
finish() {
  pkill -KILL -f "haproxy -db -f $WORK/" 2>/dev/null || true
  pkill -CONT -f -- "--secret-file $WORK/secret" 2>/dev/null || true
  pkill -KILL -f -- "--secret-file $WORK/secret" 2>/dev/null || true
  bash "$ROOT/scripts/postgres.sh" stop "$WORK/pg" >/dev/null 2>&1 || true
  echo "[cluster-bench] logs kept in $WORK" >&2
}
trap finish EXIT
URL="$(bash "$ROOT/scripts/postgres.sh" start "$WORK/pg")" || { echo "[cluster-bench] PostgreSQL did not start" >&2; exit 1; }
# WAL segments ready for reuse, as on a server that has run a while: a new server creates each
# segment (16 MB of zeros, synced) while commits wait (scripts/postgres.sh, warm-wal).
bash "$ROOT/scripts/postgres.sh" warm-wal "$WORK/pg" || { echo "[cluster-bench] warming PostgreSQL's WAL failed" >&2; exit 1; }
SOCKET=()
case "${PG_TRANSPORT:-unix}" in
  unix) SOCKET=(--postgres-socket-dir "$(cat "$WORK/pg/datadir")") ;;
  tcp) ;;
  *) echo "[cluster-bench] PG_TRANSPORT is unix or tcp, not $PG_TRANSPORT" >&2; exit 64 ;;
esac
mkdir -p "$HERE/results"
timeout 3000 "$ROOT/.venv/bin/python" "$HERE/cluster_bench.py" --bin "$HUB_BIN" --loadtest "$LT" --work "$WORK" \
  --postgres-url "$URL" --postgres-dir "$WORK/pg" "${SOCKET[@]}" --root "$ROOT" --kills "${KILLS:-10}" \
  --seconds "${SECONDS_OF_LOAD:-40}" --rounds "${ROUNDS:-3}" --json "$HERE/results/cluster-bench.json"
