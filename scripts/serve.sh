#!/usr/bin/env bash
# Starts the hub on 127.0.0.1:8080 with embedded defaults (release build).
# Extra arguments go to `sessionhub serve`, e.g. ./scripts/serve.sh --port 9000 --enable-echo
set -euo pipefail
# The hub's own release build skips the codec's dynamic exclusivity checks (Package.swift).
# A build flag only: the hub itself is started without it (it warns about SESSIONHUB_ variables
# that name no setting).
cd "$(dirname "$0")/.."
. scripts/deps.sh
need_build_debs
SESSIONHUB_UNCHECKED_EXCLUSIVITY=1 swift build -c release --product sessionhub >&2
exec .build/release/sessionhub serve "$@"
