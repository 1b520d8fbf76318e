#!/usr/bin/env bash
# The GBNF parser and matcher's fuzz harness (seeds tests/fuzz/seeds-grammar).
#   usage: scripts/fuzz-grammar.sh [SECONDS=60] [extra libFuzzer flags...]   (details: scripts/fuzz.sh)
exec "$(dirname "$0")/fuzz.sh" grammar "$@"
