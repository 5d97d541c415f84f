#!/usr/bin/env bash
# Regenerates the settings table that README.md and docs/PROTOCOL.md carry between
# `<!-- settings:begin … -->` and `<!-- settings:end -->` from `sessionhub settings --markdown`
# (SettingsTests fails while they differ). Builds the debug `sessionhub` first.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product sessionhub >/dev/null
TABLE="$(.build/debug/sessionhub settings --markdown)" python3 - <<'PY'
import os, re
table = os.environ["TABLE"].strip("\n")
for path in ("README.md", "docs/PROTOCOL.md"):
    text = open(path, encoding="utf-8").read()
    new, n = re.subn(r"(<!-- settings:begin[^\n]*-->\n).*?(\n<!-- settings:end -->)",
                     lambda m: m.group(1) + table + m.group(2), text, flags=re.S)
    if n != 1:
        raise SystemExit(f"{path}: expected one settings table, found {n}")
    open(path, "w", encoding="utf-8").write(new)
    print(f"[settings-table] {path} updated")
PY
