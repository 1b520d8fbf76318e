// The window-sized cache of the sliding-window layers (cparams.swa_full = false, upstream's
// swa_full = false): on the gemma3, gpt-oss and gemma3n (KV-sharing layers) micro models (8-token
// windows) a long run far past the window, with ubatches smaller than the prompt, gives the same
// logits as the full cache (within
// float tolerance: cells sit in other places, so sums run in another order) with plain and flash
// attention, also for two interleaved sequences and after a context shift (seq_rm + seq_add); the
// cache is smaller; and a saved state restores into a window cache and into a full one.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "llama-context.h"
#include "llama-model.h"
#include "llama.h"
#include "micro-model-bounds.h"
#include "test-common.h"
#include "test-llama-suite.h"
#include "test-llama-util.h"

using namespace llama_test_util;
using testing_util::data_path;

namespace {

constexpr int k_n_ctx    = 1024;
constexpr int k_n_ubatch = 32;

// A context whose sliding-window layers keep the full history (swa_full) or only the window.
ctx_ptr make_ctx(llama_model * m, bool swa_full, bool flash, int n_seq = 1) {
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx                = k_n_ctx;
    cp.n_batch              = k_n_ctx;
    cp.n_ubatch             = k_n_ubatch;
    cp.n_seq_max            = n_seq;
    cp.n_threads            = 2;
    cp.n_threads_batch      = 2;
    cp.flash_attn_type      = flash ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED;
    try {
        return ctx_ptr(new llama_context(*m, cp, [&](llama_cparams & c) { c.swa_full = swa_full; }));
    } catch (const std::exception & e) {
        ADD_FAILURE() << e.what();
        return nullptr;
    }
}

llama_token tok(int i) {
    return 3 + (i * 131 + 7) % 250;  // a fixed pseudo-text, the same for every run
}

// Decodes tokens [from, to) of sequence seqs (all at once in one batch with per-ubatch splitting
// when batch, else one by one) and appends the last row of logits of each decode per sequence.
void feed(llama_context * ctx, const std::vector<llama_seq_id> & seqs, int from, int to, bool batch,
          std::vector<float> & rows, llama_pos pos_offset = 0) {
    const int nv  = llama_vocab_n_tokens(llama_model_get_vocab(llama_get_model(ctx)));
    auto      run = [&](int a, int b) {
        owned_batch ob((b - a) * (int) seqs.size());
        for (int i = a; i < b; i++) {
            for (llama_seq_id s : seqs) {
                ob.add(tok(i + 17 * s), i + pos_offset, {s}, i == b - 1);
            }
        }
        ASSERT_EQ(llama_decode(ctx, ob.b), 0) << llama_last_error();
        for (size_t k = 0; k < seqs.size(); k++) {
            const float * lg = llama_get_logits_ith(ctx, (int) (ob.b.n_tokens - seqs.size() + k));
            ASSERT_NE(lg, nullptr);
            rows.insert(rows.end(), lg, lg + nv);
        }
    };
    if (batch) {
        run(from, to);
    } else {
        for (int i = from; i < to; i++) {
            run(i, i + 1);
        }
    }
}

double worst_rel(const std::vector<float> & a, const std::vector<float> & b, int nv) {
    EXPECT_EQ(a.size(), b.size());
    double w = 0;
    for (size_t r = 0; r + nv <= a.size() && r + nv <= b.size(); r += nv) {
        w = std::max(w, max_err_rel_rms(a.data() + r, b.data() + r, nv));
    }
    return w;
}

class SwaCache : public quiet_llama_suite<::testing::TestWithParam<const char *>> {
protected:
    model_ptr load() const {
        return model_ptr(llama_model_load_from_file(
            data_path(std::string("models/synthetic/") + GetParam() + "-micro-f16.gguf").c_str(),
            llama_model_default_params()));
    }
    // how far the window cache's logits may move from the full cache's: per model, in
    // tests/common/micro-model-bounds.h
    double tol() const { return micro_bounds::of(GetParam()).swa; }
};

}  // namespace

TEST_P(SwaCache, LongRunMatchesFullCache) {
    model_ptr m = load();
    ASSERT_NE(m, nullptr) << llama_last_error();
    ASSERT_EQ(llama_model_n_swa(m.get()), 8);
    const int nv = llama_vocab_n_tokens(llama_model_get_vocab(m.get()));
    for (bool flash : {false, true}) {
        SCOPED_TRACE(flash ? "flash" : "plain");
        ctx_ptr full = make_ctx(m.get(), true, flash), win = make_ctx(m.get(), false, flash);
        ASSERT_TRUE(full && win);
        ASSERT_EQ(full->kv_cache()->swa_cache(), nullptr);
        ASSERT_NE(win->kv_cache()->swa_cache(), nullptr);
        // 8-token window, one sequence, ubatches of 32: 256 cells instead of 1024
        EXPECT_EQ(win->kv_cache()->swa_cache()->size(), 256u);
        EXPECT_LT(win->kv_cache()->total_size(), full->kv_cache()->total_size());

        std::vector<float> a, b;
        // a 100-token prompt in ubatches of 32, then 400 single tokens: the window cache wraps around
        feed(full.get(), {0}, 0, 100, true, a);
        feed(win.get(), {0}, 0, 100, true, b);
        feed(full.get(), {0}, 100, 500, false, a);
        feed(win.get(), {0}, 100, 500, false, b);
        EXPECT_LT(worst_rel(a, b, nv), tol());
        EXPECT_EQ(llama_memory_seq_pos_max(llama_get_memory(win.get()), 0), 499);
        // the window cache only holds the recent positions; the oldest all layers keep is reported
        EXPECT_EQ(llama_memory_seq_pos_min(llama_get_memory(full.get()), 0), 0);
        EXPECT_GT(llama_memory_seq_pos_min(llama_get_memory(win.get()), 0), 100);

        // a batch that spans more than the window in one decode after the wrap-around
        a.clear(), b.clear();
        feed(full.get(), {0}, 500, 600, true, a);
        feed(win.get(), {0}, 500, 600, true, b);
        EXPECT_LT(worst_rel(a, b, nv), tol());
    }
}

TEST_P(SwaCache, TwoSequencesAndContextShift) {
    model_ptr m = load();
    ASSERT_NE(m, nullptr) << llama_last_error();
    const int nv   = llama_vocab_n_tokens(llama_model_get_vocab(m.get()));
    ctx_ptr   full = make_ctx(m.get(), true, false, 2), win = make_ctx(m.get(), false, false, 2);
    ASSERT_TRUE(full && win);
    EXPECT_EQ(win->kv_cache()->swa_cache()->size(), 256u);  // 2 x 8 + 32, padded
    std::vector<float> a, b;
    feed(full.get(), {0, 1}, 0, 60, true, a);
    feed(win.get(), {0, 1}, 0, 60, true, b);
    feed(full.get(), {0, 1}, 60, 300, false, a);
    feed(win.get(), {0, 1}, 60, 300, false, b);
    EXPECT_LT(worst_rel(a, b, nv), tol());

    // sequence 1 runs on alone, wrapping the 256-cell window cache: sequence 0's last window must
    // survive (its cells are reused only once sequence 0 itself has moved past them)
    a.clear(), b.clear();
    feed(full.get(), {1}, 300, 700, false, a);
    feed(win.get(), {1}, 300, 700, false, b);
    feed(full.get(), {0}, 300, 310, false, a);
    feed(win.get(), {0}, 300, 310, false, b);
    EXPECT_LT(worst_rel(a, b, nv), tol());

    // context shift of sequence 0: drop [20, 120), move the rest back by 100 (K is re-rotated)
    for (llama_context * c : {full.get(), win.get()}) {
        ASSERT_TRUE(llama_memory_seq_rm(llama_get_memory(c), 0, 20, 120));
        llama_memory_seq_add(llama_get_memory(c), 0, 120, -1, -100);
    }
    a.clear(), b.clear();
    feed(full.get(), {0}, 310, 340, false, a, -100);
    feed(win.get(), {0}, 310, 340, false, b, -100);
    EXPECT_LT(worst_rel(a, b, nv), tol());
}

TEST_P(SwaCache, StateRestoresIntoWindowAndFullCaches) {
    model_ptr m = load();
    ASSERT_NE(m, nullptr) << llama_last_error();
    const int nv  = llama_vocab_n_tokens(llama_model_get_vocab(m.get()));
    ctx_ptr   src = make_ctx(m.get(), false, false);
    ASSERT_TRUE(src);
    std::vector<float> rows;
    feed(src.get(), {0}, 0, 64, true, rows);
    feed(src.get(), {0}, 64, 300, false, rows);
    std::vector<uint8_t> state(llama_state_get_size(src.get()));
    ASSERT_EQ(llama_state_get_data(src.get(), state.data(), state.size()), state.size());
    std::vector<uint8_t> seq_state(llama_state_seq_get_size(src.get(), 0));
    ASSERT_EQ(llama_state_seq_get_data(src.get(), seq_state.data(), seq_state.size(), 0), seq_state.size());

    std::vector<float> want;
    feed(src.get(), {0}, 300, 340, false, want);

    for (bool swa_full : {false, true}) {
        SCOPED_TRACE(swa_full ? "into a full cache" : "into a window cache");
        ctx_ptr dst = make_ctx(m.get(), swa_full, false);
        ASSERT_TRUE(dst);
        ASSERT_EQ(llama_state_set_data(dst.get(), state.data(), state.size()), state.size()) << llama_last_error();
        std::vector<float> got;
        feed(dst.get(), {0}, 300, 340, false, got);
        EXPECT_LT(worst_rel(got, want, nv), 1e-3);

        ctx_ptr dseq = make_ctx(m.get(), swa_full, false);
        ASSERT_TRUE(dseq);
        ASSERT_EQ(llama_state_seq_set_data(dseq.get(), seq_state.data(), seq_state.size(), 0), seq_state.size())
            << llama_last_error();
        got.clear();
        feed(dseq.get(), {0}, 300, 340, false, got);
        EXPECT_LT(worst_rel(got, want, nv), 1e-3);
    }
}

INSTANTIATE_TEST_SUITE_P(Synthetic, SwaCache, ::testing::Values("gemma3", "gpt-oss", "gemma3n"),
                         [](const ::testing::TestParamInfo<const char *> & info) {
                             return std::string(info.param) == "gpt-oss" ? std::string("gpt_oss")
                                                                         : std::string(info.param);
                         });
