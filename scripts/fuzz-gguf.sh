#!/usr/bin/env bash
# The GGUF reader's fuzz harness (seeds tests/fuzz/seeds-gguf; crashes replayed by test-gguf).
#   usage: scripts/fuzz-gguf.sh [SECONDS=60] [extra libFuzzer flags...]   (details: scripts/fuzz.sh)
exec "$(dirname "$0")/fuzz.sh" gguf "$@"
