#!/usr/bin/env bash
# Online backup of the SessionHub data without stopping the hub: the journal of the open sessions
# first, then the database. A session that ends in between is then in the database's copy
# (history and its ended-session marker), and the restored hub drops its journal instead of
# losing it (docs/STORAGE.md, "Backups").
#
# - The log journal (sessionhub-journal.log/ beside the database, the default journal): every
#   segment is hard-linked into a directory beside it first, so that the upkeep deleting a
#   segment meanwhile cannot leave a hole in the copy (listed again if one went before it was
#   linked), then the links are copied; every segment but the last (the one being written, copied
#   as far as it was written: a record cut short ends the log there, as a torn write does) must
#   equal its copy. `LOCK` and `quarantine/` are not copied.
# - An SQLite journal (sessionhub-journal.sqlite, `--journal sqlite`) and the database: one
#   consistent snapshot each with VACUUM INTO (WAL included, a single read transaction, compacted),
#   kept only when PRAGMA integrity_check answers ok.
#
# The oldest copies beyond SESSIONHUB_BACKUP_KEEP of each are removed.
#
#   SESSIONHUB_DATABASE    the live file   (default /var/lib/sessionhub/sessionhub.sqlite)
#   SESSIONHUB_BACKUP_DIR  where copies go (default /var/backups/sessionhub)
#   SESSIONHUB_BACKUP_KEEP copies kept     (default 14)
#
# Needs the sqlite3 command-line shell (Debian: apt install sqlite3), 3.27 or later. Run it as
# the service user (it needs read access to the database, its -wal and -shm, and write access to
# the database's directory for the links) — see deploy/systemd/sessionhub-backup.service and
# .timer. Exit status 0 only when every copy was written and verified; it prints the copies'
# paths (journal first).
set -euo pipefail

db="${SESSIONHUB_DATABASE:-/var/lib/sessionhub/sessionhub.sqlite}"
dir="${SESSIONHUB_BACKUP_DIR:-/var/backups/sessionhub}"
keep="${SESSIONHUB_BACKUP_KEEP:-14}"

command -v sqlite3 >/dev/null || { echo "sessionhub-backup: sqlite3 is not installed" >&2; exit 69; }
[ -f "$db" ] || { echo "sessionhub-backup: no database at $db" >&2; exit 66; }
mkdir -p "$dir"

stamp="$(date -u +%Y%m%dT%H%M%SZ)"
journal="${db%.sqlite}-journal.sqlite"
log_journal="${db%.sqlite}-journal.log"
partials=()
trap 'rm -rf -- "${partials[@]}"' EXIT

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

# The segment files of the log journal in DIRECTORY, oldest first (names as LogSegment makes them:
# `journal-` and at least 8 digits).
segments() {
  local name
  for name in "$1"/journal-*.log; do
    name="${name##*/}"
    [[ "$name" =~ ^journal-[0-9]{8,}\.log$ ]] && echo "$name"
  done | awk '{ print length($0) " " $0 }' | sort -k1,1n -k2,2 | cut -d' ' -f2-
}

# copy_log SOURCE NAME: the log journal SOURCE as the directory $dir/NAME-$stamp.log; prints its path.
copy_log() {
  local final="$dir/$2-$stamp.log" partial="$dir/.$2-$stamp.log.partial"
  local links names=() name attempt linked last=""
  # Beside the journal's directory, on its file system (a hard link cannot leave it).
  links="$(dirname -- "$1")/.$2-backup-links.$$"
  partials+=("$links" "$partial")
  for attempt in 1 2 3 4 5; do
    rm -rf -- "$links"
    mkdir -m 0700 "$links"
    mapfile -t names < <(segments "$1")
    linked=1
    for name in "${names[@]}"; do
      # A segment gone between the listing and its link (the upkeep deletes from the log's
      # start): list again, else the copy would have a hole.
      ln "$1/$name" "$links/$name" 2>/dev/null || { linked=0; break; }
    done
    [ "$linked" -eq 1 ] && break
  done
  if [ "$linked" -ne 1 ]; then
    echo "sessionhub-backup: segments of $1 kept going while linking them (5 attempts)" >&2
    exit 1
  fi
  rm -rf -- "$partial"
  mkdir -m 0700 "$partial"
  [ "${#names[@]}" -gt 0 ] && last="${names[-1]}"
  for name in "${names[@]}"; do
    cp -- "$links/$name" "$partial/$name"
    # Only the last segment is still written to; every other one must equal its copy.
    if [ "$name" != "$last" ] && ! cmp -s -- "$links/$name" "$partial/$name"; then
      echo "sessionhub-backup: the copy of $1/$name differs from the segment" >&2
      exit 1
    fi
    chmod 0600 "$partial/$name"
  done
  rm -rf -- "$links"
  mv "$partial" "$final"
  echo "$final"
}

# The journal first (see above): the log journal, or an SQLite one (with `--journal sqlite`; both
# only for a moment while the hub moves one into the other at start; a hub from before the journal
# had its own file has neither).
if [ -d "$log_journal" ]; then copy_log "$log_journal" sessionhub-journal; fi
if [ -f "$journal" ]; then copy "$journal" sessionhub-journal; fi
copy "$db" sessionhub
trap - EXIT

# Keep the newest $keep copies of each (a kind with no copy, say the SQLite journal's next to
# the log journal's, is skipped).
shopt -s nullglob
prune() {
  local copies=("$@") i
  # The names sort by their UTC stamp; the newest last.
  for ((i = 0; i < ${#copies[@]} - keep; i++)); do rm -rf -- "${copies[$i]}"; done
}
prune "$dir"/sessionhub-[0-9]*.sqlite
prune "$dir"/sessionhub-journal-[0-9]*.sqlite
prune "$dir"/sessionhub-journal-[0-9]*.log
