// Quantizers into the 3-bit and 1-bit i-quants (IQ3_XXS, IQ3_S in ggml-quantize-iq3.c; IQ1_S, IQ1_M in
// ggml-quantize-iq1.c). Internal: ggml_quantize_chunk is the public entry point.
//
// Each quantizes n values (a multiple of 256: whole super-blocks of one row) from x into y, minimizing
// the weighted squared error sum w_j (x_j - y_j)^2 with, as llama.cpp, w_j = qw[j] * sqrt(sigma2 + x_j^2)
// (qw: the importance matrix, one weight per column of the row, i.e. qw[j] for element j; sigma2 = twice
// the mean square of the super-block), qw[j] = 1 when qw is NULL (llama.cpp's reference quantizers use
// x_j^2 there, which weights the small values too little: plain RMSE 0.22 instead of 0.18 for
// iq3_xxs, 0.56 instead of 0.46 for iq1_s on N(0,1) data). False only when the grid's
// neighbour map could not be built (out of memory); y is then untouched. Non-finite inputs give
// unspecified but in-range codes; nothing reads outside x, qw or y.
#pragma once

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

bool ggml_quantize_row_iq3_xxs(const float * x, void * y, int64_t n, const float * qw);
bool ggml_quantize_row_iq3_s(const float * x, void * y, int64_t n, const float * qw);
bool ggml_quantize_row_iq1_s(const float * x, void * y, int64_t n, const float * qw);
bool ggml_quantize_row_iq1_m(const float * x, void * y, int64_t n, const float * qw);

// The importance weights of one super-block of 256 (shared by both files): see above.
void ggml_iq_block_weights(const float * x, const float * qw, float * w);

#ifdef __cplusplus
}
#endif
