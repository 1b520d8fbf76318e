// Public row (de)quantization entry points over the type table's codecs (ggml-type-table.h), for
// llama_model_quantize and the tools (which link the shared library and cannot reach hidden symbols).
#include "ggml-impl.h"
#include "ggml-quants-search.h"
#include "ggml-quants.h"
#include "ggml-type-table.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// The codecs of a type the public entry points accept (weight types; the CPU's activation formats
// are internal), or NULL.
static const struct ggml_type_codec * weight_codec(enum ggml_type type) {
    const struct ggml_type_codec * c = ggml_get_type_codec(type);  // ggml-type-codecs.c
    return c && c->dequantize && !(c->flags & GGML_TYPEF_ACTIVATION) ? c : NULL;
}

size_t ggml_quantize_chunk(enum ggml_type type, const float * src, void * dst, int64_t start, int64_t nrows,
                           int64_t n_per_row, const float * imatrix) {
    const struct ggml_type_codec * codec = weight_codec(type);
    if (!codec || (!codec->quantize && !codec->quantize_imat)) {
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
    const size_t                 row_size  = ggml_row_size(type, n_per_row);
    const int64_t                start_row = start / n_per_row;
    const ggml_row_quantize_w_fn qw        = imatrix ? codec->quantize_w : NULL;
    if (qw) {
        // one weight vector serves every row: the imatrix is per input column
        float * w = (float *) malloc((size_t) n_per_row * 2 * sizeof(float));
        if (!w) {
            GGML_LOG_ERROR("%s: out of memory\n", __func__);
            return 0;
        }
        float *    wr           = w + n_per_row;
        const bool table_levels = (codec->flags & GGML_TYPEF_MAGNITUDE_WEIGHTS) != 0;
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
        if (!codec->quantize_imat) {
            codec->quantize(x, y, n_per_row);  // the reference quantizers minimize the plain error (imatrix unused)
        } else if (!codec->quantize_imat(x, y, n_per_row, imatrix)) {
            GGML_LOG_ERROR("%s: out of memory for the %s search tables\n", __func__, ggml_type_name(type));
            return 0;
        }
    }
    return (size_t) nrows * row_size;
}

bool ggml_quantize_requires_imatrix(enum ggml_type type) {
    // as llama.cpp: at about 2 bits these are unusable without importance weights (IQ2_S manages)
    const struct ggml_type_codec * c = ggml_get_type_codec(type);
    return c && (c->flags & GGML_TYPEF_NEEDS_IMATRIX);
}

bool ggml_dequantize_row(enum ggml_type type, const void * src, float * dst, int64_t n) {
    const struct ggml_type_codec * codec = weight_codec(type);
    if (!codec || !src || !dst || n < 0 || n % ggml_blck_size(type) != 0) {
        GGML_LOG_ERROR("%s: unsupported type %s or bad arguments (n %lld)\n", __func__, ggml_type_name(type),
                       (long long) n);
        return false;
    }
    codec->dequantize(src, dst, n);
    return true;
}
