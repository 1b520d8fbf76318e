// ARMv8.0 NEON build of the arm64 quant kernels (quants-arm-kernels.h, quants-arm-iq.h): the integer
// dot products widen with SMULL/SADALP, as every arm64 CPU can run them.
#include "quants-arm-iq.h"
#include "quants-arm-kernels.h"

void ggml_cpu_quants_fill_neon(ggml_cpu_type_traits * table) {
    fill_arm_table(table);
    fill_arm_table_iq(table);
}
