#!/usr/bin/env bash
# build.sh: the release builds every measuring script uses, always current. Sourced, not run:
#
#   . "$HERE/build.sh"; build_loadtest; build_hub     # sets LT, and HUB_BIN unless it was given
#
# `build_loadtest` builds sessionhub-loadtest (this package), unless LT_BIN names a binary already. It depends on the repository's
# package by path, and SwiftPM does not notice source files added to or removed from that package
# until this package's manifest changes ("cannot find type ... in scope"): when the list of the
# repository's Swift files differs from the last build's, the manifest is touched first.
# `build_hub` builds the hub into loadtest/.hub-build (kept apart from the debug build of the
# tests), unless HUB_BIN names a binary already. Both builds are incremental: a few seconds when
# nothing changed, so a measurement never runs a binary older than the sources.
LOADTEST_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LOADTEST_ROOT="$(cd "$LOADTEST_DIR/.." && pwd)"
# The hub's own release build skips the codec's dynamic exclusivity checks (Package.swift): the
# variable is given to the builds only, not exported, so the hubs a script starts do not warn
# that it names no setting.

build_loadtest() {
  # LT_BIN names a load generator already built (another checkout's): nothing is built then.
  if [ -n "${LT_BIN:-}" ]; then
    [ -x "$LT_BIN" ] || { echo "LT_BIN=$LT_BIN is not an executable" >&2; return 1; }
    LT="$LT_BIN"
    return 0
  fi
  local stamp="$LOADTEST_DIR/.build/root-sources.sha" list
  list="$(cd "$LOADTEST_ROOT" && find Sources Package.swift -name '*.swift' | LC_ALL=C sort | sha256sum | cut -c1-64)"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$list" ]; then touch "$LOADTEST_DIR/Package.swift"; fi
  (cd "$LOADTEST_DIR" && SESSIONHUB_UNCHECKED_EXCLUSIVITY=1 swift build -c release --product sessionhub-loadtest >&2) || return 1
  mkdir -p "$LOADTEST_DIR/.build" && echo "$list" >"$stamp"
  LT="$LOADTEST_DIR/.build/release/sessionhub-loadtest"
}

build_hub() {
  if [ -n "${HUB_BIN:-}" ]; then
    [ -x "$HUB_BIN" ] || { echo "HUB_BIN=$HUB_BIN is not an executable" >&2; return 1; }
    return 0
  fi
  (cd "$LOADTEST_ROOT" && SESSIONHUB_UNCHECKED_EXCLUSIVITY=1 swift build -c release --product sessionhub --scratch-path "$LOADTEST_DIR/.hub-build" >&2) || return 1
  HUB_BIN="$LOADTEST_DIR/.hub-build/release/sessionhub"
}
