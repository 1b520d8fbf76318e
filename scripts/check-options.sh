#!/usr/bin/env bash
# Configures the project once per build-option value, each in its own temporary build dir (configure
# only: fast), and checks that every option does what README's "Build options" table says: either the
# configuration it asked for (read from the one-line summary configure prints) or, where this machine
# or this tree cannot honour it, configure stopping with one clear sentence. Prints one line per case;
# exits non-zero if any case behaves otherwise.
#
#   scripts/check-options.sh            (about 30 s on 2 cores; TMPDIR picks where the build dirs go)
set -uo pipefail
cd "$(dirname "$0")/.."
src=$(pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/llama-check-options.XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
n=0

# [CC_MATCH=REGEX] check NAME EXPECT PATTERN [cmake args...]
#   EXPECT=ok:   configure must succeed and its output must match the extended regex PATTERN
#   EXPECT=fail: configure must fail and its output must match PATTERN (the one clear sentence;
#                cmake wraps long messages, so PATTERN matches the start of it)
#   SRC_DIR=DIR:      configure DIR instead of this project
#   CC_MATCH=REGEX:   and the generated compile_commands.json must match REGEX (flags reach the compiler)
check() {
    local name=$1 expect=$2 pattern=$3
    shift 3
    n=$((n + 1))
    local dir="$work/$n" log="$work/$n.log" rc=0
    cmake -S "${SRC_DIR:-$src}" -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >"$log" 2>&1 || rc=$?
    local got=ok
    [ $rc -ne 0 ] && got=fail
    local cc_ok=1
    if [ -n "${CC_MATCH:-}" ] && ! grep -Eq -- "$CC_MATCH" "$dir/compile_commands.json" 2>/dev/null; then
        cc_ok=0
        echo "        (compile_commands.json does not match /$CC_MATCH/)" >>"$log"
    fi
    if [ "$got" = "$expect" ] && [ $cc_ok = 1 ] && grep -Eq -- "$pattern" "$log"; then
        printf 'ok    %-44s %s\n' "$name" "$(grep -E -m1 -- "$pattern" "$log" | sed 's/^[- ]*//')"
    else
        printf 'FAIL  %-44s configure %s (expected %s, /%s/); log:\n' "$name" "$got" "$expect" "$pattern"
        sed 's/^/        /' "$log" | tail -20
        failures=$((failures + 1))
    fi
    rm -rf "$dir"
}

summary='libllama [0-9.]+: '

# the default configuration; LLAMA_VULKAN=AUTO says what it found, and ON must then agree with it
check "default (LLAMA_VULKAN=AUTO)" ok "LLAMA_VULKAN=AUTO -> (ON|OFF)"
if grep -q "LLAMA_VULKAN=AUTO -> ON" "$work/1.log"; then
    check "LLAMA_VULKAN=ON (Vulkan found)" ok "${summary}.*backends CPU\+Vulkan" -DLLAMA_VULKAN=ON
else
    check "LLAMA_VULKAN=ON (Vulkan not found)" fail "LLAMA_VULKAN=ON but the Vulkan headers|LLAMA_VULKAN=ON but a GLSL" -DLLAMA_VULKAN=ON
fi
check "LLAMA_VULKAN=ON, no Vulkan package" fail "LLAMA_VULKAN=ON but the Vulkan headers and loader" \
    -DLLAMA_VULKAN=ON -DCMAKE_DISABLE_FIND_PACKAGE_Vulkan=ON
check "LLAMA_VULKAN=OFF" ok "${summary}.*backends CPU," -DLLAMA_VULKAN=OFF
check "LLAMA_BUILD_SERVER=AUTO" ok "LLAMA_BUILD_SERVER=AUTO -> (ON|OFF)"
check "LLAMA_BUILD_SERVER=AUTO, no nlohmann_json" ok "LLAMA_BUILD_SERVER=AUTO -> OFF \(not found: .*nlohmann" \
    -DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON
check "LLAMA_BUILD_SERVER=ON, no nlohmann_json" fail "LLAMA_BUILD_SERVER=ON but .*nlohmann" \
    -DLLAMA_BUILD_SERVER=ON -DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON
check "LLAMA_BUILD_SERVER=maybe" fail "LLAMA_BUILD_SERVER must be ON, OFF or AUTO" -DLLAMA_BUILD_SERVER=maybe
check "LLAMA_VULKAN=maybe" fail "LLAMA_VULKAN must be ON, OFF or AUTO" -DLLAMA_VULKAN=maybe
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
    check "LLAMA_CUDA=ON (nvcc found)" ok "${summary}shared .*backends CPU(\+Vulkan)?\+CUDA \(GPU modules\)," \
        -DLLAMA_CUDA=ON
    # the GPU backends linked into libggml instead: asked for, or a static build
    check "GGML_BACKEND_DL=OFF (shared)" ok "${summary}shared .*backends CPU(\+Vulkan)?\+CUDA," -DLLAMA_CUDA=ON \
        -DGGML_BACKEND_DL=OFF
    check "BUILD_SHARED_LIBS=OFF: no modules" ok "${summary}static .*backends CPU(\+Vulkan)?\+CUDA," -DLLAMA_CUDA=ON \
        -DBUILD_SHARED_LIBS=OFF -DGGML_BACKEND_DL=ON
else
    check "LLAMA_CUDA=ON (no nvcc)" fail "LLAMA_CUDA=ON but no CUDA compiler" -DLLAMA_CUDA=ON
fi
check "LLAMA_CUDA=ON, nvcc not where it is said to be" fail "LLAMA_CUDA=ON but no CUDA compiler" \
    -DLLAMA_CUDA=ON -DCMAKE_CUDA_COMPILER=/nonexistent/nvcc
check "LLAMA_CUDA=OFF" ok "${summary}" -DLLAMA_CUDA=OFF
check "BUILD_SHARED_LIBS=OFF" ok "${summary}static libraries" -DBUILD_SHARED_LIBS=OFF
check "BUILD_SHARED_LIBS=ON" ok "${summary}shared libraries" -DBUILD_SHARED_LIBS=ON
CC_MATCH="-march=native" check "LLAMA_NATIVE=ON" ok "${summary}" -DLLAMA_NATIVE=ON
check "LLAMA_BUILD_TESTS/EXAMPLES/BENCH=OFF" ok "${summary}.*tests OFF, examples OFF, bench OFF" \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_BENCH=OFF
# a machine with only cmake and a compiler: no GoogleTest, no Google Benchmark, no Vulkan
check "no GoogleTest: tests switch off" ok "LLAMA_BUILD_TESTS -> OFF: GoogleTest not found" \
    -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON
check "no Google Benchmark: micro-benchmarks skip" ok "Google Benchmark not found, micro-benchmarks" \
    -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON
check "bare machine (no GTest/benchmark/Vulkan)" ok "${summary}.*backends CPU, CPU kernels .*\), tests OFF, examples ON, bench ON" \
    -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON \
    -DCMAKE_DISABLE_FIND_PACKAGE_Vulkan=ON
# the CPU kernel family (cmake/LlamaCpuArch.cmake): from CMAKE_SYSTEM_PROCESSOR, forced, refused
CC_MATCH="cpu-repack\.avx512\.cpp" check "GGML_CPU_ARCH default (x86-64 here)" ok \
    "${summary}.*CPU kernels x86-64 \(AVX2, AVX-VNNI, AVX-512, scalar\)"
check "GGML_CPU_ARCH=generic" ok "${summary}.*CPU kernels scalar only" -DGGML_CPU_ARCH=generic
check "GGML_CPU_ARCH=sparc" fail "GGML_CPU_ARCH must be x86_64, arm64 or generic" -DGGML_CPU_ARCH=sparc
if command -v aarch64-linux-gnu-g++ >/dev/null; then
    CC_MATCH="armv8\.2-a\+dotprod.*quants-arm\.dotprod\.cpp" check "aarch64 cross toolchain" ok \
        "${summary}.*CPU kernels arm64 \(NEON, dotprod, i8mm, scalar\)" \
        -DCMAKE_TOOLCHAIN_FILE="$src/cmake/toolchains/aarch64-linux-gnu.cmake" -DLLAMA_VULKAN=OFF -DLLAMA_BUILD_TESTS=OFF
fi
# a big-endian target: clang compiles for 64-bit PowerPC without its libraries (nothing is linked)
if command -v clang >/dev/null && command -v clang++ >/dev/null; then
    check "big-endian target (clang --target=powerpc64)" fail "libllama needs a little-endian target" \
        -DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR=ppc64 -DCMAKE_TRY_COMPILE_TARGET_TYPE=STATIC_LIBRARY \
        -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER_TARGET=powerpc64-linux-gnu \
        -DCMAKE_CXX_COMPILER_TARGET=powerpc64-linux-gnu
fi
CC_MATCH="-fsanitize=address.*-fsanitize=undefined" check "LLAMA_SANITIZE_ADDRESS+UNDEFINED=ON" ok "${summary}" -DLLAMA_SANITIZE_ADDRESS=ON -DLLAMA_SANITIZE_UNDEFINED=ON
CC_MATCH="-fsanitize=thread" check "LLAMA_SANITIZE_THREAD=ON" ok "${summary}" -DLLAMA_SANITIZE_THREAD=ON
if grep -q "The CXX compiler identification is Clang" "$work/1.log"; then
    check "LLAMA_FUZZ=ON (clang)" ok "${summary}" -DLLAMA_FUZZ=ON
else
    check "LLAMA_FUZZ=ON (default compiler, not clang)" fail "LLAMA_FUZZ needs clang" -DLLAMA_FUZZ=ON
fi
if command -v clang >/dev/null && command -v clang++ >/dev/null; then
    CC_MATCH="fuzz-gguf.cpp" check "LLAMA_FUZZ=ON with clang" ok "${summary}" -DLLAMA_FUZZ=ON \
        -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++
fi

# a parent project that adds this tree with add_subdirectory (docs/embedding.md): tests, examples and
# benchmarks default to OFF there, and llama::llama is a target it can link
mkdir -p "$work/parent"
cat >"$work/parent/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.25)
project(parent C CXX)
add_subdirectory("$src" libllama)
add_executable(app "$src/tests/install/consumer/consumer-llama.c")
target_link_libraries(app PRIVATE llama::llama)
EOF
SRC_DIR="$work/parent" CC_MATCH="consumer-llama\\.c" check "add_subdirectory from a parent project" ok \
    "${summary}.*tests OFF, examples OFF, bench OFF" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON

if [ $failures -ne 0 ]; then
    echo "check-options: $failures of $n cases FAILED"
    exit 1
fi
echo "check-options: all $n cases behave as documented"
