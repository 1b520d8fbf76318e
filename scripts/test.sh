#!/usr/bin/env bash
# Builds everything (Release) and runs the whole test suite. This is the README's test command
# and what .ci/run runs. BUILD_DIR overrides the build folder (default: build).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release ${CMAKE_ARGS:-}
cmake --build "$BUILD_DIR" -j "$JOBS"
# --no-tests=error: tests switch themselves off without GoogleTest; CI must not pass with none
ctest --test-dir "$BUILD_DIR" --output-on-failure --no-tests=error -j "$JOBS" ${CTEST_ARGS:-}
