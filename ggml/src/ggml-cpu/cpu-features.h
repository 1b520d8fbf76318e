// The instruction-set levels of the CPU kernels and what this CPU can run: the one place that asks
// the hardware or the OS (CPUID on x86-64; getauxval(AT_HWCAP/AT_HWCAP2) on Linux and Android,
// sysctlbyname("hw.optional.arm.*") on macOS for arm64). Internal to ggml.
//
// Levels form one chain per CPU family, each level implying the ones below it:
//   x86-64: scalar < AVX2 (+FMA+F16C) < AVX-512 (F/BW/VL/DQ + VNNI)
//   arm64:  scalar < NEON (ARMv8.0) < dotprod (SDOT/UDOT + FP16 arithmetic) < i8mm (SMMLA, + BF16)
// A level is available when the build compiled its files (cmake/LlamaCpuArch.cmake) and the CPU has
// it. GGML_CPU_ISA=<name> in the environment caps the level used (never raises it), so each level can
// be tested on one machine: scalar, avx2, avx512, neon, dotprod, i8mm.
#pragma once

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ggml_cpu_isa {
    GGML_CPU_ISA_SCALAR  = 0,
    GGML_CPU_ISA_AVX2    = 1,  // AVX2 + FMA + F16C
    GGML_CPU_ISA_AVX512  = 2,  // AVX-512 F/BW/VL/DQ + VNNI (+ BF16)
    GGML_CPU_ISA_NEON    = 3,  // ARMv8.0 Advanced SIMD (every arm64 CPU)
    GGML_CPU_ISA_DOTPROD = 4,  // + SDOT/UDOT and FP16 vector arithmetic (ARMv8.2: phones since 2018, Apple M1)
    GGML_CPU_ISA_I8MM    = 5,  // + SMMLA/UMMLA and BF16 (Apple M2+, Graviton 3/4, recent phones)
    GGML_CPU_ISA_COUNT,
};

// Features of an arm64 CPU (all false elsewhere).
struct ggml_cpu_arm_features {
    bool neon;
    bool dotprod;
    bool fp16;  // FP16 vector arithmetic (FEAT_FP16)
    bool i8mm;
    bool bf16;
    bool sve;
    bool sve2;
    int  sve_bytes;  // SVE vector length in bytes (0 without SVE)
};

const struct ggml_cpu_arm_features * ggml_cpu_arm_features_get(void);
// x86-64 extras beyond the levels: AVX-512 BF16 (vdpbf16ps) and AVX-VNNI (vpdpbusd on ymm, CPUID 7.1).
bool ggml_cpu_x86_has_avx512_bf16(void);
bool ggml_cpu_x86_has_avxvnni(void);

// Cores to run on by default: the performance cores where the OS tells them apart (big.LITTLE phones:
// /sys cpu_capacity or cpufreq on Linux and Android, hw.perflevel0 on macOS), else every core the
// process may use; always >= 1. Read once.
int ggml_cpu_performance_cores(void);

// True when this build has the level's kernels and this CPU can run them (caps ignored).
bool ggml_cpu_isa_available(enum ggml_cpu_isa isa);
// The next lower level of the same family (SCALAR for the first SIMD level and for SCALAR).
enum ggml_cpu_isa ggml_cpu_isa_parent(enum ggml_cpu_isa isa);
// The best available level after the GGML_CPU_ISA cap (detected once).
enum ggml_cpu_isa ggml_cpu_isa_best(void);
// 0 for scalar, 1 for the family's first SIMD level, 2 for the second, ...
int ggml_cpu_isa_rank(enum ggml_cpu_isa isa);
// The level of rank `rank` in this build's family, or the highest one below it that is available
// (rank <= 0: SCALAR).
enum ggml_cpu_isa ggml_cpu_isa_of_rank(int rank);
const char *      ggml_cpu_isa_name(enum ggml_cpu_isa isa);

#ifdef __cplusplus
}
#endif
