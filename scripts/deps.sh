#!/usr/bin/env bash
# Installs the Debian packages SessionHub needs, only when missing. Sourced by the other scripts.
#   need_debs pkg...   installs the packages that dpkg does not list as installed
set -euo pipefail

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
