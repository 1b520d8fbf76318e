// The importance-matrix collector: a graph eval callback (llama_context_params.cb_eval) that, for
// every weight matrix fed to MUL_MAT or MUL_MAT_ID, adds the squares of the input activations per
// input column and counts the activation rows (per expert for MUL_MAT_ID). Same selection and
// counting as llama.cpp's llama-imatrix, so the files interchange: MUL_MAT only for "blk.*" weights
// (and output.weight when asked) with at least 16 F32 activation rows; every MUL_MAT_ID.
// Header-only on the public ggml headers, shared by llama-imatrix and the tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "ggml-backend.h"
#include "ggml.h"
#include "imatrix-file.h"
#include "llama.h"

namespace imatrix {

struct collector {
    data        stats;
    bool        process_output = false;
    std::string error;  // first failure (inconsistent shapes, non-finite activations); stops compute

    // llama_context_params.cb_eval with cb_eval_user_data = this collector.
    static bool callback(ggml_tensor * t, bool ask, void * user_data) {
        return static_cast<collector *>(user_data)->on_tensor(t, ask);
    }

    // The name a weight had before the graph decorated it ("A#blk.0.ffn_up.weight#B" -> the middle).
    static std::string weight_name(const char * name) {
        const char * p = strchr(name, '#');
        if (!p) {
            return name;
        }
        const char * q = strchr(p + 1, '#');
        return q ? std::string(p + 1, q) : std::string(p + 1);
    }

private:
    std::mutex           mutex_;
    std::vector<char>    act_;
    std::vector<int32_t> ids_;

    bool fail(const std::string & msg) {
        if (error.empty()) {
            error = msg;
        }
        return false;
    }

    bool on_tensor(ggml_tensor * t, bool ask) {
        const ggml_tensor * src0 = t->src[0];
        const ggml_tensor * src1 = t->src[1];
        if (!src0 || !src1) {
            return ask ? false : true;
        }
        const std::string wname = weight_name(src0->name);
        if (ask) {
            if (t->op == GGML_OP_MUL_MAT_ID) {
                return src1->type == GGML_TYPE_F32;
            }
            if (t->op != GGML_OP_MUL_MAT || src1->ne[1] < 16 || src1->type != GGML_TYPE_F32) {
                return false;
            }
            return wname.compare(0, 4, "blk.") == 0 || (process_output && wname == "output.weight");
        }
        std::lock_guard<std::mutex> lock(mutex_);
        if (t->op != GGML_OP_MUL_MAT && t->op != GGML_OP_MUL_MAT_ID) {
            return true;
        }
        if (src1->nb[0] != sizeof(float)) {
            return fail(wname + ": non-contiguous activation rows");
        }
        act_.resize(ggml_nbytes(src1));
        ggml_backend_tensor_get(src1, act_.data(), 0, act_.size());
        const char *  data = act_.data();
        const int64_t ne0  = src1->ne[0];

        if (t->op == GGML_OP_MUL_MAT_ID) {
            // ids [n_expert_used, n_tokens] (I32, maybe strided); src1 [cols, n_expert_used or 1, n_tokens]
            const ggml_tensor * ids  = t->src[2];
            const int64_t       n_as = src0->ne[2];
            if (!ids || ids->type != GGML_TYPE_I32 || ids->ne[1] != src1->ne[2]) {
                return fail(wname + ": unexpected MUL_MAT_ID shapes");
            }
            std::vector<char> raw(ggml_nbytes(ids));
            ggml_backend_tensor_get(ids, raw.data(), 0, raw.size());
            entry & e = stats.entries[wname];
            if (e.counts.size() == 1 && n_as > 1) {
                e.counts.resize((size_t) n_as, e.counts[0]);
            }
            if (e.sums.empty()) {
                e.sums.assign((size_t) (ne0 * n_as), 0.0);
                e.counts.assign((size_t) n_as, 0);
            } else if (e.sums.size() != (size_t) (ne0 * n_as) || e.counts.size() != (size_t) n_as) {
                return fail(wname + ": inconsistent size");
            }
            for (int64_t idx = 0; idx < ids->ne[0]; idx++) {
                for (int64_t row = 0; row < ids->ne[1]; row++) {
                    int32_t ex;
                    memcpy(&ex, raw.data() + row * ids->nb[1] + idx * ids->nb[0], sizeof(ex));
                    if (ex < 0 || ex >= n_as) {
                        return fail(wname + ": expert id out of range");
                    }
                    const float * x   = (const float *) (data + (idx % src1->ne[1]) * src1->nb[1] + row * src1->nb[2]);
                    double *      acc = e.sums.data() + ex * ne0;
                    for (int64_t j = 0; j < ne0; j++) {
                        acc[j] += (double) x[j] * x[j];
                    }
                    e.counts[(size_t) ex]++;
                }
            }
        } else {
            const int64_t n_mat = src0->ne[2] * src0->ne[3];
            entry &       e     = stats.entries[wname];
            if (e.counts.size() > 1 &&
                std::all_of(e.counts.begin(), e.counts.end(), [&](int64_t c) { return c == e.counts[0]; })) {
                e.counts.erase(e.counts.begin() + 1,
                               e.counts.end());  // (resize(1) trips a GCC 12 -Warray-bounds false positive)
            }
            if (e.sums.empty()) {
                e.sums.assign((size_t) (ne0 * n_mat), 0.0);
                e.counts.assign(1, 0);
            } else if (e.sums.size() != (size_t) (ne0 * n_mat)) {
                return fail(wname + ": inconsistent size");
            }
            for (int64_t i3 = 0; i3 < src1->ne[3]; i3++) {
                for (int64_t i2 = 0; i2 < src1->ne[2]; i2++) {
                    // 3-D activations against a 2-D weight all land in matrix 0
                    const int64_t mat = (i3 % src0->ne[3]) * src0->ne[2] + (i2 % src0->ne[2]);
                    double *      acc = e.sums.data() + mat * ne0;
                    for (int64_t row = 0; row < src1->ne[1]; row++) {
                        const float * x =
                            (const float *) (data + row * src1->nb[1] + i2 * src1->nb[2] + i3 * src1->nb[3]);
                        for (int64_t j = 0; j < ne0; j++) {
                            acc[j] += (double) x[j] * x[j];
                        }
                    }
                }
            }
            for (auto & c : e.counts) {
                c += ggml_nrows(src1) / n_mat;
            }
        }
        const entry & e = stats.entries[wname];
        for (double v : e.sums) {
            if (!std::isfinite(v)) {
                return fail(wname + ": non-finite activations");
            }
        }
        return true;
    }
};

// Runs `tokens` through ctx (created with cb_eval = collector::callback, cb_eval_user_data = &col)
// in chunks of n_ctx tokens, the first of each replaced by BOS when add_bos, as llama.cpp's tool
// does; at most max_chunks chunks (<= 0: all whole chunks). Every position requests its output so
// the last layer runs on all tokens. Returns the chunks processed, or -1 with col.error set.
// on_chunk (may be empty) is called after each chunk with its 1-based number.
template <typename F>
int compute(llama_context * ctx, const std::vector<llama_token> & tokens, int n_ctx, int n_batch, int max_chunks,
            bool add_bos, collector & col, F && on_chunk) {
    const llama_vocab * vocab    = llama_model_get_vocab(llama_get_model(ctx));
    int                 n_chunks = (int) (tokens.size() / (size_t) n_ctx);
    if (max_chunks > 0 && max_chunks < n_chunks) {
        n_chunks = max_chunks;
    }
    if (n_chunks < 1) {
        col.error = "the text has " + std::to_string(tokens.size()) + " tokens, fewer than one chunk of " +
                    std::to_string(n_ctx);
        return -1;
    }
    n_batch           = std::max(1, std::min(n_batch, n_ctx));
    llama_batch batch = llama_batch_init(n_batch, 0, 1);
    for (int c = 0; c < n_chunks; c++) {
        llama_memory_clear(llama_get_memory(ctx), true);
        for (int start = 0; start < n_ctx; start += n_batch) {
            const int n    = std::min(n_batch, n_ctx - start);
            batch.n_tokens = n;
            for (int k = 0; k < n; k++) {
                const int pos      = start + k;
                batch.token[k]     = add_bos && pos == 0 ? llama_vocab_bos(vocab) : tokens[(size_t) c * n_ctx + pos];
                batch.pos[k]       = pos;
                batch.n_seq_id[k]  = 1;
                batch.seq_id[k][0] = 0;
                batch.logits[k]    = 1;
            }
            if (llama_decode(ctx, batch) != 0) {
                if (col.error.empty()) {
                    col.error = std::string("decode failed: ") + llama_last_error();
                }
                llama_batch_free(batch);
                return -1;
            }
            if (!col.error.empty()) {
                llama_batch_free(batch);
                return -1;
            }
        }
        col.stats.chunk_count++;
        on_chunk(c + 1);
    }
    llama_batch_free(batch);
    return n_chunks;
}

}  // namespace imatrix
