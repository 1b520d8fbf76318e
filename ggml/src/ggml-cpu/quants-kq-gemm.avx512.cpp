// AVX-512 (BW/VL/DQ + VNNI) build of the K-quant GEMMs (quants-kq-gemm.h): two weight rows per 512-bit
// vector, vpdpwssd for the scaled sums. Called only after CPUID says so.
// GCC 12's AVX-512 headers build results from _mm512_undefined_*() and warn about it (false positive).
#if defined(__GNUC__) && !defined(__clang__)
#    pragma GCC diagnostic ignored "-Wuninitialized"
#    pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include "quants-kq-gemm.h"

void ggml_cpu_kq_gemm_fill_avx512(ggml_cpu_type_traits * table) {
    kq::fill_table(table);
}
