// x86-64 instruction sets as CPUID and XGETBV report them: the one place of ggml that asks (the CPU
// backend's levels, the quantizers' search kernels and the F16C row conversion all call it). An
// instruction set counts only when the OS also saves its registers (XCR0), as GCC's
// __builtin_cpu_supports decides; written with <cpuid.h> / <intrin.h> so that every compiler takes it
// (clang before 16 rejects some __builtin_cpu_supports names, MSVC has no such builtin). Internal; C and C++.
#pragma once

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__x86_64__) || defined(_M_X64)
#    define GGML_X86_CPUID 1

enum ggml_x86_feature {
    GGML_X86_AVX,
    GGML_X86_AVX2,
    GGML_X86_FMA,
    GGML_X86_F16C,
    GGML_X86_BMI2,
    GGML_X86_AVXVNNI,
    GGML_X86_AVX512F,
    GGML_X86_AVX512BW,
    GGML_X86_AVX512VL,
    GGML_X86_AVX512DQ,
    GGML_X86_AVX512VNNI,
    GGML_X86_AVX512BF16,
    GGML_X86_FEATURE_COUNT,
};

// Whether this CPU and OS run the instruction set. CPUID is read once (it traps to the hypervisor in
// a VM: far too slow to ask per call); thread-safe.
bool ggml_x86_has(enum ggml_x86_feature f);
#endif

#ifdef __cplusplus
}
#endif
