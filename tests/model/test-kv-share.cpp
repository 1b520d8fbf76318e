// KV sharing (gemma3n): the layers from hparams.n_layer_kv_from_start on attend over the K/V of an
// earlier layer of their kind and have no cells of their own. On the gemma3n micro model (25 layers,
// every 5th global): layers 20-23 read layer 18's cells, layer 24 layer 19's; the KV cache (full or
// with a window cache) allocates 20 layers, the state image holds 20, a saved sequence restores to the
// same logits; a file whose sharing layers would read a layer of the other kind is refused, and so is
// a batch of embeddings (the per-layer inputs need token ids).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "../../examples/gguf-synth/gguf-synth.h"
#include "ggml.h"
#include "llama-context.h"
#include "llama-kv-cache.h"
#include "llama-model.h"
#include "llama.h"
#include "test-common.h"
#include "test-llama-suite.h"
#include "test-llama-util.h"
#include "test-synth-model.h"

using namespace llama_test_util;
using testing_util::data_path;

namespace {

class KvShare : public quiet_llama_suite<> {
protected:
    static model_ptr load() {
        const std::string path = data_path("models/synthetic/gemma3n-micro-f16.gguf");
        return model_ptr(llama_model_load_from_file(path.c_str(), llama_model_default_params()));
    }
    static ctx_ptr make_ctx(llama_model * m, bool swa_full) {
        llama_context_params cp = llama_context_default_params();
        cp.n_ctx                = 256;
        cp.n_batch              = 256;
        cp.n_threads            = 2;
        cp.n_threads_batch      = 2;
        try {
            return ctx_ptr(new llama_context(*m, cp, [&](llama_cparams & c) { c.swa_full = swa_full; }));
        } catch (const std::exception & e) {
            ADD_FAILURE() << e.what();
            return nullptr;
        }
    }
};

std::vector<llama_token> prompt(int n) {
    std::vector<llama_token> t;
    for (int i = 0; i < n; i++) {
        t.push_back(3 + (i * 131 + 7) % 250);
    }
    return t;
}

}  // namespace

TEST_F(KvShare, SharingLayersReadTheirKindsLastLayer) {
    model_ptr m = load();
    ASSERT_NE(m, nullptr) << llama_last_error();
    const llama_hparams & hp = m->hparams;
    ASSERT_EQ(hp.n_layer, 25u);
    for (int il = 0; il < 25; il++) {
        const int want = il < 20 ? il : il == 24 ? 19 : 18;
        EXPECT_EQ(hp.kv_layer(il), want) << il;
        EXPECT_EQ(hp.has_own_kv(il), il < 20) << il;
        EXPECT_TRUE(hp.has_kv(il)) << il;  // every layer attends (and has its q/k/v weights)
        EXPECT_EQ(hp.is_swa(il), hp.is_swa(hp.kv_layer(il))) << il;
    }
    EXPECT_EQ(hp.n_layer_kv(), 20u);
}

TEST_F(KvShare, CacheHoldsOnlyTheOwnLayers) {
    model_ptr m = load();
    ASSERT_NE(m, nullptr) << llama_last_error();
    for (bool swa_full : {true, false}) {
        ctx_ptr ctx = make_ctx(m.get(), swa_full);
        ASSERT_NE(ctx, nullptr);
        const llama_kv_cache * kv = ctx->kv_cache();
        ASSERT_NE(kv, nullptr);
        size_t bytes = 0;
        for (int il = 0; il < 25; il++) {
            ggml_tensor * k = kv->k_layer(il);
            ggml_tensor * v = kv->v_layer(il);
            EXPECT_EQ(k != nullptr, il < 20) << il << " swa_full " << swa_full;
            EXPECT_EQ(v != nullptr, il < 20) << il << " swa_full " << swa_full;
            bytes += k ? ggml_nbytes(k) + ggml_nbytes(v) : 0;
        }
        EXPECT_GT(bytes, 0u);
        EXPECT_GE(kv->total_size(), bytes);
        EXPECT_LT(kv->total_size(), bytes + bytes / 19);  // no room for a 21st layer
    }
}

TEST_F(KvShare, SequenceStateRestoresTheSameLogits) {
    model_ptr m = load();
    ASSERT_NE(m, nullptr) << llama_last_error();
    const int                nv   = llama_vocab_n_tokens(llama_model_get_vocab(m.get()));
    std::vector<llama_token> p    = prompt(40);  // past the 8-token window
    llama_token              next = 77;

    ctx_ptr a = make_ctx(m.get(), true);
    ASSERT_NE(a, nullptr);
    ASSERT_EQ(llama_decode(a.get(), llama_batch_get_one(p.data(), (int) p.size())), 0) << llama_last_error();
    std::vector<uint8_t> state(llama_state_seq_get_size(a.get(), 0));
    ASSERT_GT(state.size(), 0u);
    ASSERT_EQ(llama_state_seq_get_data(a.get(), state.data(), state.size(), 0), state.size());
    ASSERT_EQ(llama_decode(a.get(), llama_batch_get_one(&next, 1)), 0);
    const std::vector<float> want(llama_get_logits_ith(a.get(), -1), llama_get_logits_ith(a.get(), -1) + nv);

    ctx_ptr b = make_ctx(m.get(), true);
    ASSERT_NE(b, nullptr);
    ASSERT_EQ(llama_state_seq_set_data(b.get(), state.data(), state.size(), 0), state.size()) << llama_last_error();
    ASSERT_EQ(llama_decode(b.get(), llama_batch_get_one(&next, 1)), 0) << llama_last_error();
    const float * got = llama_get_logits_ith(b.get(), -1);
    for (int i = 0; i < nv; i++) {
        ASSERT_EQ(got[i], want[i]) << i;
    }
}

TEST_F(KvShare, OtherKindSourceIsRefused) {
    synth::params p;
    ASSERT_TRUE(synth::apply_micro_model("gemma3n", p));
    p.n_vocab = 320;
    // layer 18 global and 19 sliding-window: layers 20-23 (sliding window) would read the global layer
    // 19's cells
    p.swa_flags[18] = false;
    p.swa_flags[19] = true;
    temp_model    bad(p);
    llama_model * m = llama_model_load_from_file(bad.path.c_str(), llama_model_default_params());
    EXPECT_EQ(m, nullptr);
    llama_model_free(m);
    EXPECT_NE(std::string(llama_last_error()).find("shares the KV cache of layer"), std::string::npos)
        << llama_last_error();
}

TEST_F(KvShare, EmbeddingsInputIsRefused) {
    model_ptr m = load();
    ASSERT_NE(m, nullptr) << llama_last_error();
    ctx_ptr ctx = make_ctx(m.get(), true);
    ASSERT_NE(ctx, nullptr);
    // gemma3n's per-layer inputs are looked up by token id: a batch of embeddings is an error, not a crash
    llama_batch b = llama_batch_init(1, llama_model_n_embd(m.get()), 1);
    std::fill(b.embd, b.embd + llama_model_n_embd(m.get()), 0.5f);
    b.n_tokens     = 1;
    b.pos[0]       = 0;
    b.n_seq_id[0]  = 1;
    b.seq_id[0][0] = 0;
    b.logits[0]    = 1;
    EXPECT_LT(llama_decode(ctx.get(), b), 0);
    EXPECT_NE(std::string(llama_last_error()).find("embeddings input"), std::string::npos) << llama_last_error();
    llama_batch_free(b);
    // the context still decodes tokens
    llama_token t = 5;
    EXPECT_EQ(llama_decode(ctx.get(), llama_batch_get_one(&t, 1)), 0) << llama_last_error();
}
