# The one place that decides which instruction-set kernel files of the CPU backend are compiled.
#
# GGML_CPU_ARCH (cache, default from CMAKE_SYSTEM_PROCESSOR):
#   x86_64   files named *.avx2.cpp / *.avxvnni.cpp / *.avx512.cpp, each with its -m flags
#   arm64    files named *.neon.cpp / *.dotprod.cpp / *.i8mm.cpp, each with its -march extension
#   generic  none: the scalar kernels alone (any other 64-bit little-endian CPU, or forced for testing)
# Every file of another family is left out of the build, and the sources see GGML_CPU_ARCH_X86_64=1 or
# GGML_CPU_ARCH_ARM64=1 (neither for generic) so that calls into those files compile only where they
# exist (in every target of the project). The kernels chosen at run time (CPUID on x86, HWCAP/sysctl on ARM) never exceed the CPU's level.
if (CMAKE_C_BYTE_ORDER STREQUAL "BIG_ENDIAN")
    message(FATAL_ERROR "libllama needs a little-endian target: GGUF files and the kernels are little-endian.")
endif()

string(TOLOWER "${CMAKE_SYSTEM_PROCESSOR}" _llama_proc)
if (_llama_proc MATCHES "^(x86_64|amd64|x64)$")
    set(_llama_cpu_arch_default x86_64)
elseif (_llama_proc MATCHES "^(aarch64|arm64|armv8.*|arm64e)$" AND CMAKE_SIZEOF_VOID_P EQUAL 8)
    set(_llama_cpu_arch_default arm64)
else()
    set(_llama_cpu_arch_default generic)
endif()
# Apple's universal or cross builds name the target in CMAKE_OSX_ARCHITECTURES instead
if (APPLE AND CMAKE_OSX_ARCHITECTURES MATCHES "^arm64$")
    set(_llama_cpu_arch_default arm64)
elseif (APPLE AND CMAKE_OSX_ARCHITECTURES MATCHES "^x86_64$")
    set(_llama_cpu_arch_default x86_64)
endif()
set(GGML_CPU_ARCH ${_llama_cpu_arch_default} CACHE STRING "CPU kernel family: x86_64, arm64 or generic (scalar)")
set_property(CACHE GGML_CPU_ARCH PROPERTY STRINGS x86_64 arm64 generic)
if (NOT GGML_CPU_ARCH MATCHES "^(x86_64|arm64|generic)$")
    message(FATAL_ERROR "GGML_CPU_ARCH must be x86_64, arm64 or generic (got '${GGML_CPU_ARCH}').")
endif()

# What the summary line says of the CPU kernels
if (GGML_CPU_ARCH STREQUAL "x86_64")
    set(GGML_CPU_ARCH_SUMMARY "CPU kernels x86-64 (AVX2, AVX-VNNI, AVX-512, scalar)")
elseif (GGML_CPU_ARCH STREQUAL "arm64")
    set(GGML_CPU_ARCH_SUMMARY "CPU kernels arm64 (NEON, dotprod, i8mm, scalar)")
else()
    set(GGML_CPU_ARCH_SUMMARY "CPU kernels scalar only (no SIMD kernels for '${CMAKE_SYSTEM_PROCESSOR}')")
endif()

# llama_cpu_arch_sources(<list var>): drops the other families' files from the list and sets each
# kept instruction-set file's compile flags.
function(llama_cpu_arch_sources out_var)
    set(kept "")
    foreach(src ${${out_var}})
        set(family "")
        set(flags "")
        if (src MATCHES "\\.avx2\\.(c|cpp)$")
            set(family x86_64)
            set(flags -mavx2 -mfma -mf16c -mbmi2)
        elseif (src MATCHES "\\.avxvnni\\.(c|cpp)$")
            set(family x86_64)
            set(flags -mavx2 -mfma -mf16c -mbmi2 -mavxvnni)
        elseif (src MATCHES "\\.avx512\\.(c|cpp)$")
            set(family x86_64)
            set(flags -mavx2 -mfma -mf16c -mbmi2 -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512vnni
                      -mavx512bf16)
        elseif (src MATCHES "\\.neon\\.(c|cpp)$")
            # ARMv8.0 Advanced SIMD is part of every AArch64 CPU: no flag
            set(family arm64)
        elseif (src MATCHES "\\.dotprod\\.(c|cpp)$")
            set(family arm64)
            set(flags -march=armv8.2-a+dotprod+fp16)
        elseif (src MATCHES "\\.i8mm\\.(c|cpp)$")
            set(family arm64)
            set(flags -march=armv8.2-a+dotprod+fp16+i8mm+bf16)
        endif()
        if (family AND NOT family STREQUAL GGML_CPU_ARCH)
            continue()
        endif()
        if (MSVC AND flags)
            # MSVC enables instruction sets by /arch level (its intrinsics need no per-feature flag)
            if (src MATCHES "\\.avx512\\.(c|cpp)$")
                set(flags /arch:AVX512)
            elseif (family STREQUAL x86_64)
                set(flags /arch:AVX2)
            else()
                set(flags "")  # arm64: the intrinsics of every level are available
            endif()
        endif()
        if (flags)
            set_property(SOURCE ${src} APPEND PROPERTY COMPILE_OPTIONS ${flags})
        endif()
        list(APPEND kept ${src})
    endforeach()
    set(${out_var} ${kept} PARENT_SCOPE)
endfunction()

# GCC contracts a*b+c into one FMA wherever the target has it (every arm64 and riscv64 CPU, x86 only
# in the kernel files): keep the scalar reference code unfused so it rounds as on x86-64 (the kernels
# use their FMA intrinsics explicitly).
if (NOT GGML_CPU_ARCH STREQUAL "x86_64" AND NOT MSVC)
    add_compile_options($<$<COMPILE_LANGUAGE:C,CXX>:-ffp-contract=off>)
endif()

if (GGML_CPU_ARCH STREQUAL "x86_64")
    set(GGML_CPU_ARCH_DEFINE GGML_CPU_ARCH_X86_64=1)
elseif (GGML_CPU_ARCH STREQUAL "arm64")
    set(GGML_CPU_ARCH_DEFINE GGML_CPU_ARCH_ARM64=1)
else()
    set(GGML_CPU_ARCH_DEFINE "")
endif()
# every target of the project (library, tests, benchmarks) sees the same family
add_compile_definitions(${GGML_CPU_ARCH_DEFINE})

# Some targets have no inline sequence for every atomic the code uses (riscv64 with GCC 12: 1- and
# 2-byte exchange) and GCC calls libatomic for them; link it wherever a plain build would not.
include(CheckCXXSourceCompiles)
set(_llama_atomic_probe "#include <atomic>
#include <cstdint>
std::atomic<bool> b; std::atomic<uint8_t> c; std::atomic<uint16_t> s; std::atomic<uint64_t> w;
int main() { return (int) b.exchange(true) + (int) c.exchange(1) + (int) s.fetch_add(1) + (int) w.fetch_add(1); }")
check_cxx_source_compiles("${_llama_atomic_probe}" LLAMA_ATOMICS_INLINE)
if (NOT LLAMA_ATOMICS_INLINE)
    set(CMAKE_REQUIRED_LIBRARIES atomic)
    check_cxx_source_compiles("${_llama_atomic_probe}" LLAMA_ATOMICS_WITH_LIBATOMIC)
    unset(CMAKE_REQUIRED_LIBRARIES)
    if (NOT LLAMA_ATOMICS_WITH_LIBATOMIC)
        message(FATAL_ERROR "libllama: this toolchain links std::atomic neither inline nor with libatomic")
    endif()
    link_libraries(atomic)  # every target defined after this file
endif()
