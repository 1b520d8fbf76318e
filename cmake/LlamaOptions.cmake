# Turns the option values into what this machine can build. An option that was asked for and cannot
# be honoured stops configure with one sentence; a default that cannot be honoured switches itself
# off with one status line, so `cmake -B build` works with only cmake and a C/C++ compiler.

# ---- LLAMA_VULKAN: AUTO / ON / OFF -> ON or OFF ---------------------------------------------------
string(TOUPPER "${LLAMA_VULKAN}" _llama_vk)
if (NOT _llama_vk MATCHES "^(AUTO|ON|OFF|TRUE|FALSE|YES|NO|1|0)$")
    message(FATAL_ERROR "LLAMA_VULKAN must be ON, OFF or AUTO (got '${LLAMA_VULKAN}').")
endif()
if (_llama_vk STREQUAL "AUTO" OR LLAMA_VULKAN)
    # Found here, at the top level, so that the imported target Vulkan::Vulkan is visible to every
    # target that links libggml's objects (libggml, ggml-internal, llama-internal).
    find_package(Vulkan QUIET)
    find_program(LLAMA_GLSL_COMPILER NAMES glslc glslangValidator
                 DOC "GLSL to SPIR-V compiler for the Vulkan shaders (glslc or glslangValidator)")
    if (Vulkan_FOUND AND LLAMA_GLSL_COMPILER)
        set(_llama_vk_ok ON)
    else()
        set(_llama_vk_ok OFF)
        set(_llama_vk_missing "")
        if (NOT Vulkan_FOUND)
            list(APPEND _llama_vk_missing "the Vulkan headers and loader (libvulkan-dev)")
        endif()
        if (NOT LLAMA_GLSL_COMPILER)
            list(APPEND _llama_vk_missing "a GLSL compiler (glslc or glslangValidator)")
        endif()
        list(JOIN _llama_vk_missing " and " _llama_vk_missing)
    endif()
    if (_llama_vk STREQUAL "AUTO")
        if (_llama_vk_ok)
            message(STATUS "LLAMA_VULKAN=AUTO -> ON (${Vulkan_LIBRARY}, ${LLAMA_GLSL_COMPILER})")
        else()
            message(STATUS "LLAMA_VULKAN=AUTO -> OFF (not found: ${_llama_vk_missing})")
        endif()
    elseif (NOT _llama_vk_ok)
        message(FATAL_ERROR "LLAMA_VULKAN=ON but ${_llama_vk_missing} not found: install them (Debian: "
                            "apt-get install libvulkan-dev glslc) or configure with -DLLAMA_VULKAN=AUTO or OFF.")
    endif()
    set(LLAMA_VULKAN ${_llama_vk_ok})
else()
    set(LLAMA_VULKAN OFF)
endif()

# ---- LLAMA_CUDA: ON / OFF ---------------------------------------------------------------------------
# ON needs nvcc and the CUDA toolkit's cudart and cuBLAS (no GPU: the build works, the registry then has
# 0 CUDA devices at run time). The language and the toolkit are enabled here, at the top level, so that
# CUDA::cudart / CUDA::cublas are visible to every target that links libggml's objects.
if (LLAMA_CUDA)
    # the toolkit's usual place, for machines where nvcc is not on PATH (CUDACXX / -DCMAKE_CUDA_COMPILER win)
    if (NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
        find_program(_llama_nvcc nvcc)
        if (NOT _llama_nvcc)
            set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
        endif()
    endif()
    include(CheckLanguage)
    check_language(CUDA)
    if (CMAKE_CUDA_COMPILER AND NOT EXISTS "${CMAKE_CUDA_COMPILER}")
        find_program(_llama_cuda_compiler "${CMAKE_CUDA_COMPILER}")  # a bare name is looked up on PATH
        if (NOT _llama_cuda_compiler)
            unset(CMAKE_CUDA_COMPILER CACHE)
            unset(CMAKE_CUDA_COMPILER)
        endif()
    endif()
    if (NOT CMAKE_CUDA_COMPILER)
        message(FATAL_ERROR "LLAMA_CUDA=ON but no CUDA compiler (nvcc) was found: install the CUDA toolkit, "
                            "put nvcc on PATH or pass -DCMAKE_CUDA_COMPILER=/path/to/nvcc, or configure with "
                            "-DLLAMA_CUDA=OFF.")
    endif()
    # Ampere and Hopper as machine code, plus Hopper PTX that the driver compiles for newer GPUs.
    if (NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
        set(CMAKE_CUDA_ARCHITECTURES "80-real;90-real;90-virtual")
    endif()
    # libggml links the shared cudart like cuBLAS (which needs it anyway): one runtime in the process
    set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)
    enable_language(CUDA)
    find_package(CUDAToolkit QUIET)
    if (NOT TARGET CUDA::cudart OR NOT TARGET CUDA::cublas)
        message(FATAL_ERROR "LLAMA_CUDA=ON but the CUDA toolkit's cudart and cuBLAS libraries were not found "
                            "next to ${CMAKE_CUDA_COMPILER}: install them or configure with -DLLAMA_CUDA=OFF.")
    endif()
    message(STATUS "LLAMA_CUDA=ON (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES})")
endif()

# ---- LLAMA_BUILD_TESTS needs GoogleTest --------------------------------------------------------------
# (LLAMA_GTEST_SOURCE_DIR, tests/CMakeLists.txt: GoogleTest built from its sources, for cross builds)
if (LLAMA_BUILD_TESTS AND NOT LLAMA_GTEST_SOURCE_DIR)
    find_package(GTest QUIET)
    if (NOT GTest_FOUND)
        message(STATUS "LLAMA_BUILD_TESTS -> OFF: GoogleTest not found (install libgtest-dev to build the tests)")
        set(LLAMA_BUILD_TESTS OFF)
    endif()
endif()

# LLAMA_BUILD_BENCH: the Google Benchmark micro-benchmarks are skipped when that library is missing
# (bench/CMakeLists.txt says so in one line); the llama-bench tool needs nothing extra.
