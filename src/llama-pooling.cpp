#include "llama-pooling.h"

#include "llama-log.h"
#include "llama-model.h"

#include "ggml-backend.h"

#include <cmath>

bool llama_pooling::supported(const llama_model & model, enum llama_pooling_type type, std::string & err) {
    switch (type) {
        case LLAMA_POOLING_TYPE_NONE:
        case LLAMA_POOLING_TYPE_MEAN:
        case LLAMA_POOLING_TYPE_CLS:
        case LLAMA_POOLING_TYPE_LAST:
            return true;
        case LLAMA_POOLING_TYPE_RANK:
            // jina-bert-v2 rerankers score with cls alone
            if (!model.cls_out && !model.cls) {
                err = "pooling RANK needs a classifier head (cls.output.weight), which the model lacks";
                return false;
            }
            return true;
        default:
            err = llama_format("unknown pooling type %d", (int) type);
            return false;
    }
}

// The weight as F32 values (any type the CPU can dequantize, on any device).
static std::vector<float> read_f32(const ggml_tensor * t) {
    std::vector<float> v;
    if (!t) {
        return v;
    }
    std::vector<uint8_t> raw(ggml_nbytes(t));
    ggml_backend_tensor_get(t, raw.data(), 0, raw.size());
    const int64_t n_row = t->ne[0], n_rows = ggml_nrows(t);
    v.resize((size_t) (n_row * n_rows));
    const size_t rs = ggml_row_size(t->type, n_row);
    for (int64_t r = 0; r < n_rows; r++) {
        if (!ggml_dequantize_row(t->type, raw.data() + r * rs, v.data() + r * n_row, n_row)) {
            throw llama_error(llama_format("cannot read %s (type %s)", ggml_get_name(t), ggml_type_name(t->type)));
        }
    }
    return v;
}

void llama_pooling::load_head(const llama_model & model) {
    if (head_loaded) {
        return;
    }
    cls         = read_f32(model.cls);
    cls_b       = read_f32(model.cls_b);
    cls_out     = read_f32(model.cls_out);
    cls_out_b   = read_f32(model.cls_out_b);
    cls_norm    = read_f32(model.cls_norm);
    head_loaded = true;
}

// y = W x (+ b), W of n_out rows of x.size() values
static std::vector<float> linear(const std::vector<float> & w, const std::vector<float> & b,
                                 const std::vector<float> & x, size_t n_out) {
    std::vector<float> y(n_out);
    const size_t       n_in = x.size();
    for (size_t o = 0; o < n_out; o++) {
        double acc = b.empty() ? 0.0 : b[o];
        for (size_t i = 0; i < n_in; i++) {
            acc += (double) w[o * n_in + i] * x[i];
        }
        y[o] = (float) acc;
    }
    return y;
}

void llama_pooling::apply_head(const llama_model & model, std::vector<float> & v) const {
    // RoBERTa/BERT sequence classification: tanh(dense(cls)), then the output projection (jina-bert-v2:
    // the dense layer is the scores). modern-bert: GELU (tanh form, as ggml_gelu) and a layer norm.
    const bool gelu = model.hparams.rank_mean_gelu;
    if (model.cls) {
        v = linear(cls, cls_b, v, (size_t) model.cls->ne[1]);
        for (float & x : v) {
            const double d = x;
            x = gelu ? (float) (0.5 * d * (1.0 + std::tanh(0.7978845608028654 * (d + 0.044715 * d * d * d))))
                     : std::tanh(x);
        }
        if (!cls_norm.empty() && cls_norm.size() == v.size()) {
            double mean = 0.0, var = 0.0;
            for (float x : v) {
                mean += x;
            }
            mean /= (double) v.size();
            for (float x : v) {
                var += ((double) x - mean) * ((double) x - mean);
            }
            var /= (double) v.size();
            const double inv = 1.0 / std::sqrt(var + (double) model.hparams.f_norm_eps);
            for (size_t i = 0; i < v.size(); i++) {
                v[i] = (float) (((double) v[i] - mean) * inv * cls_norm[i]);
            }
        }
    }
    if (model.cls_out) {
        v = linear(cls_out, cls_out_b, v, (size_t) model.cls_out->ne[1]);
    }
}

void llama_pooling::pool(const llama_model & model, enum llama_pooling_type type,
                         const std::vector<llama_ubatch> & ubatches, const float * embd, int32_t n_embd) {
    out.clear();
    if (type == LLAMA_POOLING_TYPE_NONE) {
        return;
    }
    if (type == LLAMA_POOLING_TYPE_RANK) {
        load_head(model);
    }
    struct acc {
        std::vector<double> sum;
        int64_t             n       = 0;
        llama_pos           pos_sel = 0;
        const float *       row_sel = nullptr;
    };
    std::map<llama_seq_id, acc> seqs;
    const bool                  last = type == LLAMA_POOLING_TYPE_LAST;
    // modern-bert rerankers score the mean of the tokens
    const bool mean =
        type == LLAMA_POOLING_TYPE_MEAN || (type == LLAMA_POOLING_TYPE_RANK && model.hparams.rank_mean_gelu);
    int64_t row = 0;
    for (const llama_ubatch & ub : ubatches) {
        for (uint32_t i = 0; i < ub.n_tokens; i++) {
            if (!ub.output[i]) {
                continue;
            }
            const float * r = embd + row * n_embd;
            row++;
            for (int32_t s = 0; s < ub.n_seq_id[i]; s++) {
                acc & a = seqs[ub.seq_id[i][s]];
                if (mean) {
                    a.sum.resize((size_t) n_embd, 0.0);
                    for (int32_t k = 0; k < n_embd; k++) {
                        a.sum[k] += r[k];
                    }
                }
                // CLS/RANK: the lowest position; LAST: the highest (the later one on a tie)
                const llama_pos p = ub.pos[i];
                if (!a.row_sel || (last ? p >= a.pos_sel : p < a.pos_sel)) {
                    a.pos_sel = p;
                    a.row_sel = r;
                }
                a.n++;
            }
        }
    }
    for (auto & it : seqs) {
        acc &                a = it.second;
        std::vector<float> & v = out[it.first];
        if (mean) {
            v.resize((size_t) n_embd);
            for (int32_t k = 0; k < n_embd; k++) {
                v[k] = (float) (a.sum[k] / (double) a.n);
            }
        } else {
            v.assign(a.row_sel, a.row_sel + n_embd);
        }
        if (type == LLAMA_POOLING_TYPE_RANK) {
            apply_head(model, v);
        }
    }
}

float * llama_pooling::seq(llama_seq_id seq_id) {
    auto it = out.find(seq_id);
    return it == out.end() ? nullptr : it->second.data();
}
