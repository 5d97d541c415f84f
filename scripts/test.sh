#!/usr/bin/env bash
# Runs every test: the Swift unit and integration tests, then the interoperability and
# conformance suites (Python websockets, Node ws, our Autobahn-style suite) against the real binary,
# then the hub's wire-protocol suite with an independent Python client (Tests/Interop/hub_python_client.py),
# then the crash-recovery test (Tests/Interop/crash_recovery.py: kill -9 the real binary mid-session),
# then the operator dashboard in headless Chromium (scripts/dashboard-test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
need_build_debs
echo "[test] swift build" >&2
swift build --build-tests
echo "[test] swift test" >&2
swift test --skip-build
echo "[test] interop and conformance suites" >&2
SESSIONHUB_BIN="$PWD/.build/debug/sessionhub" bash scripts/interop.sh
echo "[test] hub wire-protocol suite (independent Python client)" >&2
SESSIONHUB_BIN="$PWD/.build/debug/sessionhub" bash scripts/hub-interop.sh
SESSIONHUB_BIN="$PWD/.build/debug/sessionhub" bash scripts/hub-interop.sh --no-compression
echo "[test] crash recovery (kill -9 mid-session, restart, resume, history)" >&2
SESSIONHUB_BIN="$PWD/.build/debug/sessionhub" bash scripts/crash-test.sh
echo "[test] operator dashboard in headless Chromium (hub + bots)" >&2
DASHBOARD_SCREENSHOT= SESSIONHUB_BIN="$PWD/.build/debug/sessionhub" SESSIONHUB_BOT_BIN="$PWD/.build/debug/sessionhub-bot" \
  bash scripts/dashboard-test.sh
echo "[test] all passed" >&2
