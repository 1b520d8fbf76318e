// The type table: one row per tensor type, everything the core knows about it in one place — its GGUF
// name and block layout, and its row codecs (reference quantizer, dequantizer, importance-weighted and
// grid searches, the activation type and scalar reference dot product the CPU builds its kernels on).
// ggml-types.c expands the layout columns (it is also linked alone, by the GGUF fuzzers);
// ggml-type-codecs.c expands the codec columns. Backends keep only what is theirs: the CPU's SIMD
// kernels per instruction set (cpu-type-traits.cpp, starting from this table's reference row), the
// repacked layouts (cpu-repack.cpp), and the GPU shaders/kernels of the types they run.
//
// Adding a type: its value in enum ggml_type (ggml.h), its block struct and reference codecs in
// ggml-quants.*, one row here (docs/design.md, "Adding a type").
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "ggml.h"

#ifdef __cplusplus
extern "C" {
#endif

// GGML_TYPEF_ACTIVATION: an activation format of the CPU's dot products (Q8_1, Q8_K), never a weight:
//   the public quantize / dequantize entry points refuse it.
// GGML_TYPEF_NEEDS_IMATRIX: unusable without importance weights (quantizing needs an imatrix).
// GGML_TYPEF_MAGNITUDE_WEIGHTS: the weighted search multiplies the importance by each value's magnitude
//   (the non-uniform IQ4 codebooks, whose coarse outer steps would clip large values in quiet columns).
// GGML_TYPEF_KV_CACHE: a type a KV cache may hold (ggml_type_is_kv_cache); the CPU writes and reads each in
//   set_rows, get_rows and flash attention, and a GPU backend lacking one declines the op (CPU fallback).
enum ggml_type_flag {
    GGML_TYPEF_ACTIVATION        = 1,
    GGML_TYPEF_NEEDS_IMATRIX     = 2,
    GGML_TYPEF_MAGNITUDE_WEIGHTS = 4,
    GGML_TYPEF_KV_CACHE          = 8,
};

// X(TYPE, NAME, BLCK, BYTES, QUANTIZED, FLAGS, CODEC) with CODEC one of
//   C(t, V, v)   reference quantizer quantize_row_<t>_ref, dequantize_row_<t> (ggml-quants.h), and the
//                dot product with activations of type V (its lower-case name v): ggml_vec_dot_<t>_<v>_ref
//   CW(t, V, v)  as C, plus the importance-weighted search quantize_row_<t>_imat
//   CI(t, V, v)  dequantize_row_<t> and the dot; quantized only by the grid search ggml_quantize_row_<t>
//   CF(t)        a float type: row conversions, and ggml_vec_dot_<t>_f32_ref (activations stay F32)
//   NONE         integer types: no codec, no dot product
// Rows are in enum order; ids removed from the format have none.
#define GGML_TYPE_TABLE(X)                                                                                            \
    X(F32, "f32", 1, 4, false, GGML_TYPEF_KV_CACHE, CF(f32))                                                          \
    X(F16, "f16", 1, 2, false, GGML_TYPEF_KV_CACHE, CF(f16))                                                          \
    X(Q4_0, "q4_0", 32, 2 + 16, true, GGML_TYPEF_KV_CACHE, CW(q4_0, Q8_0, q8_0))                                      \
    X(Q4_1, "q4_1", 32, 2 + 2 + 16, true, GGML_TYPEF_KV_CACHE, CW(q4_1, Q8_1, q8_1))                                  \
    X(Q5_0, "q5_0", 32, 2 + 4 + 16, true, GGML_TYPEF_KV_CACHE, CW(q5_0, Q8_0, q8_0))                                  \
    X(Q5_1, "q5_1", 32, 2 + 2 + 4 + 16, true, GGML_TYPEF_KV_CACHE, CW(q5_1, Q8_1, q8_1))                              \
    X(Q8_0, "q8_0", 32, 2 + 32, true, GGML_TYPEF_KV_CACHE, C(q8_0, Q8_0, q8_0))                                       \
    X(Q8_1, "q8_1", 32, 2 + 2 + 32, true, GGML_TYPEF_ACTIVATION, C(q8_1, Q8_1, q8_1))                                 \
    X(Q2_K, "q2_K", 256, 16 + 64 + 2 + 2, true, 0, CW(q2_K, Q8_K, q8_K))                                              \
    X(Q3_K, "q3_K", 256, 32 + 64 + 12 + 2, true, 0, CW(q3_K, Q8_K, q8_K))                                             \
    X(Q4_K, "q4_K", 256, 2 + 2 + 12 + 128, true, 0, CW(q4_K, Q8_K, q8_K))                                             \
    X(Q5_K, "q5_K", 256, 2 + 2 + 12 + 32 + 128, true, 0, CW(q5_K, Q8_K, q8_K))                                        \
    X(Q6_K, "q6_K", 256, 128 + 64 + 16 + 2, true, 0, CW(q6_K, Q8_K, q8_K))                                            \
    X(Q8_K, "q8_K", 256, 4 + 256 + 2 * 16, true, GGML_TYPEF_ACTIVATION, C(q8_K, Q8_K, q8_K))                          \
    X(IQ2_XXS, "iq2_xxs", 256, 2 + 2 * 32, true, GGML_TYPEF_NEEDS_IMATRIX, CI(iq2_xxs, Q8_K, q8_K))                   \
    X(IQ2_XS, "iq2_xs", 256, 2 + 2 * 32 + 8, true, GGML_TYPEF_NEEDS_IMATRIX, CI(iq2_xs, Q8_K, q8_K))                  \
    X(IQ3_XXS, "iq3_xxs", 256, 2 + 96, true, 0, CI(iq3_xxs, Q8_K, q8_K))                                              \
    X(IQ1_S, "iq1_s", 256, 2 + 32 + 2 * 8, true, GGML_TYPEF_NEEDS_IMATRIX, CI(iq1_s, Q8_K, q8_K))                     \
    X(IQ4_NL, "iq4_nl", 32, 2 + 16, true, GGML_TYPEF_MAGNITUDE_WEIGHTS | GGML_TYPEF_KV_CACHE, CW(iq4_nl, Q8_0, q8_0)) \
    X(IQ3_S, "iq3_s", 256, 2 + 64 + 8 + 32 + 4, true, 0, CI(iq3_s, Q8_K, q8_K))                                       \
    X(IQ2_S, "iq2_s", 256, 2 + 64 + 8 + 8, true, 0, CI(iq2_s, Q8_K, q8_K))                                            \
    X(IQ4_XS, "iq4_xs", 256, 2 + 2 + 4 + 128, true, GGML_TYPEF_MAGNITUDE_WEIGHTS, CW(iq4_xs, Q8_K, q8_K))             \
    X(I8, "i8", 1, 1, false, 0, NONE)                                                                                 \
    X(I16, "i16", 1, 2, false, 0, NONE)                                                                               \
    X(I32, "i32", 1, 4, false, 0, NONE)                                                                               \
    X(I64, "i64", 1, 8, false, 0, NONE)                                                                               \
    X(F64, "f64", 1, 8, false, 0, NONE)                                                                               \
    X(IQ1_M, "iq1_m", 256, 32 + 16 + 8, true, 0, CI(iq1_m, Q8_K, q8_K))                                               \
    X(BF16, "bf16", 1, 2, false, GGML_TYPEF_KV_CACHE, CF(bf16))                                                       \
    X(TQ1_0, "tq1_0", 256, 48 + 4 + 2, true, 0, C(tq1_0, Q8_K, q8_K))                                                 \
    X(TQ2_0, "tq2_0", 256, 64 + 2, true, 0, C(tq2_0, Q8_K, q8_K))                                                     \
    X(MXFP4, "mxfp4", 32, 1 + 16, true, 0, C(mxfp4, Q8_0, q8_0))

// The row codecs of a type, on untyped block pointers (adapters over the typed functions of
// ggml-quants.h: no function-pointer casts).
typedef void (*ggml_row_quantize_fn)(const float * x, void * y, int64_t n);
typedef void (*ggml_row_dequantize_fn)(const void * x, float * y, int64_t n);
typedef void (*ggml_row_quantize_w_fn)(const float * x, void * y, int64_t n, const float * w);
typedef bool (*ggml_row_quantize_imat_fn)(const float * x, void * y, int64_t n, const float * imatrix);
typedef void (*ggml_row_vec_dot_fn)(int n, float * s, const void * x, const void * y);

struct ggml_type_codec {
    enum ggml_type            type;
    unsigned                  flags;          // enum ggml_type_flag bits
    enum ggml_type            vec_dot_type;   // the activation format of its dot product
    ggml_row_quantize_fn      quantize;       // reference quantizer (plain error); NULL: none
    ggml_row_dequantize_fn    dequantize;     // NULL: no float conversion (integer types)
    ggml_row_quantize_w_fn    quantize_w;     // importance-weighted search; NULL: none
    ggml_row_quantize_imat_fn quantize_imat;  // grid search (i-quants); false when out of memory
    ggml_row_vec_dot_fn       vec_dot_ref;    // scalar reference dot with a vec_dot_type row; NULL: none
};

// The codecs of type; NULL for an invalid type id (ggml-type-codecs.c).
const struct ggml_type_codec * ggml_get_type_codec(enum ggml_type type);

#ifdef __cplusplus
}
#endif
