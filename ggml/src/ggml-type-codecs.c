// The codec columns of the type table (ggml-type-table.h): typed adapters over the row functions of
// ggml-quants.h, generated from each row, and the table of them.
#include <string.h>

#include "ggml-impl.h"
#include "ggml-quantize-iq13.h"
#include "ggml-quantize-iq2.h"
#include "ggml-quants.h"
#include "ggml-type-table.h"

// ---- adapters: the typed functions called with the untyped pointer converted back --------------------
#define ADAPT_Q(t)                                            \
    static void q_##t(const float * x, void * y, int64_t n) { \
        quantize_row_##t##_ref(x, (block_##t *) y, n);        \
    }
#define ADAPT_DQ(t)                                            \
    static void dq_##t(const void * x, float * y, int64_t n) { \
        dequantize_row_##t((const block_##t *) x, y, n);       \
    }
#define ADAPT_QW(t)                                                             \
    static void qw_##t(const float * x, void * y, int64_t n, const float * w) { \
        quantize_row_##t##_imat(x, (block_##t *) y, n, w);                      \
    }
#define ADAPT_C(t, V, v)  ADAPT_Q(t) ADAPT_DQ(t)
#define ADAPT_CW(t, V, v) ADAPT_Q(t) ADAPT_DQ(t) ADAPT_QW(t)
#define ADAPT_CI(t, V, v) ADAPT_DQ(t)
#define ADAPT_CF(t)       // below: the float conversions are not block codecs
#define ADAPT_NONE
#define ADAPTERS(T, NAME, BLCK, BYTES, QUANTIZED, FLAGS, CODEC) ADAPT_##CODEC
GGML_TYPE_TABLE(ADAPTERS)
#undef ADAPTERS

static void q_f32(const float * x, void * y, int64_t n) {
    memcpy(y, x, (size_t) n * sizeof(float));
}
static void dq_f32(const void * x, float * y, int64_t n) {
    memcpy(y, x, (size_t) n * sizeof(float));
}
static void q_f16(const float * x, void * y, int64_t n) {
    ggml_fp32_to_fp16_row(x, (ggml_fp16_t *) y, n);
}
static void dq_f16(const void * x, float * y, int64_t n) {
    ggml_fp16_to_fp32_row((const ggml_fp16_t *) x, y, n);
}
static void q_bf16(const float * x, void * y, int64_t n) {
    ggml_fp32_to_bf16_row(x, (ggml_bf16_t *) y, n);
}
static void dq_bf16(const void * x, float * y, int64_t n) {
    ggml_bf16_to_fp32_row((const ggml_bf16_t *) x, y, n);
}

// ---- the table -----------------------------------------------------------------------------------------
// vec_dot_type, quantize, dequantize, quantize_w, quantize_imat, vec_dot_ref
#define ROW_C(t, V, v)                                           GGML_TYPE_##V, q_##t, dq_##t, NULL, NULL, ggml_vec_dot_##t##_##v##_ref
#define ROW_CW(t, V, v)                                          GGML_TYPE_##V, q_##t, dq_##t, qw_##t, NULL, ggml_vec_dot_##t##_##v##_ref
#define ROW_CI(t, V, v)                                          GGML_TYPE_##V, NULL, dq_##t, NULL, ggml_quantize_row_##t, ggml_vec_dot_##t##_##v##_ref
#define ROW_CF(t)                                                GGML_TYPE_F32, q_##t, dq_##t, NULL, NULL, ggml_vec_dot_##t##_f32_ref
#define ROW_NONE                                                 GGML_TYPE_COUNT, NULL, NULL, NULL, NULL, NULL
#define CODEC_ROW(T, NAME, BLCK, BYTES, QUANTIZED, FLAGS, CODEC) [GGML_TYPE_##T] = {GGML_TYPE_##T, FLAGS, ROW_##CODEC},
static const struct ggml_type_codec k_codecs[GGML_TYPE_COUNT] = {GGML_TYPE_TABLE(CODEC_ROW)};
#undef CODEC_ROW

const struct ggml_type_codec * ggml_get_type_codec(enum ggml_type type) {
    return ggml_type_is_valid(type) ? &k_codecs[type] : NULL;
}
