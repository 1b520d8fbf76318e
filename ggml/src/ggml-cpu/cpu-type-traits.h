// Per weight type building blocks of the CPU matrix products: how to quantize the activations for
// a weight type, the dot product, (de)quantization, and a multi-row GEMV. Internal to ggml.
//
// Use (mul_mat): for weight type T, let tr = ggml_cpu_get_type_traits(T) and V = tr->vec_dot_type.
// Convert each activation row once with tr->from_float (F32 -> V, n a multiple of V's block size),
// then s = tr->vec_dot(n, &s, weight_row, converted_activation_row) for each pair of rows, or
// ggml_cpu_gemv for many weight rows against one activation row.
//
// F32, F16 and BF16 weights take F32 activations (vec_dot_type F32, from_float a plain copy): the
// product is bound by reading the weights, widening F16/BF16 to F32 costs one instruction per 8-16
// values, and keeping the activations in F32 keeps full accuracy (no activation rounding to F16/BF16).
//
// The SIMD implementations are chosen once from the CPU's level (cpu-features.h: AVX-512 with VNNI >
// AVX2+FMA+F16C > scalar on x86-64, i8mm > dotprod > NEON > scalar on arm64); the scalar table is always
// available and is the test oracle.
#pragma once

#include "cpu-features.h"
#include "ggml.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*ggml_from_float_t)(const float * x, void * y, int64_t n);
typedef void (*ggml_to_float_t)(const void * x, float * y, int64_t n);
typedef void (*ggml_vec_dot_t)(int n, float * s, const void * x, const void * y);
// out[r] = dot(row r of w, y) for r < nrows; rows are w_row_stride bytes apart
typedef void (*ggml_gemv_t)(int n, int nrows, const void * w, size_t w_row_stride, const void * y, float * out);
// out[c][r] = dot(row r of w, y[c]) for r < nrows, c < ncols: each weight block is decoded once for
// several activation rows (prompt processing)
typedef void (*ggml_gemm_t)(int n, int nrows, const void * w, size_t w_row_stride, int ncols, const void * const * y,
                            float * const * out);

struct ggml_cpu_type_traits {
    enum ggml_type    vec_dot_type;    // type the activation row must be converted to
    ggml_from_float_t from_float;      // activation quantizer to vec_dot_type (SIMD when available)
    ggml_vec_dot_t    vec_dot;         // weights row (this type) . activation row (vec_dot_type)
    ggml_to_float_t   to_float;        // dequantize (get_rows, cpy)
    ggml_from_float_t from_float_ref;  // reference quantizer of this type (cpy F32->type, set_rows)
    ggml_gemv_t       gemv;            // many rows against one activation row; NULL: loop over vec_dot
    ggml_gemm_t       gemm;            // many rows against several activation rows; NULL: gemv per row
};

// The best instruction set of this CPU after the GGML_CPU_ISA cap (cpu-features.h).
enum ggml_cpu_isa ggml_cpu_best_isa(void);

// Traits of the best implementation; NULL if the type has no CPU support.
const struct ggml_cpu_type_traits * ggml_cpu_get_type_traits(enum ggml_type type);

// Traits of one instruction set (for tests and benchmarks); NULL if the CPU lacks it or the type is
// unsupported. Entries the ISA does not specialize fall back to the next lower ISA's.
const struct ggml_cpu_type_traits * ggml_cpu_get_type_traits_isa(enum ggml_type type, enum ggml_cpu_isa isa);

// nrows dot products of consecutive weight rows against one converted activation row y_q (already in
// the type's vec_dot_type). Streams the weights once.
void ggml_cpu_gemv(enum ggml_type type, int64_t n, int64_t nrows, const void * w, size_t w_row_stride, const void * y_q,
                   float * out);

// Same with a forced instruction set (returns without writing when unsupported).
void ggml_cpu_gemv_isa(enum ggml_type type, enum ggml_cpu_isa isa, int64_t n, int64_t nrows, const void * w,
                       size_t w_row_stride, const void * y_q, float * out);

// out[c][r] for ncols converted activation rows y_q[c] (GEMM kernel when the type has one, else one
// GEMV per activation row).
void ggml_cpu_gemm(enum ggml_type type, int64_t n, int64_t nrows, const void * w, size_t w_row_stride, int64_t ncols,
                   const void * const * y_q, float * const * out);

// Same with a forced instruction set (returns without writing when unsupported).
void ggml_cpu_gemm_isa(enum ggml_type type, enum ggml_cpu_isa isa, int64_t n, int64_t nrows, const void * w,
                       size_t w_row_stride, int64_t ncols, const void * const * y_q, float * const * out);

#ifdef __cplusplus
}
#endif

#ifdef __cplusplus
// Filled by the ISA files: override the entries they implement in a table of GGML_TYPE_COUNT rows.
void ggml_cpu_quants_fill_avx2(ggml_cpu_type_traits * table);
void ggml_cpu_quants_fill_avx512(ggml_cpu_type_traits * table);
// arm64 (quants-arm-kernels.h): the same kernels with SMULL/SADALP (NEON) or SDOT (dotprod) dot products;
// i8mm starts from the dotprod table.
void ggml_cpu_quants_fill_neon(ggml_cpu_type_traits * table);
void ggml_cpu_quants_fill_dotprod(ggml_cpu_type_traits * table);
// i8mm: the dotprod table plus SMMLA GEMMs for plain-layout Q4_K / Q5_K (quants-arm.i8mm.cpp).
void ggml_cpu_quants_fill_i8mm(ggml_cpu_type_traits * table);
// The K-quant GEMMs (quants-kq-gemm.h): Q4_K / Q5_K / Q6_K gemm entries.
void ggml_cpu_kq_gemm_fill_avx2(ggml_cpu_type_traits * table);
void ggml_cpu_kq_gemm_fill_avx512(ggml_cpu_type_traits * table);
#endif
