#!/usr/bin/env bash
# Builds one libFuzzer harness of tests/fuzz/ with clang in a separate build dir and runs it for a
# bounded time, starting from tests/fuzz/seeds-NAME when that folder exists. Crash inputs land in
# tests/fuzz/regressions-NAME/ (the unit tests replay the gguf and state ones); fix the bug and keep
# the file. scripts/fuzz-gguf.sh, fuzz-state.sh, fuzz-tokenizer.sh, fuzz-grammar.sh, fuzz-chat-format.sh and
# fuzz-jinja.sh call this.
#   usage: scripts/fuzz.sh NAME [SECONDS=60] [extra libFuzzer flags...]
#          (NAME: gguf, state, tokenizer, grammar, chat-format, jinja)
#   env:   FUZZ_BUILD_DIR (default build-fuzz), FUZZ_JOBS (default 1), FUZZ_MAX_LEN (default 65536)
set -euo pipefail

name=${1:?usage: scripts/fuzz.sh NAME [SECONDS=60] [libFuzzer flags...]}
shift
secs=${1:-60}
shift || true
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FUZZ_BUILD_DIR:-$root/build-fuzz}
jobs=${FUZZ_JOBS:-1}
max_len=${FUZZ_MAX_LEN:-65536}

CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DLLAMA_FUZZ=ON \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_BENCH=OFF > /dev/null
cmake --build "$build" --target "fuzz-$name" -j2

corpus=$build/corpus-$name  # grows across runs; the checked-in seeds stay untouched
mkdir -p "$corpus" "$root/tests/fuzz/regressions-$name"
log=$build/fuzz-$name.log
dirs=("$corpus")
if [ -d "$root/tests/fuzz/seeds-$name" ]; then
    dirs+=("$root/tests/fuzz/seeds-$name")
fi

parallel=()
if [ "$jobs" -gt 1 ]; then
    parallel=(-jobs="$jobs" -workers="$jobs")  # each job logs to fuzz-N.log in the current dir
fi
fuzzer=$(find "$build" -type f -name "fuzz-$name" -perm -u+x | head -1)

set +e
"$fuzzer" -max_total_time="$secs" "${parallel[@]}" -print_final_stats=1 \
    -max_len="$max_len" -artifact_prefix="$root/tests/fuzz/regressions-$name/" "$@" \
    "${dirs[@]}" 2>&1 | tee "$log" | grep -E "^#[0-9]+.*(pulse|DONE)|ERROR|SUMMARY|Test unit written|stat::"
status=${PIPESTATUS[0]}
set -e

logs=("$log")
if [ "$jobs" -gt 1 ]; then
    logs+=(fuzz-*.log)
fi
execs=$( (grep -h "stat::number_of_executed_units" "${logs[@]}" 2>/dev/null || true) | awk '{s += $2} END {print s + 0}')
echo "fuzz-$name: $execs executions in ${secs}s (exit $status)"
exit "$status"
