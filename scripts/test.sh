#!/usr/bin/env bash
# The README's test command: installs what the build and the tests need (Debian packages), builds
# everything (Release) and runs the whole test suite. .ci/run runs it too.
#
#   scripts/test.sh
#
# Run as root it installs the missing packages with apt-get; run as another user it prints the exact
# apt-get line to run and stops (exit 1). Environment:
#   BUILD_DIR   build folder (default: build)
#   JOBS        parallel jobs (default: nproc)
#   CMAKE_ARGS  extra configure arguments (e.g. sanitizers, -DCMAKE_COMPILE_WARNING_AS_ERROR=ON);
#               -DLLAMA_CUDA=ON is added when nvcc is found, unless CMAKE_ARGS sets LLAMA_CUDA itself
#   CTEST_ARGS  extra ctest arguments (e.g. -L unit)
#   BUILD_TARGET  what to build (default: all; tests-unit builds only what the tests labelled unit run)
#   LLAMA_NO_INSTALL=1  never call apt-get (fail with the apt-get line instead)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}

# What the build and the suite need. The Vulkan group (headers and loader, the GLSL compiler, and
# lavapipe, Mesa's CPU Vulkan driver) lets the Vulkan backend be built and tested without a GPU.
# llama-server needs cpp-httplib and nlohmann/json; its tests drive it with node (the `openai` npm
# package is installed into the build tree by the test itself); its web page is tested in headless
# chromium (about 120 MB, ~25 s to install). nodejs/npm are added only when the node/npm commands are
# missing (a NodeSource nodejs package already carries npm).
packages=(cmake make g++ pkg-config libgtest-dev libbenchmark-dev libvulkan-dev glslc mesa-vulkan-drivers
           libcpp-httplib-dev nlohmann-json3-dev libssl-dev openssl python3-jinja2 chromium)
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    packages+=(nodejs npm)
fi
missing=()
if command -v dpkg >/dev/null 2>&1; then
    for p in "${packages[@]}"; do
        dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
    done
fi
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && [ "${LLAMA_NO_INSTALL:-0}" != 1 ]; then
        echo "test.sh: installing ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    else
        echo "test.sh: missing packages; install them first with:"
        echo "  sudo apt-get install -y --no-install-recommends ${missing[*]}"
        exit 1
    fi
fi

# With a CUDA toolkit on the machine (nvcc on PATH or in /usr/local/cuda) the CUDA backend is built too,
# so a CUDA compile error fails here; without a GPU its tests skip. CMAKE_ARGS naming LLAMA_CUDA wins.
cuda_args=""
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
    case " ${CMAKE_ARGS:-} " in
        *LLAMA_CUDA=*) ;;
        *) cuda_args="-DLLAMA_CUDA=ON" ;;
    esac
fi

cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release $cuda_args ${CMAKE_ARGS:-}
cmake --build "$BUILD_DIR" -j "$JOBS" --target "${BUILD_TARGET:-all}"
# --no-tests=error: tests switch themselves off without GoogleTest; CI must not pass with none
ctest --test-dir "$BUILD_DIR" --output-on-failure --no-tests=error -j "$JOBS" ${CTEST_ARGS:-}
