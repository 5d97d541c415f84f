#!/usr/bin/env bash
# check-apple-branch.sh: type-checks the Apple-platform branch of Sources/SessionHubSync (the only
# code behind `#if canImport(Darwin)` in the client library's closure) on Linux, in Swift 6 mode,
# against a stand-in with os.OSAllocatedUnfairLock's signatures. Nothing Apple is compiled here;
# this catches type and Sendable errors in that branch before an app developer does.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
for f in "$ROOT"/Sources/SessionHubSync/*.swift; do
  sed -e 's/#if canImport(Darwin)/#if true/' -e 's/^import os$//' "$f" > "$WORK/$(basename "$f")"
done
swiftc -swift-version 6 -parse-as-library -typecheck -module-name SessionHubSync \
  "$ROOT/scripts/apple-standin/OSAllocatedUnfairLock.swift" "$ROOT/scripts/apple-standin/Use.swift" "$WORK"/*.swift
echo "[check-apple-branch] SessionHubSync's Apple branch type-checks" >&2
