// CPU feature detection: the only file of the CPU backend that asks the hardware or the OS what the
// processor can run (cpu-features.h). Each OS family's query sits in its own #if block.
#include "cpu-features.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#if defined(GGML_CPU_ARCH_X86_64)
#    include <cpuid.h>

#    include "ggml-x86-cpuid.h"
#endif
#if defined(__APPLE__)
#    include <sys/sysctl.h>
#elif defined(GGML_CPU_ARCH_ARM64) && defined(__linux__)
#    include <sys/auxv.h>
#endif

namespace {

#if defined(GGML_CPU_ARCH_X86_64)
bool x86_has(ggml_cpu_isa isa) {
    __builtin_cpu_init();
    const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && ggml_x86_has_f16c() &&
                      __builtin_cpu_supports("bmi2");
    switch (isa) {
        case GGML_CPU_ISA_AVX2:
            return avx2;
        case GGML_CPU_ISA_AVX512:
            return avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                   __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
                   __builtin_cpu_supports("avx512vnni");
        default:
            return false;
    }
}
#endif

#if defined(__APPLE__)
bool sysctl_flag(const char * name) {
    int    v   = 0;
    size_t len = sizeof(v);
    return sysctlbyname(name, &v, &len, nullptr, 0) == 0 && v != 0;
}
#endif

ggml_cpu_arm_features detect_arm() {
    ggml_cpu_arm_features f{};
#if defined(GGML_CPU_ARCH_ARM64)
    f.neon = true;  // part of every AArch64 CPU
#    if defined(__APPLE__)
    f.dotprod = sysctl_flag("hw.optional.arm.FEAT_DotProd");
    f.fp16    = sysctl_flag("hw.optional.arm.FEAT_FP16");
    f.i8mm    = sysctl_flag("hw.optional.arm.FEAT_I8MM");
    f.bf16    = sysctl_flag("hw.optional.arm.FEAT_BF16");
#    elif defined(__linux__)
    // bit numbers from the kernel's uapi asm/hwcap.h (named here: older headers lack some of them)
    const unsigned long hw  = getauxval(AT_HWCAP);
    const unsigned long hw2 = getauxval(AT_HWCAP2);
    f.fp16                  = (hw >> 9 & 1) && (hw >> 10 & 1);  // HWCAP_FPHP, HWCAP_ASIMDHP
    f.dotprod               = hw >> 20 & 1;                     // HWCAP_ASIMDDP
    f.sve                   = hw >> 22 & 1;                     // HWCAP_SVE
    f.sve2                  = hw2 >> 1 & 1;                     // HWCAP2_SVE2
    f.i8mm                  = hw2 >> 13 & 1;                    // HWCAP2_I8MM
    f.bf16                  = hw2 >> 14 & 1;                    // HWCAP2_BF16
#        if defined(__ARM_FEATURE_SVE)
    if (f.sve) {
        f.sve_bytes = (int) __builtin_sve_svcntb();
    }
#        endif
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

#if defined(__linux__)
// One integer from a sysfs file, or -1.
long read_sys_long(const char * path) {
    FILE * f = std::fopen(path, "r");
    if (!f) {
        return -1;
    }
    long v = -1;
    if (std::fscanf(f, "%ld", &v) != 1) {
        v = -1;
    }
    std::fclose(f);
    return v;
}

// Cores whose capacity (or else maximum frequency) is the highest of the system: on a big.LITTLE
// phone the big (and prime) cores; 0 when the kernel reports neither.
int linux_performance_cores(int n_cpu) {
    for (const char * attr : {"cpu_capacity", "cpufreq/cpuinfo_max_freq"}) {
        std::vector<long> v;
        char              path[96];
        for (int i = 0; i < n_cpu; ++i) {
            std::snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/%s", i, attr);
            v.push_back(read_sys_long(path));
        }
        long top = -1;
        for (long x : v) {
            top = x > top ? x : top;
        }
        if (top <= 0) {
            continue;
        }
        int n = 0;
        for (long x : v) {
            // within 10% of the top: prime and big cores of one phone differ little, little cores by 2-4x
            n += x > 0 && x * 10 >= top * 9;
        }
        return n;
    }
    return 0;
}
#endif

int detect_performance_cores() {
    const int n_hw = (int) std::thread::hardware_concurrency();
    int       n    = 0;
#if defined(__APPLE__)
    int    v   = 0;
    size_t len = sizeof(v);
    if (sysctlbyname("hw.perflevel0.logicalcpu", &v, &len, nullptr, 0) == 0 && v > 0) {
        n = v;
    }
#elif defined(__linux__)
    n = linux_performance_cores(n_hw);
#endif
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
    static const bool has = [] {
        unsigned a = 0, b = 0, c = 0, d = 0;  // CPUID leaf 7 sub-leaf 1, EAX bit 5
        return x86_has(GGML_CPU_ISA_AVX2) && __builtin_cpu_supports("avx512f") &&
               __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a >> 5 & 1) != 0;
    }();
    return has;
#else
    return false;
#endif
}

bool ggml_cpu_x86_has_avxvnni(void) {
#if defined(GGML_CPU_ARCH_X86_64)
    // CPUID leaf 7 sub-leaf 1, EAX bit 4 (clang before 16 does not know __builtin_cpu_supports("avxvnni"))
    static const bool has = [] {
        unsigned a = 0, b = 0, c = 0, d = 0;
        return x86_has(GGML_CPU_ISA_AVX2) && __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a >> 4 & 1) != 0;
    }();
    return has;
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
