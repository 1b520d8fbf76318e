#!/usr/bin/env bash
# Format check (CI): every C/C++ source the project owns must be unchanged by clang-format (the
# Debian clang-format 14, style in .clang-format). Not checked: the public headers (include/,
# ggml/include/), which are hand-formatted manuals; generated tables; the probe, kept byte-identical
# to the copy the reference outputs were made with. FIX=1 rewrites the files instead of checking.
set -euo pipefail
cd "$(dirname "$0")/.."
CLANG_FORMAT=${CLANG_FORMAT:-$(command -v clang-format-14 || command -v clang-format || true)}
if [ -z "$CLANG_FORMAT" ]; then
    echo "check-format: clang-format not found (apt-get install clang-format-14)"
    exit 1
fi
mapfile -t files < <(git ls-files '*.c' '*.cc' '*.cpp' '*.h' '*.hpp' '*.cu' '*.cuh' \
    ':!include/' ':!ggml/include/' ':!src/llama-unicode-data.cpp' ':!tests/probe/probe.cpp')
if [ "${FIX:-0}" = 1 ]; then
    "$CLANG_FORMAT" -i "${files[@]}"
    exit 0
fi
if ! "$CLANG_FORMAT" --dry-run --Werror "${files[@]}" 2>/tmp/check-format.$$; then
    grep -E '^[^ ]+:[0-9]+:[0-9]+: error' /tmp/check-format.$$ | cut -d: -f1 | sort | uniq -c | sed 's/^/  /'
    rm -f /tmp/check-format.$$
    echo "check-format: the files above differ from clang-format's output (FIX=1 scripts/check-format.sh rewrites them)"
    exit 1
fi
rm -f /tmp/check-format.$$
echo "check-format: ${#files[@]} files clean"
