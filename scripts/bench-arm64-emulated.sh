#!/usr/bin/env bash
# Ours vs upstream llama.cpp on arm64 UNDER EMULATION: both engines cross-built with Debian's
# aarch64-linux-gnu toolchain and run under qemu-aarch64 (user mode), through the same client
# (bench/ab-client/ab-client.c, compiled against each engine), engines interleaved (ours, upstream,
# ours, ...). Prints one markdown table. Under qemu the time tracks the guest instructions executed,
# so a ratio shows a scalar fallback or a longer kernel; it says nothing of native ARM speed (cache,
# memory and pipeline behaviour are not modelled). Manual tool: minutes of emulation, NOT run by CI.
#
#   scripts/bench-arm64-emulated.sh UPSTREAM_SRC
#
# UPSTREAM_SRC: an upstream llama.cpp source tree (docs/benchmarks.md: commit 4df29be4). It is built
# in UP_BUILD, outside this repo; none of its code enters ours.
# Environment (defaults in brackets):
#   UP_BUILD [/tmp/upstream-arm64]   upstream's arm64 build folder (static libraries)
#   UP_ARCH [armv8.6-a+dotprod+i8mm] upstream's GGML_CPU_ARM_ARCH (its build is for one level; a CPU
#                                    model without i8mm needs e.g. UP_ARCH=armv8.2-a+dotprod and another
#                                    UP_BUILD, or CPUS=max only)
#   BUILD_ARM [build-arm]  BUILD_X86 [build-x86]   our cross build (llama-bench-ab) and native build
#                                    (llama-gguf-synth, llama-quantize make the models)
#   MODELS_DIR [/tmp/llama-arm64-models]   TYPES ["q4_0 q8_0 q4_k_m f16"]: synth types, or K-quant mixes
#                       (q2_k, q3_k_m, q4_k_m, q5_k_m, ...) quantized from the F16
#   CPUS [max]          qemu -cpu models, e.g. "max neoverse-n1 cortex-a72" (ours picks its kernel
#                       level at run time; upstream rows need a build the CPU can run, see UP_ARCH)
#   UP_CPUS [max]       the CPU models upstream's build can run (others: upstream "-")
#   UP_CPU_BUILD [UP_BUILD], UP_CPU_ARCH [UP_ARCH]: another folder whose libggml-cpu.a (only that
#                       target is built there, for UP_CPU_ARCH) replaces UP_BUILD's, so one libllama
#                       build serves another ARM level, e.g. UP_CPU_BUILD=/tmp/upstream-arm64-n1
#                       UP_CPU_ARCH=armv8.2-a+dotprod UP_CPUS=neoverse-n1 CPUS=neoverse-n1
#   THREADS [1]  N_PROMPT [64]  N_GEN [16]  REPS [1]  ROUNDS [3]  JOBS [2]
#   SHAPE ["--n-embd 512 --n-layer 4 --n-ff 1536 --n-head 8 --n-head-kv 4"]: a 29M-parameter llama
#                       (32000-token SPM vocab; 12.6M in the layers, 16.4M in token_embd, which the
#                       LM head reads too: tied, as llama-gguf-synth writes by default). Add --untied
#                       for an own output matrix (45M), with another MODEL_TAG
#   MODEL_TAG [arm]     model files are MODELS_DIR/MODEL_TAG-TYPE.gguf
#   RAW [unset]         a file to append every client line to (CPU, model, engine, round)
#
# Columns: wall-clock t/s medians over ROUNDS interleaved runs (each run: one warm-up, median of REPS),
# and the same over the process CPU time (pp_cpu / tg_cpu of the client): with THREADS=1 the CPU time
# is the work done, so its ratio holds on a loaded machine where the wall clock does not.
set -euo pipefail
UPSRC=$(cd "${1:?usage: scripts/bench-arm64-emulated.sh UPSTREAM_SRC}" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
UP_BUILD=${UP_BUILD:-/tmp/upstream-arm64}
UP_ARCH=${UP_ARCH:-armv8.6-a+dotprod+i8mm}
UP_CPU_BUILD=${UP_CPU_BUILD:-$UP_BUILD}
UP_CPU_ARCH=${UP_CPU_ARCH:-$UP_ARCH}
BUILD_ARM=${BUILD_ARM:-$ROOT/build-arm}
BUILD_X86=${BUILD_X86:-$ROOT/build-x86}
MODELS_DIR=${MODELS_DIR:-/tmp/llama-arm64-models}
TYPES=${TYPES:-q4_0 q8_0 q4_k_m f16}
CPUS=${CPUS:-max} UP_CPUS=${UP_CPUS:-max}
THREADS=${THREADS:-1} N_PROMPT=${N_PROMPT:-64} N_GEN=${N_GEN:-16} REPS=${REPS:-1} ROUNDS=${ROUNDS:-3}
JOBS=${JOBS:-2}
SHAPE=${SHAPE:---n-embd 512 --n-layer 4 --n-ff 1536 --n-head 8 --n-head-kv 4}
MODEL_TAG=${MODEL_TAG:-arm}
for d in "$UP_BUILD" "$UP_CPU_BUILD"; do
    mkdir -p "$d"
    case "$(cd "$d" && pwd)/" in "$ROOT"/*) echo "$d: upstream builds go outside this repo" >&2; exit 1 ;; esac
done

LAUNCH=()
if command -v ccache >/dev/null; then
    export CCACHE_BASEDIR=${CCACHE_BASEDIR:-/}
    LAUNCH=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
COMMON=(-DCMAKE_BUILD_TYPE=Release -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_SERVER=OFF "${LAUNCH[@]}")

# ours: native tools for the models, arm64 client
[ -f "$BUILD_X86/CMakeCache.txt" ] || cmake -S "$ROOT" -B "$BUILD_X86" "${COMMON[@]}" -DLLAMA_VULKAN=OFF \
    -DLLAMA_BUILD_BENCH=OFF >/dev/null
cmake --build "$BUILD_X86" --target llama-gguf-synth llama-quantize -j"$JOBS" >/dev/null
[ -f "$BUILD_ARM/CMakeCache.txt" ] || cmake -S "$ROOT" -B "$BUILD_ARM" "${COMMON[@]}" -DLLAMA_VULKAN=OFF \
    -DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/toolchains/aarch64-linux-gnu.cmake" -DLLAMA_BUILD_BENCH=ON \
    -DLLAMA_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$BUILD_ARM" --target llama-bench-ab -j"$JOBS" >/dev/null
OURS=$BUILD_ARM/bin/llama-bench-ab

# upstream: static libraries for one ARM level, then the same client linked to them
up_configure() {  # up_configure DIR ARCH
    [ -f "$1/CMakeCache.txt" ] || cmake -S "$UPSRC" -B "$1" "${COMMON[@]}" \
        -DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR=aarch64 \
        -DCMAKE_C_COMPILER=aarch64-linux-gnu-gcc -DCMAKE_CXX_COMPILER=aarch64-linux-gnu-g++ \
        -DGGML_NATIVE=OFF -DGGML_CPU_ARM_ARCH="$2" -DGGML_OPENMP=OFF -DLLAMA_CURL=OFF \
        -DBUILD_SHARED_LIBS=OFF >/dev/null
}
up_configure "$UP_BUILD" "$UP_ARCH"
cmake --build "$UP_BUILD" --target llama -j"$JOBS" >/dev/null
if [ "$UP_CPU_BUILD" != "$UP_BUILD" ]; then
    mkdir -p "$UP_CPU_BUILD"
    up_configure "$UP_CPU_BUILD" "$UP_CPU_ARCH"
    cmake --build "$UP_CPU_BUILD" --target ggml-cpu -j"$JOBS" >/dev/null
fi
THEIRS=$UP_CPU_BUILD/llama-bench-ab-upstream
libs=("$(find "$UP_BUILD" -name libllama.a -print -quit)" "$(find "$UP_BUILD" -name libggml.a -print -quit)"
      "$(find "$UP_CPU_BUILD" -name libggml-cpu.a -print -quit)" "$(find "$UP_BUILD" -name libggml-base.a -print -quit)")
aarch64-linux-gnu-gcc -std=c99 -O2 -c "$ROOT/bench/ab-client/ab-client.c" -I "$UPSRC/include" \
    -I "$UPSRC/ggml/include" -o "$UP_BUILD/ab-client.o"
aarch64-linux-gnu-g++ "$UP_BUILD/ab-client.o" -Wl,--start-group "${libs[@]}" -Wl,--end-group -pthread -lm \
    -o "$THEIRS"

# models (written once, reused)
mkdir -p "$MODELS_DIR"
synth() {
    local f=$MODELS_DIR/$MODEL_TAG-$1.gguf
    # shellcheck disable=SC2086  # SHAPE is a list of arguments
    [ -f "$f" ] || "$BUILD_X86/bin/llama-gguf-synth" $SHAPE --type "$1" \
        --vocab "$ROOT/tests/data/vocab/ggml-vocab-llama-spm.gguf" -o "$f" >/dev/null
    echo "$f"
}
model_for() {
    case $1 in
        q[2-6]_k*)  # the K-quant mixes (q4_k_m, q5_k_m, q3_k_m, q2_k, ...) by llama-quantize from the F16
            local f=$MODELS_DIR/$MODEL_TAG-$1.gguf
            [ -f "$f" ] || "$BUILD_X86/bin/llama-quantize" "$(synth f16)" "$f" "${1^^}" >/dev/null 2>&1
            echo "$f" ;;
        *) synth "$1" ;;
    esac
}

field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p; s/^$1=\([0-9.]*\).*/\1/p"; }
med() { sort -g | awk '{a[NR]=$1} END {if (NR==0) print "-"; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a > 0) printf "%.2f", a / b; else print "-" }'; }
run() {  # run CPU BIN MODEL -> client line (or "fail")
    QEMU_CPU=$1 qemu-aarch64 -L /usr/aarch64-linux-gnu "$2" "$3" "$THREADS" "$N_PROMPT" "$N_GEN" "$REPS" -1 0 \
        2>/dev/null || echo "fail"
}

echo "# arm64 under qemu-aarch64 $(qemu-aarch64 --version | sed -n '1s/.*version \([^ ]*\).*/\1/p'):" \
    "ours $(git -C "$ROOT" rev-parse --short HEAD) vs upstream $(git -C "$UPSRC" rev-parse --short HEAD 2>/dev/null ||
    echo '?') (ggml-cpu for $UP_CPU_ARCH), threads $THREADS, pp$N_PROMPT tg$N_GEN, $ROUNDS interleaved rounds, load at start" \
    "$(cut -d' ' -f1-3 /proc/loadavg), models $MODEL_TAG ($SHAPE)"
echo
echo "| CPU | model | pp$N_PROMPT t/s ours / upstream | × wall | × CPU time | tg$N_GEN t/s ours / upstream | × wall | × CPU time |"
echo "|---|---|---|---|---|---|---|---|"
for cpu in $CPUS; do
    up_ok=0
    for c in $UP_CPUS; do [ "$c" = "$cpu" ] && up_ok=1; done
    for m in $TYPES; do
        f=$(model_for "$m")
        o=(); t=()
        for ((r = 0; r < ROUNDS; ++r)); do
            o+=("$(run "$cpu" "$OURS" "$f")")
            if [ -n "${RAW:-}" ]; then echo "$cpu $m ours $r ${o[-1]}" >>"$RAW"; fi
            if [ "$up_ok" = 1 ]; then
                t+=("$(run "$cpu" "$THEIRS" "$f")")
                if [ -n "${RAW:-}" ]; then echo "$cpu $m upstream $r ${t[-1]}" >>"$RAW"; fi
            fi
        done
        col() { if [ $# -gt 0 ]; then printf '%s\n' "$@" | field "$FIELD" | med; else echo -; fi; }
        FIELD=pp; opp=$(col "${o[@]}"); tpp=$(col "${t[@]}")
        FIELD=tg; otg=$(col "${o[@]}"); ttg=$(col "${t[@]}")
        FIELD=pp_cpu; oppc=$(col "${o[@]}"); tppc=$(col "${t[@]}")
        FIELD=tg_cpu; otgc=$(col "${o[@]}"); ttgc=$(col "${t[@]}")
        echo "| $cpu | $m | $opp / $tpp | $(ratio "$opp" "$tpp") | $(ratio "$oppc" "$tppc") |" \
            "$otg / $ttg | $(ratio "$otg" "$ttg") | $(ratio "$otgc" "$ttgc") |"
    done
done
