#!/usr/bin/env bash
# Online backup of the SessionHub SQLite database with VACUUM INTO: one consistent snapshot
# (WAL included) taken in a single read transaction, compacted, without stopping the hub.
# The copy is checked with PRAGMA integrity_check before it replaces nothing and is kept; the
# oldest copies beyond SESSIONHUB_BACKUP_KEEP are removed.
#
#   SESSIONHUB_DATABASE    the live file   (default /var/lib/sessionhub/sessionhub.sqlite)
#   SESSIONHUB_BACKUP_DIR  where copies go (default /var/backups/sessionhub)
#   SESSIONHUB_BACKUP_KEEP copies kept     (default 14)
#
# Needs the sqlite3 command-line shell (Debian: apt install sqlite3), 3.27 or later. Run it as
# the service user (it needs read access to the database, its -wal and -shm) — see
# deploy/systemd/sessionhub-backup.service and .timer. Exit status 0 only when a verified copy
# was written; it prints the copy's path.
set -euo pipefail

db="${SESSIONHUB_DATABASE:-/var/lib/sessionhub/sessionhub.sqlite}"
dir="${SESSIONHUB_BACKUP_DIR:-/var/backups/sessionhub}"
keep="${SESSIONHUB_BACKUP_KEEP:-14}"

command -v sqlite3 >/dev/null || { echo "sessionhub-backup: sqlite3 is not installed" >&2; exit 69; }
[ -f "$db" ] || { echo "sessionhub-backup: no database at $db" >&2; exit 66; }
mkdir -p "$dir"

stamp="$(date -u +%Y%m%dT%H%M%SZ)"
final="$dir/sessionhub-$stamp.sqlite"
partial="$dir/.sessionhub-$stamp.sqlite.partial"
rm -f "$partial"
trap 'rm -f "$partial"' EXIT

# VACUUM INTO takes a file name as an SQL string: double any single quote in the path.
target="${partial//\'/\'\'}"
# busy_timeout: wait for the hub's commit in progress instead of failing at once.
sqlite3 -bail "$db" ".timeout 10000" "VACUUM INTO '$target'"

check="$(sqlite3 -readonly "$partial" "PRAGMA integrity_check")"
if [ "$check" != "ok" ]; then
  echo "sessionhub-backup: integrity check of the copy failed: $check" >&2
  exit 1
fi
chmod 0600 "$partial"
mv "$partial" "$final"
trap - EXIT

# Keep the newest $keep copies.
ls -1 "$dir"/sessionhub-*.sqlite 2>/dev/null | sort -r | tail -n +"$((keep + 1))" | while IFS= read -r old; do
  rm -f -- "$old"
done
echo "$final"
