#!/usr/bin/env bash
# The tokenizer's fuzz harness (inputs up to 2 KiB; crashes land in tests/fuzz/regressions-tokenizer/,
# replay them with $FUZZ_BUILD_DIR/tests/fuzz/fuzz-tokenizer tests/fuzz/regressions-tokenizer).
#   usage: scripts/fuzz-tokenizer.sh [SECONDS=60] [extra libFuzzer flags...]   (details: scripts/fuzz.sh)
FUZZ_MAX_LEN=${FUZZ_MAX_LEN:-2048} exec "$(dirname "$0")/fuzz.sh" tokenizer "$@"
