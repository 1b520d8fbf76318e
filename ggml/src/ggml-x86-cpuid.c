// ggml_x86_has (ggml-x86-cpuid.h): CPUID leaves 1, 7.0 and 7.1, and XCR0 for the OS's register state.
#include "ggml-x86-cpuid.h"

#if defined(GGML_X86_CPUID)

#    include "ggml-os.h"

#    if defined(_MSC_VER) && !defined(__clang__)
#        include <intrin.h>
static void cpuid(unsigned leaf, unsigned sub, unsigned r[4]) {
    int v[4];
    __cpuidex(v, (int) leaf, (int) sub);
    for (int i = 0; i < 4; i++) {
        r[i] = (unsigned) v[i];
    }
}
static unsigned long long xgetbv0(void) {
    return _xgetbv(0);
}
#    else
#        include <cpuid.h>
static void cpuid(unsigned leaf, unsigned sub, unsigned r[4]) {
    __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}
static unsigned long long xgetbv0(void) {
    unsigned lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));  // no -mxsave needed for the intrinsic
    return (unsigned long long) hi << 32 | lo;
}
#    endif

static bool         g_has[GGML_X86_FEATURE_COUNT];
static ggml_os_once g_once = GGML_OS_ONCE_INIT;

static void detect(void) {
    unsigned r0[4], r1[4], r7[4] = {0, 0, 0, 0}, r71[4] = {0, 0, 0, 0};
    cpuid(0, 0, r0);
    cpuid(1, 0, r1);
    if (r0[0] >= 7) {
        cpuid(7, 0, r7);
        cpuid(7, 1, r71);
    }
    // the OS saves XMM+YMM (bits 1, 2), and for AVX-512 also the opmask and ZMM registers (bits 5-7)
    const unsigned long long xcr0 = (r1[2] >> 27 & 1) ? xgetbv0() : 0;  // OSXSAVE
    const bool               ymm  = (xcr0 & 0x6) == 0x6;
    const bool               zmm  = ymm && (xcr0 & 0xe0) == 0xe0;

    g_has[GGML_X86_AVX]        = ymm && (r1[2] >> 28 & 1);
    g_has[GGML_X86_FMA]        = ymm && (r1[2] >> 12 & 1);
    g_has[GGML_X86_F16C]       = ymm && (r1[2] >> 29 & 1);
    g_has[GGML_X86_AVX2]       = ymm && (r7[1] >> 5 & 1);
    g_has[GGML_X86_BMI2]       = r7[1] >> 8 & 1;
    g_has[GGML_X86_AVXVNNI]    = ymm && (r71[0] >> 4 & 1);
    g_has[GGML_X86_AVX512F]    = zmm && (r7[1] >> 16 & 1);
    g_has[GGML_X86_AVX512DQ]   = zmm && (r7[1] >> 17 & 1);
    g_has[GGML_X86_AVX512BW]   = zmm && (r7[1] >> 30 & 1);
    g_has[GGML_X86_AVX512VL]   = zmm && (r7[1] >> 31 & 1);
    g_has[GGML_X86_AVX512VNNI] = zmm && (r7[2] >> 11 & 1);
    g_has[GGML_X86_AVX512BF16] = zmm && (r71[0] >> 5 & 1);
}

bool ggml_x86_has(enum ggml_x86_feature f) {
    ggml_os_call_once(&g_once, detect);
    return (unsigned) f < GGML_X86_FEATURE_COUNT && g_has[f];
}

#endif
