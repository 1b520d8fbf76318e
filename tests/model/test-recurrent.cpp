// The recurrent memory of state-space models (mamba2 micro model): a sequence's state does not
// depend on how its tokens were batched (one batch, chunks, token by token, several sequences in one
// batch); seq_cp copies a state; seq_rm removes a whole state or nothing and refuses to cut one;
// state save/restore (whole context and one sequence) continues identically; corrupt states and
// sequence ids past n_seq_max are refused with the documented errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "ggml.h"
#include "gguf.h"
#include "llama.h"
#include "test-common.h"
#include "test-llama-util.h"

using namespace llama_test_util;
using testing_util::data_path;

namespace {

void quiet_log(ggml_log_level, const char *, void *) {}

const char * k_model = "models/synthetic/mamba2-micro-f16.gguf";

struct RecurrentTest : ::testing::Test {
    static model_ptr model;
    static int       n_vocab;

    static void SetUpTestSuite() {
        llama_log_set(quiet_log, nullptr);
        model.reset(llama_model_load_from_file(data_path(k_model).c_str(), llama_model_default_params()));
        ASSERT_NE(model, nullptr) << llama_last_error();
        n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model.get()));
    }
    static void TearDownTestSuite() {
        model.reset();
        llama_log_set(nullptr, nullptr);
    }

    ctx_ptr make_ctx(uint32_t n_seq_max = 2, uint32_t n_ubatch = 64) const {
        llama_context_params cp = llama_context_default_params();
        cp.n_ctx                = 256;
        cp.n_batch              = 64;
        cp.n_ubatch             = n_ubatch;
        cp.n_seq_max            = n_seq_max;
        cp.n_threads            = 2;
        cp.n_threads_batch      = 2;
        ctx_ptr c(llama_init_from_model(model.get(), cp));
        EXPECT_NE(c, nullptr) << llama_last_error();
        return c;
    }

    // Decodes toks[from, to) of sequence seq at positions from.. in one batch; returns the logits
    // rows of every token.
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

    // The largest difference between two stacks of rows, relative to the RMS of b's rows.
    double worst(const std::vector<float> & a, const std::vector<float> & b) const {
        EXPECT_EQ(a.size(), b.size());
        double w = 0;
        for (size_t r = 0; r + n_vocab <= std::min(a.size(), b.size()); r += n_vocab) {
            w = std::max(w, max_err_rel_rms(a.data() + r, b.data() + r, n_vocab));
        }
        return w;
    }
};

model_ptr RecurrentTest::model;
int       RecurrentTest::n_vocab = 0;

// The tolerance of "the same logits": the batched and token-by-token graphs differ only in the order
// of a few matrix-product sums (F32).
constexpr double k_tight = 1e-4;

TEST_F(RecurrentTest, ModelSaysItIsRecurrent) {
    EXPECT_TRUE(llama_model_is_recurrent(model.get()));
    EXPECT_FALSE(llama_model_is_hybrid(model.get()));
    EXPECT_FALSE(llama_model_is_recurrent(nullptr));
    model_ptr plain(
        llama_model_load_from_file(data_path("models/stories260K.gguf").c_str(), llama_model_default_params()));
    ASSERT_NE(plain, nullptr);
    EXPECT_FALSE(llama_model_is_recurrent(plain.get()));
}

TEST_F(RecurrentTest, BatchChunksAndTokensGiveTheSameLogits) {
    const std::vector<llama_token> toks = synthetic_prompt(24);
    ctx_ptr                        one  = make_ctx();
    const std::vector<float>       ref  = decode(one.get(), toks, 0, toks.size());

    ctx_ptr            chunked = make_ctx();
    std::vector<float> got;
    for (size_t b = 0; b < toks.size(); b += 7) {
        const std::vector<float> r = decode(chunked.get(), toks, b, std::min(toks.size(), b + 7));
        got.insert(got.end(), r.begin(), r.end());
    }
    printf("mamba2 micro: chunks of 7 vs one batch: %.2e of row RMS\n", worst(got, ref));
    EXPECT_LT(worst(got, ref), k_tight);

    ctx_ptr single = make_ctx();
    got.clear();
    for (size_t i = 0; i < toks.size(); i++) {
        const std::vector<float> r = decode(single.get(), toks, i, i + 1);
        got.insert(got.end(), r.begin(), r.end());
    }
    printf("mamba2 micro: token by token vs one batch: %.2e of row RMS\n", worst(got, ref));
    EXPECT_LT(worst(got, ref), k_tight);

    // ubatches of 5 inside one batch: the state carries across the graph runs of one decode
    ctx_ptr small = make_ctx(2, 5);
    EXPECT_LT(worst(decode(small.get(), toks, 0, toks.size()), ref), k_tight);

    // and the state matters: the last token alone (from a zero state) gives other logits
    ctx_ptr                  fresh = make_ctx();
    const std::vector<float> last  = decode(fresh.get(), {toks.back()}, 0, 1);
    const std::vector<float> ref_last(ref.end() - n_vocab, ref.end());
    const double             dep = worst(last, ref_last);
    printf("mamba2 micro: the last token without its state moves the logits by %.2e of row RMS\n", dep);
    EXPECT_GT(dep, 0.05);
}

TEST_F(RecurrentTest, SequencesInOneBatchEqualEachAlone) {
    const std::vector<llama_token> a = synthetic_prompt(12);
    std::vector<llama_token>       b = synthetic_prompt(20);
    b.erase(b.begin(), b.begin() + 8);  // another 12 tokens
    ctx_ptr                  ca = make_ctx(), cb = make_ctx();
    const std::vector<float> ra = decode(ca.get(), a, 0, a.size(), 0);
    const std::vector<float> rb = decode(cb.get(), b, 0, b.size(), 1);

    // runs of each sequence, then interleaved tokens (one per sequence per ubatch)
    for (bool interleave : {false, true}) {
        SCOPED_TRACE(interleave ? "interleaved" : "runs");
        ctx_ptr     c = make_ctx();
        owned_batch batch(24);
        if (interleave) {
            for (size_t i = 0; i < a.size(); i++) {
                batch.add(a[i], (llama_pos) i, {0});
                batch.add(b[i], (llama_pos) i, {1});
            }
        } else {
            for (size_t i = 0; i < a.size(); i++) {
                batch.add(a[i], (llama_pos) i, {0});
            }
            for (size_t i = 0; i < b.size(); i++) {
                batch.add(b[i], (llama_pos) i, {1});
            }
        }
        ASSERT_EQ(llama_decode(c.get(), batch.b), 0) << llama_last_error();
        std::vector<float> ga, gb;
        for (int i = 0; i < batch.b.n_tokens; i++) {
            const float * r = llama_get_logits_ith(c.get(), i);
            ASSERT_NE(r, nullptr);
            (batch.b.seq_id[i][0] == 0 ? ga : gb).insert((batch.b.seq_id[i][0] == 0 ? ga : gb).end(), r, r + n_vocab);
        }
        EXPECT_LT(worst(ga, ra), k_tight);
        EXPECT_LT(worst(gb, rb), k_tight);
        EXPECT_EQ(llama_memory_seq_pos_max(llama_get_memory(c.get()), 0), (llama_pos) a.size() - 1);
        EXPECT_EQ(llama_memory_seq_pos_max(llama_get_memory(c.get()), 1), (llama_pos) b.size() - 1);
    }
}

TEST_F(RecurrentTest, SeqCpThenBothContinueEqually) {
    const std::vector<llama_token> toks = synthetic_prompt(16);
    ctx_ptr                        ref  = make_ctx();
    const std::vector<float>       full = decode(ref.get(), toks, 0, toks.size());
    const std::vector<float>       tail(full.end() - 4 * n_vocab, full.end());

    ctx_ptr c = make_ctx();
    decode(c.get(), toks, 0, 12, 0);
    llama_memory_t mem = llama_get_memory(c.get());
    llama_memory_seq_cp(mem, 0, 1, -1, -1);
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 1), 11);
    EXPECT_LT(worst(decode(c.get(), toks, 12, 16, 1), tail), k_tight);
    EXPECT_LT(worst(decode(c.get(), toks, 12, 16, 0), tail), k_tight);
}

TEST_F(RecurrentTest, SeqRmRemovesWholeStatesOnly) {
    const std::vector<llama_token> toks = synthetic_prompt(16);
    ctx_ptr                        ref  = make_ctx();
    const std::vector<float>       full = decode(ref.get(), toks, 0, toks.size());

    ctx_ptr c = make_ctx();
    decode(c.get(), toks, 0, 10);
    llama_memory_t mem = llama_get_memory(c.get());
    // cutting the history (from the middle, or a tail that starts inside it) is refused, unchanged
    EXPECT_FALSE(llama_memory_seq_rm(mem, 0, 5, -1));
    EXPECT_FALSE(llama_memory_seq_rm(mem, 0, 2, 6));
    EXPECT_FALSE(llama_memory_seq_rm(mem, -1, 3, -1));
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 0), 9);
    EXPECT_EQ(llama_memory_seq_pos_min(mem, 0), 9);
    EXPECT_LT(worst(decode(c.get(), toks, 10, 16), std::vector<float>(full.begin() + 10 * n_vocab, full.end())),
              k_tight);
    // a tail past the end removes nothing; the whole sequence empties it (and the next one starts afresh)
    EXPECT_TRUE(llama_memory_seq_rm(mem, 0, 16, -1));
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 0), 15);
    EXPECT_TRUE(llama_memory_seq_rm(mem, 0, -1, -1));
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 0), -1);
    EXPECT_LT(worst(decode(c.get(), toks, 0, 16), full), k_tight);
    EXPECT_TRUE(llama_memory_seq_rm(mem, -1, -1, -1));
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 0), -1);
    // positions move with seq_add; seq_keep drops the other sequences
    decode(c.get(), toks, 0, 4, 0);
    decode(c.get(), toks, 0, 4, 1);
    llama_memory_seq_add(mem, 0, 0, -1, 10);
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 0), 13);
    llama_memory_seq_keep(mem, 0);
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 1), -1);
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 0), 13);
}

TEST_F(RecurrentTest, StateSaveRestoreContinuesIdentically) {
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
    EXPECT_EQ(llama_memory_seq_pos_max(llama_get_memory(dst.get()), 1), 5);
    EXPECT_EQ(worst(decode(dst.get(), toks, 10, 16, 0), want0), 0.0);
    EXPECT_EQ(worst(decode(dst.get(), toks, 6, 12, 1), want1), 0.0);

    // one sequence, restored into another sequence id
    ctx_ptr one = make_ctx();
    ASSERT_EQ(llama_state_seq_set_data(one.get(), seq0.data(), seq0.size(), 1), seq0.size()) << llama_last_error();
    EXPECT_EQ(llama_memory_seq_pos_max(llama_get_memory(one.get()), 1), 9);
    EXPECT_EQ(llama_memory_seq_pos_max(llama_get_memory(one.get()), 0), -1);
    EXPECT_EQ(worst(decode(one.get(), toks, 10, 16, 1), want0), 0.0);
}

TEST_F(RecurrentTest, CorruptStateIsRefusedAndChangesNothing) {
    const std::vector<llama_token> toks = synthetic_prompt(12);
    ctx_ptr                        src  = make_ctx();
    decode(src.get(), toks, 0, 8);
    std::vector<uint8_t> st(llama_state_get_size(src.get()));
    ASSERT_EQ(llama_state_get_data(src.get(), st.data(), st.size()), st.size());
    const std::vector<float> want = decode(src.get(), toks, 8, 12);

    ctx_ptr dst = make_ctx();
    decode(dst.get(), toks, 0, 8);
    std::vector<uint8_t> bad = st;
    bad[bad.size() / 2] ^= 0x5a;  // inside the state rows: the checksum catches it
    EXPECT_EQ(llama_state_set_data(dst.get(), bad.data(), bad.size()), 0u);
    EXPECT_NE(std::string(llama_last_error()), "");
    EXPECT_EQ(llama_state_set_data(dst.get(), st.data(), st.size() - 9), 0u);  // truncated
    EXPECT_EQ(llama_memory_seq_pos_max(llama_get_memory(dst.get()), 0), 7);
    EXPECT_EQ(worst(decode(dst.get(), toks, 8, 12), want), 0.0);

    // a context with fewer sequences than the state holds refuses it
    ctx_ptr two = make_ctx(2);
    decode(two.get(), toks, 0, 4, 1);
    std::vector<uint8_t> st2(llama_state_get_size(two.get()));
    ASSERT_EQ(llama_state_get_data(two.get(), st2.data(), st2.size()), st2.size());
    ctx_ptr narrow = make_ctx(1);
    EXPECT_EQ(llama_state_set_data(narrow.get(), st2.data(), st2.size()), 0u);
}

// An interrupted ubatch leaves its sequences empty (their states were partly updated), not corrupt:
// decoding them again from the start gives the logits of a context that was never interrupted.
TEST_F(RecurrentTest, AbortedDecodeEmptiesItsSequences) {
    const std::vector<llama_token> toks = synthetic_prompt(12);
    ctx_ptr                        ref  = make_ctx();
    const std::vector<float>       want = decode(ref.get(), toks, 0, toks.size());

    ctx_ptr c = make_ctx();
    decode(c.get(), toks, 0, 6, 1);  // another sequence, untouched by the abort
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
    EXPECT_EQ(worst(decode(c.get(), toks, 0, toks.size()), want), 0.0);
}

TEST_F(RecurrentTest, SequenceIdsPastNSeqMaxAreRefused) {
    const std::vector<llama_token> toks = synthetic_prompt(4);
    ctx_ptr                        c    = make_ctx(2);
    owned_batch                    b(2);
    b.add(toks[0], 0, {2});
    EXPECT_EQ(llama_decode(c.get(), b.b), -1);
    EXPECT_NE(std::string(llama_last_error()).find("n_seq_max"), std::string::npos) << llama_last_error();
    // a token in two sequences at once is refused too (a state is computed for one)
    owned_batch shared(2);
    shared.add(toks[0], 0, {0, 1});
    EXPECT_EQ(llama_decode(c.get(), shared.b), -1);
    // the memory calls ignore ids they have no slot for
    llama_memory_t mem = llama_get_memory(c.get());
    EXPECT_FALSE(llama_memory_seq_rm(mem, 5, -1, -1));
    llama_memory_seq_cp(mem, 0, 7, -1, -1);
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 7), -1);
    EXPECT_EQ(llama_state_seq_get_size(c.get(), 5), 0u);
    // the context still works
    decode(c.get(), toks, 0, 4);
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 0), 3);
}

// State-space shapes the graph cannot use are refused at load with the reason, not run.
TEST(RecurrentLoad, UnusableSsmShapesAreRefused) {
    llama_log_set(quiet_log, nullptr);
    struct bad_case {
        const char * key;
        int64_t      value;
    };
    const bad_case cases[] = {
        {"mamba2.ssm.time_step_rank", 3},  // 128 inner channels do not split into 3 heads
        {"mamba2.ssm.conv_kernel", 1},     // no conv state
        {"mamba2.ssm.group_count", 0},    {"mamba2.ssm.inner_size", 0}, {"mamba2.ssm.state_size", 1 << 20},
    };
    for (const bad_case & c : cases) {
        SCOPED_TRACE(c.key);
        expect_refused(load_with_override(data_path(k_model), c.key, c.value), "invalid ssm hyperparameters");
    }
    llama_log_set(nullptr, nullptr);
}

// A copy of the micro model with tensor `name` stored as F16 (the rest unchanged).
std::string with_f16_tensor(const std::string & name) {
    gguf_context * src = gguf_init_from_file(data_path(k_model).c_str(), gguf_init_params{false});
    EXPECT_NE(src, nullptr);
    gguf_context * dst = gguf_init_empty();
    gguf_set_kv(dst, src);
    for (int64_t i = 0; i < gguf_get_n_tensors(src); i++) {
        const std::string n = gguf_get_tensor_name(src, i);
        int64_t           ne[4];
        gguf_get_tensor_shape(src, i, ne);
        const int                nd   = (int) gguf_get_tensor_n_dims(src, i);
        const void *             data = gguf_get_tensor_data(src, i);
        std::vector<ggml_fp16_t> h;
        if (n == name && gguf_get_tensor_type(src, i) == GGML_TYPE_F32) {
            h.resize((size_t) (ne[0] * ne[1] * ne[2] * ne[3]));
            ggml_fp32_to_fp16_row((const float *) data, h.data(), (int64_t) h.size());
            EXPECT_TRUE(gguf_add_tensor_info(dst, n.c_str(), GGML_TYPE_F16, nd, ne, h.data()));
        } else {
            EXPECT_TRUE(gguf_add_tensor_info(dst, n.c_str(), gguf_get_tensor_type(src, i), nd, ne, data));
        }
    }
    const std::string out = testing::TempDir() + "test-recurrent-f16-" + name + ".gguf";
    EXPECT_TRUE(gguf_write_to_file(dst, out.c_str(), false));
    gguf_free(dst);
    gguf_free(src);
    return out;
}

// The small parameters the scan and convolution read in F32: another type is refused when the
// context is made, with the tensor named.
TEST(RecurrentLoad, NonF32StateSpaceParametersAreRefused) {
    llama_log_set(quiet_log, nullptr);
    for (const char * name : {"blk.0.ssm_d", "blk.1.ssm_a", "blk.0.ssm_conv1d.weight", "blk.1.ssm_norm.weight"}) {
        SCOPED_TRACE(name);
        const std::string path = with_f16_tensor(name);
        model_ptr         m(llama_model_load_from_file(path.c_str(), llama_model_default_params()));
        ASSERT_NE(m, nullptr) << llama_last_error();  // the loader takes any float type; the graph refuses it
        ctx_ptr c(llama_init_from_model(m.get(), llama_context_default_params()));
        EXPECT_EQ(c, nullptr);
        EXPECT_NE(std::string(llama_last_error()).find(name), std::string::npos) << llama_last_error();
        remove(path.c_str());
    }
    llama_log_set(nullptr, nullptr);
}

}  // namespace
