// The recurrent ops' row loops (ops-ssm-rows.h) compiled with AVX2 + FMA (vector kernels over 8 floats).
#define SSM_VEC 8
#define GGML_CPU_SSM_ROWS_DEFINE
#include "ops-ssm-rows.h"

const ggml_cpu_ssm_rows * ggml_cpu_ssm_rows_avx2() {
    return &k_ssm_rows;
}
