// The hybrid memory of lfm2 (micro model: convolution, convolution, attention, convolution, attention
// layers), granitehybrid (Mamba-2 and attention layers), nemotron_h (Mamba-2, attention and
// feed-forward-only blocks, the last with neither K/V nor a state), falcon-h1 (every layer attends and
// runs a mamba2 mixer, so each is in both parts), lfm2moe (lfm2 with experts) and qwen3next (gated
// delta-net, attention, delta-net, attention: a conv state and a delta-net state matrix per sequence
// and layer), qwen35 and qwen35moe (qwen3next's mixer with split beta / alpha, two delta-net layers per
// attention layer), nemotron_h_moe (nemotron_h with experts in the feed-forward-only blocks), kimi-linear (KDA,
// KDA, latent attention, KDA: three short-conv states and a per-channel-decay delta-net state per KDA layer, the
// latent cache with V inside K on the attention layer): the KV cache of the
// attention layers and the recurrent states stay consistent. A sequence's logits do not depend on how its tokens were
// batched (one batch, chunks, token by token, two sequences in one batch); seq_cp copies both parts; seq_rm from the
// middle is refused by the recurrent part and leaves both usable; state save/restore (whole context and one sequence)
// continues identically; a corrupt state is refused and changes nothing.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "gguf.h"
#include "llama.h"
#include "test-common.h"
#include "test-llama-util.h"

using namespace llama_test_util;
using testing_util::data_path;

namespace {

void quiet_log(ggml_log_level, const char *, void *) {}

// The parameter: the micro model's name (models/synthetic/NAME-micro-f16.gguf).
struct HybridTest : ::testing::TestWithParam<std::string> {
    static std::map<std::string, model_ptr> models;  // loaded once per model
    int                                     n_vocab = 0;

    static void SetUpTestSuite() { llama_log_set(quiet_log, nullptr); }
    static void TearDownTestSuite() {
        models.clear();
        llama_log_set(nullptr, nullptr);
    }
    void SetUp() override {
        model_ptr & m = models[GetParam()];
        if (!m) {
            const std::string path = data_path("models/synthetic/" + GetParam() + "-micro-f16.gguf");
            m.reset(llama_model_load_from_file(path.c_str(), llama_model_default_params()));
        }
        ASSERT_NE(m, nullptr) << llama_last_error();
        n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(m.get()));
    }
    llama_model * model() const { return models.at(GetParam()).get(); }
    const char *  name() const { return GetParam().c_str(); }

    ctx_ptr make_ctx(uint32_t n_seq_max = 2, uint32_t n_ubatch = 64) const {
        llama_context_params cp = llama_context_default_params();
        cp.n_ctx                = 256;
        cp.n_batch              = 64;
        cp.n_ubatch             = n_ubatch;
        cp.n_seq_max            = n_seq_max;
        cp.n_threads            = 2;
        cp.n_threads_batch      = 2;
        ctx_ptr c(llama_init_from_model(model(), cp));
        EXPECT_NE(c, nullptr) << llama_last_error();
        return c;
    }

    // Decodes toks[from, to) of sequence seq at positions from.. in one batch; the logits of every token.
    std::vector<float> decode(llama_context * ctx, const std::vector<llama_token> & toks, size_t from, size_t to,
                              llama_seq_id seq = 0) const {
        owned_batch b((int) (to - from));
        for (size_t i = from; i < to; i++) {
            b.add(toks[i], (llama_pos) i, {seq});
        }
        EXPECT_EQ(llama_decode(ctx, b.b), 0) << llama_last_error();
        std::vector<float> rows;
        for (size_t i = 0; i < to - from; i++) {
            const float * r = llama_get_logits_ith(ctx, (int32_t) i);
            EXPECT_NE(r, nullptr);
            if (r) {
                rows.insert(rows.end(), r, r + n_vocab);
            }
        }
        return rows;
    }

    double worst(const std::vector<float> & a, const std::vector<float> & b) const {
        EXPECT_EQ(a.size(), b.size());
        double w = 0;
        for (size_t r = 0; r + n_vocab <= std::min(a.size(), b.size()); r += n_vocab) {
            w = std::max(w, max_err_rel_rms(a.data() + r, b.data() + r, n_vocab));
        }
        return w;
    }
    std::vector<float> rows(const std::vector<float> & all, size_t from, size_t to) const {
        return std::vector<float>(all.begin() + from * n_vocab, all.begin() + to * n_vocab);
    }
};

std::map<std::string, model_ptr> HybridTest::models;

// "The same logits": batched and token-by-token graphs differ in the order of sums (the attention
// layers also in how many cached cells they span)
constexpr double k_tight = 1e-3;

TEST_P(HybridTest, ModelSaysItIsHybrid) {
    EXPECT_TRUE(llama_model_is_hybrid(model()));
    EXPECT_FALSE(llama_model_is_recurrent(model()));
    EXPECT_FALSE(llama_model_is_hybrid(nullptr));
}

TEST_P(HybridTest, BatchChunksAndTokensGiveTheSameLogits) {
    const std::vector<llama_token> toks = synthetic_prompt(24);
    ctx_ptr                        one  = make_ctx();
    const std::vector<float>       ref  = decode(one.get(), toks, 0, toks.size());

    ctx_ptr            chunked = make_ctx();
    std::vector<float> got;
    for (size_t b = 0; b < toks.size(); b += 7) {
        const std::vector<float> r = decode(chunked.get(), toks, b, std::min(toks.size(), b + 7));
        got.insert(got.end(), r.begin(), r.end());
    }
    printf("%s micro: chunks of 7 vs one batch: %.2e of row RMS\n", name(), worst(got, ref));
    EXPECT_LT(worst(got, ref), k_tight);

    ctx_ptr single = make_ctx();
    got.clear();
    for (size_t i = 0; i < toks.size(); i++) {
        const std::vector<float> r = decode(single.get(), toks, i, i + 1);
        got.insert(got.end(), r.begin(), r.end());
    }
    printf("%s micro: token by token vs one batch: %.2e of row RMS\n", name(), worst(got, ref));
    EXPECT_LT(worst(got, ref), k_tight);

    ctx_ptr small = make_ctx(2, 5);  // ubatches of 5 inside one decode
    EXPECT_LT(worst(decode(small.get(), toks, 0, toks.size()), ref), k_tight);

    // both memories matter: without the history (a fresh context) the last token's logits move
    ctx_ptr                  fresh = make_ctx();
    const std::vector<float> last  = decode(fresh.get(), toks, toks.size() - 1, toks.size());
    const double             dep   = worst(last, rows(ref, toks.size() - 1, toks.size()));
    printf("%s micro: the last token without its history moves the logits by %.2e of row RMS\n", name(), dep);
    EXPECT_GT(dep, 0.05);
}

// Sequences in consecutive slots (0, 1) have their states read in place, others (2, 0) gathered by slot
// id (llm_graph_params::rs_slot0): both give each sequence's logits alone.
TEST_P(HybridTest, TwoSequencesInOneBatchEqualEachAlone) {
    const std::vector<llama_token> a = synthetic_prompt(12);
    std::vector<llama_token>       b = synthetic_prompt(20);
    b.erase(b.begin(), b.begin() + 8);
    ctx_ptr                  ca = make_ctx(), cb = make_ctx();
    const std::vector<float> ra = decode(ca.get(), a, 0, a.size(), 0);
    const std::vector<float> rb = decode(cb.get(), b, 0, b.size(), 1);
    std::vector<llama_token> a1 = a;  // a and one token more, decoded alone
    a1.push_back(b[0]);
    ctx_ptr                  c1 = make_ctx();
    const std::vector<float> r1 = rows(decode(c1.get(), a1, 0, a1.size(), 0), a.size(), a1.size());
    for (const std::pair<llama_seq_id, llama_seq_id> & ids : {std::make_pair(0, 1), std::make_pair(2, 0)}) {
        for (bool interleave : {false, true}) {
            SCOPED_TRACE(std::string(interleave ? "interleaved" : "runs") + ", sequences " + std::to_string(ids.first) +
                         " and " + std::to_string(ids.second));
            ctx_ptr     c = make_ctx(3);
            owned_batch batch(24);
            for (size_t i = 0; i < a.size(); i++) {
                batch.add(a[i], (llama_pos) i, {ids.first});
                if (interleave) {
                    batch.add(b[i], (llama_pos) i, {ids.second});
                }
            }
            for (size_t i = 0; !interleave && i < b.size(); i++) {
                batch.add(b[i], (llama_pos) i, {ids.second});
            }
            ASSERT_EQ(llama_decode(c.get(), batch.b), 0) << llama_last_error();
            std::vector<float> ga, gb;
            for (int i = 0; i < batch.b.n_tokens; i++) {
                const float * r = llama_get_logits_ith(c.get(), i);
                ASSERT_NE(r, nullptr);
                std::vector<float> & dst = batch.b.seq_id[i][0] == ids.first ? ga : gb;
                dst.insert(dst.end(), r, r + n_vocab);
            }
            EXPECT_LT(worst(ga, ra), k_tight);
            EXPECT_LT(worst(gb, rb), k_tight);
            // a next token of the first alone (one sequence: read in place)
            EXPECT_LT(worst(decode(c.get(), a1, a.size(), a1.size(), ids.first), r1), k_tight);
        }
    }
}

TEST_P(HybridTest, SeqCpCopiesBothParts) {
    const std::vector<llama_token> toks = synthetic_prompt(16);
    ctx_ptr                        ref  = make_ctx();
    const std::vector<float>       full = decode(ref.get(), toks, 0, toks.size());

    ctx_ptr c = make_ctx();
    decode(c.get(), toks, 0, 12, 0);
    llama_memory_t mem = llama_get_memory(c.get());
    llama_memory_seq_cp(mem, 0, 1, -1, -1);
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 1), 11);
    EXPECT_LT(worst(decode(c.get(), toks, 12, 16, 1), rows(full, 12, 16)), k_tight);
    EXPECT_LT(worst(decode(c.get(), toks, 12, 16, 0), rows(full, 12, 16)), k_tight);
}

TEST_P(HybridTest, SeqRmFromTheMiddleIsRefusedAndBothPartsStayUsable) {
    const std::vector<llama_token> toks = synthetic_prompt(16);
    ctx_ptr                        ref  = make_ctx();
    const std::vector<float>       full = decode(ref.get(), toks, 0, toks.size());

    ctx_ptr c = make_ctx();
    decode(c.get(), toks, 0, 10);
    llama_memory_t mem = llama_get_memory(c.get());
    EXPECT_FALSE(llama_memory_seq_rm(mem, 0, 5, -1));
    EXPECT_FALSE(llama_memory_seq_rm(mem, 0, 2, 6));
    EXPECT_FALSE(llama_memory_seq_rm(mem, -1, 3, -1));
    // the positions both parts hold: only the last one (a state has no earlier positions)
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 0), 9);
    EXPECT_EQ(llama_memory_seq_pos_min(mem, 0), 9);
    // nothing changed in either part: the continuation equals the uninterrupted run
    EXPECT_LT(worst(decode(c.get(), toks, 10, 16), rows(full, 10, 16)), k_tight);
    // a whole sequence goes from both parts; it then starts afresh
    EXPECT_TRUE(llama_memory_seq_rm(mem, 0, 16, -1));
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 0), 15);
    EXPECT_TRUE(llama_memory_seq_rm(mem, 0, -1, -1));
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 0), -1);
    EXPECT_EQ(llama_memory_seq_pos_min(mem, 0), -1);
    EXPECT_LT(worst(decode(c.get(), toks, 0, 16), full), k_tight);
    // seq_keep drops the other sequences from both parts
    decode(c.get(), toks, 0, 4, 1);
    llama_memory_seq_keep(mem, 1);
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 0), -1);
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 1), 3);
    EXPECT_LT(worst(decode(c.get(), toks, 4, 16, 1), rows(full, 4, 16)), k_tight);
}

TEST_P(HybridTest, StateSaveRestoreContinuesIdentically) {
    const std::vector<llama_token> toks = synthetic_prompt(16);
    ctx_ptr                        src  = make_ctx();
    decode(src.get(), toks, 0, 10, 0);
    decode(src.get(), toks, 0, 6, 1);
    std::vector<uint8_t> whole(llama_state_get_size(src.get()));
    ASSERT_EQ(llama_state_get_data(src.get(), whole.data(), whole.size()), whole.size());
    std::vector<uint8_t> seq0(llama_state_seq_get_size(src.get(), 0));
    ASSERT_EQ(llama_state_seq_get_data(src.get(), seq0.data(), seq0.size(), 0), seq0.size());
    const std::vector<float> want0 = decode(src.get(), toks, 10, 16, 0);
    const std::vector<float> want1 = decode(src.get(), toks, 6, 12, 1);

    ctx_ptr dst = make_ctx();
    ASSERT_EQ(llama_state_set_data(dst.get(), whole.data(), whole.size()), whole.size()) << llama_last_error();
    EXPECT_EQ(llama_memory_seq_pos_max(llama_get_memory(dst.get()), 0), 9);
    EXPECT_EQ(llama_memory_seq_pos_max(llama_get_memory(dst.get()), 1), 5);
    EXPECT_EQ(worst(decode(dst.get(), toks, 10, 16, 0), want0), 0.0);
    EXPECT_EQ(worst(decode(dst.get(), toks, 6, 12, 1), want1), 0.0);

    // one sequence, restored into another sequence id of a fresh context
    ctx_ptr one = make_ctx();
    ASSERT_EQ(llama_state_seq_set_data(one.get(), seq0.data(), seq0.size(), 1), seq0.size()) << llama_last_error();
    EXPECT_EQ(llama_memory_seq_pos_max(llama_get_memory(one.get()), 1), 9);
    EXPECT_EQ(llama_memory_seq_pos_max(llama_get_memory(one.get()), 0), -1);
    EXPECT_LT(worst(decode(one.get(), toks, 10, 16, 1), want0), k_tight);
}

TEST_P(HybridTest, CorruptStateIsRefusedAndChangesNothing) {
    const std::vector<llama_token> toks = synthetic_prompt(12);
    ctx_ptr                        src  = make_ctx();
    decode(src.get(), toks, 0, 8);
    std::vector<uint8_t> st(llama_state_get_size(src.get()));
    ASSERT_EQ(llama_state_get_data(src.get(), st.data(), st.size()), st.size());
    const std::vector<float> want = decode(src.get(), toks, 8, 12);

    ctx_ptr dst = make_ctx();
    decode(dst.get(), toks, 0, 8);
    std::vector<uint8_t> bad = st;
    bad[bad.size() - 40] ^= 0x5a;  // in the recurrent section's rows: the checksum catches it
    EXPECT_EQ(llama_state_set_data(dst.get(), bad.data(), bad.size()), 0u);
    EXPECT_NE(std::string(llama_last_error()), "");
    EXPECT_EQ(llama_state_set_data(dst.get(), st.data(), st.size() - 9), 0u);  // truncated
    EXPECT_EQ(llama_memory_seq_pos_max(llama_get_memory(dst.get()), 0), 7);
    EXPECT_EQ(worst(decode(dst.get(), toks, 8, 12), want), 0.0);

    // a context with fewer sequences than the state holds refuses it
    ctx_ptr narrow = make_ctx(1);
    decode(src.get(), toks, 0, 4, 1);
    std::vector<uint8_t> st2(llama_state_get_size(src.get()));
    ASSERT_EQ(llama_state_get_data(src.get(), st2.data(), st2.size()), st2.size());
    EXPECT_EQ(llama_state_set_data(narrow.get(), st2.data(), st2.size()), 0u);  // holds sequence 1
}

// An interrupted ubatch: its K/V cells are released and its sequences' states emptied, so decoding
// the sequence again gives the logits of a context that was never interrupted.
TEST_P(HybridTest, AbortedDecodeLeavesAConsistentMemory) {
    const std::vector<llama_token> toks = synthetic_prompt(12);
    ctx_ptr                        ref  = make_ctx();
    const std::vector<float>       want = decode(ref.get(), toks, 0, toks.size());

    ctx_ptr c = make_ctx();
    decode(c.get(), toks, 0, 6, 1);
    llama_set_abort_callback(
        c.get(), [](void *) { return true; }, nullptr);
    owned_batch b((int) toks.size());
    for (size_t i = 0; i < toks.size(); i++) {
        b.add(toks[i], (llama_pos) i, {0});
    }
    ASSERT_EQ(llama_decode(c.get(), b.b), 2);
    llama_memory_t mem = llama_get_memory(c.get());
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 0), -1);
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 1), 5);
    llama_set_abort_callback(c.get(), nullptr, nullptr);
    EXPECT_LT(worst(decode(c.get(), toks, 0, toks.size()), want), k_tight);
}

INSTANTIATE_TEST_SUITE_P(Hybrids, HybridTest,
                         ::testing::Values("lfm2", "granitehybrid", "nemotron_h", "falcon-h1", "lfm2moe", "qwen3next",
                                           "qwen35", "qwen35moe", "nemotron_h_moe", "kimi-linear"),
                         [](const ::testing::TestParamInfo<std::string> & i) {
                             return i.param == "falcon-h1"     ? std::string("falcon_h1")
                                    : i.param == "kimi-linear" ? std::string("kimi_linear")
                                                               : i.param;
                         });

// The micro model loaded with lfm2.attention.head_count_kv replaced by n values of `type`.
model_ptr load_with_kv_heads(gguf_type type, const std::vector<int32_t> & v) {
    return load_edited_copy(data_path("models/synthetic/lfm2-micro-f16.gguf"), [&](gguf_context * g) {
        std::vector<float> f(v.begin(), v.end());
        gguf_set_arr_data(g, "lfm2.attention.head_count_kv", type,
                          type == GGUF_TYPE_FLOAT32 ? (const void *) f.data() : (const void *) v.data(), v.size());
    });
}

// Per-layer KV head counts the model cannot use are refused at load with the reason.
TEST(HybridLoad, BadPerLayerKvHeadsAreRefused) {
    llama_log_set(quiet_log, nullptr);
    struct bad_case {
        gguf_type            type;
        std::vector<int32_t> v;
        const char *         why;
    };
    const bad_case cases[] = {
        {GGUF_TYPE_INT32, {0, 0, 2, 0}, "one per layer"},           // 4 values for 5 layers
        {GGUF_TYPE_INT32, {0, 0, 2, 0, 1}, "an earlier one"},       // attention layers disagree
        {GGUF_TYPE_INT32, {0, 0, 0, 0, 0}, "0 on every layer"},     // no attention layer
        {GGUF_TYPE_INT32, {0, 0, -2, 0, 2}, "out of range"},        // negative
        {GGUF_TYPE_FLOAT32, {0, 0, 2, 0, 2}, "expected integers"},  // not integers
    };
    for (const bad_case & c : cases) {
        SCOPED_TRACE(c.why);
        expect_refused(load_with_kv_heads(c.type, c.v), c.why);
    }
    // the same values as the file load (the helper itself changes nothing else)
    EXPECT_NE(load_with_kv_heads(GGUF_TYPE_INT32, {0, 0, 2, 0, 2}), nullptr) << llama_last_error();

    // a kernel width without a carried input
    expect_refused(load_with_override(data_path("models/synthetic/lfm2-micro-f16.gguf"), "lfm2.shortconv.l_cache", 1),
                   "shortconv.l_cache");
    llama_log_set(nullptr, nullptr);
}

// nemotron_h: per-layer feed-forward widths the model cannot use, and the forms it does not run
// (experts, NextN layers), are refused at load with the reason.
TEST(HybridLoad, NemotronHBadKeysAreRefused) {
    llama_log_set(quiet_log, nullptr);
    const std::string src = data_path("models/synthetic/nemotron_h-micro-f16.gguf");
    struct bad_case {
        std::vector<int32_t> ff;   // nemotron_h.feed_forward_length (empty: unchanged)
        const char *         key;  // a u32 key set to 2 (nullptr: none)
        const char *         why;
    };
    const bad_case cases[] = {
        {{0, 128, 0, 0, 0}, nullptr, "one per layer"},        // 5 values for 6 layers
        {{0, 128, 0, 0, 0, 64}, nullptr, "differs between"},  // two widths
        {{0, 128, 0, -1, 0, 128}, nullptr, "out of range"},   // negative
        {{}, "nemotron_h.expert_count", "experts"},           // the MoE form
        {{}, "nemotron_h.nextn_predict_layers", "NextN"},     // multi-token prediction layers
    };
    for (const bad_case & c : cases) {
        SCOPED_TRACE(c.why);
        expect_refused(load_edited_copy(src,
                                        [&](gguf_context * g) {
                                            if (!c.ff.empty()) {
                                                gguf_set_arr_data(g, "nemotron_h.feed_forward_length", GGUF_TYPE_INT32,
                                                                  c.ff.data(), c.ff.size());
                                            }
                                            if (c.key) {
                                                gguf_set_val_u32(g, c.key, 2);
                                                if (std::string(c.key) == "nemotron_h.expert_count") {
                                                    // a valid expert shape otherwise
                                                    gguf_set_val_u32(g, "nemotron_h.expert_used_count", 1);
                                                }
                                            }
                                        }),
                       c.why);
    }
    llama_log_set(nullptr, nullptr);
}

// lfm2moe and nemotron_h_moe routing keys they cannot use, and a falcon-h1 file without attention
// heads, are refused at load with the reason.
TEST(HybridLoad, BadRoutingAndHeadsAreRefused) {
    llama_log_set(quiet_log, nullptr);
    struct bad_key {
        const char * model;
        const char * key;
        int64_t      value;
        const char * reason;
    };
    const bad_key cases[] = {
        {"lfm2moe", "lfm2moe.leading_dense_block_count", 9, "leading_dense_block_count"},
        {"lfm2moe", "lfm2moe.expert_gating_func", 3, "expert_gating_func"},
        {"lfm2moe", "lfm2moe.expert_feed_forward_length", 0, "expert_feed_forward_length"},
        {"falcon-h1", "falcon-h1.ssm.group_count", 3, "ssm"},
        {"nemotron_h_moe", "nemotron_h_moe.expert_shared_feed_forward_length", 0, "bad expert sizes"},
        {"nemotron_h_moe", "nemotron_h_moe.moe_latent_size", 1 << 21, "bad expert sizes"},
        {"nemotron_h_moe", "nemotron_h_moe.expert_group_count", 2, "expert groups"},
        {"nemotron_h_moe", "nemotron_h_moe.nextn_predict_layers", 6, "leaves no decoder block"},
    };
    for (const bad_key & c : cases) {
        SCOPED_TRACE(c.key);
        const std::string path = data_path("models/synthetic/" + std::string(c.model) + "-micro-f16.gguf");
        expect_refused(load_with_override(path, c.key, c.value), c.reason);
    }
    // the files themselves load
    for (const char * name : {"lfm2moe", "falcon-h1", "nemotron_h_moe"}) {
        const std::string path = data_path("models/synthetic/" + std::string(name) + "-micro-f16.gguf");
        model_ptr         m(llama_model_load_from_file(path.c_str(), llama_model_default_params()));
        EXPECT_NE(m, nullptr) << name << ": " << llama_last_error();
    }
    llama_log_set(nullptr, nullptr);
}

// qwen3next's layer kinds and delta-net shape the model cannot run are refused at load with the reason.
TEST(HybridLoad, BadDeltaNetShapesAreRefused) {
    llama_log_set(quiet_log, nullptr);
    struct bad_case {
        const char * key;
        int64_t      value;
        const char * why;
    };
    const bad_case cases[] = {
        {"qwen3next.full_attention_interval", 1, "no delta-net layer"},  // every layer attends
        {"qwen3next.full_attention_interval", 9, "no attention layer"},  // 4 layers: none attends
        {"qwen3next.full_attention_interval", 0, "full_attention_interval is 0"},
        {"qwen3next.ssm.conv_kernel", 1, "invalid qwen3next delta-net shape"},     // nothing carried
        {"qwen3next.ssm.inner_size", 48, "invalid qwen3next delta-net shape"},     // not state x heads
        {"qwen3next.ssm.group_count", 3, "invalid qwen3next delta-net shape"},     // 4 heads over 3 groups
        {"qwen3next.ssm.time_step_rank", 0, "invalid qwen3next delta-net shape"},  // no heads
    };
    const std::string path = data_path("models/synthetic/qwen3next-micro-f16.gguf");
    for (const bad_case & c : cases) {
        SCOPED_TRACE(c.key);
        expect_refused(load_with_override(path, c.key, c.value), c.why);
    }
    model_ptr ok(llama_model_load_from_file(path.c_str(), llama_model_default_params()));
    EXPECT_NE(ok, nullptr) << llama_last_error();
    llama_log_set(nullptr, nullptr);
}

// kimi-linear's KDA and latent attention shapes and routing the model cannot run are refused at load with
// the reason.
TEST(HybridLoad, BadKimiLinearShapesAreRefused) {
    llama_log_set(quiet_log, nullptr);
    struct bad_case {
        const char * key;
        int64_t      value;
        const char * why;
    };
    const bad_case cases[] = {
        {"kimi-linear.kda.head_dim", 0, "invalid KDA shape"},
        {"kimi-linear.ssm.conv_kernel", 1, "invalid KDA shape"},                  // nothing carried
        {"kimi-linear.attention.q_lora_rank", 16, "compressed query"},            // attn_q_a / attn_q_b
        {"kimi-linear.attention.key_length_mla", 16, "latent attention shape"},   // no unrotated part
        {"kimi-linear.expert_gating_func", 3, "not softmax (1) or sigmoid (2)"},  // unknown scores
        {"kimi-linear.leading_dense_block_count", 5, "invalid experts"},          // more than the blocks
        {"kimi-linear.expert_group_count", 3, "invalid expert groups"},           // 8 experts in 3 groups
    };
    const std::string path = data_path("models/synthetic/kimi-linear-micro-f16.gguf");
    for (const bad_case & c : cases) {
        SCOPED_TRACE(c.key);
        expect_refused(load_with_override(path, c.key, c.value), c.why);
    }
    model_ptr ok(llama_model_load_from_file(path.c_str(), llama_model_default_params()));
    EXPECT_NE(ok, nullptr) << llama_last_error();
    llama_log_set(nullptr, nullptr);
}

// qwen35: rope sections that would leave a rotated pair unrotated for text, and NextN blocks that leave
// nothing to run, are refused with the reason; NextN blocks after the ones that run are skipped.
// nemotron_h_moe: the last nextn_predict_layers blocks (here Mamba-2 and experts of M E M * M E) are
// NextN blocks, in the file and not run; the per-layer arrays still cover them.
TEST(HybridLoad, NemotronHMoeNextNBlocksAreNotRun) {
    llama_log_set(quiet_log, nullptr);
    model_ptr m = load_with_override(data_path("models/synthetic/nemotron_h_moe-micro-f16.gguf"),
                                     "nemotron_h_moe.nextn_predict_layers", 2);
    ASSERT_NE(m, nullptr) << llama_last_error();
    EXPECT_EQ(llama_model_n_layer(m.get()), 4);
    EXPECT_EQ(llama_model_n_layer_nextn(m.get()), 2);
    ctx_ptr c(llama_init_from_model(m.get(), llama_context_default_params()));
    ASSERT_NE(c, nullptr) << llama_last_error();
    std::vector<llama_token> toks = {1, 9038, 2501, 263};
    EXPECT_EQ(llama_decode(c.get(), llama_batch_get_one(toks.data(), (int32_t) toks.size())), 0);
    llama_log_set(nullptr, nullptr);
}

TEST(HybridLoad, Qwen35SectionsAndNextN) {
    llama_log_set(quiet_log, nullptr);
    const std::string src = data_path("models/synthetic/qwen35-micro-f16.gguf");
    struct bad_case {
        std::vector<int32_t> sec;    // qwen35.rope.dimension_sections (empty: unchanged)
        uint32_t             nextn;  // qwen35.nextn_predict_layers (0: not set)
        const char *         why;
    };
    const bad_case cases[] = {
        {{1, 1, 1, 1}, 0, "leave rotary pair 3"},  // pair 3: sector 3 is the extra position's
        {{2, 0, 2, 0}, 0, "leave rotary pair 1"},  // sector 1 would take the (empty) height section
        {{0, 0, 0, 4}, 0, "no text section"},     {{2, 1, 1}, 0, "elements"},  // three sections
        {{}, 6, "leaves no decoder block"},                                    // 6 of the 6 blocks
    };
    for (const bad_case & c : cases) {
        SCOPED_TRACE(c.why);
        expect_refused(load_edited_copy(src,
                                        [&](gguf_context * g) {
                                            if (!c.sec.empty()) {
                                                gguf_set_arr_data(g, "qwen35.rope.dimension_sections", GGUF_TYPE_INT32,
                                                                  c.sec.data(), c.sec.size());
                                            }
                                            if (c.nextn > 0) {
                                                gguf_set_val_u32(g, "qwen35.nextn_predict_layers", c.nextn);
                                            }
                                        }),
                       c.why);
    }

    // the last 3 of the 6 blocks as NextN blocks: delta-net, delta-net, attention run, the others not
    model_ptr m = load_with_override(src, "qwen35.nextn_predict_layers", 3);
    ASSERT_NE(m, nullptr) << llama_last_error();
    EXPECT_EQ(llama_model_n_layer(m.get()), 3);
    EXPECT_EQ(llama_model_n_layer_nextn(m.get()), 3);
    ctx_ptr c(llama_init_from_model(m.get(), llama_context_default_params()));
    ASSERT_NE(c, nullptr) << llama_last_error();
    std::vector<llama_token> toks = {1, 9038, 2501, 263};
    EXPECT_EQ(llama_decode(c.get(), llama_batch_get_one(toks.data(), (int32_t) toks.size())), 0);
    llama_log_set(nullptr, nullptr);
}

}  // namespace
