// Scale searches shared by the reference quantizers (ggml-quants.c, ggml-quants-k.c). Internal.
// Every search minimizes the plain squared error of dequantize(quantize(x)) (no importance weights).
#pragma once

#include <stdbool.h>
#include <stdint.h>

// Nearest level index of v: levels == NULL means the integers qmin..qmax (index = integer),
// otherwise a sorted table of nlev values (index into it).
int ggml_qsearch_nearest(float v, int qmin, int qmax, const int8_t * levels, int nlev);

// Squared error of x ~ d * level(q) with q the nearest level of x / d; writes q.
float ggml_qsearch_err_sym(int n, const float * x, float d, int qmin, int qmax, const int8_t * levels, int nlev,
                           int * q);

// Finds d minimizing sum (x - d * level(q))^2 over q chosen per element; writes q and returns d.
// Tries a sweep of candidate inverse scales around the two extreme levels, each followed by the
// closed-form optimal d for its assignment.
float ggml_qsearch_sym(int n, const float * x, int qmin, int qmax, const int8_t * levels, int nlev, int * q);

// Squared error of x ~ a * q + b with q = clamp(round((x - b) / a), 0, nmax); writes q.
float ggml_qsearch_err_affine(int n, const float * x, float a, float b, int nmax, int * q);

// Finds (a, b) minimizing sum (x - a*q - b)^2, q in [0, nmax]; b_nonpos forces b <= 0 (the K-quant
// mins are subtracted and stored unsigned). Writes q.
void ggml_qsearch_affine(int n, const float * x, int nmax, bool b_nonpos, float * a, float * b, int * q);
