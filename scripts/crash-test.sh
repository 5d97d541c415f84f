#!/usr/bin/env bash
# Crash-recovery check of the hub (docs/PROTOCOL.md section 13, "Across a hub restart").
#
#   bash scripts/crash-test.sh
#
# Runs Tests/Interop/crash_recovery.py three times (the killed hub with `--threads 1`, then 2: the
# journal committing on the event loop, then on its own thread; then with `--journal log`, the
# append-only log journal, and one loop); it starts `sessionhub serve` on a fresh SQLite
# database, plays a 3-player session, kills the hub with SIGKILL in the middle of a burst of
# `say` requests, restarts it on the same database and checks that every player resumes with
# exactly the broadcasts it missed, that the session goes on and that the premium players'
# history holds every acknowledged line once.
# The server binary is $SESSIONHUB_BIN, else .build/debug/sessionhub (this script does not
# build it; it waits up to BIN_WAIT seconds, default 120, for it to appear, e.g. during a
# rebuild). Installs what is missing: python3-venv from Debian and the pinned `websockets`
# from PyPI into .venv/.
# The work directory (database, secret, server logs) is removed after a passing run and kept,
# with its path printed, after a failing one. The exit code is the check's.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export DEBIAN_FRONTEND=noninteractive

case "${1:-}" in
  -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
esac

log() { echo "[crash-test] $*" >&2; }

. "$ROOT/scripts/deps.sh"
need_interop_venv "$ROOT" || exit 1
VENV="$ROOT/.venv"

BIN="${SESSIONHUB_BIN:-.build/debug/sessionhub}"
case "$BIN" in /*) ;; *) BIN="$ROOT/$BIN" ;; esac
deadline=$((SECONDS + ${BIN_WAIT:-120}))
while [ ! -x "$BIN" ]; do
  if [ $SECONDS -ge $deadline ]; then
    log "$BIN not found (build it with: swift build --product sessionhub)"; exit 1
  fi
  sleep 1
done

WORK="$(mktemp -d "${TMPDIR:-/tmp}/crash-test.XXXXXX")"
STATUS=1
finish() {
  if [ "$STATUS" -eq 0 ]; then
    rm -rf "$WORK"
  else
    log "kept the work directory (database, server logs): $WORK"
  fi
}
trap finish EXIT
trap 'STATUS=130; exit 130' INT TERM

# Twice: the killed hub with one event loop (its journal commits on that loop), then with two
# (the journal commits on a thread of its own, as on any multi-core machine's default).
# Then once more with the log journal (`--journal log`), its commits on the one loop.
STATUS=0
for run in "sqlite 1" "sqlite 2" "log 1"; do
  set -- $run
  log "the killed hub runs with --journal $1 --threads $2"
  mkdir -p "$WORK/$1-threads-$2"
  "$VENV/bin/python" "$ROOT/Tests/Interop/crash_recovery.py" --bin "$BIN" --work "$WORK/$1-threads-$2" \
    --journal "$1" --killed-threads "$2" || STATUS=1
done
exit $STATUS
