#!/usr/bin/env bash
# Starts N llama-server replicas on free loopback ports and nginx (least_conn) in front of them.
#   examples/nginx/run-replicas.sh SERVER_BIN MODEL LISTEN_PORT [N=3] [PREFIX=/tmp/llama-nginx]
# Prints "replica PID PORT" per replica and "nginx PID PORT", then waits; Ctrl-C (or SIGTERM)
# stops everything. The test (tools/server/tests/nginx-failover.mjs) drives it.
set -euo pipefail
server=$1 model=$2 listen=$3 n=${4:-3} prefix=${5:-/tmp/llama-nginx}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$prefix"/{client_body,proxy,fastcgi,uwsgi,scgi}
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
}
trap cleanup EXIT INT TERM
servers=""
for i in $(seq 1 "$n"); do
    log="$prefix/replica-$i.log"
    rm -f "$log"  # an old log would give an old port before the replica truncates it
    "$server" -m "$model" --port 0 -np 2 -c 2048 >"$log" 2>&1 &
    pids+=($!)
    port=""
    for _ in $(seq 1 1200); do  # up to 60 s on a loaded machine
        # the log may not exist yet (the shell creates it in the child): no match, not a failure
        port=$(sed -n 's/.*listening on http:\/\/[^:]*:\([0-9]*\).*/\1/p' "$log" 2>/dev/null | head -1 || true)
        [ -n "$port" ] && break
        kill -0 "${pids[-1]}" 2>/dev/null || break
        sleep 0.05
    done
    [ -n "$port" ] || { cat "$log"; echo "replica $i did not start"; exit 1; }
    echo "replica ${pids[-1]} $port"
    servers+="        server 127.0.0.1:$port max_fails=1 fail_timeout=10s;"$'\n'
done
awk -v prefix="$prefix" -v listen="127.0.0.1:$listen" -v servers="$servers" \
    '{ gsub("@PREFIX@", prefix); gsub("@LISTEN@", listen); if ($0 ~ /^ *@SERVERS@ *$/) printf "%s", servers; else print }' \
    "$here/nginx.conf.in" >"$prefix/nginx.conf"
nginx -p "$prefix" -c "$prefix/nginx.conf" -e "$prefix/error.log" &
pids+=($!)
echo "nginx ${pids[-1]} $listen"
wait "${pids[-1]}"
