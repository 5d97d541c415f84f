#!/usr/bin/env bash
# A throw-away PostgreSQL for tests and demos, on loopback, from Debian's `postgresql` package.
#
#   bash scripts/postgres.sh start DIR [PORT]   initdb in a fresh /tmp/sessionhub-pg.* owned by the
#                                               `postgres` user (named in DIR/datadir), start on
#                                               127.0.0.1:PORT (default: a free port), create database
#                                               `sessionhub`; prints its URL (also in DIR/url)
#   bash scripts/postgres.sh socket-url DIR     the same database over the server's Unix socket
#                                               (postgres://postgres@:PORT/sessionhub?host=SOCKETDIR)
#   bash scripts/postgres.sh stop DIR           fast shutdown, data removed (nothing left running)
#   bash scripts/postgres.sh restart DIR        fast restart on the same port (connections drop)
#   bash scripts/postgres.sh url DIR            prints the URL again
#   bash scripts/postgres.sh warm-wal DIR [N]   gives the server N (24) WAL segments ready for reuse,
#                                               as a long-running server has (benchmarks; below)
#
# Installs `postgresql` when its server binaries are missing (and stops the cluster the package
# starts by itself). The server runs as the `postgres` system user (initdb refuses root), trust
# authentication (loopback and the Unix socket only), fsync and synchronous_commit on (the defaults: durability is
# what the tests check). Every wait is bounded.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/scripts/deps.sh"

log() { echo "[postgres] $*" >&2; }

bindir() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
  [ -n "$dir" ] && [ -x "$dir/initdb" ] && echo "$dir"
}

install_server() {
  if [ -z "$(bindir)" ]; then
    need_debs postgresql
    # The package may start a cluster of its own; the tests use theirs only.
    if command -v pg_lsclusters >/dev/null; then
      pg_lsclusters -h 2>/dev/null | while read -r version name _; do
        pg_ctlcluster "$version" "$name" stop >/dev/null 2>&1 || true
      done
    fi
  fi
  BIN="$(bindir)"
  [ -n "$BIN" ] || { log "no PostgreSQL server binaries after installing postgresql"; exit 1; }
}

as_postgres() { runuser -u postgres -- "$@"; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

cmd="${1:-}"; DIR="${2:-}"
[ -n "$cmd" ] && [ -n "$DIR" ] || { sed -n '2,19p' "$0"; exit 64; }

case "$cmd" in
  start)
    install_server
    mkdir -p "$DIR"
    DIR="$(cd "$DIR" && pwd)"
    PORT="${3:-$(free_port)}"
    # The server's files live where the postgres user can reach them (DIR may sit under a 0700 dir).
    PGDIR="$(as_postgres mktemp -d /tmp/sessionhub-pg.XXXXXX)"
    echo "$PGDIR" >"$DIR/datadir"
    # The Unix socket lives here too: other users may reach it (the data directory stays 0700).
    chmod 755 "$PGDIR"
    as_postgres "$BIN/initdb" -D "$PGDIR/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$DIR/initdb.log" 2>&1 \
      || { log "initdb failed:"; tail -5 "$DIR/initdb.log" >&2; exit 1; }
    # max_connections: `swift test` runs the PostgreSQL suites side by side, each test with a
    # database and pools of its own (the journal's keeps 4 connections open, the general one up
    # to 16): over 200 at the peak of a run.
    as_postgres timeout 30 "$BIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/server.log" -w -t 20 \
      -o "-c listen_addresses=127.0.0.1 -p $PORT -k $PGDIR -c max_connections=500 -c fsync=on -c synchronous_commit=on" \
      start >/dev/null || { log "the server did not start:"; tail -5 "$PGDIR/server.log" >&2; exit 1; }
    timeout 20 "$BIN/createdb" -h 127.0.0.1 -p "$PORT" -U postgres sessionhub
    echo "postgres://postgres@:$PORT/sessionhub?host=$PGDIR" >"$DIR/socket-url"
    echo "postgres://postgres@127.0.0.1:$PORT/sessionhub" | tee "$DIR/url"
    ;;
  stop)
    BIN="$(bindir)"
    PGDIR="$(cat "$DIR/datadir" 2>/dev/null || true)"
    case "$PGDIR" in /tmp/sessionhub-pg.*) ;; *) log "no server recorded in $DIR"; exit 0 ;; esac
    if [ -n "$BIN" ] && [ -f "$PGDIR/data/postmaster.pid" ]; then
      as_postgres timeout 30 "$BIN/pg_ctl" -D "$PGDIR/data" -m fast -w -t 20 stop >/dev/null 2>&1 || {
        pid=$(head -1 "$PGDIR/data/postmaster.pid" 2>/dev/null || true)
        [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
      }
    fi
    cp "$PGDIR/server.log" "$DIR/server.log" 2>/dev/null || true
    rm -rf "$PGDIR"
    ;;
  restart)
    BIN="$(bindir)"
    PGDIR="$(cat "$DIR/datadir")"
    as_postgres timeout 40 "$BIN/pg_ctl" -D "$PGDIR/data" -m fast -w -t 30 restart >/dev/null
    ;;
  url)
    cat "$DIR/url"
    ;;
  warm-wal)
    # A new server creates each 16 MB WAL segment when its writes reach it: it fills the file with
    # zeros and syncs it while holding the WAL write lock, so every commit of that moment waits
    # (10-40 ms on this VM, once per ~16 MB of WAL). A server that has run a while renames old
    # segments for reuse at each checkpoint instead. Benchmarks measure that steady state: this
    # switches through N segments, keeps them (min_wal_size), and checkpoints so they are recycled.
    N="${3:-24}"
    case "$N" in ''|*[!0-9]*) log "warm-wal: N is a number of segments, not $N"; exit 64 ;; esac
    URL="$(cat "$DIR/url")"
    timeout 20 psql "$URL" -qAt -c "ALTER SYSTEM SET min_wal_size = '$(( (N + 8) * 16 ))MB'" -c "SELECT pg_reload_conf()" \
      -c "CREATE TABLE IF NOT EXISTS wal_warm_up (n int)" >/dev/null
    for i in $(seq 1 "$N"); do
      timeout 20 psql "$URL" -qAt -c "INSERT INTO wal_warm_up VALUES ($i)" -c "SELECT pg_switch_wal()" >/dev/null
    done
    timeout 60 psql "$URL" -qAt -c "DROP TABLE wal_warm_up" -c "CHECKPOINT" -c "CHECKPOINT" >/dev/null
    PGDIR="$(cat "$DIR/datadir")"
    log "$(ls "$PGDIR/data/pg_wal" | grep -c '^0') WAL segments ready"
    ;;
  socket-url)
    cat "$DIR/socket-url"
    ;;
  *)
    sed -n '2,19p' "$0"; exit 64 ;;
esac
