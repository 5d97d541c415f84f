#!/usr/bin/env bash
# Runs every test: the Swift unit and integration tests (the storage ones on SQLite and on a
# throw-away PostgreSQL), the hub's wire-protocol suite on PostgreSQL, then the interoperability and
# conformance suites (Python websockets, Node ws, our Autobahn-style suite) against the real binary,
# then the hub's wire-protocol suite with an independent Python client (Tests/Interop/hub_python_client.py),
# then the cluster failover test (scripts/cluster-test.sh: 3 nodes on PostgreSQL behind HAProxy),
# then the crash-recovery test (Tests/Interop/crash_recovery.py: kill -9 the real binary mid-session),
# then a 2-minute soak (scripts/soak.sh, docs/SOAK.md),
# then the operator dashboard in headless Chromium (scripts/dashboard-test.sh), then the JavaScript client's tests
# against the real binary (scripts/js-client-test.sh), then the web player in headless Chromium (scripts/play-test.sh), then every fuzz target
# for 20 s with a fixed seed, so a CI run is repeatable (scripts/fuzz.sh, docs/FUZZING.md; a debug build
# with the sanitizers, which builds in half the time of release: a smoke run, long runs are by hand).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
bash scripts/lint-scripts.sh
need_build_debs
# The client's wss:// test makes a throw-away certificate with the openssl command.
need_debs openssl

# After each suite, no hub or bot built from this checkout may still run: a suite that leaves one
# behind fails here (and its leftovers are killed so they cannot load the suites after it).
leftovers() {
  local pids
  pids=$(pgrep -f "$PWD/.build/[^ ]*/sessionhub" || true)
  [ -z "$pids" ] && return 0
  echo "[test] FAILED: $1 left processes running:" >&2
  ps -o pid,etime,args -p $(echo $pids | tr ' ' ',') >&2 || true
  kill -KILL $pids 2>/dev/null || true
  return 1
}
# Each phase's line carries the minutes and seconds since the start (where a slow CI run goes).
started=$SECONDS
step() { printf '[test] %s (at %dm%02ds)\n' "$1" $(( (SECONDS - started) / 60 )) $(( (SECONDS - started) % 60 )) >&2; }
step "swift build"
swift build --build-tests
step "the client library's Apple-platform branch (type-checked against a stand-in)"
bash scripts/check-apple-branch.sh
# A throw-away PostgreSQL for the storage tests that run on both stores (scripts/postgres.sh);
# SESSIONHUB_REQUIRE_POSTGRES makes a missing server a failure instead of a skip.
PG_DIR="$(mktemp -d "${TMPDIR:-/tmp}/sessionhub-test-pg.XXXXXX")"
stop_postgres() { bash scripts/postgres.sh stop "$PG_DIR" >/dev/null 2>&1 || true; rm -rf "$PG_DIR"; }
trap stop_postgres EXIT
step "PostgreSQL for the storage tests"
SESSIONHUB_TEST_POSTGRES_URL="$(bash scripts/postgres.sh start "$PG_DIR")"
export SESSIONHUB_TEST_POSTGRES_URL SESSIONHUB_REQUIRE_POSTGRES=1
step "swift test"
# A crash prints the crashed thread's backtrace with symbols but no line tables: a full one over
# every thread of the test process once took 7 minutes, during which every test timed out.
SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=yes,interactive=no,threads=crashed,symbolicate=fast}" swift test --skip-build
leftovers "swift test"
step "hub wire-protocol suite on PostgreSQL (over its Unix socket; the Swift suites above use TCP)"
SERVE_ARGS="--database-url $(bash scripts/postgres.sh socket-url "$PG_DIR") --node-id ci" SESSIONHUB_BIN="$PWD/.build/debug/sessionhub" \
  bash scripts/hub-interop.sh
leftovers "hub-interop on PostgreSQL"
stop_postgres
trap - EXIT
step "interop and conformance suites"
SESSIONHUB_BIN="$PWD/.build/debug/sessionhub" bash scripts/interop.sh
leftovers "interop"
step "hub wire-protocol suite (independent Python client)"
SESSIONHUB_BIN="$PWD/.build/debug/sessionhub" bash scripts/hub-interop.sh
SESSIONHUB_BIN="$PWD/.build/debug/sessionhub" bash scripts/hub-interop.sh --no-compression
leftovers "hub-interop"
# The client libraries are tested against the debug binary too: a release build of the hub took
# 14.5 of a 70-minute CI run on 2 cores, and it adds no check the debug one lacks (its build is
# what scripts/serve.sh and the load tests run by hand).
step "SessionHubClient from a consumer package (version requirement, wss:// through a TLS front)"
SESSIONHUB_BIN="$PWD/.build/debug/sessionhub" bash scripts/client-consumer-test.sh
leftovers "client-consumer-test"
step "cluster failover (PostgreSQL + 3 nodes + HAProxy: kill -9, SIGSTOP, PostgreSQL restart)"
SESSIONHUB_BIN="$PWD/.build/debug/sessionhub" bash scripts/cluster-test.sh
leftovers "cluster-test"
step "crash recovery (kill -9 mid-session, restart, resume, history)"
SESSIONHUB_BIN="$PWD/.build/debug/sessionhub" bash scripts/crash-test.sh
leftovers "crash-test"
step "soak, 2 minutes (players who drop and resume, slow readers, offenders, bots, SIGKILL + restart; no leak)"
SESSIONHUB_BIN="$PWD/.build/debug/sessionhub" SESSIONHUB_BOT_BIN="$PWD/.build/debug/sessionhub-bot" bash scripts/soak.sh --minutes 2
leftovers "soak"
step "operator dashboard in headless Chromium (hub + bots)"
DASHBOARD_SCREENSHOT= SESSIONHUB_BIN="$PWD/.build/debug/sessionhub" SESSIONHUB_BOT_BIN="$PWD/.build/debug/sessionhub-bot" \
  bash scripts/dashboard-test.sh
leftovers "dashboard-test"
step "JavaScript client (clients/js) against the real binary, in Node (and headless Chromium when installed)"
SESSIONHUB_BIN="$PWD/.build/debug/sessionhub" bash scripts/js-client-test.sh
leftovers "js-client-test"
step "web player (/play) in headless Chromium (two players + a bot: host, join by code, recast, drop, reload, summary, history)"
SESSIONHUB_BIN="$PWD/.build/debug/sessionhub" SESSIONHUB_BOT_BIN="$PWD/.build/debug/sessionhub-bot" bash scripts/play-test.sh
leftovers "play-test"
step "fuzzing: every libFuzzer target for 20 s (Fuzzing/, debug build, address sanitizer)"
FUZZ_CONFIG=debug FUZZ_ARGS="-seed=1" bash scripts/fuzz.sh all 20
step "all passed"
