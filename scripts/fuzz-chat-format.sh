#!/usr/bin/env bash
# The chat output parsers' fuzz harness (seeds tests/fuzz/seeds-chat-format): random text in random
# chunks through every format; checks the streaming invariants and that nothing crashes.
#   usage: scripts/fuzz-chat-format.sh [SECONDS=60] [extra libFuzzer flags...]   (details: scripts/fuzz.sh)
exec "$(dirname "$0")/fuzz.sh" chat-format "$@"
