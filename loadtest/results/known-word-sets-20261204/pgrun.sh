#!/usr/bin/env bash
# pgrun.sh LABEL [serve args]: one PG node (or SQLite with STORE=sqlite) under the fan-out load; prints results + WAL.
# (The experiment as it ran on 2026-12-04: a server from `scripts/postgres.sh start /tmp/exp/pg` with
# pg_stat_statements preloaded; release binaries from loadtest/build.sh. A record, not a tool.)
set -uo pipefail
ROOT=/work/main
LABEL=$1; shift
HUB_BIN=${HUB_BIN:-$ROOT/loadtest/.hub-build/release/sessionhub}
LT_BIN=${LT_BIN:-$ROOT/loadtest/.build/release/sessionhub-loadtest}
SESSIONS=${SESSIONS:-200}; DUR=${DUR:-40}; PLAYERS=${PLAYERS:-4}; RATE=${RATE:-0.5}
BASE=$(cat /tmp/exp/pg/url); BASE=${BASE%/*}
W=/tmp/exp/run-$LABEL; rm -rf $W; mkdir -p $W
SECRET=/tmp/exp/secret
[ -s $SECRET ] || $HUB_BIN token --secret-file $SECRET --user setup --name setup >/dev/null
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
DB=exp_$(date +%s%N | cut -c8-16)
if [ "${STORE:-pg}" = pg ]; then
  psql "$BASE/sessionhub" -qAtc "CREATE DATABASE $DB" || exit 1
  STOREARGS=(--database-url "$BASE/$DB" --node-id solo)
else
  STOREARGS=(--database $W/hub.sqlite)
fi
psql "$BASE/sessionhub" -qAtc "SELECT pg_stat_statements_reset(); SELECT pg_stat_reset_shared('wal')" >/dev/null
LSN0=$(psql "$BASE/sessionhub" -qAtc "SELECT pg_current_wal_lsn()")
$HUB_BIN serve --host 127.0.0.1 --port $PORT --secret-file $SECRET --threads 1 "${STOREARGS[@]}" \
  --server-max-connections-per-address 1000000 --server-max-unauthenticated-per-address 1000000 --connection-max-per-user 10000 "$@" >$W/hub.log 2>&1 &
HUB=$!
for i in $(seq 200); do curl -sf http://127.0.0.1:$PORT/readyz >/dev/null && break; sleep 0.1; done
# sample CPU of all processes
( while kill -0 $HUB 2>/dev/null; do ps -eo pid,comm,time --no-headers > $W/ps.$(date +%s); sleep 5; done ) &
$LT_BIN sessions --token-cmd "$HUB_BIN token --secret-file $SECRET" --token-cache /tmp/exp/tokens.json \
  --sessions $SESSIONS --players $PLAYERS --rate $RATE --duration $DUR --ramp 10 --player lean --user-prefix exp \
  --json $W/report.json --quiet --url ws://127.0.0.1:$PORT/ws >$W/lt.log 2>&1
CPU=$(ps -o time= -p $HUB)
kill -TERM $HUB; wait $HUB 2>/dev/null
LSN1=$(psql "$BASE/sessionhub" -qAtc "SELECT pg_current_wal_lsn()")
python3 - $W/report.json <<'PY'
import json,sys
r=json.load(open(sys.argv[1])); f=r["fanout"]; s=r.get("steadyFanout") or {}
print("delivered/s %.0f p50 %.2f p99 %.2f steady p99 %s lost %d dup %d" % (r.get("steadyDeliveriesPerSecond") or r["deliveriesPerSecond"], f["p50"], f["p99"], s.get("p99"), r["lost"], r["duplicated"]))
PY
echo "hub cpu $CPU"
if [ "${STORE:-pg}" = pg ]; then
psql "$BASE/sessionhub" -qAtc "SELECT 'WAL MB', round(pg_wal_lsn_diff('$LSN1','$LSN0')/1e6,1)"
psql "$BASE/sessionhub" -qc "SELECT wal_records, wal_fpi, round(wal_bytes/1e6,1) mb, wal_write, wal_sync, round(wal_sync_time::numeric) sync_ms FROM pg_stat_wal"
psql "$BASE/sessionhub" -qc "SELECT calls, round(total_exec_time::numeric) ms, rows, wal_records, wal_fpi, round(wal_bytes/1e6,2) wal_mb, left(regexp_replace(query,'\s+',' ','g'),70) q FROM pg_stat_statements ORDER BY wal_bytes DESC LIMIT 14"
fi
