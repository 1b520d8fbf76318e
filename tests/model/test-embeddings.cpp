// Embeddings and encoders: pooled vectors (MEAN, CLS, LAST, RANK) equal what the test computes
// from the per-token rows of a pooling-NONE context, for a decoder (llama micro) and a synthetic
// BERT; several sequences in one batch; the BERT per-token rows match a plain double-precision
// forward pass written here from the weights in the file; llama_encode errors.
#include "../../examples/gguf-synth/gguf-synth.h"
#include "gguf.h"
#include "llama.h"
#include "test-common.h"
#include "test-llama-util.h"
#include "test-synth-model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

using llama_test_util::ctx_ptr;
using llama_test_util::model_ptr;
using llama_test_util::owned_batch;
using llama_test_util::temp_model;
using testing_util::data_path;

namespace {

void quiet_log(ggml_log_level, const char *, void *) {}

// A small BERT with F32 weights and a spread of weights large enough that attention patterns matter.
synth::params bert_params(int64_t n_cls_out = 0) {
    synth::params p;
    p.arch       = "bert";
    p.n_embd     = 32;
    p.n_layer    = 2;
    p.n_ff       = 64;
    p.n_head     = 4;
    p.n_head_kv  = 4;
    p.n_ctx      = 64;
    p.type       = GGML_TYPE_F32;
    p.std        = 0.25f;
    p.n_cls_out  = n_cls_out;
    p.vocab_path = data_path("vocab/ggml-vocab-bert-bge.gguf");
    return p;
}

model_ptr load(const std::string & path) {
    llama_model_params mp = llama_model_default_params();
    return model_ptr(llama_model_load_from_file(path.c_str(), mp));
}

ctx_ptr make_ctx(llama_model * m, enum llama_pooling_type pooling, bool exact = true, uint32_t n_ubatch = 64) {
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx                = 256;
    cp.n_batch              = 64;
    cp.n_ubatch             = n_ubatch;
    cp.n_seq_max            = 4;
    cp.embeddings           = true;
    cp.pooling_type         = pooling;
    if (exact) {
        // F32 cache and the plain attention path: only float rounding separates us from the reference
        cp.type_k          = GGML_TYPE_F32;
        cp.type_v          = GGML_TYPE_F32;
        cp.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_DISABLED;
    }
    return ctx_ptr(llama_init_from_model(m, cp));
}

// Three sequences in one batch, tokens interleaved: (token, pos, seq).
struct tok {
    llama_token  t;
    llama_pos    p;
    llama_seq_id s;
};

std::vector<tok> three_seqs(const std::vector<std::vector<llama_token>> & seqs) {
    std::vector<tok> out;
    size_t           n_max = 0;
    for (auto & s : seqs) {
        n_max = std::max(n_max, s.size());
    }
    for (size_t i = 0; i < n_max; i++) {
        for (size_t s = 0; s < seqs.size(); s++) {
            if (i < seqs[s].size()) {
                out.push_back({seqs[s][i], (llama_pos) i, (llama_seq_id) s});
            }
        }
    }
    return out;
}

void fill(owned_batch & b, const std::vector<tok> & toks) {
    for (const tok & x : toks) {
        b.add(x.t, x.p, {x.s}, true);
    }
}

// ---- the double-precision BERT reference ---------------------------------------------------------

struct bert_ref {
    gguf_context *                             g = nullptr;
    int64_t                                    E = 0, H = 0, L = 0, F = 0;
    double                                     eps = 0;
    std::map<std::string, std::vector<double>> w;

    explicit bert_ref(const std::string & path) {
        gguf_init_params ip = {false};  // read the data too
        g                   = gguf_init_from_file(path.c_str(), ip);
        EXPECT_NE(g, nullptr);
        if (!g) {
            return;
        }
        auto u32 = [&](const char * k) { return (int64_t) gguf_get_val_u32(g, gguf_find_key(g, k)); };
        E        = u32("bert.embedding_length");
        H        = u32("bert.attention.head_count");
        L        = u32("bert.block_count");
        F        = u32("bert.feed_forward_length");
        eps      = gguf_get_val_f32(g, gguf_find_key(g, "bert.attention.layer_norm_epsilon"));
    }
    ~bert_ref() { gguf_free(g); }

    // The weight as doubles (F32 files only), row-major: row o is output o.
    const std::vector<double> & get(const std::string & name) {
        auto it = w.find(name);
        if (it != w.end()) {
            return it->second;
        }
        const int64_t id = gguf_find_tensor(g, name.c_str());
        EXPECT_GE(id, 0) << name;
        std::vector<double> v;
        if (id >= 0) {
            EXPECT_EQ(gguf_get_tensor_type(g, id), GGML_TYPE_F32) << name;
            const float * d = (const float *) gguf_get_tensor_data(g, id);
            v.assign(d, d + gguf_get_tensor_size(g, id) / sizeof(float));
        }
        return w[name] = v;
    }

    std::vector<double> linear(const std::string & name, const std::vector<double> & x, bool bias = true) {
        const std::vector<double> & W    = get(name + ".weight");
        const size_t                n_in = x.size(), n_out = W.size() / n_in;
        std::vector<double>         y(n_out, 0.0);
        for (size_t o = 0; o < n_out; o++) {
            double acc = 0;
            for (size_t i = 0; i < n_in; i++) {
                acc += W[o * n_in + i] * x[i];
            }
            y[o] = acc;
        }
        if (bias) {
            const std::vector<double> & b = get(name + ".bias");
            for (size_t o = 0; o < n_out; o++) {
                y[o] += b[o];
            }
        }
        return y;
    }

    std::vector<double> layer_norm(const std::string & name, std::vector<double> x) {
        double mean = 0, var = 0;
        for (double v : x) {
            mean += v;
        }
        mean /= (double) x.size();
        for (double v : x) {
            var += (v - mean) * (v - mean);
        }
        var /= (double) x.size();
        const std::vector<double> & g_ = get(name + ".weight");
        const std::vector<double> & b_ = get(name + ".bias");
        for (size_t i = 0; i < x.size(); i++) {
            x[i] = (x[i] - mean) / std::sqrt(var + eps) * g_[i] + b_[i];
        }
        return x;
    }

    // Final hidden states of one sequence (positions 0..n-1).
    std::vector<std::vector<double>> forward(const std::vector<llama_token> & toks) {
        const size_t                     n = toks.size();
        const int64_t                    D = E / H;
        std::vector<std::vector<double>> x(n);
        const std::vector<double> &      te = get("token_embd.weight");
        const std::vector<double> &      ty = get("token_types.weight");
        const std::vector<double> &      pe = get("position_embd.weight");
        for (size_t t = 0; t < n; t++) {
            x[t].resize(E);
            for (int64_t i = 0; i < E; i++) {
                x[t][i] = te[toks[t] * E + i] + ty[i] + pe[t * E + i];
            }
            x[t] = layer_norm("token_embd_norm", x[t]);
        }
        for (int64_t il = 0; il < L; il++) {
            const std::string                b = "blk." + std::to_string(il) + ".";
            std::vector<std::vector<double>> q(n), k(n), v(n), h(n);
            for (size_t t = 0; t < n; t++) {
                q[t] = linear(b + "attn_q", x[t]);
                k[t] = linear(b + "attn_k", x[t]);
                v[t] = linear(b + "attn_v", x[t]);
            }
            for (size_t t = 0; t < n; t++) {
                std::vector<double> att(E, 0.0);
                for (int64_t hd = 0; hd < H; hd++) {
                    std::vector<double> s(n);
                    double              mx = -1e300;
                    for (size_t j = 0; j < n; j++) {  // bidirectional: every token of the sequence
                        double dot = 0;
                        for (int64_t d = 0; d < D; d++) {
                            dot += q[t][hd * D + d] * k[j][hd * D + d];
                        }
                        s[j] = dot / std::sqrt((double) D);
                        mx   = std::max(mx, s[j]);
                    }
                    double sum = 0;
                    for (double & e : s) {
                        e = std::exp(e - mx);
                        sum += e;
                    }
                    for (size_t j = 0; j < n; j++) {
                        for (int64_t d = 0; d < D; d++) {
                            att[hd * D + d] += s[j] / sum * v[j][hd * D + d];
                        }
                    }
                }
                std::vector<double> o = linear(b + "attn_output", att);
                for (int64_t i = 0; i < E; i++) {
                    o[i] += x[t][i];
                }
                h[t]                  = layer_norm(b + "attn_output_norm", o);
                std::vector<double> u = linear(b + "ffn_up", h[t]);
                for (double & z : u) {  // GELU, tanh form (what ggml_gelu computes)
                    z = 0.5 * z * (1.0 + std::tanh(0.7978845608028654 * (z + 0.044715 * z * z * z)));
                }
                std::vector<double> f = linear(b + "ffn_down", u);
                for (int64_t i = 0; i < E; i++) {
                    f[i] += h[t][i];
                }
                h[t] = layer_norm(b + "layer_output_norm", f);
            }
            x = h;
        }
        return x;
    }
};

const std::vector<std::vector<llama_token>> k_seqs = {
    {101, 7592, 2088, 1010, 2023, 2003, 1037, 3231, 102},
    {101, 2460, 102},
    {101, 1996, 4248, 2829, 4419, 14523, 102},
};

}  // namespace

class Embeddings : public ::testing::Test {
protected:
    void SetUp() override { llama_log_set(quiet_log, nullptr); }
};

// Per-token rows of a batch of three interleaved sequences match the double-precision forward pass
// of each sequence on its own (so sequences do not see each other).
TEST_F(Embeddings, BertRowsMatchDoubleForward) {
    temp_model tm(bert_params());
    model_ptr  m = load(tm.path);
    ASSERT_TRUE(m);
    ctx_ptr ctx = make_ctx(m.get(), LLAMA_POOLING_TYPE_NONE);
    ASSERT_TRUE(ctx);
    EXPECT_EQ(llama_pooling_type(ctx.get()), LLAMA_POOLING_TYPE_NONE);

    const std::vector<tok> toks = three_seqs(k_seqs);
    owned_batch            b((int) toks.size());
    fill(b, toks);
    ASSERT_EQ(llama_encode(ctx.get(), b.b), 0) << llama_last_error();

    bert_ref                                      ref(tm.path);
    std::vector<std::vector<std::vector<double>>> want;
    for (auto & s : k_seqs) {
        want.push_back(ref.forward(s));
    }
    const int n_embd  = llama_model_n_embd(m.get());
    double    max_err = 0;
    for (size_t i = 0; i < toks.size(); i++) {
        const float * row = llama_get_embeddings_ith(ctx.get(), (int32_t) i);
        ASSERT_NE(row, nullptr);
        const std::vector<double> & w = want[toks[i].s][toks[i].p];
        for (int k = 0; k < n_embd; k++) {
            max_err = std::max(max_err, std::fabs(row[k] - w[k]));
        }
    }
    // rows are layer-normed (values O(1)); float rounding through 2 layers stays well below 1e-4
    EXPECT_LT(max_err, 1e-4);

    // llama_decode on an encoder does the same; the default (F16 cache, flash attention) is close
    ctx_ptr ctx2 = make_ctx(m.get(), LLAMA_POOLING_TYPE_NONE, false);
    ASSERT_EQ(llama_decode(ctx2.get(), b.b), 0) << llama_last_error();
    double max_err2 = 0;
    for (size_t i = 0; i < toks.size(); i++) {
        const float *               row = llama_get_embeddings_ith(ctx2.get(), (int32_t) i);
        const std::vector<double> & w   = want[toks[i].s][toks[i].p];
        for (int k = 0; k < n_embd; k++) {
            max_err2 = std::max(max_err2, std::fabs(row[k] - w[k]));
        }
    }
    EXPECT_LT(max_err2, 2e-2);
    // and a second call starts afresh (nothing carried over from the first)
    ASSERT_EQ(llama_encode(ctx.get(), b.b), 0) << llama_last_error();
    const float * r0 = llama_get_embeddings_ith(ctx.get(), 0);
    EXPECT_NEAR(r0[0], want[0][0][0], 1e-4);
}

// Pooled vectors equal the mean / first / last of the rows a pooling-NONE context gives.
// n_ubatch: of the pooled contexts (a decoder's sequences may span ubatches).
void check_pooling(llama_model * m, const std::vector<tok> & toks, int n_seq, bool encoder, uint32_t n_ubatch = 64) {
    const int n_embd = llama_model_n_embd(m);
    ctx_ptr   none   = make_ctx(m, LLAMA_POOLING_TYPE_NONE);
    ASSERT_TRUE(none);
    owned_batch b((int) toks.size());
    fill(b, toks);
    ASSERT_EQ(encoder ? llama_encode(none.get(), b.b) : llama_decode(none.get(), b.b), 0) << llama_last_error();
    EXPECT_EQ(llama_get_embeddings_seq(none.get(), 0), nullptr);  // NONE: no pooled vectors
    std::vector<std::vector<float>> rows;
    for (size_t i = 0; i < toks.size(); i++) {
        const float * r = llama_get_embeddings_ith(none.get(), (int32_t) i);
        ASSERT_NE(r, nullptr);
        rows.emplace_back(r, r + n_embd);
    }
    for (enum llama_pooling_type pt : {LLAMA_POOLING_TYPE_MEAN, LLAMA_POOLING_TYPE_CLS, LLAMA_POOLING_TYPE_LAST}) {
        ctx_ptr ctx = make_ctx(m, pt, true, n_ubatch);
        ASSERT_TRUE(ctx);
        EXPECT_EQ(llama_pooling_type(ctx.get()), pt);
        ASSERT_EQ(encoder ? llama_encode(ctx.get(), b.b) : llama_decode(ctx.get(), b.b), 0) << llama_last_error();
        for (int s = 0; s < n_seq; s++) {
            std::vector<double> want(n_embd, 0.0);
            int                 n = 0, first = -1, last = -1;
            for (size_t i = 0; i < toks.size(); i++) {
                if (toks[i].s != s) {
                    continue;
                }
                for (int k = 0; k < n_embd; k++) {
                    want[k] += rows[i][k];
                }
                n++;
                first = first < 0 ? (int) i : first;
                last  = (int) i;
            }
            ASSERT_GT(n, 0);
            for (int k = 0; k < n_embd; k++) {
                want[k] = pt == LLAMA_POOLING_TYPE_MEAN  ? want[k] / n
                          : pt == LLAMA_POOLING_TYPE_CLS ? rows[first][k]
                                                         : rows[last][k];
            }
            const float * got = llama_get_embeddings_seq(ctx.get(), s);
            ASSERT_NE(got, nullptr) << "pooling " << pt << " seq " << s;
            for (int k = 0; k < n_embd; k++) {
                EXPECT_NEAR(got[k], want[k], 1e-5) << "pooling " << pt << " seq " << s << " dim " << k;
            }
        }
        EXPECT_EQ(llama_get_embeddings_seq(ctx.get(), n_seq), nullptr);  // not in the batch
    }
}

TEST_F(Embeddings, BertPoolingMatchesRows) {
    temp_model tm(bert_params());
    model_ptr  m = load(tm.path);
    ASSERT_TRUE(m);
    check_pooling(m.get(), three_seqs(k_seqs), 3, true);
    // UNSPECIFIED takes the model's (the generator writes CLS)
    ctx_ptr ctx = make_ctx(m.get(), LLAMA_POOLING_TYPE_UNSPECIFIED);
    ASSERT_TRUE(ctx);
    EXPECT_EQ(llama_pooling_type(ctx.get()), LLAMA_POOLING_TYPE_CLS);
}

TEST_F(Embeddings, DecoderPoolingMatchesRows) {
    model_ptr m = load(data_path("models/synthetic/llama-micro-f16.gguf"));
    ASSERT_TRUE(m);
    const std::vector<tok> toks = three_seqs({{5, 17, 99, 42, 7}, {300, 301}, {11, 12, 13, 14, 15, 16, 17}});
    check_pooling(m.get(), toks, 3, false);
    check_pooling(m.get(), toks, 3, false, 4);  // pooled over ubatches of 4 tokens
}

// nomic-bert (fused QKV, NEOX RoPE, SwiGLU): runs as an encoder and pools its rows; RoPE tells
// positions apart (it has no position embeddings).
TEST_F(Embeddings, NomicBertPooling) {
    synth::params p = bert_params();
    p.arch          = "nomic-bert";
    temp_model tm(p);
    model_ptr  m = load(tm.path);
    ASSERT_TRUE(m);
    check_pooling(m.get(), three_seqs(k_seqs), 3, true);
    // [a, b] and [b, a]: the same bag of tokens, so only positions can tell a's rows apart
    ctx_ptr                  ctx = make_ctx(m.get(), LLAMA_POOLING_TYPE_NONE);
    std::vector<llama_token> ab = {2088, 7592}, ba = {7592, 2088};
    ASSERT_EQ(llama_encode(ctx.get(), llama_batch_get_one(ab.data(), 2)), 0) << llama_last_error();
    const int          n_embd = llama_model_n_embd(m.get());
    std::vector<float> a0(llama_get_embeddings_ith(ctx.get(), 0), llama_get_embeddings_ith(ctx.get(), 0) + n_embd);
    ASSERT_EQ(llama_encode(ctx.get(), llama_batch_get_one(ba.data(), 2)), 0) << llama_last_error();
    const float * a1 = llama_get_embeddings_ith(ctx.get(), 1);
    double        d  = 0;
    for (int k = 0; k < n_embd; k++) {
        ASSERT_TRUE(std::isfinite(a1[k]));
        d = std::max(d, (double) std::fabs(a0[k] - a1[k]));
    }
    EXPECT_GT(d, 1e-4);
}

// Pooling RANK: the CLS row through tanh(cls) and cls.output, computed here from the file's weights.
TEST_F(Embeddings, BertRankHead) {
    temp_model tm(bert_params(2));
    model_ptr  m = load(tm.path);
    ASSERT_TRUE(m);
    EXPECT_EQ(llama_model_n_cls_out(m.get()), 2u);
    const int n_embd = llama_model_n_embd(m.get());
    ctx_ptr   none   = make_ctx(m.get(), LLAMA_POOLING_TYPE_NONE);
    ctx_ptr   rank   = make_ctx(m.get(), LLAMA_POOLING_TYPE_UNSPECIFIED);  // the file says RANK
    ASSERT_TRUE(none && rank);
    EXPECT_EQ(llama_pooling_type(rank.get()), LLAMA_POOLING_TYPE_RANK);
    const std::vector<tok> toks = three_seqs(k_seqs);
    owned_batch            b((int) toks.size());
    fill(b, toks);
    ASSERT_EQ(llama_encode(none.get(), b.b), 0);
    ASSERT_EQ(llama_encode(rank.get(), b.b), 0);
    bert_ref ref(tm.path);
    for (int s = 0; s < 3; s++) {
        const float * cls_row = llama_get_embeddings_ith(none.get(), s);  // pos 0 of seq s is batch index s
        ASSERT_EQ(toks[s].p, 0);
        std::vector<double> x(cls_row, cls_row + n_embd);
        x = ref.linear("cls", x);
        for (double & z : x) {
            z = std::tanh(z);
        }
        x                 = ref.linear("cls.output", x);
        const float * got = llama_get_embeddings_seq(rank.get(), s);
        ASSERT_NE(got, nullptr);
        for (int k = 0; k < 2; k++) {
            EXPECT_NEAR(got[k], x[k], 1e-4) << "seq " << s;
        }
    }
    // a model without a classifier head cannot pool RANK
    temp_model plain(bert_params());
    model_ptr  m2 = load(plain.path);
    ASSERT_TRUE(m2);
    EXPECT_EQ(llama_model_n_cls_out(m2.get()), 0u);
    EXPECT_FALSE(make_ctx(m2.get(), LLAMA_POOLING_TYPE_RANK));
}

// Bidirectional attention on a decoder (llama_set_causal_attn): the first token's row changes.
TEST_F(Embeddings, CausalAttnSwitch) {
    model_ptr m = load(data_path("models/synthetic/llama-micro-f16.gguf"));
    ASSERT_TRUE(m);
    const int                n_embd = llama_model_n_embd(m.get());
    std::vector<llama_token> t      = {5, 17, 99, 42, 7};
    auto                     run    = [&](bool causal) {
        ctx_ptr ctx = make_ctx(m.get(), LLAMA_POOLING_TYPE_NONE);
        llama_set_causal_attn(ctx.get(), causal);
        EXPECT_EQ(llama_decode(ctx.get(), llama_batch_get_one(t.data(), (int32_t) t.size())), 0);
        std::vector<float> first(llama_get_embeddings_ith(ctx.get(), 0),
                                                        llama_get_embeddings_ith(ctx.get(), 0) + n_embd);
        std::vector<float> last(llama_get_embeddings_ith(ctx.get(), -1),
                                                       llama_get_embeddings_ith(ctx.get(), -1) + n_embd);
        return std::make_pair(first, last);
    };
    auto   c = run(true), nc = run(false), c2 = run(true);
    double d_first = 0, d_again = 0;
    for (int k = 0; k < n_embd; k++) {
        d_first = std::max(d_first, (double) std::fabs(c.first[k] - nc.first[k]));
        d_again =
            std::max(d_again, (double) std::fabs(c.first[k] - c2.first[k]) + std::fabs(c.second[k] - c2.second[k]));
    }
    EXPECT_GT(d_first, 1e-4);  // the first token now sees the later ones
    EXPECT_EQ(d_again, 0.0);   // and causal again is causal
}

TEST_F(Embeddings, EncodeErrors) {
    // a decoder-only model has no encoder
    model_ptr dec = load(data_path("models/synthetic/llama-micro-f16.gguf"));
    ASSERT_TRUE(dec);
    ctx_ptr                  dctx = make_ctx(dec.get(), LLAMA_POOLING_TYPE_NONE);
    std::vector<llama_token> t    = {5, 17, 99};
    EXPECT_EQ(llama_encode(dctx.get(), llama_batch_get_one(t.data(), 3)), -1);
    EXPECT_NE(std::string(llama_last_error()).find("no encoder"), std::string::npos) << llama_last_error();
    EXPECT_EQ(llama_encode(nullptr, llama_batch_get_one(t.data(), 3)), -3);

    temp_model tm(bert_params());
    model_ptr  m = load(tm.path);
    ASSERT_TRUE(m);
    ctx_ptr ctx = make_ctx(m.get(), LLAMA_POOLING_TYPE_MEAN);
    ASSERT_TRUE(ctx);
    const int32_t            n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(m.get()));
    std::vector<llama_token> bad     = {101, n_vocab, 102};
    EXPECT_EQ(llama_encode(ctx.get(), llama_batch_get_one(bad.data(), 3)), -1);
    bad[1] = -5;
    EXPECT_EQ(llama_encode(ctx.get(), llama_batch_get_one(bad.data(), 3)), -1);
    // longer than the model's 64 positions, and longer than n_ubatch
    std::vector<llama_token> longer(65, 1000);
    EXPECT_EQ(llama_encode(ctx.get(), llama_batch_get_one(longer.data(), 65)), -1);
    owned_batch far(1);
    far.add(1000, 64, {0});
    EXPECT_EQ(llama_encode(ctx.get(), far.b), -1);
    EXPECT_EQ(llama_encode(ctx.get(), llama_batch_get_one(bad.data(), 0)), -1);
    // still usable; an encoder has no logits
    std::vector<llama_token> good = {101, 2460, 102};
    ASSERT_EQ(llama_encode(ctx.get(), llama_batch_get_one(good.data(), 3)), 0) << llama_last_error();
    EXPECT_NE(llama_get_embeddings_seq(ctx.get(), 0), nullptr);
    EXPECT_EQ(llama_get_logits_ith(ctx.get(), 0), nullptr);
    EXPECT_EQ(llama_get_logits(ctx.get()), nullptr);
}
