#!/usr/bin/env bash
# Crash-recovery check of the hub (docs/PROTOCOL.md section 13, "Across a hub restart").
#
#   bash scripts/crash-test.sh
#
# Runs Tests/Interop/crash_recovery.py three times: with the default journal (the append-only log
# journal; no --journal given) and the killed hub on one event loop, its journal committing on that
# loop; with `--journal log` and two loops, the journal committing on its own thread; then with
# `--journal sqlite` (the SQLite journal) and one loop. Each run is named in the output
# (`[crash-test] run N/3: …` and its `crash recovery (…): N passed` line). Each starts
# `sessionhub serve` on a fresh SQLite database, plays a 3-player session, kills the hub with
# SIGKILL in the middle of a burst of `say` requests, restarts it on the same database and checks
# that every player resumes with exactly the broadcasts it missed, that the session goes on and
# that the premium players' history holds every acknowledged line once.
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
  -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
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

# The log journal twice: as the default (no --journal, SESSIONHUB_JOURNAL unset) with the killed
# hub on one event loop (its journal commits on that loop), then named with two loops (the journal
# commits on a thread of its own, as on any multi-core machine's default). Then the SQLite journal
# (`--journal sqlite`), its commits on the one loop.
STATUS=0
n=0
for run in "default 1" "log 2" "sqlite 1"; do
  set -- $run
  n=$((n + 1))
  case "$1" in
    default) name="log journal (the default, no --journal)"; journal=() ;;
    log) name="log journal (--journal log)"; journal=(--journal log) ;;
    sqlite) name="SQLite journal (--journal sqlite)"; journal=(--journal sqlite) ;;
  esac
  log "run $n/3: $name, the killed hub with --threads $2"
  mkdir -p "$WORK/$1-threads-$2"
  if "$VENV/bin/python" "$ROOT/Tests/Interop/crash_recovery.py" --bin "$BIN" --work "$WORK/$1-threads-$2" \
    "${journal[@]}" --killed-threads "$2"; then
    log "run $n/3 passed: $name, --threads $2"
  else
    log "run $n/3 FAILED: $name, --threads $2"
    STATUS=1
  fi
done
exit $STATUS
