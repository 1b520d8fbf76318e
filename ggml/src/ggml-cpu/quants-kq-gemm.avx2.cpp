// AVX2 + FMA + F16C build of the K-quant GEMMs (quants-kq-gemm.h); called only after CPUID says so.
#include "quants-kq-gemm.h"

void ggml_cpu_kq_gemm_fill_avx2(ggml_cpu_type_traits * table) {
    kq::fill_table(table);
}
