#!/usr/bin/env bash
# Functions the other scripts share; sourced by them. Installs the Debian packages SessionHub
# needs, only when missing:
#   need_debs pkg...          installs the packages that dpkg does not list as installed
#   need_build_debs           what the Swift package builds with
#   need_interop_venv ROOT    ROOT/.venv with the pinned Python `websockets` for the interop suites
# and runs the hub for a test script (the caller defines `log`, START=$SECONDS, BIN and SECRET):
#   new_secret FILE           a random hub secret in FILE (owner-only)
#   start_hub LIFETIME PORT_FILE LOG SERVE_ARG...   `$BIN serve` in the background; sets HUB_PID
#   wait_hub_port PID PORT_FILE LOG [WHO]           until the hub listens (20 s from START at most)
#   stop_hub PID              SIGTERM, SIGKILL after 5 s, reaped
#   on_exit FUNCTION          FUNCTION runs on exit, also after SIGINT (exit 130) and SIGTERM (143)
# Callers choose their own `set` options.

need_debs() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "[deps] installing: ${missing[*]}" >&2
  local sudo=()
  [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null && sudo=(sudo)
  # Another apt (a second test run, unattended upgrades) may hold dpkg's lock: wait for it
  # instead of failing at once.
  local wait=(-o DPkg::Lock::Timeout=600)
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "${wait[@]}" update -qq >&2 || true
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "${wait[@]}" install -y -qq "${missing[@]}" >&2
}

# Build dependencies of the Swift package.
need_build_debs() {
  need_debs zlib1g-dev libsqlite3-dev libssl-dev pkg-config
}

# A virtualenv at ROOT/.venv holding Tests/Interop/requirements.txt (python3-venv installed when
# the system Python cannot make one). Returns non-zero with a message when that fails.
need_interop_venv() {
  local root="$1" venv="$1/.venv" py="${PYTHON:-python3}"
  command -v "$py" >/dev/null || { need_debs python3; py=python3; }
  if ! "$venv/bin/python" -c 'import websockets' 2>/dev/null; then
    if ! "$py" -m venv --clear "$venv" >/dev/null 2>&1; then
      need_debs python3-venv
      py=/usr/bin/python3
      "$py" -m venv --clear "$venv" || { echo "[deps] cannot create $venv" >&2; return 1; }
    fi
    "$venv/bin/pip" install -q -r "$root/Tests/Interop/requirements.txt" || { echo "[deps] pip install failed" >&2; return 1; }
  fi
  "$venv/bin/python" -c 'import websockets' || { echo "[deps] websockets not importable from $venv" >&2; return 1; }
}

# A random secret (32 bytes, base64, one line) in FILE, readable by its owner only.
new_secret() {  # file
  (umask 077; head -c 32 /dev/urandom | base64 | tr -d '\n=' >"$1"; echo >>"$1")
}

# `$BIN serve` in the background on a free loopback port (written to PORT_FILE once listening) with
# the secret file $SECRET and the further SERVE_ARGs, its output in LOG, bounded by `timeout`
# (LIFETIME seconds, SIGKILL 5 s later). Sets HUB_PID.
start_hub() {  # lifetime port-file log serve-arg...
  local lifetime="$1" port_file="$2" log_file="$3"
  shift 3
  timeout -k 5 "$lifetime" "$BIN" serve --host 127.0.0.1 --port 0 --port-file "$port_file" --secret-file "$SECRET" \
    "$@" >"$log_file" 2>&1 &
  HUB_PID=$!
}

# Waits until the hub PID has written PORT_FILE, at most until 20 s after the caller's START; when it
# exits first or the time is up, logs that (naming it WHO, default "the hub") and returns 1.
wait_hub_port() {  # pid port-file log [who]
  local who="${4:-the hub}"
  until [ -s "$2" ]; do
    if ! kill -0 "$1" 2>/dev/null; then
      log "$who exited before listening:"; tail -n 20 "$3" >&2; return 1
    fi
    [ $((SECONDS - START)) -ge 20 ] && { log "$who did not listen within 20 s"; return 1; }
    sleep 0.05
  done
  sleep 0.05
}

# Stops the hub PID (nothing when empty): SIGTERM, SIGKILL when it is still running 5 s later; reaps it.
stop_hub() {  # pid
  local pid="$1"
  [ -n "$pid" ] || return 0
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
  fi
  wait "$pid" 2>/dev/null
}

# FUNCTION runs when the script exits, also when SIGINT or SIGTERM ends it (exit status 130 or 143).
on_exit() {  # function
  trap "$1" EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}
