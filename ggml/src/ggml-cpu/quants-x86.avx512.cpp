// AVX-512 (F/BW/VL/DQ + VNNI) build of the x86 quant kernels (quants-x86-kernels.h): vpdpbusd for the
// integer dot products, 512-bit F32/F16/BF16 dots with masked tails. Called only after CPUID says so.
// GCC 12's AVX-512 headers build results from _mm512_undefined_*() and warn about it (false positive).
#if defined(__GNUC__) && !defined(__clang__)
#    pragma GCC diagnostic ignored "-Wuninitialized"
#    pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include "quants-x86-fp4-ternary.h"
#include "quants-x86-iq.h"
#include "quants-x86-kernels.h"

void ggml_cpu_quants_fill_avx512(ggml_cpu_type_traits * table) {
    fill_x86_table(table);
    fill_x86_table_fp4_ternary(table);
    fill_x86_table_iq(table);
}
