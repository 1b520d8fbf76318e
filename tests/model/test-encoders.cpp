// The encoders jina-bert-v2 (ALiBi, fused GEGLU, cls-only reranker head) and modern-bert (pre-norm,
// RoPE, alternating global and symmetric sliding-window layers, GeGLU, mean-pooled reranker head)
// against upstream llama.cpp (4df29be4): tiny synthetic F32 models written here with llama-gguf-synth's
// generator, and upstream's per-token rows, MEAN-pooled vectors and RANK scores of them in
// tests/data/reference (the commands are in the README there). Plus checks that the position signals
// matter for the input used (ALiBi order, the window) and the load errors of malformed files.
#include "../../examples/gguf-synth/gguf-synth.h"
#include "gguf.h"
#include "llama.h"
#include "test-common.h"
#include "test-llama-util.h"
#include "test-synth-model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

using llama_test_util::ctx_ptr;
using llama_test_util::model_ptr;
using llama_test_util::owned_batch;
using llama_test_util::temp_model;
using testing_util::data_path;

namespace {

void quiet_log(ggml_log_level, const char *, void *) {}

// The token ids of the reference runs (the built-in 512-token vocab).
const std::vector<llama_token> k_tokens = {1, 17, 42, 99, 3, 64, 127, 8, 200, 311, 45, 7, 150, 90, 501, 33};

// Same as the llama-gguf-synth commands in tests/data/reference/README.md.
synth::params jina_params(int64_t n_cls_out = 0) {
    synth::params p;
    p.arch      = "jina-bert-v2";
    p.n_embd    = 32;
    p.n_layer   = 2;
    p.n_ff      = 64;
    p.n_head    = 4;
    p.n_head_kv = 4;
    p.n_ctx     = 64;
    p.type      = GGML_TYPE_F32;
    // upstream's CPU GELU rounds its input and output to F16 (a lookup table): with larger weights that
    // rounding alone grows towards 1e-3 through the blocks (1.5e-3 for modern-bert at std 0.25)
    p.std       = 0.2f;
    p.n_cls_out = n_cls_out;
    p.pooling   = n_cls_out > 0 ? -1 : 1;
    return p;
}

// Embedding models with dense output projections (the README's commands): EmbeddingGemma's shape
// (6 layers: five local with a centred window, one global; dense_2 to 48, dense_3 back to 32) and
// LFM2-ColBERT's (lfm2 with dense_2 to 16, its bias; bidirectional: attention.causal false).
synth::params gemma_embedding_params() {
    synth::params p = jina_params();
    p.arch          = "gemma-embedding";
    p.n_layer       = 6;
    p.n_swa         = 4;  // |i - j| <= 2 on the local layers
    p.n_dense_out   = 48;
    p.pooling       = 1;
    return p;
}

synth::params lfm2_colbert_params(bool bidirectional) {
    synth::params p = jina_params();
    p.arch          = "lfm2";
    p.n_layer       = 3;
    p.n_head_kv     = 2;
    p.conv_flags    = {true, false, true};  // conv, attention, conv
    p.n_dense_out   = 16;
    p.extras        = !bidirectional;  // dense_2's bias on one of the two
    p.causal        = bidirectional ? 0 : -1;
    p.pooling       = 0;
    return p;
}

synth::params modern_bert_params(int64_t n_cls_out = 0) {
    synth::params p = jina_params(n_cls_out);
    p.arch          = "modern-bert";
    p.n_layer       = 3;  // global, local, local
    p.n_swa         = 4;  // |i - j| <= 2
    p.rope_base     = 160000.0f;
    return p;
}

model_ptr load(const std::string & path) {
    llama_model_params mp = llama_model_default_params();
    return model_ptr(llama_model_load_from_file(path.c_str(), mp));
}

// window_cache: a context large enough that the sliding-window layers get their own window-sized
// cache (swa_full off)
ctx_ptr make_ctx(llama_model * m, enum llama_pooling_type pooling, bool flash = false, bool window_cache = false) {
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx                = window_cache ? 1024 : 64;
    cp.swa_full             = !window_cache;
    cp.n_batch              = 64;
    cp.n_ubatch             = 64;
    cp.embeddings           = true;
    cp.pooling_type         = pooling;
    cp.type_k               = GGML_TYPE_F32;
    cp.type_v               = GGML_TYPE_F32;
    cp.flash_attn_type      = flash ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED;
    return ctx_ptr(llama_init_from_model(m, cp));
}

std::vector<float> read_f32(const std::string & rel) {
    return testing_util::read_f32(data_path(rel));
}

// One sequence through a context of this pooling: the rows (NONE) or the pooled vector.
std::vector<float> run(llama_model * m, enum llama_pooling_type pooling, std::vector<llama_token> toks,
                       bool flash = false, bool window_cache = false) {
    ctx_ptr ctx = make_ctx(m, pooling, flash, window_cache);
    EXPECT_TRUE(ctx);
    if (!ctx) {
        return {};
    }
    owned_batch b((int) toks.size(), 1);
    for (size_t i = 0; i < toks.size(); i++) {
        b.add(toks[i], (llama_pos) i, {0}, true);
    }
    // llama_decode: an encoder's decode is its encode, and the embedding decoders (lfm2) need it
    EXPECT_EQ(llama_decode(ctx.get(), b.b), 0) << llama_last_error();
    const int n_embd = llama_model_n_embd_out(m);
    if (pooling == LLAMA_POOLING_TYPE_NONE) {
        std::vector<float> rows;
        for (size_t i = 0; i < toks.size(); i++) {
            const float * r = llama_get_embeddings_ith(ctx.get(), (int32_t) i);
            EXPECT_NE(r, nullptr);
            if (r) {
                rows.insert(rows.end(), r, r + n_embd);
            }
        }
        return rows;
    }
    const int     n = pooling == LLAMA_POOLING_TYPE_RANK ? (int) llama_model_n_cls_out(m) : n_embd;
    const float * v = llama_get_embeddings_seq(ctx.get(), 0);
    EXPECT_NE(v, nullptr);
    return v ? std::vector<float>(v, v + n) : std::vector<float>();
}

// The largest difference over vectors of `width` values, relative to the vector's largest value.
double max_rel_diff(const std::vector<float> & got, const std::vector<float> & ref, size_t width) {
    EXPECT_EQ(got.size(), ref.size());
    double worst = 0;
    for (size_t r = 0; r + width <= std::min(got.size(), ref.size()); r += width) {
        double scale = 1e-6, d = 0;
        for (size_t k = r; k < r + width; k++) {
            scale = std::max(scale, (double) std::fabs(ref[k]));
            d     = std::max(d, (double) std::fabs(got[k] - ref[k]));
            EXPECT_TRUE(std::isfinite(got[k]));
        }
        worst = std::max(worst, d / scale);
    }
    return worst;
}

class Encoders : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        llama_backend_init();
        llama_log_set(quiet_log, nullptr);
    }
};

// Rows and MEAN (and RANK with p_rank) equal upstream's within 1e-3 of each vector's scale.
void check_against_upstream(const synth::params & p, const synth::params * p_rank, const std::string & stem) {
    temp_model tm(p, stem + ".gguf");
    model_ptr  m = load(tm.path);
    ASSERT_TRUE(m) << llama_last_error();
    const size_t n_embd = (size_t) llama_model_n_embd_out(m.get());

    const std::vector<float> rows_ref = read_f32("reference/" + stem + ".tok.f32");
    ASSERT_EQ(rows_ref.size(), k_tokens.size() * n_embd) << "missing or short reference";
    EXPECT_LT(max_rel_diff(run(m.get(), LLAMA_POOLING_TYPE_NONE, k_tokens), rows_ref, n_embd), 1e-3);

    const std::vector<float> mean_ref = read_f32("reference/" + stem + ".mean.f32");
    ASSERT_EQ(mean_ref.size(), n_embd);
    EXPECT_LT(max_rel_diff(run(m.get(), LLAMA_POOLING_TYPE_MEAN, k_tokens), mean_ref, n_embd), 1e-3);

    if (!p_rank) {
        return;
    }
    temp_model rk(*p_rank, stem + "-rank.gguf");
    model_ptr  mr = load(rk.path);
    ASSERT_TRUE(mr) << llama_last_error();
    EXPECT_EQ(llama_model_n_cls_out(mr.get()), 1u);
    const std::vector<float> rank_ref = read_f32("reference/" + stem + "-rank.rank.f32");
    ASSERT_EQ(rank_ref.size(), 1u);
    ctx_ptr dflt = make_ctx(mr.get(), LLAMA_POOLING_TYPE_UNSPECIFIED);
    ASSERT_TRUE(dflt);
    EXPECT_EQ(llama_pooling_type(dflt.get()), LLAMA_POOLING_TYPE_RANK);  // the file's pooling
    const std::vector<float> score = run(mr.get(), LLAMA_POOLING_TYPE_RANK, k_tokens);
    ASSERT_EQ(score.size(), 1u);
    EXPECT_NEAR(score[0], rank_ref[0], 1e-3 * std::max(1.0f, std::fabs(rank_ref[0])));
}

TEST_F(Encoders, JinaBertV2MatchesUpstream) {
    const synth::params rank = jina_params(1);
    check_against_upstream(jina_params(), &rank, "jina-bert-v2-synth");
}

// The optional weights: q/k layer norms, attn_norm_2, a separate ffn_gate (GELU(gate) * up with an n_ff
// wide ffn_up), the ffn_up bias.
TEST_F(Encoders, JinaBertV2ExtrasMatchUpstream) {
    synth::params p = jina_params();
    p.extras        = true;
    p.std           = 0.15f;  // the F16 GELU table again: 1.1e-3 at 0.2
    check_against_upstream(p, nullptr, "jina-bert-v2-extras-synth");
}

TEST_F(Encoders, ModernBertMatchesUpstream) {
    const synth::params rank = modern_bert_params(1);
    check_against_upstream(modern_bert_params(), &rank, "modern-bert-synth");
}

// ALiBi is jina-bert-v2's only position signal: without it the mean of the rows would not depend on
// the token order (bidirectional attention is permutation-equivariant). A rotation, not a reversal:
// reversing keeps every distance |i - j| and so is a symmetry of ALiBi.
TEST_F(Encoders, JinaBertV2AlibiOrdersTokens) {
    temp_model tm(jina_params(), "jina-order.gguf");
    model_ptr  m = load(tm.path);
    ASSERT_TRUE(m);
    std::vector<llama_token> rot = k_tokens;
    std::rotate(rot.begin(), rot.begin() + 5, rot.end());
    const std::vector<float> a = run(m.get(), LLAMA_POOLING_TYPE_MEAN, k_tokens);
    const std::vector<float> b = run(m.get(), LLAMA_POOLING_TYPE_MEAN, rot);
    EXPECT_GT(max_rel_diff(a, b, a.size()), 1e-2);
}

// With a window cache of its own for the local layers, modern-bert computes the same.
TEST_F(Encoders, ModernBertWindowCache) {
    temp_model tm(modern_bert_params(), "modern-bert-wc.gguf");
    model_ptr  m = load(tm.path);
    ASSERT_TRUE(m);
    const size_t             n_embd   = (size_t) llama_model_n_embd(m.get());
    const std::vector<float> rows_ref = read_f32("reference/modern-bert-synth.tok.f32");
    ASSERT_EQ(rows_ref.size(), k_tokens.size() * n_embd);
    EXPECT_LT(max_rel_diff(run(m.get(), LLAMA_POOLING_TYPE_NONE, k_tokens, false, true), rows_ref, n_embd), 1e-3);
}

// The same weights with a window that covers the whole input: the reference tells them apart, so the
// comparison above depends on the window being applied.
TEST_F(Encoders, ModernBertWindowMatters) {
    synth::params p = modern_bert_params();
    p.n_swa         = 64;
    temp_model tm(p, "modern-bert-wide.gguf");
    model_ptr  m = load(tm.path);
    ASSERT_TRUE(m);
    const size_t             n_embd   = (size_t) llama_model_n_embd(m.get());
    const std::vector<float> rows_ref = read_f32("reference/modern-bert-synth.tok.f32");
    ASSERT_EQ(rows_ref.size(), k_tokens.size() * n_embd);
    EXPECT_GT(max_rel_diff(run(m.get(), LLAMA_POOLING_TYPE_NONE, k_tokens), rows_ref, n_embd), 1e-2);
}

// The flash-attention path takes the same ALiBi bias and window mask.
TEST_F(Encoders, FlashAttentionMatchesUpstream) {
    for (const synth::params & p : {jina_params(), modern_bert_params()}) {
        const std::string stem = p.arch == "modern-bert" ? "modern-bert-synth" : "jina-bert-v2-synth";
        SCOPED_TRACE(stem);
        temp_model tm(p, stem + "-fa.gguf");
        model_ptr  m = load(tm.path);
        ASSERT_TRUE(m);
        const size_t             n_embd   = (size_t) llama_model_n_embd(m.get());
        const std::vector<float> rows_ref = read_f32("reference/" + stem + ".tok.f32");
        ASSERT_EQ(rows_ref.size(), k_tokens.size() * n_embd);
        EXPECT_LT(max_rel_diff(run(m.get(), LLAMA_POOLING_TYPE_NONE, k_tokens, true), rows_ref, n_embd), 1e-3);
    }
}

// A copy of the file at `path` with one string or u32 key changed.
std::string with_key(const std::string & path, const std::string & stem, const char * key, const char * str,
                     uint32_t u32 = 0) {
    gguf_init_params ip = {false};  // read the data too
    gguf_context *   g  = gguf_init_from_file(path.c_str(), ip);
    EXPECT_NE(g, nullptr);
    const std::string out = testing_util::write_temp_file(stem, {});
    if (g) {
        if (str) {
            gguf_set_val_str(g, key, str);
        } else {
            gguf_set_val_u32(g, key, u32);
        }
        EXPECT_TRUE(gguf_write_to_file(g, out.c_str(), false));
        gguf_free(g);
    }
    return out;
}

// Malformed files are load errors: an activation the fused feed-forward cannot run, and a jina
// ffn_up that is neither n_ff nor 2 n_ff wide.
TEST_F(Encoders, BadFilesAreErrors) {
    temp_model        mb(modern_bert_params(), "modern-bert-bad.gguf");
    const std::string relu = with_key(mb.path, "modern-bert-relu.gguf", "modern-bert.hidden_activation", "relu");
    EXPECT_FALSE(load(relu));
    EXPECT_NE(std::string(llama_last_error()).find("hidden_activation"), std::string::npos) << llama_last_error();
    const std::string silu = with_key(mb.path, "modern-bert-silu.gguf", "modern-bert.hidden_activation", "silu");
    EXPECT_TRUE(load(silu));  // SwiGLU: runs
    remove(relu.c_str());
    remove(silu.c_str());

    temp_model        jb(jina_params(), "jina-bad.gguf");
    const std::string ff = with_key(jb.path, "jina-ff.gguf", "jina-bert-v2.feed_forward_length", nullptr, 48);
    EXPECT_FALSE(load(ff));
    remove(ff.c_str());
}

// ---- embedding models with dense output projections ------------------------------------------

// Rows and MEAN equal upstream's: the projections run (the rows are their width) on the encoder
// (gemma-embedding) and on a decoder asked for embeddings (lfm2), causal and bidirectional.
TEST_F(Encoders, DenseProjectionsMatchUpstream) {
    check_against_upstream(gemma_embedding_params(), nullptr, "gemma-embedding-synth");
    check_against_upstream(lfm2_colbert_params(false), nullptr, "lfm2-colbert-synth");
    check_against_upstream(lfm2_colbert_params(true), nullptr, "lfm2-bidir-synth");
}

// llama_model_n_embd_out is the projections' width; the same model without them gives n_embd, and
// CLS / LAST pooling pick the projected rows (the projection commutes with picking a row).
TEST_F(Encoders, DenseProjectionWidth) {
    temp_model tc(lfm2_colbert_params(false), "lfm2-colbert-w.gguf");
    model_ptr  m = load(tc.path);
    ASSERT_TRUE(m) << llama_last_error();
    EXPECT_EQ(llama_model_n_embd(m.get()), 32);
    EXPECT_EQ(llama_model_n_embd_out(m.get()), 16);
    const std::vector<float> rows = run(m.get(), LLAMA_POOLING_TYPE_NONE, k_tokens);
    ASSERT_EQ(rows.size(), k_tokens.size() * 16);
    const std::vector<float> last = run(m.get(), LLAMA_POOLING_TYPE_LAST, k_tokens);
    ASSERT_EQ(last.size(), 16u);
    EXPECT_LT(max_rel_diff(last, std::vector<float>(rows.end() - 16, rows.end()), 16), 1e-5);
    const std::vector<float> cls = run(m.get(), LLAMA_POOLING_TYPE_CLS, k_tokens);
    ASSERT_EQ(cls.size(), 16u);
    EXPECT_LT(max_rel_diff(cls, std::vector<float>(rows.begin(), rows.begin() + 16), 16), 1e-5);

    synth::params plain = lfm2_colbert_params(false);
    plain.n_dense_out   = 0;
    temp_model tp(plain, "lfm2-plain-w.gguf");
    model_ptr  mp = load(tp.path);
    ASSERT_TRUE(mp) << llama_last_error();
    EXPECT_EQ(llama_model_n_embd_out(mp.get()), 32);
    EXPECT_EQ(run(mp.get(), LLAMA_POOLING_TYPE_NONE, k_tokens).size(), k_tokens.size() * 32);

    temp_model ge(gemma_embedding_params(), "gemma-embedding-w.gguf");
    model_ptr  mg = load(ge.path);
    ASSERT_TRUE(mg) << llama_last_error();
    EXPECT_EQ(llama_model_n_embd_out(mg.get()), 32);  // dense_3 brings it back to n_embd

    // lfm2moe takes the same projection (its layout has the rows): 16-wide rows, finite
    synth::params moe = lfm2_colbert_params(false);
    moe.arch          = "lfm2moe";
    moe.n_expert = 4, moe.n_expert_used = 2, moe.n_ff_exp = 32, moe.expert_gating = 2, moe.n_layer_dense_lead = 1;
    temp_model tm(moe, "lfm2moe-colbert-w.gguf");
    model_ptr  mm = load(tm.path);
    ASSERT_TRUE(mm) << llama_last_error();
    EXPECT_EQ(llama_model_n_embd_out(mm.get()), 16);
    EXPECT_EQ(run(mm.get(), LLAMA_POOLING_TYPE_NONE, k_tokens).size(), k_tokens.size() * 16);
}

// The bidirectional reference tells the two conv / attention directions apart: the same file read as
// causal is far from it, so the comparison above depends on the centred window and the mask.
TEST_F(Encoders, Lfm2BidirectionalMatters) {
    temp_model        tb(lfm2_colbert_params(true), "lfm2-bidir-m.gguf");
    const std::string causal = testing_util::write_temp_file("lfm2-bidir-causal.gguf", {});
    gguf_init_params  ip     = {false};  // read the data too
    gguf_context *    g      = gguf_init_from_file(tb.path.c_str(), ip);
    ASSERT_NE(g, nullptr);
    gguf_set_val_bool(g, "lfm2.attention.causal", true);
    ASSERT_TRUE(gguf_write_to_file(g, causal.c_str(), false));
    gguf_free(g);
    model_ptr m = load(causal);
    ASSERT_TRUE(m) << llama_last_error();
    const std::vector<float> rows_ref = read_f32("reference/lfm2-bidir-synth.tok.f32");
    ASSERT_EQ(rows_ref.size(), k_tokens.size() * 16);
    EXPECT_GT(max_rel_diff(run(m.get(), LLAMA_POOLING_TYPE_NONE, k_tokens), rows_ref, 16), 1e-2);
    remove(causal.c_str());
}

// Width keys that disagree with the weights are load errors; a bidirectional lfm2 needs an odd
// convolution width.
TEST_F(Encoders, DenseProjectionBadFilesAreErrors) {
    temp_model        tc(lfm2_colbert_params(false), "lfm2-colbert-bad.gguf");
    const std::string w = with_key(tc.path, "lfm2-colbert-w17.gguf", "lfm2.embedding_length_out", nullptr, 17);
    EXPECT_FALSE(load(w));
    EXPECT_NE(std::string(llama_last_error()).find("embedding_length_out"), std::string::npos) << llama_last_error();
    remove(w.c_str());

    temp_model        ge(gemma_embedding_params(), "gemma-embedding-bad.gguf");
    const std::string f = with_key(ge.path, "gemma-embedding-f.gguf", "gemma-embedding.dense_3_feat_in", nullptr, 40);
    EXPECT_FALSE(load(f));
    EXPECT_NE(std::string(llama_last_error()).find("dense_3_feat_in"), std::string::npos) << llama_last_error();
    remove(f.c_str());

    synth::params even = lfm2_colbert_params(true);
    even.shortconv_l   = 4;
    temp_model te(even, "lfm2-bidir-even.gguf");
    EXPECT_FALSE(load(te.path));
    EXPECT_NE(std::string(llama_last_error()).find("odd"), std::string::npos) << llama_last_error();
}

// A state saved with projected embedding rows loads back into a fresh context with the same rows.
TEST_F(Encoders, DenseProjectionStateRoundTrip) {
    temp_model tc(lfm2_colbert_params(false), "lfm2-colbert-st.gguf");
    model_ptr  m = load(tc.path);
    ASSERT_TRUE(m) << llama_last_error();
    ctx_ptr a = make_ctx(m.get(), LLAMA_POOLING_TYPE_NONE);
    ASSERT_TRUE(a);
    owned_batch b((int) k_tokens.size(), 1);
    for (size_t i = 0; i < k_tokens.size(); i++) {
        b.add(k_tokens[i], (llama_pos) i, {0}, true);
    }
    ASSERT_EQ(llama_decode(a.get(), b.b), 0) << llama_last_error();
    std::vector<uint8_t> img(llama_state_get_size(a.get()));
    ASSERT_EQ(llama_state_get_data(a.get(), img.data(), img.size()), img.size());
    ctx_ptr c = make_ctx(m.get(), LLAMA_POOLING_TYPE_NONE);
    ASSERT_TRUE(c);
    ASSERT_EQ(llama_state_set_data(c.get(), img.data(), img.size()), img.size()) << llama_last_error();
    const float * ra = llama_get_embeddings_ith(a.get(), 5);
    const float * rc = llama_get_embeddings_ith(c.get(), 5);
    ASSERT_NE(ra, nullptr);
    ASSERT_NE(rc, nullptr);
    EXPECT_EQ(memcmp(ra, rc, 16 * sizeof(float)), 0);
}

}  // namespace
