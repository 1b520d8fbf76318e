#!/usr/bin/env bash
# Cross builds run under emulation (CI; no ARM or RISC-V machine here):
#   arm64   g++-aarch64-linux-gnu build of the library, examples and tests; the tests run under
#           qemu-aarch64 with three CPU models so that each kernel level runs:
#             -cpu max          (dotprod, i8mm, BF16, SVE)  level i8mm
#             -cpu neoverse-n1  (dotprod, no i8mm)           level dotprod
#             -cpu cortex-a72   (ARMv8.0 NEON only)          level neon
#           plus stories260K generated greedily under each, compared with the native build's text,
#           a disassembly check that no object holds instructions above its level
#           (scripts/check-arm64-levels.sh), and a build with the Vulkan backend (Debian's arm64 loader unpacked; needs root for
#           dpkg --add-architecture arm64 the first time).
#   riscv64 g++-riscv64-linux-gnu build of the scalar engine (an architecture without kernels of its own)
#           generating the same text under qemu-riscv64.
#   windows MinGW-w64 (posix threads) build of the library, examples and tests for Windows x64 (DLLs);
#           the unit tests run under Wine (ctest starts them through it), and llama-simple.exe generates
#           the native build's text, also from a model whose path has non-ASCII characters.
#
#   scripts/test-cross.sh [arm64] [riscv64] [windows]     (default: all three)
# Environment: JOBS (default nproc), NATIVE_BIN (a native build's bin folder with llama-simple, for the
# text comparison; default build/bin, built here if missing), LLAMA_NO_INSTALL=1 (never call apt-get).
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(arm64 riscv64 windows)

packages=(qemu-user)
for t in "${targets[@]}"; do
    case "$t" in
        arm64) packages+=(g++-aarch64-linux-gnu libgtest-dev glslc libvulkan-dev) ;;
        riscv64) packages+=(g++-riscv64-linux-gnu) ;;
        windows) packages+=(g++-mingw-w64-x86-64-posix wine64 libgtest-dev) ;;
        *) echo "test-cross: [${SECONDS} s] unknown target '$t' (arm64, riscv64, windows)"; exit 1 ;;
    esac
done
missing=()
for p in "${packages[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && [ "${LLAMA_NO_INSTALL:-0}" != 1 ]; then
        echo "test-cross: [${SECONDS} s] installing ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    else
        echo "test-cross: [${SECONDS} s] missing packages; install them first with:"
        echo "  sudo apt-get install -y --no-install-recommends ${missing[*]}"
        exit 1
    fi
fi

# the reference text: the native build's greedy continuation of the bundled model
NATIVE_BIN=${NATIVE_BIN:-build/bin}
prompt="Once upon a time"
if [ ! -x "$NATIVE_BIN/llama-simple" ]; then
    cmake -S . -B build-native-simple -DCMAKE_BUILD_TYPE=Release -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_BENCH=OFF \
        -DLLAMA_VULKAN=OFF -DLLAMA_CUDA=OFF -DLLAMA_BUILD_SERVER=OFF >/dev/null
    cmake --build build-native-simple -j "$JOBS" --target llama-simple
    NATIVE_BIN=build-native-simple/bin
fi
want=$("$NATIVE_BIN/llama-simple" -m models/stories260K.gguf -n 48 "$prompt" 2>/dev/null)

# $1 = what, $2 = the generated text
check_text() {
    if [ "$2" != "$want" ]; then
        echo "test-cross: [${SECONDS} s] $1 generated other text than the native build:"
        echo "  native: $want"
        echo "  $1: $2"
        exit 1
    fi
    echo "test-cross: [${SECONDS} s] $1 generates the native build's text"
}

common_args=(-DCMAKE_BUILD_TYPE=Release -DLLAMA_BUILD_BENCH=OFF -DLLAMA_VULKAN=OFF -DLLAMA_CUDA=OFF
             -DLLAMA_BUILD_SERVER=OFF -DCMAKE_COMPILE_WARNING_AS_ERROR=ON ${CMAKE_ARGS:-})

for t in "${targets[@]}"; do
    case "$t" in
    arm64)
        dir=build-arm64
        # the test programs none of the runs below starts (see the -cpu max exclusions) are not built
        arm64_skip="test-vulkan-e2e|test-quantize$|test-swa-cache|test-imatrix-e2e|test-kv-types|test-speculative$"
        arm64_skip+="|test-speculative-sampling|test-speculative-stateful|test-speculative-mtp|test-tools|test-hybrid$"
        cmake -S . -B "$dir" -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
            -DLLAMA_GTEST_SOURCE_DIR=/usr/src/googletest "-DLLAMA_TESTS_SKIP=$arm64_skip" "${common_args[@]}" |
            grep -E "^-- libllama"
        echo "test-cross: [${SECONDS} s] building arm64"
        cmake --build "$dir" -j "$JOBS"
        qemu=(qemu-aarch64 -L /usr/aarch64-linux-gnu)
        # -cpu max runs the unit, backend and model tests, except: those that start the programs from a
        # shell script or re-run themselves (they would exec arm64 binaries without qemu; the CMake-script
        # tests go through the emulator), test-quantize (the scalar quantizers, the same code at every
        # level: ~7 minutes emulated), and test-swa-cache / test-imatrix-e2e (cache bookkeeping and
        # importance statistics over long runs, ~6 minutes each emulated; their kernels are those of the
        # model tests that do run), test-kv-types (12 minutes emulated; its kernels, flash attention and
        # set_rows of every KV type, are in test-backend-ops at every level) and test-speculative /
        # test-speculative-sampling (the decoding algorithm over 3000 seeds, ~7 minutes emulated) and
        # test-speculative-stateful / test-speculative-mtp (the same algorithm on recurrent targets and
        # with the MTP head, ~2 minutes each), test-tools (the generator and the scalar quantizers, whose
        # quantized models test-archs-e2e runs; ~1.5 minutes), test-hybrid (the
        # hybrid memory's bookkeeping over 9 architectures, ~2 minutes emulated; test-archs-e2e runs those
        # models' graphs and test-recurrent the recurrent memory here); and
        # test-archs-e2e's quantized copies (GTEST_FILTER below; ~3 minutes emulated: each of 32 micro
        # models quantized to Q8_0 and Q4_0 by the scalar quantizers and run through the quantized matmul
        # kernels that test-quants, test-backend-ops and test-repack-e2e check at every level). The
        # two lower CPU models run what depends on the kernel level: the kernel tests against the scalar oracle and the model
        # tests that compare outputs with the reference engine's (test-llama-e2e, test-repack-e2e, the bundled model's
        # text); test-archs-e2e (17 architectures, the same kernels in other graphs) runs at the top level only.
        # The kernel tests compare every level the CPU has with the scalar oracle, so under -cpu max they
        # cover all three; the lower CPUs run test-quants (every type's kernels at the level they detect:
        # an instruction the CPU lacks would stop it) but not the flash-attention, matmul and repack
        # kernel suites (~3 minutes emulated), whose objects scripts/check-arm64-levels.sh checks by
        # disassembly instead: no object holds an instruction above its level.
        # LLAMA_TEST_EXPECT_ISA makes test-cpu-features demand the level that CPU must get.
        scripts/check-arm64-levels.sh "$dir"
        level_tests="test-cpu-features|test-quants$|test-quants-kat|test-backend-ops|test-llama-e2e|test-repack-e2e|llama-simple-bundled"
        for cpu in max:i8mm neoverse-n1:dotprod cortex-a72:neon; do
            model=${cpu%%:*}
            level=${cpu##*:}
            select=(-R "$level_tests")
            filter=""
            if [ "$model" = max ]; then
                filter="-*/ArchE2E.QuantizedStaysNearReference/*"  # only test-archs-e2e has such tests
                select=(-L "unit|backend|model" -E "test-llama-cli-|test-install|$arm64_skip")
            fi
            echo "test-cross: [${SECONDS} s] arm64 tests under qemu -cpu $model (level $level)"
            env ${filter:+GTEST_FILTER=$filter} QEMU_CPU=$model LLAMA_TEST_EXPECT_ISA=$level ctest --test-dir "$dir" --output-on-failure \
                --no-tests=error -j "$JOBS" "${select[@]}" ${ARM64_CTEST_ARGS:-}
            got=$(QEMU_CPU=$model "${qemu[@]}" "$dir/bin/llama-simple" -m models/stories260K.gguf -n 48 "$prompt" 2>/dev/null)
            check_text "arm64 ($model)" "$got"
        done
        # The Vulkan backend (Android's GPU path: Adreno, Mali) builds for arm64 too: the arm64 loader
        # from Debian's packages, unpacked with dpkg -x (no arm64 Vulkan driver runs here, so this is a
        # build check; the shaders are compiled by the build machine's glslc).
        vkdir=build-arm64-vulkan
        mkdir -p "$vkdir/debs" "$vkdir/root"
        if ! dpkg --print-foreign-architectures | grep -qx arm64; then
            dpkg --add-architecture arm64
            apt-get update -qq
        fi
        (cd "$vkdir/debs" && apt-get download -qq libvulkan-dev:arm64 libvulkan1:arm64 2>/dev/null)
        for deb in "$vkdir"/debs/*.deb; do dpkg -x "$deb" "$vkdir/root"; done
        cmake -S . -B "$vkdir" -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
            -DLLAMA_CROSS_ROOTS="$PWD/$vkdir/root" -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
            "${common_args[@]}" -DLLAMA_VULKAN=ON | grep -E "^-- libllama"
        echo "test-cross: [${SECONDS} s] building arm64 with Vulkan"
        cmake --build "$vkdir" -j "$JOBS" --target ggml ggml-vulkan  # libggml and the Vulkan module
        echo "test-cross: [${SECONDS} s] arm64 with the Vulkan backend builds (the module libggml-vulkan.so)"
        ;;
    riscv64)
        dir=build-riscv64
        cmake -S . -B "$dir" -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/riscv64-linux-gnu.cmake \
            -DLLAMA_BUILD_TESTS=OFF "${common_args[@]}" | grep -E "^-- libllama"
        echo "test-cross: [${SECONDS} s] building riscv64"
        cmake --build "$dir" -j "$JOBS" --target llama-simple
        got=$(qemu-riscv64 -L /usr/riscv64-linux-gnu "$dir/bin/llama-simple" -m models/stories260K.gguf -n 48 "$prompt" 2>/dev/null)
        check_text "riscv64 (scalar)" "$got"
        ;;
    windows)
        dir=build-win64
        # with llama-bench: the tools' command-line test (test-cli-args, UTF-8 arguments) needs every tool
        cmake -S . -B "$dir" -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/x86_64-w64-mingw32.cmake \
            -DLLAMA_GTEST_SOURCE_DIR=/usr/src/googletest "${common_args[@]}" -DLLAMA_BUILD_BENCH=ON |
            grep -E "^-- libllama"
        # only what the unit tests run (and llama-simple, one of them): the model and backend tests run on
        # Linux only, and building them for Windows took a third of this stage
        echo "test-cross: [${SECONDS} s] building windows"
        cmake --build "$dir" -j "$JOBS" --target tests-unit
        export WINEDEBUG=-all  # Wine's own diagnostics ("fixme:") would mix with the programs' output
        wine=$(command -v wine64 || echo /usr/lib/wine/wine64)
        "$wine" cmd /c exit >/dev/null 2>&1 || true  # creates the Wine prefix once, before tests time out on it
        # Wine's own Linux loader now and then dies as a process exits, after the Windows program has
        # finished ("Inconsistency detected by ld.so: dl-fini.c: _dl_fini: Assertion", exit 127; seen once in
        # a few hundred starts): a failed test is run again, at most twice (the same tests run on Linux
        # without repeats, so a flaky test of ours still shows there), and so is a program run that ends so.
        wine_run() {
            local out rc attempt
            for attempt in 1 2 3; do
                rc=0
                out=$("$wine" "$@" 2>/dev/null) || rc=$?
                [ "$rc" -eq 127 ] || break
            done
            printf '%s\n' "$out" | tr -d '\r'  # Windows programs end lines with CR LF on stdout
            return "$rc"
        }
        echo "test-cross: [${SECONDS} s] windows unit tests under Wine"
        ctest --test-dir "$dir" --output-on-failure --no-tests=error -j "$JOBS" -L unit --repeat until-pass:3 \
            ${WINDOWS_CTEST_ARGS:-}
        got=$(wine_run "$dir/bin/llama-simple.exe" -m models/stories260K.gguf -n 48 "$prompt")
        check_text "windows (wine)" "$got"
        # a path outside every ANSI code page: it reaches the loader through the UTF-8 command line
        # (console.cpp) and the wide-char file APIs (platform layer)
        model="$dir/modèles-模型-μοντέλα/stories260K-ü.gguf"
        mkdir -p "$(dirname "$model")"
        cp models/stories260K.gguf "$model"
        got=$(wine_run "$dir/bin/llama-simple.exe" -m "$model" -n 48 "$prompt")
        check_text "windows (wine, model at $model)" "$got"
        # a prompt outside the ANSI code page: tokenized from the UTF-8 command line, echoed as UTF-8
        uprompt="Zoë and 小明 met a λ"
        want=$("$NATIVE_BIN/llama-simple" -m models/stories260K.gguf -n 16 "$uprompt" 2>/dev/null)
        got=$(wine_run "$dir/bin/llama-simple.exe" -m models/stories260K.gguf -n 16 "$uprompt")
        check_text "windows (wine, prompt '$uprompt')" "$got"
        ;;
    esac
done
echo "test-cross: [${SECONDS} s] passed (${targets[*]})"
