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

# ---- LLAMA_CUDA: there is no CUDA backend in this tree yet -----------------------------------------
if (LLAMA_CUDA AND NOT EXISTS ${PROJECT_SOURCE_DIR}/ggml/src/ggml-cuda/CMakeLists.txt)
    message(FATAL_ERROR "LLAMA_CUDA=ON: the CUDA backend is not implemented yet (only CPU and Vulkan "
                        "are), configure with -DLLAMA_CUDA=OFF.")
endif()

# ---- LLAMA_BUILD_TESTS needs GoogleTest --------------------------------------------------------------
if (LLAMA_BUILD_TESTS)
    find_package(GTest QUIET)
    if (NOT GTest_FOUND)
        message(STATUS "LLAMA_BUILD_TESTS -> OFF: GoogleTest not found (install libgtest-dev to build the tests)")
        set(LLAMA_BUILD_TESTS OFF)
    endif()
endif()

# LLAMA_BUILD_BENCH: the Google Benchmark micro-benchmarks are skipped when that library is missing
# (bench/CMakeLists.txt says so in one line); the llama-bench tool needs nothing extra.
