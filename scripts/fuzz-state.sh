#!/usr/bin/env bash
# The state loader's fuzz harness (seeds tests/fuzz/seeds-state; crashes replayed by test-state-io).
#   usage: scripts/fuzz-state.sh [SECONDS=60] [extra libFuzzer flags...]   (details: scripts/fuzz.sh)
exec "$(dirname "$0")/fuzz.sh" state "$@"
