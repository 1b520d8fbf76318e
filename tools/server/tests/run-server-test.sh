#!/usr/bin/env bash
# Runs one llama-server test script (tests/<name>.mjs) against a server started here on a free
# loopback port, then stops the server with SIGTERM and checks that it exits cleanly (status 0).
#   run-server-test.sh NAME SERVER_BIN GREEDY_REF_BIN MODEL WORK_DIR
# Exit 77 (ctest: skipped) when node/npm are missing, unless LLAMA_TEST_REQUIRE_NODE=1.
set -euo pipefail
name=$1 server=$2 greedy=$3 model=$4 work=$5
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"

skip() {
    if [ "${LLAMA_TEST_REQUIRE_NODE:-0}" = 1 ]; then
        echo "FAIL: $* (LLAMA_TEST_REQUIRE_NODE=1)"
        exit 1
    fi
    echo "SKIP: $*"
    exit 77
}
command -v node >/dev/null 2>&1 || skip "node is not installed (Debian: apt-get install nodejs npm)"

# the official client, into the build tree only (never the source tree). Two tests may get here at
# once (ctest -j): the install runs under a lock, and "installed" is a marker written after npm
# finished — node_modules/openai exists while npm is still extracting, so it cannot be the test.
if { [ "$name" = openai ] || [ "$name" = structured ] || [ "$name" = tools ] || [ "$name" = router ] ||
     [ "$name" = logprobs ] || [ "$name" = rerank ] || [ "$name" = tool-formats ] || [ "$name" = prompt-cache ] ||
     [ "$name" = hybrid ]; } &&
    [ ! -f "$work/openai.installed" ]; then
    command -v npm >/dev/null 2>&1 || skip "npm is not installed"
    (cd "$work" && flock npm.lock sh -c '[ -f openai.installed ] || {
        npm install --no-save --no-audit --no-fund --loglevel=error openai@4 >npm.log 2>&1 &&
        touch openai.installed; }') ||
        { cat "$work/npm.log"; skip "npm install openai failed"; }
fi

# start_server LOGFILE ARGS...: starts the server, sets $pid and $port
start_server() {
    local log=$1
    shift
    rm -f "$log"  # a previous run's log would give its port before the new server truncates it
    if [ -n "${NO_MODEL_FLAG:-}" ]; then  # router mode: the models come from "$@"
        "$server" --port 0 "$@" >"$log" 2>&1 &
    else
        "$server" -m "$model" --port 0 "$@" >"$log" 2>&1 &
    fi
    pid=$!
    port=""
    for _ in $(seq 1 1200); do  # up to 60 s on a loaded machine
        # the log may not exist yet (the shell creates it in the child): no match, not a failure
        port=$(sed -n 's/.*listening on http:\/\/[^:]*:\([0-9]*\).*/\1/p' "$log" 2>/dev/null | head -1 || true)
        [ -n "$port" ] && return 0
        kill -0 "$pid" 2>/dev/null || { cat "$log"; echo "FAIL: the server exited at start"; exit 1; }
        sleep 0.05
    done
    cat "$log"
    echo "FAIL: the server did not start"
    exit 1
}

# stop_server: SIGTERM (unless the test sent it already); the server must exit 0 within 30 s
stop_server() {
    kill -TERM "$pid" 2>/dev/null || true
    local rc=0
    for _ in $(seq 1 300); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid"
        echo "FAIL: the server did not stop on SIGTERM"
        exit 1
    fi
    wait "$pid" || rc=$?
    [ "$rc" = 0 ] || { echo "FAIL: the server exited with $rc after SIGTERM"; exit 1; }
}

export GREEDY_REF="$greedy" MODEL="$model" NODE_PATH="$work/node_modules"
case "$name" in
    nginx-failover)
        command -v nginx >/dev/null 2>&1 || PATH=$PATH:/usr/sbin
        command -v nginx >/dev/null 2>&1 || { echo "SKIP: nginx is not installed"; exit 77; }
        WORK="$work" SERVER="$server" RUN_REPLICAS="$here/../../../examples/nginx/run-replicas.sh" \
            node "$here/nginx-failover.mjs"
        exit $?
        ;;
    args)
        # the command line and environment; HTTPS with a certificate made here for 127.0.0.1
        command -v openssl >/dev/null 2>&1 || { echo "SKIP: openssl is not installed"; exit 77; }
        openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
            -keyout "$work/args-key.pem" -out "$work/args-cert.pem" >"$work/openssl.log" 2>&1 ||
            { cat "$work/openssl.log"; echo "FAIL: openssl could not make a certificate"; exit 1; }
        WORK="$work" SERVER="$server" CERT="$work/args-cert.pem" KEY="$work/args-key.pem" node "$here/args.mjs"
        exit $?
        ;;
    rerank)
        # its own servers, on BERT models llama-gguf-synth (SYNTH, from ctest) writes into $work
        [ -x "${SYNTH:-}" ] || { echo "FAIL: SYNTH must name llama-gguf-synth"; exit 1; }
        WORK="$work" SERVER="$server" VOCAB="$here/../../../tests/data/vocab/ggml-vocab-bert-bge.gguf" \
            node "$here/rerank.mjs"
        exit $?
        ;;
    tool-formats)
        # one server per chat family on a synthetic model, started by the script itself
        SERVER="$server" DATA="$here/../../../tests/data" node "$here/tool-formats.mjs"
        exit $?
        ;;
    prompt-cache)
        # its own servers on one cache folder, restarted; CLI (llama-cli, optional) for the cross-tool checks
        WORK="$work" SERVER="$server" DATA="$here/../../../tests/data" node "$here/prompt-cache.mjs"
        exit $?
        ;;
    bench-slots)
        # one server with 1 slot and one with 4, measured alternately (same load for both);
        # BENCH_MODEL replaces stories260K (see bench-slots.mjs)
        model=${BENCH_MODEL:-$model}
        start_server "$work/server-1.log" -np 1 -c 2048
        p1=$pid port1=$port
        start_server "$work/server-4.log" -np 4 -c 8192
        p4=$pid port4=$port
        rc=0
        PORT1=$port1 PORT4=$port4 node "$here/bench-slots.mjs" || rc=$?
        pid=$p1 && stop_server
        pid=$p4 && stop_server
        exit $rc
        ;;
    slots)
        # one server with --slot-save-path, one without (501)
        rm -rf "$work/slot-files" && mkdir -p "$work/slot-files"
        start_server "$work/server-slots-nopath.log" -np 1 -c 1024
        p0=$pid port0=$port
        start_server "$work/server-$name.log" -np 2 -c 2048 --slot-save-path "$work/slot-files"
        rc=0
        PORT=$port PORT_NOPATH=$port0 SLOT_DIR="$work/slot-files" node "$here/slots.mjs" || rc=$?
        [ $rc = 0 ] || tail -30 "$work/server-$name.log"
        stop_server
        pid=$p0 && stop_server
        exit $rc
        ;;
    infill)
        # no test model has FIM tokens: a copy of it with three of its token ids as FIM prefix, suffix, middle
        node "$here/gguf-fim.mjs" "$model" "$work/fim.gguf" 300 301 302 || { echo "FAIL: cannot write the FIM model"; exit 1; }
        export FIM_PRE=300 FIM_SUF=301 FIM_MID=302
        model=$work/fim.gguf start_server "$work/server-$name.log" -np 1 -c 2048 -b 64
        ;;&
    lora)
        # an adapter for the test model and the model merged with it at scales 1 and 0.5
        synth=${GGUF_SYNTH:-$(dirname "$server")/llama-gguf-synth}
        "$synth" -o "$work/lora.gguf" --lora-of "$model" --rank 4 --alpha 512 >/dev/null 2>&1 &&
            "$synth" -o "$work/merged-1.gguf" --merge "$model" --lora "$work/lora.gguf" >/dev/null 2>&1 &&
            "$synth" -o "$work/merged-05.gguf" --merge "$model" --lora "$work/lora.gguf:0.5" >/dev/null 2>&1 ||
            { echo "FAIL: $synth cannot write the adapter"; exit 1; }
        export LORA="$work/lora.gguf" MERGED_1="$work/merged-1.gguf" MERGED_05="$work/merged-05.gguf"
        # a server with --lora-init-without-apply: the adapter starts at scale 0
        start_server "$work/server-lora-noapply.log" -np 1 -c 1024 --lora "$work/lora.gguf" --lora-init-without-apply
        export PORT_NOAPPLY=$port
        p_noapply=$pid
        start_server "$work/server-$name.log" -np 2 -c 2048 --lora "$work/lora.gguf"
        ;;&
    sampling)
        # the sampler flags as request defaults: one server with --temp 0, two with the same --seed
        start_server "$work/server-sampling-greedy.log" -np 1 -c 1024 --temp 0
        pg=$pid port_g=$port
        start_server "$work/server-sampling-a.log" -np 1 -c 1024 --seed 1234
        pa=$pid port_a=$port
        start_server "$work/server-sampling-b.log" -np 1 -c 1024 --seed 1234
        pb=$pid port_b=$port
        rc=0
        PORT_GREEDY=$port_g PORT_SEED_A=$port_a PORT_SEED_B=$port_b node "$here/sampling.mjs" || rc=$?
        for pid in $pg $pa $pb; do stop_server; done
        exit $rc
        ;;
    speculative)
        # a draft model whose vocabulary is not the target's is refused at start, by name
        if "$server" -m "$model" --port 0 -md "$here/../../../tests/data/models/synthetic/qwen2-micro-f16.gguf" \
            >"$work/server-spec-mismatch.log" 2>&1; then
            echo "FAIL: a draft model with another vocabulary was accepted"
            exit 1
        fi
        grep -q "draft vocabulary mismatch" "$work/server-spec-mismatch.log" ||
            { cat "$work/server-spec-mismatch.log"; echo "FAIL: no vocabulary mismatch message"; exit 1; }
        echo "ok   an incompatible draft vocabulary is refused at start"
        # plain, the model as its own draft (with slot files), and the n-gram drafter
        rm -rf "$work/spec-slots" && mkdir -p "$work/spec-slots"
        start_server "$work/server-spec-plain.log" -np 4 -c 4096
        pp=$pid port_p=$port
        start_server "$work/server-spec-draft.log" -np 4 -c 4096 -md "$model" --draft-max 8 --draft-p-min 0 \
            --slot-save-path "$work/spec-slots"
        pd=$pid port_d=$port
        start_server "$work/server-spec-ngram.log" -np 4 -c 4096 --spec-type ngram --draft-max 8
        pn=$pid port_n=$port
        rc=0
        PORT_PLAIN=$port_p PORT_DRAFT=$port_d PORT_NGRAM=$port_n node "$here/speculative.mjs" || rc=$?
        [ $rc = 0 ] || tail -30 "$work/server-spec-draft.log"
        for pid in $pp $pd $pn; do stop_server; done
        exit $rc
        ;;
    hybrid-spec)  # MODEL: the lfm2 micro model; DRAFT (environment): a model with its vocabulary
        start_server "$work/server-hspec-plain.log" -np 4 -c 2048
        pp=$pid port_p=$port
        start_server "$work/server-hspec-draft.log" -np 4 -c 2048 -md "$DRAFT" --draft-max 4 --draft-p-min 0
        pd=$pid port_d=$port
        start_server "$work/server-hspec-ngram.log" -np 4 -c 2048 --spec-type ngram --draft-max 4
        pn=$pid port_n=$port
        rc=0
        PORT_PLAIN=$port_p PORT_DRAFT=$port_d PORT_NGRAM=$port_n node "$here/hybrid-spec.mjs" || rc=$?
        [ $rc = 0 ] || tail -30 "$work/server-hspec-draft.log"
        for pid in $pp $pd $pn; do stop_server; done
        exit $rc
        ;;
    bad-input)
        start_server "$work/server-$name.log" -np 1 -c 1024 --queue-limit 2 --max-body 65536 --api-key secret
        ;;&
    openai)
        start_server "$work/server-$name.log" -np 4 -c 4096
        ;;&
    hybrid)  # MODEL: the lfm2 micro model (server-tests.cmake)
        start_server "$work/server-$name.log" -np 4 -c 2048
        ;;&
    structured)
        start_server "$work/server-$name.log" -np 2 -c 4096
        ;;&
    metrics)
        start_server "$work/server-$name.log" -np 2 -c 8192
        ;;&
    anthropic)
        start_server "$work/server-$name.log" -np 2 -c 4096 --api-key secret --chat-template-file "$here/../../../tests/data/chat/hermes-tools.jinja"
        ;;&
    router)
        # three copies of the model under three names and one file that is not a model; the memory
        # cap (3 MiB) holds two of the 1.13 MiB copies, not three
        dir="$work/router-models"
        rm -rf "$dir" && mkdir -p "$dir"
        for m in alpha beta gamma; do cp "$model" "$dir/$m.gguf"; done
        printf 'not a GGUF file' >"$dir/broken.gguf"
        # and a preset: "delta" is alpha's file with its own context size and sampling default
        printf '; router test\n[*]\nmax-tokens = 512\n\n[delta]\nmodel = router-models/alpha.gguf\nc = 1024\njinja = true\n' \
            >"$work/router-preset.ini"
        NO_MODEL_FLAG=1 start_server "$work/server-$name.log" --models-dir "$dir" --models-preset "$work/router-preset.ini" \
            --models-memory-max 3M \
            --sleep-idle-seconds 2 -np 2 -c 2048
        ;;&
    timeout)
        start_server "$work/server-$name.log" -np 1 -c 4096 --timeout 1
        ;;&
    webui)
        # the page in headless chromium (webui.mjs); the server needs a key, the page asks for it
        chromium=${CHROMIUM:-/usr/bin/chromium}
        [ -x "$chromium" ] || skip "$chromium is not installed (Debian: apt-get install chromium)"
        export CHROMIUM="$chromium" WORK="$work" SERVER="$server" API_KEY=webui-key
        start_server "$work/server-$name.log" -np 1 -c 4096 --api-key webui-key
        ;;&
    tools)
        start_server "$work/server-$name.log" -np 2 -c 4096 --chat-template-file "$here/../../../tests/data/chat/hermes-tools.jinja"
        ;;&
    logprobs)
        start_server "$work/server-$name.log" -np 4 -c 4096
        ;;&
    native)
        start_server "$work/server-$name.log" -np 2 -c 2048
        ;;&
    *)
        rc=0
        PORT=$port SERVER_PID=$pid node "$here/$name.mjs" || rc=$?
        if [ $rc != 0 ]; then
            echo "--- server log"
            tail -30 "$work/server-$name.log"
            kill -KILL "$pid"
            [ -z "${p_noapply:-}" ] || kill -KILL "$p_noapply"
            exit $rc
        fi
        # bad-input ends by sending SIGTERM itself; the others leave the server running
        [ "$name" = bad-input ] || kill -0 "$pid" 2>/dev/null || { echo "FAIL: the server died"; exit 1; }
        stop_server
        [ -z "${p_noapply:-}" ] || { pid=$p_noapply && stop_server; }
        ;;
esac
echo "PASS"
