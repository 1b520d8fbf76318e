#!/usr/bin/env bash
# The GPU check (issue 12): one call on a machine with an NVIDIA GPU (written for one H200, 16 cores,
# no network, within 8 minutes) that
#   1. builds Release with CUDA (and Vulkan when its packages are there) on all cores, and checks that
#      the CUDA module (libggml-cuda.so: the GPU backends are run-time modules) loads and finds the GPU,
#   2. runs the CUDA op harness, the CUDA backend tests and the CUDA end-to-end tests with
#      LLAMA_TEST_REQUIRE_CUDA=1 (a missing device is a failure there, not a skip),
#   3. writes synthetic models with llama-gguf-synth (TinyLlama and Llama-3-8B shapes; F16, Q4_0 and
#      Q4_K, the bulk type of Q4_K_M, written directly as that type: no quantize step), in the
#      background while the tests run,
#   4. runs llama-bench (pp512, tg128, flash attention off and on, -ngl 99) on them,
#   5. measures the device-to-device copy bandwidth,
#   6. when Vulkan was built: the Vulkan backend tests, op harness and end-to-end tests on the same GPU
#      through NVIDIA's Vulkan driver (CUDA hidden, LLAMA_TEST_REQUIRE_VULKAN=1) and llama-bench of the
#      Q4_0 models on Vulkan (issue 17),
# and writes one summary: $OUT/gpu-summary.md if OUT is set, else $BUILD_DIR/gpu-summary.md.
# Every step runs even if an earlier one failed; the exit status is non-zero if any failed.
#
#   scripts/gpu-check.sh
# Environment: BUILD_DIR (default build-gpu), JOBS (default nproc), MODELS_DIR (default $BUILD_DIR/models),
#   GPU_CHECK_QUICK=1 (small preset and short benchmarks: tries the flow on a machine without a GPU),
#   GPU_CHECK_DEADLINE (default 420: seconds after which remaining benchmarks are skipped, noted),
#   GPU_CHECK_TARGETS (default: everything; else the targets to build, e.g. only what the check runs).
#
# On a bare machine (no GoogleTest, Google Benchmark, glslc or Vulkan loader), scripts/gpu-check-prepare.sh
# run beforehand on a Debian 12 machine leaves .debs in .device/debs and the synthetic models packed in
# .device/synthetic.tar.xz (docs/cuda.md, "Running the GPU check on a borrowed machine"): step 0 unpacks
# them into .device/root (never into /) and points CMake, PATH and the loader there.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

# ---- 0. what gpu-check-prepare.sh brought along ---------------------------------------------------------
DEV_ROOT=$PWD/.device/root
# deb_x DEB DIR: the files of a .deb into DIR, as `dpkg -x`; without dpkg, a .deb is an ar archive whose
# data.tar.{xz,zst,gz} holds them (Debian 12's are xz): ar + tar, or Python's tarfile without ar
deb_x() {
    if command -v dpkg-deb >/dev/null 2>&1; then
        dpkg-deb -x "$1" "$2"
        return
    fi
    local m
    if command -v ar >/dev/null 2>&1; then
        m=$(ar t "$1" | grep -m1 '^data\.tar') || return 1
        case "$m" in
            *.xz) ar p "$1" "$m" | xz -dc | tar -x -C "$2" ;;
            *.zst) ar p "$1" "$m" | zstd -dc | tar -x -C "$2" ;;
            *.gz) ar p "$1" "$m" | tar -xz -C "$2" ;;
            *) ar p "$1" "$m" | tar -x -C "$2" ;;
        esac
        return
    fi
    python3 - "$1" "$2" <<'PY'
import io, sys, tarfile
deb, dest = sys.argv[1], sys.argv[2]
b = open(deb, "rb").read()
assert b[:8] == b"!<arch>\n", deb + ": not an ar archive"
i = 8
while i + 60 <= len(b):
    name, size = b[i:i + 16].decode().strip().rstrip("/"), int(b[i + 48:i + 58])
    if name.startswith("data.tar"):
        with tarfile.open(fileobj=io.BytesIO(b[i + 60:i + 60 + size])) as t:  # xz, gz, bz2
            t.extractall(dest, **({"filter": "tar"} if hasattr(tarfile, "tar_filter") else {}))
        sys.exit(0)
    i += 60 + size + (size & 1)
sys.exit(deb + ": no data.tar member")
PY
}
if compgen -G ".device/debs/*.deb" >/dev/null; then
    rm -rf "$DEV_ROOT"
    mkdir -p "$DEV_ROOT"
    for deb in .device/debs/*.deb; do
        deb_x "$deb" "$DEV_ROOT" || echo "gpu-check: could not unpack $deb" >&2
    done
    multiarch=$(gcc -print-multiarch 2>/dev/null || true)
    multiarch=${multiarch:-x86_64-linux-gnu}
    dev_lib=$DEV_ROOT/usr/lib/$multiarch
    # find_package/find_path/find_library/find_program look in <prefix>/{lib/<arch>,include,bin} first;
    # CMake puts the include dirs of GTest::gtest and Vulkan::Vulkan on the command lines itself (no CPATH)
    export CMAKE_PREFIX_PATH="$DEV_ROOT/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
    export PKG_CONFIG_PATH="$dev_lib/pkgconfig:$DEV_ROOT/usr/share/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
    export PATH="$DEV_ROOT/usr/bin:$PATH"
    # glslc's libshaderc, the Vulkan loader and libbenchmark at run time (the test binaries also get
    # the folder as their build RPATH)
    export LD_LIBRARY_PATH="$dev_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
# the synthetic models travel packed (tests/data/models/synthetic is left behind by the slim step)
if [ -s .device/synthetic.tar.xz ] && ! compgen -G "tests/data/models/synthetic/*.gguf" >/dev/null; then
    if command -v xz >/dev/null 2>&1; then
        xz -dc .device/synthetic.tar.xz | tar -x -C tests/data/models
    else
        python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2], **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))' \
            .device/synthetic.tar.xz tests/data/models
    fi || echo "gpu-check: could not unpack .device/synthetic.tar.xz" >&2
fi
# NVIDIA's Vulkan driver (ICD) where the container mounts the driver (see the device README)
if [ -z "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ] && [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] &&
    ! compgen -G "/usr/share/vulkan/icd.d/nvidia*.json" >/dev/null && ! compgen -G "/etc/vulkan/icd.d/nvidia*.json" >/dev/null; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
BUILD_DIR=${BUILD_DIR:-build-gpu}
JOBS=${JOBS:-$(nproc)}
MODELS_DIR=${MODELS_DIR:-$BUILD_DIR/models}
QUICK=${GPU_CHECK_QUICK:-0}
if [ -n "${OUT:-}" ]; then SUMMARY=$OUT/gpu-summary.md; else SUMMARY=$BUILD_DIR/gpu-summary.md; fi
LOG_DIR=$(dirname "$SUMMARY")/gpu-logs
mkdir -p "$BUILD_DIR" "$LOG_DIR" "$MODELS_DIR"
start=$(date +%s)
failures=0
elapsed() { echo $(($(date +%s) - start)); }

# summary lines are collected and written at the end (and on every step, so a timeout keeps them)
lines=()
note() {
    lines+=("$*")
    printf '%s\n' "${lines[@]}" >"$SUMMARY"
}
# step NAME LOG CMD...: runs CMD with output in LOG; notes pass/fail and the time
step() {
    local name=$1 log=$2
    shift 2
    local t0 rc
    t0=$(date +%s)
    echo "gpu-check: [$(elapsed) s] $name"
    "$@" >"$log" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then
        note "- ok   $name ($(($(date +%s) - t0)) s)"
    else
        failures=$((failures + 1))
        note "- FAIL $name (exit $rc, $(($(date +%s) - t0)) s; log: $(basename "$log"))"
        tail -25 "$log" | sed 's/^/      /' >>"$LOG_DIR/failures.txt"
    fi
    return $rc
}

note "# GPU check ($(date -u '+%Y-%m-%d %H:%M UTC'))"
note ""
note "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (+ local changes)')"
note "- host: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
if command -v nvidia-smi >/dev/null 2>&1; then
    note "- GPU: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -4 | tr '\n' ';')"
else
    note "- GPU: nvidia-smi not found"
fi
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
note "- nvcc: $("$NVCC" --version 2>/dev/null | grep -o 'release [0-9.]*' || echo 'not found')"
note ""
note "## Steps"

# ---- 1. build -----------------------------------------------------------------------------------------
vk=OFF
if { pkg-config --exists vulkan 2>/dev/null || [ -f "$DEV_ROOT/usr/include/vulkan/vulkan.h" ]; } &&
    { command -v glslc || command -v glslangValidator; } >/dev/null 2>&1; then
    vk=AUTO
fi
# Ninja where there is no make (a bare CUDA image), unless the build folder or CMAKE_GENERATOR has one
have() {
    local p
    p=$(type -P "$1") && [ -f "$p" ] && [ -x "$p" ]
}
gen=()
if [ -z "${CMAKE_GENERATOR:-}" ] && [ ! -f "$BUILD_DIR/CMakeCache.txt" ] && ! have make && have ninja; then
    gen=(-G Ninja)
fi
step "configure (CUDA on, Vulkan $vk)" "$LOG_DIR/configure.log" \
    cmake -S . -B "$BUILD_DIR" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DLLAMA_CUDA=ON -DLLAMA_VULKAN=$vk \
    -DLLAMA_BUILD_TESTS=ON -DLLAMA_BUILD_BENCH=ON
# where configure found what step 0 brought (the summary says whether the prefix was used)
for v in GTest_DIR benchmark_DIR Vulkan_INCLUDE_DIR Vulkan_LIBRARY LLAMA_GLSL_COMPILER; do
    grep -E "^$v:" "$BUILD_DIR/CMakeCache.txt" 2>/dev/null | sed 's/:[A-Z]*=/=/'
done >"$LOG_DIR/found.txt"
[ -s "$LOG_DIR/found.txt" ] && note "- found: $(tr '\n' ' ' <"$LOG_DIR/found.txt")"
targets=()
for t in ${GPU_CHECK_TARGETS:-}; do targets+=(--target "$t"); done
step "build (-j $JOBS${GPU_CHECK_TARGETS:+, targets: $GPU_CHECK_TARGETS})" "$LOG_DIR/build.log" \
    cmake --build "$BUILD_DIR" -j "$JOBS" "${targets[@]}"
BIN=$BUILD_DIR/bin
# The GPU backends are run-time modules in this (shared) build, next to libggml in $BUILD_DIR/ggml; the
# test programs link the core statically, so they are told where (ctest does the same).
export GGML_BACKEND_DIR=$BUILD_DIR/ggml
# The CUDA module loads on this machine and finds the GPU: llama-simple -v logs where it came from.
module_loads() {
    "$BIN/llama-simple" -v -m models/stories260K.gguf -n 4 "Once upon a time" 2>&1
    grep -q "ggml_backend_load: loaded CUDA from" <(GGML_VK_DISABLE=1 "$BIN/llama-simple" -v \
        -m models/stories260K.gguf -n 1 "Once" 2>&1)
}
if compgen -G "$BUILD_DIR/ggml/libggml-cuda.*" >/dev/null; then
    step "CUDA module loads (llama-simple -v)" "$LOG_DIR/module-load.log" module_loads
    grep -E "ggml_backend_load|ggml-cuda|offloading" "$LOG_DIR/module-load.log" | head -6 | sed 's/^/    /' \
        >>"$LOG_DIR/test-lines.txt"
fi

# ---- 2. models (in the background, while the tests run) ------------------------------------------------
# Q4_K stands for Q4_K_M (whose matrices are mostly Q4_K); synth writes every matrix in the given type.
if [ "$QUICK" = 1 ]; then
    shapes=(tiny)
    types=(q4_0 f16)
    bench_args=(-p 64 -n 16 -r 1)
else
    shapes=(tinyllama llama3-8b)
    types=(q4_0 q4_K f16)
    bench_args=(-p 512 -n 128 -r 2)
fi
synth_status=$LOG_DIR/synth-status.txt
: >"$synth_status"
synth_all() {
    local preset ty m t0 vocab
    for preset in "${shapes[@]}"; do
        for ty in "${types[@]}"; do
            m=$MODELS_DIR/$preset-$ty.gguf
            vocab=()
            [ "$preset" = tinyllama ] && vocab=(--vocab tests/data/vocab/ggml-vocab-llama-spm.gguf)
            t0=$(date +%s)
            if [ -s "$m" ] || "$BIN/llama-gguf-synth" -o "$m" --preset "$preset" --type "$ty" "${vocab[@]}" \
                >"$LOG_DIR/synth-$preset-$ty.log" 2>&1; then
                echo "ok $m $(($(date +%s) - t0))" >>"$synth_status"
            else
                rm -f "$m"
                echo "FAIL $m $(($(date +%s) - t0))" >>"$synth_status"
            fi
        done
    done
}
echo "gpu-check: [$(elapsed) s] writing models in the background"
synth_all &
synth_pid=$!

# ---- 3. tests -----------------------------------------------------------------------------------------
# Vulkan (if built) would see the same GPU: keep it out so every result here is the CUDA backend's
export LLAMA_TEST_REQUIRE_CUDA=1 GGML_VK_DISABLE=1
for t in test-cuda-backend test-cuda-basic-ops test-cuda-mm-vec test-backend-ops test-cuda-e2e; do
    if [ -x "$BIN/$t" ]; then
        step "$t" "$LOG_DIR/$t.log" "$BIN/$t"
        grep -E '^\[ CUDA[0-9]* \]|^\[ .* on CUDA \]|d2d bandwidth|^\[mm-vec\]|^\[  (FAILED|SKIPPED) +\] .*\([0-9]+ ms\)$|^\[  PASSED  \] [0-9]+ test' "$LOG_DIR/$t.log" |
            head -40 | sed 's/^/    /' >>"$LOG_DIR/test-lines.txt"
    else
        failures=$((failures + 1))
        note "- FAIL $t (not built)"
    fi
done
bw=$(grep -h -o 'd2d bandwidth: [0-9.]* GB/s' "$LOG_DIR/test-cuda-backend.log" 2>/dev/null | grep -o '[0-9.]*' | head -1)

# ---- 3b. Vulkan on the same GPU (issue 17), when built: NVIDIA's Vulkan driver with CUDA hidden --------
# (the Vulkan loader must be there: see the device README; the build needs libvulkan-dev and glslc)
vk_env=(env -u GGML_VK_DISABLE CUDA_VISIBLE_DEVICES= LLAMA_TEST_REQUIRE_CUDA=0 LLAMA_TEST_REQUIRE_VULKAN=1)
if [ -x "$BIN/test-vulkan-e2e" ]; then
    for t in test-vulkan-backend test-backend-ops test-vulkan-e2e test-vulkan-flash-attn; do
        step "$t (Vulkan)" "$LOG_DIR/$t-vk.log" "${vk_env[@]}" "$BIN/$t"
        grep -E '^\[ Vulkan[0-9]* \]|on Vulkan \]|^Vulkan[0-9]+: |^\[  (FAILED|SKIPPED) +\] .*\([0-9]+ ms\)$|^\[  PASSED  \] [0-9]+ test' \
            "$LOG_DIR/$t-vk.log" | head -40 | sed 's/^/    /' >>"$LOG_DIR/test-lines.txt"
    done
else
    note "- skip Vulkan tests (built without Vulkan)"
fi

# ---- 4. models written? -----------------------------------------------------------------------------
wait $synth_pid
models=()
while read -r st m secs; do
    if [ "$st" = ok ]; then
        note "- ok   synth $(basename "$m") ($secs s)"
        models+=("$m")
    else
        failures=$((failures + 1))
        note "- FAIL synth $(basename "$m") ($secs s; log: synth-*.log)"
    fi
done <"$synth_status"

# ---- 5. benchmarks ------------------------------------------------------------------------------------
bench_md=$LOG_DIR/bench.md
: >"$bench_md"
deadline=${GPU_CHECK_DEADLINE:-420} # seconds: later benchmarks are skipped so the summary is complete in time
for m in "${models[@]}"; do
    if [ "$(elapsed)" -gt "$deadline" ]; then
        note "- skip llama-bench $(basename "$m") (past ${deadline} s)"
        continue
    fi
    log=$LOG_DIR/bench-$(basename "$m" .gguf).log
    # one call per model: loaded once, both flash-attention settings
    if step "llama-bench $(basename "$m") -fa 0,1" "$log" \
        "$BIN/llama-bench" -m "$m" -ngl 99 -fa 0,1 "${bench_args[@]}" -o md; then
        grep '^|' "$log" >>"$bench_md"
    fi
done

# Vulkan on the Q4_0 models (flash attention off and on: tiled prefill, per-row/split-K decode), when
# built; the backend column says Vulkan
if [ -x "$BIN/test-vulkan-e2e" ]; then
    for m in "${models[@]}"; do
        case "$m" in *q4_0*) ;; *) continue ;; esac
        if [ "$(elapsed)" -gt "$deadline" ]; then
            note "- skip llama-bench $(basename "$m") on Vulkan (past ${deadline} s)"
            continue
        fi
        log=$LOG_DIR/bench-vk-$(basename "$m" .gguf).log
        if step "llama-bench $(basename "$m") on Vulkan" "$log" \
            "${vk_env[@]}" "$BIN/llama-bench" -m "$m" -ngl 99 -fa 0,1 "${bench_args[@]}" -o md; then
            grep '^|' "$log" >>"$bench_md"
        fi
    done
fi

# ---- 6. summary -----------------------------------------------------------------------------------------
note ""
note "## Device-to-device copy bandwidth"
note ""
if [ -n "${bw:-}" ]; then
    note "$bw GB/s (read + write; test-cuda-backend Cuda.DeviceToDeviceBandwidth)"
else
    note "not measured (test-cuda-backend did not run Cuda.DeviceToDeviceBandwidth)"
fi
note ""
note "## llama-bench (-ngl 99; pp = prompt tokens/s, tg = generated tokens/s)"
note ""
# one header, then the rows of every run
hdr=$(grep -m1 '^| *model' "$bench_md")
[ -n "$hdr" ] && note "$hdr" && note "$(grep -m1 '^| *-' "$bench_md")"
while IFS= read -r l; do
    note "$l"
done < <(grep '^|' "$bench_md" | grep -v '^| *model' | grep -v '^| *-')
if [ -n "${bw:-}" ]; then
    # decode reads every weight once per token: t/s x model size is the bandwidth decode achieves
    note ""
    note "Decode bandwidth (tg t/s x model size) against the copy bandwidth (issue 12: >= 40% for the 8B"
    note "Q4_0 shape; pp512 >= 5000 t/s):"
    note ""
    while IFS= read -r l; do note "$l"; done < <(grep '^|' "$bench_md" | awk -F'|' -v bw="$bw" '
        $8 ~ /tg/ {
            split($3, sz, " "); gib = sz[1]; if (sz[2] == "MiB") gib /= 1024;
            split($9, ts, " "); gbs = ts[1] * gib * 1.073741824;
            printf "- %s fa %s %s: %.1f t/s x %.2f GiB = %.0f GB/s = %.0f%% of %s GB/s\n",
                   $2, $7 + 0, $8, ts[1], gib, gbs, 100 * gbs / bw, bw }' | sed 's/  */ /g')
fi
note ""
note "## Test lines"
note ""
[ -f "$LOG_DIR/test-lines.txt" ] && while IFS= read -r l; do note "$l"; done <"$LOG_DIR/test-lines.txt"
if [ -f "$LOG_DIR/failures.txt" ]; then
    note ""
    note "## Failure tails"
    note ""
    while IFS= read -r l; do note "$l"; done <"$LOG_DIR/failures.txt"
fi
note ""
note "$failures step(s) failed; $(elapsed) s in all."
echo "gpu-check: $failures step(s) failed; summary in $SUMMARY"
[ "$failures" -eq 0 ]
