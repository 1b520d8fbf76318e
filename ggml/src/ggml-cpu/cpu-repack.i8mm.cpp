// CPU_REPACK kernels at the arm64 i8mm level: as the dotprod level, except that Q8_0 feeds its stored unsigned
// bytes to USDOT (no XOR per load; the block's correction term is subtracted once), and that at 4 activation
// columns (prefill tiles) all four types take SMMLA / USMMLA (cpu-repack-arm.h): 2 rows x 2 columns x 8 bytes
// per instruction, twice SDOT's multiply-adds, from the same layout. Dynamic instructions under qemu per 16
// rows x column x 256 values at 4 columns, SDOT -> SMMLA: Q4_0 773 -> 659, Q8_0 674 -> 635, Q4_K 875 -> 671,
// Q6_K 1336 -> 992. 1-3 columns keep SDOT / USDOT by lane: one column pair costs more than it saves (the
// weight zips and the per-row-group fold are shared by fewer multiply-adds: Q4_K 868 vs 875, Q4_0 955 vs 753
// at 2 columns).
#include "cpu-repack-arm.h"

GGML_REPACK_ARM_KERNEL_SET(ggml_repack_kernels_i8mm)
