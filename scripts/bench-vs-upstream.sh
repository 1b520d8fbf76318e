#!/usr/bin/env bash
# Ours vs upstream llama.cpp, side by side through one client (bench/ab-client/ab-client.c compiled
# against each engine), interleaved so both see the same machine state. Prints a markdown table.
#
#   scripts/bench-vs-upstream.sh UPSTREAM_DIR
#
# UPSTREAM_DIR: an upstream llama.cpp source tree built for the CPU (CMake build in UPSTREAM_DIR/build
# with shared libraries, the default). How to get one: docs/benchmarks.md "Comparing with upstream".
# Environment (defaults in brackets):
#   BUILD [build]           our CMake build folder (llama-bench-ab, llama-gguf-synth, llama-quantize are built)
#   MODELS_DIR [/tmp/llama-bench-models]   TinyLlama-shape models are written here once and reused
#   MODELS ["q4_0 q8_0 q4_k_m f16"; empty: no table, e.g. with QUANT=1]   FA ["-1 0"] (-1 = auto, each engine's default)
#                           an entry ending in .gguf is a model file used as is (any architecture both run)
#   THREADS [2]  N_PROMPT [512]  N_GEN [128]  REPS [3]  ROUNDS [2]  DEPTH [0]
#   QUANT [0]               1: also time llama-quantize F16 -> Q4_0 and -> Q4_K_M for both engines
#   BW_MIB [512]            buffer of the read-bandwidth probe (llama-bench-ab --bw, run before every engine run)
#   AB_THREADPOOL [unset]   1: both engines compute with a thread pool the client makes and attaches
#                           (ggml_threadpool_new + llama_attach_threadpool, as upstream's own tools do)
#
# Bandwidth: the probe runs right before each engine run (same threads); "tg % of BW" is the weight
# bytes a token reads (every tensor but the token embedding, of which a token reads one row) times
# tg t/s, over the median probe of that row. Both engines read the same bytes per token.
set -euo pipefail
UP=${1:?usage: scripts/bench-vs-upstream.sh UPSTREAM_DIR}
UP=$(cd "$UP" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
MODELS_DIR=${MODELS_DIR:-/tmp/llama-bench-models}
MODELS=${MODELS-q4_0 q8_0 q4_k_m f16}
FA=${FA:--1 0}
THREADS=${THREADS:-2} N_PROMPT=${N_PROMPT:-512} N_GEN=${N_GEN:-128} REPS=${REPS:-3} ROUNDS=${ROUNDS:-2}
DEPTH=${DEPTH:-0} QUANT=${QUANT:-0} BW_MIB=${BW_MIB:-512}

cmake --build "$BUILD" --target llama-bench-ab llama-gguf-dump llama-gguf-synth llama-quantize -j2 >/dev/null
OURS=$BUILD/bin/llama-bench-ab

# The same client against upstream's headers and shared library.
UPLIB=$(dirname "$(find "$UP/build" -name 'libllama.so' -print -quit)")
[ -n "$UPLIB" ] && [ -f "$UPLIB/libllama.so" ] || { echo "no libllama.so under $UP/build (build upstream first)" >&2; exit 1; }
THEIRS=$BUILD/bin/llama-bench-ab-upstream
cc -std=c99 -O2 "$ROOT/bench/ab-client/ab-client.c" -I "$UP/include" -I "$UP/ggml/include" -L "$UPLIB" -lllama -lggml-cpu -lggml-base \
    -Wl,-rpath,"$UPLIB" -pthread -o "$THEIRS"
UPQ=$(find "$UP/build" -name llama-quantize -type f -print -quit || true)

mkdir -p "$MODELS_DIR"
synth() {  # synth TYPE -> TinyLlama-shape random-weight model
    local f=$MODELS_DIR/tl-$1.gguf
    [ -f "$f" ] || "$BUILD/bin/llama-gguf-synth" --preset tinyllama --type "$1" \
        --vocab "$ROOT/tests/data/vocab/ggml-vocab-llama-spm.gguf" -o "$f" >/dev/null
    echo "$f"
}
model_for() {
    case $1 in
        *.gguf) echo "$1" ;;
        q4_k_m)
            local f=$MODELS_DIR/tl-q4_k_m.gguf
            [ -f "$f" ] || "$BUILD/bin/llama-quantize" "$(synth f16)" "$f" Q4_K_M >/dev/null 2>&1
            echo "$f" ;;
        *) synth "$1" ;;
    esac
}
# Bytes of weights one generated token reads: every tensor except token_embd.weight when the model has
# its own output matrix (a tied embedding is read whole by the output product).
bytes_per_token() {
    "$BUILD/bin/llama-gguf-dump" "$1" | awk '
        $2 ~ /\.weight$|\.bias$/ && $(NF-1) == "bytes" { b[$2] = $NF; total += $NF }
        END { if ("output.weight" in b) total -= b["token_embd.weight"]; printf "%.0f", total }'
}
pct() { awk -v ts="$1" -v by="$2" -v bw="$3" 'BEGIN { if (bw > 0 && ts > 0) printf "%.0f%%", 100 * ts * by / (bw * 1e9); else print "-" }'; }
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }
med() { sort -g | awk '{a[NR]=$1} END {if (NR==0) print "-"; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }

echo "# ours vs upstream ($(basename "$UP")), $(nproc) cores, threads $THREADS, pp$N_PROMPT tg$N_GEN depth $DEPTH, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| model | flash attn | pp ours / upstream | × | tg ours / upstream | × | tg % of BW ours / upstream | probe GB/s (min–max) | peak RSS MB ours / upstream | load ms ours / upstream |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for m in $MODELS; do
    f=$(model_for "$m")
    bpt=$(bytes_per_token "$f")
    for fa in $FA; do
        o=(); t=(); bw=()
        for ((r = 0; r < ROUNDS; ++r)); do  # interleave: probe, ours, probe, theirs, probe, ours ...
            bw+=("$("$OURS" --bw "$THREADS" "$BW_MIB")")
            o+=("$("$OURS" "$f" "$THREADS" "$N_PROMPT" "$N_GEN" "$REPS" "$fa" "$DEPTH")")
            bw+=("$("$OURS" --bw "$THREADS" "$BW_MIB")")
            t+=("$("$THEIRS" "$f" "$THREADS" "$N_PROMPT" "$N_GEN" "$REPS" "$fa" "$DEPTH")")
        done
        bwm=$(printf '%s\n' "${bw[@]}" | field bw_gbs | med | xargs printf '%.1f')
        bwlo=$(printf '%s\n' "${bw[@]}" | field bw_gbs | sort -g | head -1)
        bwhi=$(printf '%s\n' "${bw[@]}" | field bw_gbs | sort -g | tail -1)
        opp=$(printf '%s\n' "${o[@]}" | field pp | med); tpp=$(printf '%s\n' "${t[@]}" | field pp | med)
        otg=$(printf '%s\n' "${o[@]}" | field tg | med); ttg=$(printf '%s\n' "${t[@]}" | field tg | med)
        orss=$(printf '%s\n' "${o[@]}" | field rss_mb | med); trss=$(printf '%s\n' "${t[@]}" | field rss_mb | med)
        old=$(printf '%s\n' "${o[@]}" | field load_ms | med); tld=$(printf '%s\n' "${t[@]}" | field load_ms | med)
        name=$fa; [ "$fa" = -1 ] && name=auto; [ "$fa" = 0 ] && name=off; [ "$fa" = 1 ] && name=on
        echo "| $(basename "$m" .gguf) | $name | $opp / $tpp | $(ratio "$opp" "$tpp") | $otg / $ttg | $(ratio "$otg" "$ttg") |" \
            "$(pct "$otg" "$bpt" "$bwm") / $(pct "$ttg" "$bpt" "$bwm") | $bwm ($bwlo–$bwhi) | $orss / $trss | $old / $tld |"
    done
done

if [ "$QUANT" = 1 ] && [ -n "$UPQ" ]; then
    echo
    echo "| quantize F16 → | ours s | upstream s |"
    echo "|---|---|---|"
    src=$(synth f16)
    for q in Q4_0 Q4_K_M; do
        s0=$(date +%s.%N); "$BUILD/bin/llama-quantize" "$src" "$MODELS_DIR/q-ours.gguf" "$q" "$THREADS" >/dev/null 2>&1; s1=$(date +%s.%N)
        "$UPQ" "$src" "$MODELS_DIR/q-up.gguf" "$q" "$THREADS" >/dev/null 2>&1; s2=$(date +%s.%N)
        echo "| $q | $(awk -v a="$s0" -v b="$s1" 'BEGIN{printf "%.1f", b-a}') | $(awk -v a="$s1" -v b="$s2" 'BEGIN{printf "%.1f", b-a}') |"
        rm -f "$MODELS_DIR/q-ours.gguf" "$MODELS_DIR/q-up.gguf"
    done
fi
