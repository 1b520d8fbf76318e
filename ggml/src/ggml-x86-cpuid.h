// x86-64 CPU feature checks that __builtin_cpu_supports cannot make under every compiler this code
// builds with. Internal to ggml; C and C++.
#pragma once

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#    if defined(__clang__) && __clang_major__ < 16
#        include <cpuid.h>
// clang < 16 (Debian 12's clang 14, the fuzz and libc++ builds) rejects "f16c" in __builtin_cpu_supports:
// read CPUID.1:ECX. Callers ask together with "avx"/"avx2", whose check includes the OS's YMM state.
static inline int ggml_x86_has_f16c(void) {
    unsigned a = 0, b = 0, c = 0, d = 0;
    return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C) != 0;
}
#    else
static inline int ggml_x86_has_f16c(void) {
    return __builtin_cpu_supports("f16c");
}
#    endif
#endif
