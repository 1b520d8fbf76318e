#!/usr/bin/env bash
# The cold-start benchmark (docs/benchmarks.md "Cold start"): wall time and peak resident memory of
#   1. llama-simple generating 16 tokens from the bundled stories260K model, and
#   2. llama-tokenize on the same model (vocabulary only, no weights),
# each run RUNS times (default 11) in turn, reporting the median and the range. The wall time is taken
# around the process (nanosecond clock; /usr/bin/time's is 10 ms coarse), its peak RSS from /usr/bin/time
# (GNU time, Debian package "time").
#
#   scripts/bench-cold-start.sh [BUILD_DIR...]      (default: build)
# Several build folders are measured interleaved (A B A B ...), so a noisy machine hurts them alike.
# Environment: RUNS (default 11), MODEL (default models/stories260K.gguf).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-11}
MODEL=${MODEL:-models/stories260K.gguf}
[ $# -gt 0 ] || set -- build
if [ ! -x /usr/bin/time ]; then
    echo "bench-cold-start: /usr/bin/time not found (apt-get install time)" >&2
    exit 1
fi
for b in "$@"; do
    for t in llama-simple llama-tokenize; do
        if [ ! -x "$b/bin/$t" ]; then
            echo "bench-cold-start: $b/bin/$t not built" >&2
            exit 1
        fi
    done
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# one run: appends "microseconds kilobytes" to $tmp/<build index>-<case>
run() {
    local i=$1 case=$2 b=$3
    shift 3
    local t0 t1
    t0=$(date +%s%N)
    /usr/bin/time -f "%M" -o "$tmp/one" "$@" >/dev/null 2>&1 || {
        echo "bench-cold-start: $* failed" >&2
        exit 1
    }
    t1=$(date +%s%N)
    echo "$(((t1 - t0) / 1000)) $(cat "$tmp/one")" >>"$tmp/$i-$case"
}
for ((r = 0; r < RUNS; r++)); do
    i=0
    for b in "$@"; do
        run $i simple "$b" "$b/bin/llama-simple" -m "$MODEL" -n 16 "Once upon a time"
        run $i tokenize "$b" "$b/bin/llama-tokenize" -m "$MODEL" --ids "Once upon a time"
        i=$((i + 1))
    done
done

# median and range of a column (1: microseconds, 2: KB) of a file
stat_col() {
    sort -n -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END {
        m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        if (c == 1) printf "%.1f ms (%.1f-%.1f)", m / 1000, v[1] / 1000, v[NR] / 1000
        else        printf "%.1f MB (%.1f-%.1f)", m / 1024, v[1] / 1024, v[NR] / 1024 }'
}
echo "cold start, median of $RUNS runs (range), $(nproc) cores, $(date -u '+%Y-%m-%d'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
printf '| build | llama-simple -n 16: wall | peak RSS | llama-tokenize: wall | peak RSS |\n|---|---|---|---|---|\n'
i=0
for b in "$@"; do
    printf '| %s | %s | %s | %s | %s |\n' "$b" "$(stat_col "$tmp/$i-simple" 1)" "$(stat_col "$tmp/$i-simple" 2)" \
        "$(stat_col "$tmp/$i-tokenize" 1)" "$(stat_col "$tmp/$i-tokenize" 2)"
    i=$((i + 1))
done
