// CPU feature detection: the only file of the CPU backend that asks the hardware or the OS what the
// processor can run (cpu-features.h). x86-64 asks CPUID (ggml-x86-cpuid.h, shared with the quantizers);
// what only the OS knows (ARM HWCAPs, performance cores) comes from the platform layer (ggml-os.h).
#include "cpu-features.h"

#include <cstdlib>
#include <cstring>
#include <thread>

#include "ggml-os.h"
#include "ggml-x86-cpuid.h"

namespace {

#if defined(GGML_CPU_ARCH_X86_64)
bool x86_has(ggml_cpu_isa isa) {
    const bool avx2 = ggml_x86_has(GGML_X86_AVX2) && ggml_x86_has(GGML_X86_FMA) && ggml_x86_has(GGML_X86_F16C) &&
                      ggml_x86_has(GGML_X86_BMI2);
    switch (isa) {
        case GGML_CPU_ISA_AVX2:
            return avx2;
        case GGML_CPU_ISA_AVX512:
            return avx2 && ggml_x86_has(GGML_X86_AVX512F) && ggml_x86_has(GGML_X86_AVX512BW) &&
                   ggml_x86_has(GGML_X86_AVX512VL) && ggml_x86_has(GGML_X86_AVX512DQ) &&
                   ggml_x86_has(GGML_X86_AVX512VNNI);
        default:
            return false;
    }
}
#endif

ggml_cpu_arm_features detect_arm() {
    ggml_cpu_arm_features f{};
#if defined(GGML_CPU_ARCH_ARM64)
    f.neon                   = true;                    // part of every AArch64 CPU
    const ggml_os_arm_caps c = ggml_os_arm_features();  // HWCAP / sysctl / IsProcessorFeaturePresent
    f.dotprod                = c.dotprod;
    f.fp16                   = c.fp16;
    f.i8mm                   = c.i8mm;
    f.bf16                   = c.bf16;
    f.sve                    = c.sve;
    f.sve2                   = c.sve2;
#    if defined(__ARM_FEATURE_SVE)
    if (f.sve) {
        f.sve_bytes = (int) __builtin_sve_svcntb();
    }
#    endif
#endif
    return f;
}

bool detect(ggml_cpu_isa isa) {
    if (isa == GGML_CPU_ISA_SCALAR) {
        return true;
    }
#if defined(GGML_CPU_ARCH_X86_64)
    return x86_has(isa);
#elif defined(GGML_CPU_ARCH_ARM64)
    const ggml_cpu_arm_features & f = *ggml_cpu_arm_features_get();
    switch (isa) {
        case GGML_CPU_ISA_NEON:
            return f.neon;
        case GGML_CPU_ISA_DOTPROD:
            return f.neon && f.dotprod && f.fp16;
        case GGML_CPU_ISA_I8MM:
            return f.neon && f.dotprod && f.fp16 && f.i8mm && f.bf16;
        default:
            return false;
    }
#else
    return false;
#endif
}

int detect_performance_cores() {
    const int n_hw = (int) std::thread::hardware_concurrency();
    int       n    = ggml_os_performance_cpus(n_hw);
    if (n <= 0 || (n_hw > 0 && n > n_hw)) {
        n = n_hw;
    }
    return n > 0 ? n : 1;
}

struct state {
    bool         has[GGML_CPU_ISA_COUNT];
    ggml_cpu_isa best;
};

const state & get_state() {
    static const state s = [] {
        state r{};
        for (int i = 0; i < GGML_CPU_ISA_COUNT; ++i) {
            r.has[i] = detect((ggml_cpu_isa) i);
        }
        // the highest available level of the chain, then the cap
        ggml_cpu_isa best = GGML_CPU_ISA_SCALAR;
        for (int i = 0; i < GGML_CPU_ISA_COUNT; ++i) {
            if (r.has[i] && ggml_cpu_isa_rank((ggml_cpu_isa) i) > ggml_cpu_isa_rank(best)) {
                best = (ggml_cpu_isa) i;
            }
        }
        if (const char * e = std::getenv("GGML_CPU_ISA")) {
            for (int i = 0; i < GGML_CPU_ISA_COUNT; ++i) {
                if (std::strcmp(e, ggml_cpu_isa_name((ggml_cpu_isa) i)) == 0 && r.has[i] &&
                    ggml_cpu_isa_rank((ggml_cpu_isa) i) < ggml_cpu_isa_rank(best)) {
                    best = (ggml_cpu_isa) i;
                }
            }
        }
        r.best = best;
        return r;
    }();
    return s;
}

}  // namespace

extern "C" {

int ggml_cpu_performance_cores(void) {
    static const int n = detect_performance_cores();
    return n;
}

bool ggml_cpu_x86_has_avx512_bf16(void) {
#if defined(GGML_CPU_ARCH_X86_64)
    return x86_has(GGML_CPU_ISA_AVX2) && ggml_x86_has(GGML_X86_AVX512F) && ggml_x86_has(GGML_X86_AVX512BF16);
#else
    return false;
#endif
}

bool ggml_cpu_x86_has_avxvnni(void) {
#if defined(GGML_CPU_ARCH_X86_64)
    return x86_has(GGML_CPU_ISA_AVX2) && ggml_x86_has(GGML_X86_AVXVNNI);
#else
    return false;
#endif
}

const ggml_cpu_arm_features * ggml_cpu_arm_features_get(void) {
    static const ggml_cpu_arm_features f = detect_arm();
    return &f;
}

bool ggml_cpu_isa_available(ggml_cpu_isa isa) {
    return (int) isa >= 0 && isa < GGML_CPU_ISA_COUNT && get_state().has[isa];
}

ggml_cpu_isa ggml_cpu_isa_parent(ggml_cpu_isa isa) {
    switch (isa) {
        case GGML_CPU_ISA_AVX512:
            return GGML_CPU_ISA_AVX2;
        case GGML_CPU_ISA_I8MM:
            return GGML_CPU_ISA_DOTPROD;
        case GGML_CPU_ISA_DOTPROD:
            return GGML_CPU_ISA_NEON;
        default:
            return GGML_CPU_ISA_SCALAR;
    }
}

int ggml_cpu_isa_rank(ggml_cpu_isa isa) {
    int r = 0;
    for (; isa != GGML_CPU_ISA_SCALAR; isa = ggml_cpu_isa_parent(isa)) {
        ++r;
    }
    return r;
}

ggml_cpu_isa ggml_cpu_isa_best(void) {
    return get_state().best;
}

ggml_cpu_isa ggml_cpu_isa_of_rank(int rank) {
    ggml_cpu_isa isa = GGML_CPU_ISA_SCALAR;
    for (int i = 0; i < GGML_CPU_ISA_COUNT; ++i) {
        const int ri = ggml_cpu_isa_rank((ggml_cpu_isa) i);
        if (get_state().has[i] && ri <= rank && ri > ggml_cpu_isa_rank(isa)) {
            isa = (ggml_cpu_isa) i;
        }
    }
    return isa;
}

const char * ggml_cpu_isa_name(ggml_cpu_isa isa) {
    switch (isa) {
        case GGML_CPU_ISA_SCALAR:
            return "scalar";
        case GGML_CPU_ISA_AVX2:
            return "avx2";
        case GGML_CPU_ISA_AVX512:
            return "avx512";
        case GGML_CPU_ISA_NEON:
            return "neon";
        case GGML_CPU_ISA_DOTPROD:
            return "dotprod";
        case GGML_CPU_ISA_I8MM:
            return "i8mm";
        default:
            return "invalid";
    }
}

}  // extern "C"
