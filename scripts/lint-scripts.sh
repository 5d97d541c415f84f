#!/usr/bin/env bash
# Static guard for the test scripts (run first by scripts/test.sh). It keeps fixed what once made
# CI red on fresh machines:
#   - every script parses (`bash -n`);
#   - no script signals itself (`kill ... $$`): a watchdog that does can hit its own script after
#     the cleanup trap is gone (exit 143 after a pass) — bound children with `timeout` instead;
#   - no timer starts before the installs: in each script the first use of SECONDS comes after the
#     last `need_*`/`apt-get` line, so installing Chromium or PostgreSQL never eats a start timeout.
# Exit status: 0 when every check holds, 1 otherwise (each failure printed with file:line).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
status=0
fail() { echo "[lint-scripts] $*" >&2; status=1; }

for script in scripts/*.sh loadtest/*.sh Benchmarks/*.sh; do
  [ -e "$script" ] || continue
  bash -n "$script" || fail "$script: does not parse"
  while IFS= read -r hit; do
    fail "$script:${hit%%:*}: signals its own script (kill \$\$); bound children with timeout instead"
  done < <(grep -nE '^[^#]*kill[^#]*\$\$' "$script" || true)
  last_install=$(grep -nE '^[^#]*\b(need_debs|need_build_debs|need_interop_venv|need_[a-z_]+|apt-get)\b' "$script" \
    | grep -vE '^[0-9]+:[[:space:]]*(need_[a-z_]+\(\)|#)' | tail -n 1 | cut -d: -f1)
  first_timer=$(grep -nE '^[^#]*\bSECONDS\b' "$script" | head -n 1 | cut -d: -f1)
  if [ -n "$last_install" ] && [ -n "$first_timer" ] && [ "$first_timer" -lt "$last_install" ]; then
    fail "$script:$first_timer: a timer (SECONDS) starts before the install on line $last_install"
  fi
done
[ "$status" -eq 0 ] && echo "[lint-scripts] ok" >&2
exit "$status"
