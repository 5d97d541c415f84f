#!/usr/bin/env bash
# Soak test of the hub (docs/SOAK.md): the real binary on a SQLite file, with its default journal
# (the log journal; `-- --journal sqlite` for the SQLite one), on loopback under mixed load for a
# bounded time — well-behaved players who drop and resume, `sessionhub-bot` runs, slow
# readers, rate-limit offenders and garbage senders, and one SIGKILL + restart in the middle.
#
#   bash scripts/soak.sh [--minutes N] [--seed S] [--report FILE] [--keep] [-- SERVE-ARGS...]
#
# Minutes of load: --minutes, else $SOAK_MINUTES, else 20 (CI runs 2). The whole run takes about
# N minutes plus one or two for start, idle sampling and shutdown; it is cut at N + 15 minutes.
# Checks 0 lost and 0 duplicated broadcasts for the well-behaved players, the documented errors
# and close codes for the offenders, exit 0 for every bot run, and that the hub's RSS and open
# descriptors return to their baseline after the load; prints a report and writes it as JSON
# (--report, default ${TMPDIR:-/tmp}/soak-report.json). Exit code 0 iff every check held.
# The hub is $SESSIONHUB_BIN, else .build/release/sessionhub if built, else .build/debug/sessionhub;
# the bot is $SESSIONHUB_BOT_BIN, else sessionhub-bot next to the hub, else .build/debug/sessionhub-bot.
# This script does not build them. Arguments after `--` go to `sessionhub serve` (e.g. generous
# connection caps), as does $SOAK_SERVE_ARGS (split on spaces).
# Installs what is missing: python3-venv and the pinned `websockets` into .venv/.
# The work directory is removed after a passing run unless --keep, and kept (path printed) after
# a failing one.
set -uo pipefail

CALLER_DIR="$PWD"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export DEBIAN_FRONTEND=noninteractive

log() { echo "[soak] $*" >&2; }

MINUTES="${SOAK_MINUTES:-20}"
SEED=""
REPORT="${TMPDIR:-/tmp}/soak-report.json"
KEEP=0
SERVE_ARGS=()
[ -n "${SOAK_SERVE_ARGS:-}" ] && read -r -a SERVE_ARGS <<<"$SOAK_SERVE_ARGS"
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) MINUTES="${2:?--minutes needs a value}"; shift 2 ;;
    --seed) SEED="${2:?--seed needs a value}"; shift 2 ;;
    --report) REPORT="${2:?--report needs a file}"; shift 2 ;;
    --keep) KEEP=1; shift ;;
    --) shift; SERVE_ARGS+=("$@"); break ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) log "unknown argument: $1 (see --help)"; exit 64 ;;
  esac
done
case "$MINUTES" in
  ''|*[!0-9.]*) log "--minutes must be a number"; exit 64 ;;
esac

. "$ROOT/scripts/deps.sh"
need_interop_venv "$ROOT" || exit 1
VENV="$ROOT/.venv"

if [ -n "${SESSIONHUB_BIN:-}" ]; then
  BIN="$SESSIONHUB_BIN"
elif [ -x .build/release/sessionhub ]; then
  BIN=.build/release/sessionhub
else
  BIN=.build/debug/sessionhub
fi
case "$BIN" in /*) ;; *) BIN="$ROOT/$BIN" ;; esac
BOT="${SESSIONHUB_BOT_BIN:-$(dirname "$BIN")/sessionhub-bot}"
[ -x "$BOT" ] || BOT="$ROOT/.build/debug/sessionhub-bot"
case "$BOT" in /*) ;; *) BOT="$ROOT/$BOT" ;; esac
for f in "$BIN" "$BOT"; do
  if [ ! -x "$f" ]; then
    log "$f not found (build it with: swift build --product $(basename "$f"))"; exit 1
  fi
done

WORK="$(mktemp -d "${TMPDIR:-/tmp}/soak.XXXXXX")"
STATUS=1
cleanup() {
  trap - EXIT INT TERM
  # Everything the run started runs from its copies in $WORK/bin: a last sweep by that path.
  local pids
  pids=$(pgrep -f -- "$WORK/bin/" 2>/dev/null || true)
  [ -n "$pids" ] && kill -KILL $pids 2>/dev/null
  if [ "$STATUS" -eq 0 ] && [ "$KEEP" -eq 0 ]; then
    rm -rf "$WORK"
  else
    log "kept the work directory (database, hub logs, report): $WORK"
  fi
}
trap cleanup EXIT
trap 'STATUS=130; exit 130' INT TERM

# The journal the hub keeps, as it will pick it: the last --journal of the serve arguments, else
# SESSIONHUB_JOURNAL, else its default.
JOURNAL="${SESSIONHUB_JOURNAL:+$SESSIONHUB_JOURNAL (SESSIONHUB_JOURNAL)}"
JOURNAL="${JOURNAL:-log (the default)}"
for ((i = 0; i < ${#SERVE_ARGS[@]}; i++)); do
  case "${SERVE_ARGS[$i]}" in
    --journal) [ $((i + 1)) -lt ${#SERVE_ARGS[@]} ] && JOURNAL="${SERVE_ARGS[$((i + 1))]} (--journal)" ;;
    --journal=*) JOURNAL="${SERVE_ARGS[$i]#--journal=} (--journal)" ;;
  esac
done
log "hub $BIN, bot $BOT, $MINUTES minutes, journal $JOURNAL"
ARGS=(--bin "$BIN" --bot-bin "$BOT" --work "$WORK" --minutes "$MINUTES")
[ -n "$SEED" ] && ARGS+=(--seed "$SEED")
case "$REPORT" in /*) ;; *) REPORT="$CALLER_DIR/$REPORT" ;; esac
ARGS+=(--report "$REPORT")
for a in "${SERVE_ARGS[@]}"; do ARGS+=("--serve-arg=$a"); done
# The driver bounds every wait itself; `timeout` is the backstop (N + 15 minutes).
LIMIT=$(awk -v m="$MINUTES" 'BEGIN { printf "%d", m * 60 + 900 }')
timeout --kill-after=30 "$LIMIT" "$VENV/bin/python" -u "$ROOT/Tests/Soak/soak.py" "${ARGS[@]}"
STATUS=$?
exit $STATUS
