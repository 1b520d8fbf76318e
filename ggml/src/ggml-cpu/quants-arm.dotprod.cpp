// ARMv8.2 dotprod build of the arm64 quant kernels (quants-arm-kernels.h, quants-arm-iq.h): the integer
// dot products are one SDOT per 16 bytes; called only after HWCAP says the CPU has it.
#include "quants-arm-iq.h"
#include "quants-arm-kernels.h"

#if !defined(__ARM_FEATURE_DOTPROD)
#    error "quants-arm.dotprod.cpp must be compiled with +dotprod (cmake/LlamaCpuArch.cmake)"
#endif

void ggml_cpu_quants_fill_dotprod(ggml_cpu_type_traits * table) {
    fill_arm_table(table);
    fill_arm_table_iq(table);
}
