// CPU_REPACK kernels at the arm64 dotprod level: the shared group kernels of cpu-repack-arm.h with SDOT by
// lane (4 rows x 4 quant bytes against 4 broadcast activation bytes per instruction).
#include "cpu-repack-arm.h"

GGML_REPACK_ARM_KERNEL_SET(ggml_repack_kernels_dotprod)
