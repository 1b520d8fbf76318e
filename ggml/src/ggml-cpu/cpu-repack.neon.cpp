// CPU_REPACK kernels at the arm64 NEON level (ARMv8.0): the shared group kernels of cpu-repack-arm.h with
// SDOT emulated by widening multiplies and pairwise adds. Models do not get packed weights at this level
// by default (ggml_repack_offered, cpu-repack.h): these run where GGML_CPU_REPACK_NEON=1 asks for them.
#include "cpu-repack-arm.h"

GGML_REPACK_ARM_KERNEL_SET(ggml_repack_kernels_neon)
