// The i-quant codebook grids (format constants; see ggml-iq-grids.c for how they are stored). Each
// entry is a run of small values: grid[index][k] is element k of the group the index selects.
// Internal: not installed.
#pragma once

#include "ggml.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ggml_iq_grids {
    int8_t iq2xxs[256][8];  // levels 8, 25, 43
    int8_t iq2xs[512][8];   // levels 8, 25, 43
    int8_t iq2s[1024][8];   // levels 8, 25, 43
    int8_t iq3xxs[256][4];  // levels 4, 12, ..., 52, 62
    int8_t iq3s[512][4];    // levels 1, 3, ..., 15
    int8_t iq1s[2048][8];   // levels -1, 0, 1 (shared by iq1_s and iq1_m)
};

// The expanded grids, built on the first call (thread-safe); never NULL.
// Exported from libggml (GGML_API) for the GPU backend modules' codebooks.
GGML_API const struct ggml_iq_grids * ggml_iq_grids_get(void);

#ifdef __cplusplus
}
#endif
