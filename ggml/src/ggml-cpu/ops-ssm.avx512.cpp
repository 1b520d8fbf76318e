// The recurrent ops' row loops (ops-ssm-rows.h) compiled with AVX-512: the chunked gated delta net's
// kernels over 16-float vectors.
#define SSM_VEC 16
#define GGML_CPU_SSM_ROWS_DEFINE
#include "ops-ssm-rows.h"

const ggml_cpu_ssm_rows * ggml_cpu_ssm_rows_avx512() {
    return &k_ssm_rows;
}
