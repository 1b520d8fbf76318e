#!/usr/bin/env bash
# The Jinja template engine's fuzz harness (seeds tests/fuzz/seeds-jinja, dictionary tests/fuzz/jinja.dict;
# inputs up to 8 KiB; a render slower than 20 s is a finding). Crashes land in tests/fuzz/regressions-jinja/,
# replay them with $FUZZ_BUILD_DIR/tests/fuzz/fuzz-jinja tests/fuzz/regressions-jinja.
#   usage: scripts/fuzz-jinja.sh [SECONDS=60] [extra libFuzzer flags...]   (details: scripts/fuzz.sh)
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-60}
shift || true
FUZZ_MAX_LEN=${FUZZ_MAX_LEN:-8192} exec "$root/scripts/fuzz.sh" jinja "$secs" -timeout=20 \
    -dict="$root/tests/fuzz/jinja.dict" "$@"
