#!/usr/bin/env bash
# SIGTERM and SIGINT at any moment of a server's life end it promptly with status 0 (or, before main()
# has set up its signal handling, by the signal's default action): during the model
# load, between "listening" and the accept loop (a stop there was once lost and the server ran on),
# while idle, with a request in flight, and in router mode. Each start is one iteration with a
# timeout; a hang or another exit status fails the test.
#   test-signals.sh SERVER_BIN MODEL WORK_DIR [ITERATIONS]
set -uo pipefail
server=$1 model=$2 work=$3 iters=${4:-40}
mkdir -p "$work"
rm -rf "$work/signals" && mkdir -p "$work/signals/models"
ln -s "$(cd "$(dirname "$model")" && pwd)/$(basename "$model")" "$work/signals/models/stories.gguf"
fail=0

# wait_exit PID SECONDS: the exit status, or 124 after the timeout (the process is then killed)
wait_exit() {
    local pid=$1 t=$2 i=0
    while kill -0 "$pid" 2>/dev/null; do
        if [ $i -ge $((t * 50)) ]; then
            kill -9 "$pid" 2>/dev/null
            wait "$pid" 2>/dev/null
            return 124
        fi
        sleep 0.02
        i=$((i + 1))
    done
    wait "$pid"
}

# one MODE DELAY SIGNAL: starts a server, signals it DELAY seconds after start (or after it printed
# its port, for the "listen" modes), checks a prompt, clean exit
one() {
    local mode=$1 delay=$2 sig=$3 log="$work/signals/server.log" pid port
    rm -f "$log"
    case $mode in
    router) "$server" --port 0 --models-dir "$work/signals/models" -t 1 >"$log" 2>&1 & ;;
    *) "$server" --port 0 -m "$model" -t 1 -c 256 >"$log" 2>&1 & ;;
    esac
    pid=$!
    if [ "$mode" != start ]; then
        # wait for the listening line (at most 20 s)
        for _ in $(seq 1000); do
            grep -q "listening on" "$log" 2>/dev/null && break
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.02
        done
        port=$(sed -n 's/.*listening on https\?:\/\/[^:]*:\([0-9]*\).*/\1/p' "$log" | head -1)
        if [ -z "$port" ]; then
            echo "FAIL: $mode: the server did not listen"
            cat "$log"
            kill -9 "$pid" 2>/dev/null
            return 1
        fi
        if [ "$mode" = request ]; then
            # a streamed request is in flight when the signal comes (bash's /dev/tcp: no curl needed)
            local body='{"prompt":"Once upon a time","n_predict":200,"stream":true}'
            (
                exec 3<>"/dev/tcp/127.0.0.1/$port" || exit 0
                printf 'POST /completion HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' \
                    "${#body}" "$body" >&3
                timeout 25 cat <&3 >/dev/null
            ) &
            sleep 0.05
        fi
    fi
    sleep "$delay"
    kill -"$sig" "$pid" 2>/dev/null
    wait_exit "$pid" 20
    local rc=$?
    # a signal before main() set its handling up ends the process by the signal itself (128 + n):
    # prompt, as the default action is; any later one must end it cleanly
    if [ "$mode" = start ] && { [ $rc -eq 143 ] || [ $rc -eq 130 ]; }; then
        rc=0
    fi
    if [ $rc -ne 0 ]; then
        echo "FAIL: mode $mode, SIG$sig after ${delay}s: exit status $rc (124: still running after 20 s)"
        tail -5 "$log"
        return 1
    fi
    return 0
}

delays=(0 0 0.001 0.003 0.01 0.03 0.1)
n=0
for i in $(seq "$iters"); do
    d=${delays[$((i % ${#delays[@]}))]}
    sig=TERM
    [ $((i % 3)) -eq 0 ] && sig=INT
    # SIGINT only once main() has blocked it: a background job of a script inherits SIGINT ignored,
    # and an ignored signal that is not blocked is discarded (as it is for any program)
    one start "$d" TERM || fail=1
    one listen "$d" $sig || fail=1
    n=$((n + 2))
    if [ $((i % 8)) -eq 0 ]; then
        one request 0 $sig || fail=1
        one router "$d" $sig || fail=1
        n=$((n + 2))
    fi
done
[ $fail -eq 0 ] && echo "PASS: $n starts, each ended by a signal with status 0"
exit $fail
