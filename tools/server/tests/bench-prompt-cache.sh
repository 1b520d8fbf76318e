#!/usr/bin/env bash
# Time to first token of a long prompt on llama-server with and without --prompt-cache-dir after a
# restart (docs/benchmarks.md, "Prompt cache on disk"). Per round: a server without the cache
# answers PROMPT+SUFFIX (cold); a server with the cache answers PROMPT (writes its file) and is
# stopped; a new one on the same folder answers PROMPT+SUFFIX (restored). Prints prompt_ms,
# cache_n and whether the texts match, and the file's size.
#   bench-prompt-cache.sh SERVER MODEL [N_SENTENCES (default 60)] [ROUNDS (default 2)] [THREADS (default 2)]
set -euo pipefail
server=$1 model=$2 n=${3:-60} rounds=${4:-2} threads=${5:-2}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

start() {  # start LOG ARGS...: sets pid, port
    local log=$1
    shift
    "$server" -m "$model" --port 0 -np 1 -c 4096 -t "$threads" "$@" >"$log" 2>&1 &
    pid=$!
    for _ in $(seq 1 1200); do
        port=$(sed -n 's/.*listening on http:\/\/[^:]*:\([0-9]*\).*/\1/p' "$log" | head -1)
        [ -n "$port" ] && return 0
        sleep 0.05
    done
    echo "the server did not start" >&2
    cat "$log" >&2
    exit 1
}
stop() {
    kill -TERM "$pid"
    wait "$pid" || true
}
ask() {  # ask TEXT: prints "prompt_ms cache_n content"
    python3 -c 'import json,sys; print(json.dumps({"prompt": sys.argv[1], "n_predict": 8, "temperature": 0}))' "$1" |
        curl -s -H 'Connection: close' "http://127.0.0.1:$port/completion" --data-binary @- |
        python3 -c 'import json,sys; r=json.load(sys.stdin); t=r["timings"]; print("%.1f %d %s" % (t["prompt_ms"], t["cache_n"], json.dumps(r["content"])))'
}

prompt=$(python3 -c "import sys; print(' '.join('Sentence %d of the long shared context says something about item %d.' % (i, i * 7) for i in range(int(sys.argv[1]))))" "$n")
suffix=" Now the question about it:"
echo "| round | cold prompt_ms | restored prompt_ms | cache_n | prompt tokens | same text | folder MiB (2 files) |"
echo "|---|---|---|---|---|---|---|"
for r in $(seq 1 "$rounds"); do
    rm -rf "$dir/cache"
    start "$dir/cold.log"
    read -r cold_ms _ cold_text < <(ask "$prompt$suffix")
    stop
    start "$dir/warm1.log" --prompt-cache-dir "$dir/cache"
    ask "$prompt" >/dev/null
    stop
    start "$dir/warm2.log" --prompt-cache-dir "$dir/cache"
    read -r warm_ms warm_cache warm_text < <(ask "$prompt$suffix")
    n_prompt=$(curl -s -H 'Connection: close' "http://127.0.0.1:$port/tokenize" \
        --data-binary "$(python3 -c 'import json,sys; print(json.dumps({"content": sys.argv[1], "add_special": True}))' "$prompt$suffix")" |
        python3 -c 'import json,sys; print(len(json.load(sys.stdin)["tokens"]))')
    stop
    size=$(du -b "$dir/cache"/*.pcache | awk '{s += $1} END {printf "%.1f", s / 1048576}')
    same=no
    [ "$cold_text" = "$warm_text" ] && same=yes
    echo "| $r | $cold_ms | $warm_ms | $warm_cache | $n_prompt | $same | $size |"
done
