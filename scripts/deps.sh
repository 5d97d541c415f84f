#!/usr/bin/env bash
# Installs the Debian packages SessionHub needs, only when missing. Sourced by the other scripts.
#   need_debs pkg...          installs the packages that dpkg does not list as installed
#   need_build_debs           what the Swift package builds with
#   need_interop_venv ROOT    ROOT/.venv with the pinned Python `websockets` for the interop suites
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
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 || true
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
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
