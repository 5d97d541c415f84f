#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzzing/, with address sanitizer) and runs one or all of them for
# a bounded time on a copy of the seed corpus (docs/FUZZING.md).
#   scripts/fuzz.sh TARGET DURATION     TARGET: connection handshake inflater client-message token, or all
# DURATION is in seconds. Prints executions, exec/s and coverage (libFuzzer's cov: and ft:) for each
# target; exits non-zero when a target crashes or fails a property, keeping the input that did it in
# .build-fuzz/crashes/TARGET/ (replay it: Fuzzing/.build/release/FuzzTARGET FILE).
# Environment: FUZZ_JOBS_DIR (where runs and crashes go, default .build-fuzz), FUZZ_ARGS (more
# libFuzzer flags, e.g. "-seed=1"), FUZZ_BIN (a directory of already built targets: skips the build),
# FUZZ_CONFIG (release, the default, or debug: builds in half the time on 2 cores and runs about 8x
# fewer executions per second; the CI's short smoke runs use it, long runs want release).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
. scripts/deps.sh

TARGETS=(connection handshake inflater client-message token)
usage() { echo "usage: scripts/fuzz.sh {${TARGETS[*]// /|}|all} DURATION_IN_S" >&2; exit 2; }
[ $# -eq 2 ] || usage
target="$1" duration="$2"
[[ "$duration" =~ ^[0-9]+$ ]] && [ "$duration" -gt 0 ] || usage
if [ "$target" = all ]; then
  selected=("${TARGETS[@]}")
else
  [[ " ${TARGETS[*]} " == *" $target "* ]] || usage
  selected=("$target")
fi

need_build_debs
# libFuzzer and the sanitizer runtimes ship with the Swift toolchain (its clang resource directory).
swift_bin="$(dirname "$(readlink -f "$(command -v swift)")")"
if ! ls "$swift_bin"/../lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1 \
   && ! ls "$swift_bin"/../lib/swift/clang/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1; then
  echo "[fuzz] this Swift toolchain ($swift_bin) has no libclang_rt.fuzzer: install a toolchain from swift.org" >&2
  exit 1
fi

product() { # connection -> FuzzConnection, client-message -> FuzzClientMessage
  local name="" part
  IFS=- read -ra parts <<< "$1"
  for part in "${parts[@]}"; do name+="${part^}"; done
  echo "Fuzz$name"
}

work="${FUZZ_JOBS_DIR:-$ROOT/.build-fuzz}"
mkdir -p "$work"
bin="${FUZZ_BIN:-}"
if [ -z "$bin" ]; then
  build_start=$(date +%s)
  config="${FUZZ_CONFIG:-release}"
  [ "$config" = release ] || [ "$config" = debug ] || { echo "[fuzz] FUZZ_CONFIG must be release or debug" >&2; exit 2; }
  echo "[fuzz] building Fuzzing/ ($config, -sanitize=fuzzer,address)" >&2
  swift build --package-path Fuzzing -c "$config" -Xswiftc -sanitize=fuzzer,address >&2
  echo "[fuzz] build took $(( $(date +%s) - build_start )) s" >&2
  bin="$ROOT/Fuzzing/.build/$config"
fi

failed=()
for name in "${selected[@]}"; do
  exe="$bin/$(product "$name")"
  run="$work/runs/$name"
  crashes="$work/crashes/$name"
  rm -rf "$run"
  mkdir -p "$run/corpus" "$crashes"
  cp Fuzzing/Corpus/"$name"/* "$run/corpus/"
  dict=()
  [ -f "Fuzzing/Dictionaries/$name.dict" ] && dict=("-dict=$ROOT/Fuzzing/Dictionaries/$name.dict")
  echo "[fuzz] $name for ${duration} s" >&2
  status=0
  # libFuzzer stops itself after -max_total_time; timeout only bounds a hang of the whole process.
  # shellcheck disable=SC2086
  SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" timeout --kill-after=10 $(( duration + 120 )) \
    "$exe" "$run/corpus" "${dict[@]}" -max_total_time="$duration" -timeout=10 -rss_limit_mb=2048 \
    -max_len=8192 -print_final_stats=1 -artifact_prefix="$crashes/" ${FUZZ_ARGS:-} \
    > "$run/log" 2>&1 || status=$?
  done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$run/log" | tail -n 1 || true)
  cov=$(grep -oE 'cov: [0-9]+' <<< "$done_line" | grep -oE '[0-9]+' || echo "?")
  ft=$(grep -oE 'ft: [0-9]+' <<< "$done_line" | grep -oE '[0-9]+' || echo "?")
  corp=$(grep -oE 'corp: [0-9]+' <<< "$done_line" | grep -oE '[0-9]+' || echo "?")
  runs=$(grep -oE 'stat::number_of_executed_units:[[:space:]]+[0-9]+' "$run/log" | grep -oE '[0-9]+$' || echo "?")
  rate=$(grep -oE 'stat::average_exec_per_sec:[[:space:]]+[0-9]+' "$run/log" | grep -oE '[0-9]+$' || echo "?")
  rss=$(grep -oE 'stat::peak_rss_mb:[[:space:]]+[0-9]+' "$run/log" | grep -oE '[0-9]+$' || echo "?")
  took=$(grep -oE '^Done [0-9]+ runs in [0-9]+ second' "$run/log" | grep -oE '[0-9]+ second' | grep -oE '[0-9]+' || true)
  echo "[fuzz] $name: $runs executions in ${took:-less than $duration} s, $rate exec/s, cov $cov, ft $ft, corpus $corp, peak RSS ${rss} MB" >&2
  if [ "$status" -ne 0 ]; then
    echo "[fuzz] $name FAILED (exit $status); log: $run/log" >&2
    grep -E 'ERROR: |property failed|Fatal error|SUMMARY|Test unit written' "$run/log" | head -n 20 >&2 || true
    ls -1 "$crashes" >&2 || true
    failed+=("$name")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "[fuzz] FAILED: ${failed[*]} (inputs kept in $work/crashes/)" >&2
  exit 1
fi
echo "[fuzz] ok: ${#selected[@]} target(s) ran without a crash" >&2
