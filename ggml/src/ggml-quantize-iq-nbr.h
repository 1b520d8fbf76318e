// Neighbour maps of the i-quant codebook grids, for the quantizers (ggml-quantize-iq3.c, -iq1.c).
// Internal: not installed.
//
// A grid holds ngrid points of dim level indices (0..nlev-1). A "code" is any combination of levels,
// read as a base-nlev number with element 0 the least significant digit (the order the grids are stored
// in). The map answers, for every code, either "this is grid point g" or the list of grid points
// nearest to it (all points within the nwant smallest distinct squared distances, in level-index units),
// so that a quantizer which rounds each value to its nearest level can finish with a short search
// instead of a scan of the whole grid.
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ggml_iq_nbr_map {
    int              dim;     // values per grid point (4 or 8)
    int              nlev;    // levels per value (8 or 3)
    int              ngrid;   // grid points
    int              ncodes;  // nlev^dim
    const uint8_t *  grid_l;  // ngrid * dim level indices
    const int32_t *  map;     // per code: >= 0 the grid point; < 0: -(offset + 1) into nbrs
    const uint16_t * nbrs;    // at an offset: the count n, then n grid point indices
} ggml_iq_nbr_map;

enum ggml_iq_nbr_kind {
    GGML_IQ_NBR_IQ3XXS = 0,  // 256 points of 4 from 8 levels, 2 distances
    GGML_IQ_NBR_IQ3S   = 1,  // 512 points of 4 from 8 levels, 3 distances
    GGML_IQ_NBR_IQ1S   = 2,  // 2048 points of 8 from 3 levels, 3 distances (iq1_s and iq1_m)
    GGML_IQ_NBR_COUNT
};

// The map of one grid, built on the first call for that grid (thread-safe, once per process; the
// memory lives until exit). NULL when kind is out of range or the build ran out of memory.
const ggml_iq_nbr_map * ggml_iq_nbr_get(enum ggml_iq_nbr_kind kind);

// The grid points a code may be replaced by: *n of them at the returned pointer. For a code on the
// grid that is the point itself (*n = 1, written to *one).
static inline const uint16_t * ggml_iq_nbr_candidates(const ggml_iq_nbr_map * m, int code, uint16_t * one, int * n) {
    const int32_t g = m->map[code];
    if (g >= 0) {
        *one = (uint16_t) g;
        *n   = 1;
        return one;
    }
    const uint16_t * p = m->nbrs + (-g - 1);
    *n                 = p[0];
    return p + 1;
}

#ifdef __cplusplus
}
#endif
