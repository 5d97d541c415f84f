#!/usr/bin/env bash
# Issue 12's consumer check: an app-like package created in a temp dir depends on
# SessionHubClient by version (a git copy of this checkout's HEAD, tagged 1.0.0, required with
# `from: "1.0.0"` — SwiftPM refuses unsafe flags in such a dependency), builds on Linux, and plays
# a 3-player session over wss:// against the hub behind an HAProxy TLS front holding a throw-away
# certificate (Tests/ClientConsumer/main.swift).
#
#   bash scripts/client-consumer-test.sh        # the hub: $SESSIONHUB_BIN, else a release build
#
# Installs what is missing (haproxy, openssl, git). Takes a few minutes: the consumer builds its
# dependencies from scratch. Loopback only; every process it starts is gone when it ends; the
# work directory is kept when it fails.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
export DEBIAN_FRONTEND=noninteractive
. scripts/deps.sh
need_build_debs || exit 1
need_debs haproxy openssl git || exit 1
log() { echo "[consumer] $*" >&2; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/sessionhub-consumer.XXXXXX")"
OK=0
finish() {
  pkill -KILL -f "haproxy -db -f $WORK/" 2>/dev/null || true
  pkill -KILL -f -- "--secret-file $WORK/secret" 2>/dev/null || true
  if [ "$OK" = 1 ]; then rm -rf "$WORK"; else log "kept the work directory: $WORK"; fi
}
trap finish EXIT

if [ -z "${SESSIONHUB_BIN:-}" ]; then
  log "building the hub (release)"
  SESSIONHUB_UNCHECKED_EXCLUSIVITY=1 swift build -c release --product sessionhub >&2 || exit 1
  SESSIONHUB_BIN="$ROOT/.build/release/sessionhub"
fi

# 1. The package as a versioned dependency.
git clone -q "$ROOT" "$WORK/sessionhub" || exit 1
git -C "$WORK/sessionhub" -c user.name=ci -c user.email=ci@localhost tag 1.0.0 || exit 1
mkdir -p "$WORK/consumer/Sources/Consumer"
cp "$ROOT/Tests/ClientConsumer/main.swift" "$WORK/consumer/Sources/Consumer/main.swift"
cat > "$WORK/consumer/Package.swift" <<SWIFT
// swift-tools-version:6.1
import PackageDescription
let package = Package(
    name: "Consumer",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: "file://$WORK/sessionhub", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
    ],
    targets: [.executableTarget(name: "Consumer", dependencies: [
        .product(name: "SessionHubClient", package: "sessionhub"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
    ])]
)
SWIFT
log "building the consumer package (its dependencies from scratch)"
(cd "$WORK/consumer" && env -u SESSIONHUB_UNCHECKED_EXCLUSIVITY timeout 1800 swift build >"$WORK/consumer-build.log" 2>&1) || {
  tail -30 "$WORK/consumer-build.log" >&2; log "FAILED: the consumer does not build"; exit 1; }

# 2. The hub on a fresh SQLite file, behind a TLS front.
# (Started in subshells: not jobs of this shell, so the final sweep kills them without a notice.)
("$SESSIONHUB_BIN" serve --host 127.0.0.1 --port 0 --port-file "$WORK/port" --database "$WORK/hub.sqlite" \
  --secret-file "$WORK/secret" --log-level warning >"$WORK/hub.log" 2>&1 &)
for _ in $(seq 1 100); do [ -s "$WORK/port" ] && break; sleep 0.1; done
[ -s "$WORK/port" ] || { log "FAILED: the hub did not start"; cat "$WORK/hub.log" >&2; exit 1; }
HUB_PORT="$(cat "$WORK/port")"
timeout 30 openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$WORK/key.pem" \
  -out "$WORK/cert.pem" -days 1 -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 2>/dev/null || exit 1
cat "$WORK/cert.pem" "$WORK/key.pem" > "$WORK/front.pem"
TLS_PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
cat > "$WORK/haproxy.cfg" <<CFG
defaults
    mode http
    timeout connect 5s
    timeout client 60s
    timeout server 60s
    timeout tunnel 120s
frontend tls
    bind 127.0.0.1:$TLS_PORT ssl crt $WORK/front.pem
    default_backend hub
backend hub
    server hub 127.0.0.1:$HUB_PORT
CFG
(haproxy -db -f "$WORK/haproxy.cfg" >"$WORK/haproxy.log" 2>&1 &)
for _ in $(seq 1 50); do (exec 3<>"/dev/tcp/127.0.0.1/$TLS_PORT") 2>/dev/null && break; sleep 0.1; done

# 3. Play.
token() { "$SESSIONHUB_BIN" token --user "$1" --name "$2" --secret-file "$WORK/secret"; }
if HUB_URL="wss://localhost:$TLS_PORT/ws" CA_FILE="$WORK/cert.pem" TOKEN_ANA="$(token ana Ana)" TOKEN_BEN="$(token ben Ben)" \
   TOKEN_CLEO="$(token cleo Cleo)" timeout 120 "$WORK/consumer/.build/debug/Consumer"; then
  OK=1
  log "passed"
else
  log "FAILED: the consumer's session (hub log: $WORK/hub.log)"
  exit 1
fi
