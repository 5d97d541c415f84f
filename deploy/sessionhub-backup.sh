#!/usr/bin/env bash
# Online backup of the SessionHub SQLite files with VACUUM INTO: for each, one consistent
# snapshot (WAL included) taken in a single read transaction, compacted, without stopping the hub.
# The journal's file (sessionhub-journal.sqlite, beside the database) is copied first, then the
# database: a session that ends in between is then in the database's copy (history and its
# ended-session marker), and the restored hub drops its journal instead of losing it
# (docs/STORAGE.md, "Backups"). Each copy is checked with PRAGMA integrity_check before it is
# kept; the oldest pairs beyond SESSIONHUB_BACKUP_KEEP are removed.
#
#   SESSIONHUB_DATABASE    the live file   (default /var/lib/sessionhub/sessionhub.sqlite)
#   SESSIONHUB_BACKUP_DIR  where copies go (default /var/backups/sessionhub)
#   SESSIONHUB_BACKUP_KEEP copies kept     (default 14)
#
# Needs the sqlite3 command-line shell (Debian: apt install sqlite3), 3.27 or later. Run it as
# the service user (it needs read access to the database, its -wal and -shm) — see
# deploy/systemd/sessionhub-backup.service and .timer. Exit status 0 only when a verified copy
# was written; it prints the copies' paths (journal first).
set -euo pipefail

db="${SESSIONHUB_DATABASE:-/var/lib/sessionhub/sessionhub.sqlite}"
dir="${SESSIONHUB_BACKUP_DIR:-/var/backups/sessionhub}"
keep="${SESSIONHUB_BACKUP_KEEP:-14}"

command -v sqlite3 >/dev/null || { echo "sessionhub-backup: sqlite3 is not installed" >&2; exit 69; }
[ -f "$db" ] || { echo "sessionhub-backup: no database at $db" >&2; exit 66; }
mkdir -p "$dir"

stamp="$(date -u +%Y%m%dT%H%M%SZ)"
journal="${db%.sqlite}-journal.sqlite"
partials=()
trap 'rm -f "${partials[@]}"' EXIT

# copy SOURCE NAME: a verified snapshot of SOURCE as $dir/NAME-$stamp.sqlite; prints its path.
copy() {
  local final="$dir/$2-$stamp.sqlite" partial="$dir/.$2-$stamp.sqlite.partial" check
  rm -f "$partial"
  partials+=("$partial")
  # VACUUM INTO takes a file name as an SQL string: double any single quote in the path.
  # busy_timeout: wait for the hub's commit in progress instead of failing at once.
  sqlite3 -bail "$1" ".timeout 10000" "VACUUM INTO '${partial//\'/\'\'}'"
  check="$(sqlite3 -readonly "$partial" "PRAGMA integrity_check")"
  if [ "$check" != "ok" ]; then
    echo "sessionhub-backup: integrity check of the copy of $1 failed: $check" >&2
    exit 1
  fi
  chmod 0600 "$partial"
  mv "$partial" "$final"
  echo "$final"
}

# The journal first (see above); a hub from before the journal had its own file has none.
if [ -f "$journal" ]; then copy "$journal" sessionhub-journal; fi
copy "$db" sessionhub
trap - EXIT

# Keep the newest $keep copies of each file.
for name in sessionhub sessionhub-journal; do
  ls -1 "$dir/$name"-[0-9]*.sqlite 2>/dev/null | sort -r | tail -n +"$((keep + 1))" | while IFS= read -r old; do
    rm -f -- "$old"
  done
done
