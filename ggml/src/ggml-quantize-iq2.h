// Quantizers into the 2-bit grid i-quants IQ2_XXS, IQ2_XS and IQ2_S (importance-weighted searches over
// the E8-lattice codebooks of ggml-iq-grids.h). Internal: ggml_quantize_chunk is the public entry point.
#pragma once

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Quantizes one row of n floats (n a multiple of 256) into n / 256 blocks at y. imatrix: n per-column
// importance weights (>= 0), or NULL for weights derived from the values alone. Returns false only if
// the codebook search tables could not be allocated (y is then left unwritten). Thread-safe: the tables
// are built once, on the first call for the type.
bool ggml_quantize_row_iq2_xxs(const float * x, void * y, int64_t n, const float * imatrix);
bool ggml_quantize_row_iq2_xs(const float * x, void * y, int64_t n, const float * imatrix);
bool ggml_quantize_row_iq2_s(const float * x, void * y, int64_t n, const float * imatrix);

#ifdef __cplusplus
}
#endif
