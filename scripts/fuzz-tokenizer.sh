#!/usr/bin/env bash
# Builds the tokenizer's libFuzzer harness with clang in a separate build dir and runs it for a bounded
# time. Crash inputs land in tests/fuzz/regressions-tokenizer/; replay them with
#   $FUZZ_BUILD_DIR/tests/fuzz/fuzz-tokenizer tests/fuzz/regressions-tokenizer
#   usage: scripts/fuzz-tokenizer.sh [SECONDS=60] [extra libFuzzer flags...]
set -euo pipefail

secs=${1:-60}
shift || true
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FUZZ_BUILD_DIR:-$root/build-fuzz}

CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DLLAMA_FUZZ=ON \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_BENCH=OFF > /dev/null
cmake --build "$build" --target fuzz-tokenizer -j2

corpus=$build/corpus-tokenizer
mkdir -p "$corpus" "$root/tests/fuzz/regressions-tokenizer"
fuzzer=$(find "$build" -type f -name fuzz-tokenizer -perm -u+x | head -1)
"$fuzzer" -max_total_time="$secs" -max_len=2048 -print_final_stats=1 \
    -artifact_prefix="$root/tests/fuzz/regressions-tokenizer/" "$@" "$corpus"
