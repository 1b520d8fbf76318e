// CPU_REPACK kernels at the arm64 i8mm level: as the dotprod level, except Q8_0 feeds its stored unsigned
// bytes to USDOT (no XOR per load; the block's correction term is subtracted once). SMMLA / USMMLA (2 rows x
// 8 bytes per operand) is reachable from the layout by zipping chunks 2k and 2k + 1 as 32-bit lanes, but a
// Q8_0 version measured under qemu (-cpu max) gave no fewer instructions per block at 2-3 activation
// columns and about 12% fewer at 4 (the zips, the activation pair packing and the 2 x 2 accumulator
// layout's scale vectors eat most of the halved MAC count), so the kernels keep USDOT / SDOT by lane.
#include "cpu-repack-arm.h"

GGML_REPACK_ARM_KERNEL_SET(ggml_repack_kernels_i8mm)
