// Scale searches shared by the reference quantizers (ggml-quants.c, ggml-quants-k.c). Internal.
// Every search minimizes the squared error of dequantize(quantize(x)); the w* variants weight it.
//
// The functions below are the readable reference. The quantizers call them through a kernel table
// (ggml_qsearch_best) whose SIMD members (ggml-quants-lanes.h, one candidate scale per vector lane)
// perform the same float operations in the same order, so every table gives the same bytes; these
// files are built with -ffp-contract=off so that no compiler fuses a multiply-add differently.
#pragma once

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

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

// Least-squares (a, b) of x ~ a*q + b from the sums over n elements of q, q*q, x and x*q; false when
// q is constant or a comes out negative. Shared by the reference and the SIMD searches (one formula).
static inline bool ggml_qsearch_fit_affine(int n, float sq, float sqq, float sx, float sxq, bool b_nonpos, float * a,
                                           float * b) {
    const float det = (float) n * sqq - sq * sq;
    if (det <= 0.0f) {
        return false;
    }
    *a = ((float) n * sxq - sq * sx) / det;
    *b = (sqq * sx - sq * sxq) / det;
    if (b_nonpos && *b > 0.0f) {
        *b = 0.0f;
        *a = sqq > 0 ? sxq / sqq : 0.0f;
    }
    return !(*a < 0.0f);
}

// ---- importance-weighted searches (ggml-quants-weighted.c) -------------------------------------
// As the functions above with every squared error weighted by w[i] > 0 (sum w*(x - q)^2). Their
// candidate sets contain the plain searches' candidates, so the weighted error is never worse.
float ggml_qsearch_werr_sym(int n, const float * x, const float * w, float d, int qmin, int qmax, const int8_t * levels,
                            int nlev, int * q);
float ggml_qsearch_wsym(int n, const float * x, const float * w, int qmin, int qmax, const int8_t * levels, int nlev,
                        int * q);
float ggml_qsearch_werr_affine(int n, const float * x, const float * w, float a, float b, int nmax, int * q);
void  ggml_qsearch_waffine(int n, const float * x, const float * w, int nmax, bool b_nonpos, float * a, float * b,
                           int * q);
// Per-element search weights of one row from its importance-matrix values (n of them): the values,
// non-finite or negative ones as 0, plus a floor of 1e-4 of their mean so no element is ignored.
void ggml_qsearch_row_weights(int64_t n, const float * imatrix, float * w);

// ---- kernel table --------------------------------------------------------------------------------
// Integer levels only (the table-level types iq4_nl/iq4_xs use the functions above directly).
// n is a multiple of 16 and at most 32; nc (candidates) at most GGML_QSEARCH_MAX_MULTI.
#define GGML_QSEARCH_MAX_MULTI 16

typedef struct ggml_qsearch_kernels {
    const char * name;
    // ggml_qsearch_sym(n, x, qmin, qmax, NULL, 0, q); requires qmin < 0 < qmax; q may be NULL
    float (*sym)(int n, const float * x, int qmin, int qmax, int * q);
    // ggml_qsearch_affine
    void (*affine)(int n, const float * x, int nmax, bool b_nonpos, float * a, float * b, int * q);
    // err[c] = ggml_qsearch_err_sym(n, x, d[c], qmin, qmax, NULL, 0, .) for c < nc (codes not kept)
    void (*err_sym_multi)(int n, const float * x, int nc, const float * d, int qmin, int qmax, float * err);
    // err[c] = ggml_qsearch_err_affine(n, x, a[c], b[c], nmax, .) for c < nc
    void (*err_affine_multi)(int n, const float * x, int nc, const float * a, const float * b, int nmax, float * err);
    // the codes that ggml_qsearch_err_sym / ggml_qsearch_err_affine write (the error is not needed)
    void (*assign_sym)(int n, const float * x, float d, int qmin, int qmax, int * q);
    void (*assign_affine)(int n, const float * x, float a, float b, int nmax, int * q);
} ggml_qsearch_kernels;

enum ggml_qsearch_isa {
    GGML_QSEARCH_ISA_SCALAR = 0,
    GGML_QSEARCH_ISA_AVX2   = 1,
    GGML_QSEARCH_ISA_AVX512 = 2,
};

// The table of one instruction set; NULL when it is not built in or this CPU lacks it.
const ggml_qsearch_kernels * ggml_qsearch_kernels_get(enum ggml_qsearch_isa isa);

// The fastest table this CPU runs (never NULL).
const ggml_qsearch_kernels * ggml_qsearch_best(void);

#if defined(__x86_64__) || defined(__i386__)
const ggml_qsearch_kernels * ggml_qsearch_kernels_avx2(void);
const ggml_qsearch_kernels * ggml_qsearch_kernels_avx512(void);
#endif

#ifdef __cplusplus
}
#endif
