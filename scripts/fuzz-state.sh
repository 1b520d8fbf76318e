#!/usr/bin/env bash
# Builds the state loader's libFuzzer harness with clang in a separate build dir and runs it for a
# bounded time, starting from tests/fuzz/seeds-state. Crash inputs land in tests/fuzz/regressions-state/
# (replayed by test-state-io); fix the bug and keep the file.
#   usage: scripts/fuzz-state.sh [SECONDS=60] [extra libFuzzer flags...]
#   env:   FUZZ_BUILD_DIR (default build-fuzz), FUZZ_JOBS (default 1)
set -euo pipefail

secs=${1:-60}
shift || true
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FUZZ_BUILD_DIR:-$root/build-fuzz}
jobs=${FUZZ_JOBS:-1}

CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DLLAMA_FUZZ=ON \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_BENCH=OFF > /dev/null
cmake --build "$build" --target fuzz-state -j2

corpus=$build/corpus-state  # grows across runs; the checked-in seeds stay untouched
mkdir -p "$corpus" "$root/tests/fuzz/regressions-state"
log=$build/fuzz-state.log

parallel=()
if [ "$jobs" -gt 1 ]; then
    parallel=(-jobs="$jobs" -workers="$jobs")  # each job logs to fuzz-N.log in the current dir
fi
fuzzer=$(find "$build" -type f -name fuzz-state -perm -u+x | head -1)

set +e
"$fuzzer" -max_total_time="$secs" "${parallel[@]}" -print_final_stats=1 \
    -max_len=65536 -artifact_prefix="$root/tests/fuzz/regressions-state/" "$@" \
    "$corpus" "$root/tests/fuzz/seeds-state" 2>&1 | tee "$log" | grep -E "^#[0-9]+.*(pulse|DONE)|ERROR|SUMMARY|Test unit written|stat::"
status=${PIPESTATUS[0]}
set -e

logs=("$log")
if [ "$jobs" -gt 1 ]; then
    logs+=(fuzz-*.log)
fi
execs=$( (grep -h "stat::number_of_executed_units" "${logs[@]}" 2>/dev/null || true) | awk '{s += $2} END {print s + 0}')
echo "fuzz-state: $execs executions in ${secs}s (exit $status)"
exit "$status"
