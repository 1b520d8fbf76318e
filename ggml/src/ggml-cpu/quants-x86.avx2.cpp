// AVX2 + FMA + F16C build of the x86 quant kernels (quants-x86-kernels.h); called only after CPUID says so.
#include "quants-x86-fp4-ternary.h"
#include "quants-x86-iq.h"
#include "quants-x86-kernels.h"

void ggml_cpu_quants_fill_avx2(ggml_cpu_type_traits * table) {
    fill_x86_table(table);
    fill_x86_table_fp4_ternary(table);
    fill_x86_table_iq(table);
}
