// Public row (de)quantization entry points over the reference quantizers of ggml-quants.h, for
// llama_model_quantize and the tools (which link the shared library and cannot reach hidden symbols).
#include "ggml-impl.h"
#include "ggml-quantize-iq13.h"
#include "ggml-quantize-iq2.h"
#include "ggml-quants-search.h"
#include "ggml-quants.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef void (*quantize_row_fn)(const float * x, void * y, int64_t n);
typedef void (*dequantize_row_fn)(const void * x, float * y, int64_t n);
typedef void (*quantize_row_w_fn)(const float * x, void * y, int64_t n, const float * w);

// Adapters with a common signature (the typed prototypes differ only in the block pointer type).
#define QROW(t)                                                \
    static void q_##t(const float * x, void * y, int64_t n) {  \
        quantize_row_##t##_ref(x, (block_##t *) y, n);         \
    }                                                          \
    static void dq_##t(const void * x, float * y, int64_t n) { \
        dequantize_row_##t((const block_##t *) x, y, n);       \
    }
QROW(q4_0)
QROW(q4_1)
QROW(q5_0)
QROW(q5_1)
QROW(q8_0)
QROW(iq4_nl)
QROW(q2_K)
QROW(q3_K)
QROW(q4_K)
QROW(q5_K)
QROW(q6_K)
QROW(iq4_xs)
QROW(mxfp4)
QROW(tq1_0)
QROW(tq2_0)
#undef QROW
// the importance-weighted searches (ggml-quants-weighted.c); q8_0 and the others have none, as llama.cpp
#define WROW(t)                                                                 \
    static void qw_##t(const float * x, void * y, int64_t n, const float * w) { \
        quantize_row_##t##_imat(x, (block_##t *) y, n, w);                      \
    }
WROW(q4_0)
WROW(q4_1)
WROW(q5_0)
WROW(q5_1)
WROW(iq4_nl)
WROW(q2_K)
WROW(q3_K)
WROW(q4_K)
WROW(q5_K)
WROW(q6_K)
WROW(iq4_xs)
#undef WROW

static quantize_row_w_fn weighted_fn(enum ggml_type type) {
    switch (type) {
        case GGML_TYPE_Q4_0:
            return qw_q4_0;
        case GGML_TYPE_Q4_1:
            return qw_q4_1;
        case GGML_TYPE_Q5_0:
            return qw_q5_0;
        case GGML_TYPE_Q5_1:
            return qw_q5_1;
        case GGML_TYPE_IQ4_NL:
            return qw_iq4_nl;
        case GGML_TYPE_Q2_K:
            return qw_q2_K;
        case GGML_TYPE_Q3_K:
            return qw_q3_K;
        case GGML_TYPE_Q4_K:
            return qw_q4_K;
        case GGML_TYPE_Q5_K:
            return qw_q5_K;
        case GGML_TYPE_Q6_K:
            return qw_q6_K;
        case GGML_TYPE_IQ4_XS:
            return qw_iq4_xs;
        default:
            return NULL;
    }
}

// dequantize only here: the grid i-quants quantize through imat_row_fn (their searches take the importance matrix)
#define DQROW(t)                                               \
    static void dq_##t(const void * x, float * y, int64_t n) { \
        dequantize_row_##t((const block_##t *) x, y, n);       \
    }
DQROW(iq2_xxs)
DQROW(iq2_xs)
DQROW(iq2_s)
DQROW(iq3_xxs)
DQROW(iq3_s)
DQROW(iq1_s)
DQROW(iq1_m)
#undef DQROW

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

static bool row_fns(enum ggml_type type, quantize_row_fn * q, dequantize_row_fn * dq) {
    switch (type) {
        case GGML_TYPE_F32:
            *q  = q_f32;
            *dq = dq_f32;
            return true;
        case GGML_TYPE_F16:
            *q  = q_f16;
            *dq = dq_f16;
            return true;
        case GGML_TYPE_BF16:
            *q  = q_bf16;
            *dq = dq_bf16;
            return true;
        case GGML_TYPE_Q4_0:
            *q  = q_q4_0;
            *dq = dq_q4_0;
            return true;
        case GGML_TYPE_Q4_1:
            *q  = q_q4_1;
            *dq = dq_q4_1;
            return true;
        case GGML_TYPE_Q5_0:
            *q  = q_q5_0;
            *dq = dq_q5_0;
            return true;
        case GGML_TYPE_Q5_1:
            *q  = q_q5_1;
            *dq = dq_q5_1;
            return true;
        case GGML_TYPE_Q8_0:
            *q  = q_q8_0;
            *dq = dq_q8_0;
            return true;
        case GGML_TYPE_IQ4_NL:
            *q  = q_iq4_nl;
            *dq = dq_iq4_nl;
            return true;
        case GGML_TYPE_Q2_K:
            *q  = q_q2_K;
            *dq = dq_q2_K;
            return true;
        case GGML_TYPE_Q3_K:
            *q  = q_q3_K;
            *dq = dq_q3_K;
            return true;
        case GGML_TYPE_Q4_K:
            *q  = q_q4_K;
            *dq = dq_q4_K;
            return true;
        case GGML_TYPE_Q5_K:
            *q  = q_q5_K;
            *dq = dq_q5_K;
            return true;
        case GGML_TYPE_Q6_K:
            *q  = q_q6_K;
            *dq = dq_q6_K;
            return true;
        case GGML_TYPE_IQ4_XS:
            *q  = q_iq4_xs;
            *dq = dq_iq4_xs;
            return true;
        case GGML_TYPE_MXFP4:
            *q  = q_mxfp4;
            *dq = dq_mxfp4;
            return true;
        case GGML_TYPE_TQ1_0:
            *q  = q_tq1_0;
            *dq = dq_tq1_0;
            return true;
        case GGML_TYPE_TQ2_0:
            *q  = q_tq2_0;
            *dq = dq_tq2_0;
            return true;
#define DQCASE(T, t)    \
    case GGML_TYPE_##T: \
        *q  = NULL;     \
        *dq = dq_##t;   \
        return true;
            DQCASE(IQ2_XXS, iq2_xxs)
            DQCASE(IQ2_XS, iq2_xs)
            DQCASE(IQ2_S, iq2_s)
            DQCASE(IQ3_XXS, iq3_xxs)
            DQCASE(IQ3_S, iq3_s)
            DQCASE(IQ1_S, iq1_s)
            DQCASE(IQ1_M, iq1_m)
#undef DQCASE
        default:
            return false;
    }
}

// Quantizers that take the importance matrix (n_per_row column weights, NULL for none); false on failure.
typedef bool (*quantize_row_imat_fn)(const float * x, void * y, int64_t n, const float * imatrix);

static quantize_row_imat_fn imat_row_fn(enum ggml_type type) {
    switch (type) {
        case GGML_TYPE_IQ2_XXS:
            return ggml_quantize_row_iq2_xxs;
        case GGML_TYPE_IQ2_XS:
            return ggml_quantize_row_iq2_xs;
        case GGML_TYPE_IQ2_S:
            return ggml_quantize_row_iq2_s;
        case GGML_TYPE_IQ3_XXS:
            return ggml_quantize_row_iq3_xxs;
        case GGML_TYPE_IQ3_S:
            return ggml_quantize_row_iq3_s;
        case GGML_TYPE_IQ1_S:
            return ggml_quantize_row_iq1_s;
        case GGML_TYPE_IQ1_M:
            return ggml_quantize_row_iq1_m;
        default:
            return NULL;
    }
}

size_t ggml_quantize_chunk(enum ggml_type type, const float * src, void * dst, int64_t start, int64_t nrows,
                           int64_t n_per_row, const float * imatrix) {
    quantize_row_fn            q  = NULL;
    dequantize_row_fn          dq = NULL;
    const quantize_row_imat_fn qi = imat_row_fn(type);
    if (!row_fns(type, &q, &dq) || (!q && !qi)) {
        GGML_LOG_ERROR("%s: unsupported type %s\n", __func__, ggml_type_name(type));
        return 0;
    }
    const int64_t blck = ggml_blck_size(type);
    if (!src || !dst || n_per_row <= 0 || nrows < 0 || start < 0 || n_per_row % blck != 0 || start % n_per_row != 0) {
        GGML_LOG_ERROR("%s: bad arguments (type %s, start %lld, nrows %lld, n_per_row %lld)\n", __func__,
                       ggml_type_name(type), (long long) start, (long long) nrows, (long long) n_per_row);
        return 0;
    }
    if (!imatrix && ggml_quantize_requires_imatrix(type)) {
        GGML_LOG_ERROR("%s: type %s needs an importance matrix\n", __func__, ggml_type_name(type));
        return 0;
    }
    const size_t            row_size  = ggml_row_size(type, n_per_row);
    const int64_t           start_row = start / n_per_row;
    const quantize_row_w_fn qw        = imatrix ? weighted_fn(type) : NULL;
    if (qw) {
        // one weight vector serves every row: the imatrix is per input column
        float * w = (float *) malloc((size_t) n_per_row * 2 * sizeof(float));
        if (!w) {
            GGML_LOG_ERROR("%s: out of memory\n", __func__);
            return 0;
        }
        float *    wr           = w + n_per_row;
        const bool table_levels = type == GGML_TYPE_IQ4_NL || type == GGML_TYPE_IQ4_XS;
        ggml_qsearch_row_weights(n_per_row, imatrix, w);
        for (int64_t r = 0; r < nrows; r++) {
            const float * x = src + start + r * n_per_row;
            if (table_levels) {
                // the codebook's outer steps are coarse (24 apart at -127..-104 vs 12 near 0): with the
                // importance alone, large values in quiet columns get clipped to them and the model
                // loses more than the weighted error says (measured in test-imatrix-e2e); weighting by
                // magnitude as well, as llama.cpp does, keeps them
                double s2 = 0;
                for (int64_t j = 0; j < n_per_row; j++) {
                    s2 += (double) x[j] * x[j];
                }
                const float sigma2 = (float) (s2 / (double) n_per_row);
                for (int64_t j = 0; j < n_per_row; j++) {
                    wr[j] = w[j] * sqrtf(sigma2 + x[j] * x[j]);
                }
            } else {
                memcpy(wr, w, (size_t) n_per_row * sizeof(float));
            }
            qw(x, (char *) dst + (size_t) (start_row + r) * row_size, n_per_row, wr);
        }
        free(w);
        return (size_t) nrows * row_size;
    }
    for (int64_t r = 0; r < nrows; r++) {
        const float * x = src + start + r * n_per_row;
        char *        y = (char *) dst + (size_t) (start_row + r) * row_size;
        if (!qi) {
            q(x, y, n_per_row);  // the reference quantizers minimize the plain error (imatrix unused)
        } else if (!qi(x, y, n_per_row, imatrix)) {
            GGML_LOG_ERROR("%s: out of memory for the %s search tables\n", __func__, ggml_type_name(type));
            return 0;
        }
    }
    return (size_t) nrows * row_size;
}

bool ggml_quantize_requires_imatrix(enum ggml_type type) {
    // as llama.cpp: at about 2 bits these are unusable without importance weights (IQ2_S manages)
    return type == GGML_TYPE_IQ2_XXS || type == GGML_TYPE_IQ2_XS || type == GGML_TYPE_IQ1_S;
}

bool ggml_dequantize_row(enum ggml_type type, const void * src, float * dst, int64_t n) {
    quantize_row_fn   q  = NULL;
    dequantize_row_fn dq = NULL;
    if (!row_fns(type, &q, &dq) || !src || !dst || n < 0 || n % ggml_blck_size(type) != 0) {
        GGML_LOG_ERROR("%s: unsupported type %s or bad arguments (n %lld)\n", __func__, ggml_type_name(type),
                       (long long) n);
        return false;
    }
    dq(src, dst, n);
    return true;
}
