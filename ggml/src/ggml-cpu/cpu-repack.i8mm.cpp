// CPU_REPACK kernels at the arm64 i8mm level: as the dotprod level, except Q8_0 feeds its stored unsigned
// bytes to USDOT (no XOR per load; the block's correction term is subtracted once). SMMLA would need
// pairs of rows x 8 bytes, which the 4-byte interleave does not give, so the other types keep SDOT.
#include "cpu-repack-arm.h"

GGML_REPACK_ARM_KERNEL_SET(ggml_repack_kernels_i8mm)
