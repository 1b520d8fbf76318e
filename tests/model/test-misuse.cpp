// Misuse of the public API that must be refused with a precise reason and no side effect: batches
// the KV cache cannot represent (a token shared by diverged sequences, positions that do not grow
// by one), special files given as model paths (FIFOs must not block), buffer-too-small reasons;
// and llama.cpp's detokenize spacing. Uses only the public API.
#include <gtest/gtest.h>
#if !defined(_WIN32)
#    include <fcntl.h>
#    include <sys/stat.h>
#    include <unistd.h>
#endif

#include <chrono>
#include <cstdio>
#include <future>
#include <string>
#include <utility>
#include <vector>

#include "llama.h"
#include "test-common.h"
#include "test-llama-util.h"

using namespace llama_test_util;
using testing_util::data_path;

namespace {

void quiet_log(ggml_log_level, const char *, void *) {}

bool error_has(const char * what) {
    return std::string(llama_last_error()).find(what) != std::string::npos;
}

class Misuse : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        llama_log_set(quiet_log, nullptr);
        llama_backend_init();
        model = llama_model_load_from_file(data_path("models/stories260K.gguf").c_str(), llama_model_default_params());
    }
    static void TearDownTestSuite() {
        llama_model_free(model);
        model = nullptr;
        llama_log_set(nullptr, nullptr);
    }
    void SetUp() override { ASSERT_NE(model, nullptr); }

    ctx_ptr new_ctx(uint32_t n_seq_max = 4) const {
        llama_context_params cp = llama_context_default_params();
        cp.n_ctx                = 128;
        cp.n_batch              = 64;
        cp.n_seq_max            = n_seq_max;
        cp.n_threads            = 1;
        cp.n_threads_batch      = 1;
        return ctx_ptr(llama_init_from_model(model, cp));
    }

    static llama_model * model;
};

llama_model * Misuse::model = nullptr;

// ---- shared tokens need identical histories ---------------------------------------------------------

TEST_F(Misuse, SharedTokenOfDivergedSequencesIsRefused) {
    ctx_ptr ctx = new_ctx();
    ASSERT_NE(ctx, nullptr);
    llama_memory_t mem = llama_get_memory(ctx.get());
    {
        owned_batch b(3);
        b.add(1, 0, {0});
        b.add(403, 1, {0});
        b.add(407, 2, {0});
        ASSERT_EQ(llama_decode(ctx.get(), b.b), 0);
    }
    // seq 1 is empty, seq 0 holds 3 tokens: a token cannot extend both
    {
        owned_batch b(1);
        b.add(261, 3, {0, 1});
        EXPECT_EQ(llama_decode(ctx.get(), b.b), -1);
        EXPECT_TRUE(error_has("histories differ")) << llama_last_error();
    }
    // same length but decoded separately: the cells differ, so the histories cannot be trusted equal
    {
        owned_batch b(3);
        b.add(1, 0, {1});
        b.add(403, 1, {1});
        b.add(408, 2, {1});
        ASSERT_EQ(llama_decode(ctx.get(), b.b), 0);
        owned_batch c(1);
        c.add(261, 3, {0, 1});
        EXPECT_EQ(llama_decode(ctx.get(), c.b), -1);
        EXPECT_TRUE(error_has("histories differ")) << llama_last_error();
    }
    // nothing was stored by the refused batches
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 0), 2);
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 1), 2);
    // automatic positions do not get around the rule
    {
        llama_batch b   = llama_batch_init(1, 0, 2);
        b.n_tokens      = 1;
        b.token[0]      = 261;
        b.n_seq_id[0]   = 2;
        b.seq_id[0][0]  = 0;
        b.seq_id[0][1]  = 2;
        llama_pos * pos = b.pos;
        b.pos           = nullptr;
        EXPECT_EQ(llama_decode(ctx.get(), b), -1);
        b.pos = pos;
        llama_batch_free(b);
    }
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 2), -1);
}

TEST_F(Misuse, SharedTokenAfterSeqCpOrFromEmptyIsAccepted) {
    ctx_ptr ctx = new_ctx();
    ASSERT_NE(ctx, nullptr);
    llama_memory_t mem = llama_get_memory(ctx.get());
    // empty sequences share a prompt
    {
        owned_batch b(2);
        b.add(1, 0, {0, 1});
        b.add(403, 1, {0, 1});
        ASSERT_EQ(llama_decode(ctx.get(), b.b), 0) << llama_last_error();
    }
    // they are still identical: one more shared token
    {
        owned_batch b(1);
        b.add(407, 2, {1, 0});
        ASSERT_EQ(llama_decode(ctx.get(), b.b), 0) << llama_last_error();
    }
    // a copy of the whole history may share tokens with its source
    llama_memory_seq_cp(mem, 0, 3, -1, -1);
    {
        owned_batch b(1);
        b.add(261, 3, {0, 3});
        EXPECT_EQ(llama_decode(ctx.get(), b.b), 0) << llama_last_error();
    }
    // a token shared by seq 0 and 1 while seq 0 got one more token in the same batch: diverged
    {
        owned_batch b(2);
        b.add(300, 4, {0});
        b.add(301, 5, {0, 1});
        EXPECT_EQ(llama_decode(ctx.get(), b.b), -1);
        EXPECT_TRUE(error_has("histories differ")) << llama_last_error();
    }
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 0), 3);
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 1), 2);
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 3), 3);
}

TEST_F(Misuse, SharedPrefixGivesSameLogitsAsSeparateRuns) {
    const int32_t     n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
    const llama_token p[3]    = {1, 403, 407};
    // shared: the prompt in seqs {0, 1}, then a different token for each
    ctx_ptr ctx = new_ctx();
    ASSERT_NE(ctx, nullptr);
    owned_batch b(5);
    for (int i = 0; i < 3; i++) {
        b.add(p[i], i, {0, 1}, false);
    }
    b.add(261, 3, {0});
    b.add(300, 3, {1});
    ASSERT_EQ(llama_decode(ctx.get(), b.b), 0) << llama_last_error();
    const std::vector<float> s0(llama_get_logits_ith(ctx.get(), 3), llama_get_logits_ith(ctx.get(), 3) + n_vocab);
    const std::vector<float> s1(llama_get_logits_ith(ctx.get(), 4), llama_get_logits_ith(ctx.get(), 4) + n_vocab);
    for (int k = 0; k < 2; k++) {
        ctx_ptr     solo = new_ctx(1);
        llama_token t[4] = {p[0], p[1], p[2], k == 0 ? 261 : 300};
        ASSERT_EQ(llama_decode(solo.get(), llama_batch_get_one(t, 4)), 0);
        const float * ref = llama_get_logits_ith(solo.get(), -1);
        EXPECT_LT(max_err_rel_rms(k == 0 ? s0.data() : s1.data(), ref, n_vocab), 1e-3) << "seq " << k;
    }
}

// ---- positions ---------------------------------------------------------------------------------------

TEST_F(Misuse, PositionsMustGrowByOnePerToken) {
    ctx_ptr ctx = new_ctx();
    ASSERT_NE(ctx, nullptr);
    llama_memory_t mem = llama_get_memory(ctx.get());
    struct tok {
        llama_pos    pos;
        llama_seq_id seq;
    };
    auto decode = [&](std::vector<tok> toks) {
        owned_batch b((int) toks.size());
        for (const tok & t : toks) {
            b.add(1, t.pos, {t.seq});
        }
        return llama_decode(ctx.get(), b.b);
    };
    EXPECT_EQ(decode({{1, 0}, {0, 0}}), -1);  // decreasing
    EXPECT_TRUE(error_has("position")) << llama_last_error();
    EXPECT_EQ(decode({{0, 0}, {0, 0}, {1, 0}}), -1);  // repeated
    EXPECT_EQ(decode({{0, 0}, {2, 0}}), -1);          // gap
    EXPECT_EQ(decode({{0, 0}, {2, 0}, {1, 0}}), -1);  // a consecutive set, out of order
    EXPECT_EQ(decode({{-1, 0}}), -1);                 // negative
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 0), -1);  // nothing stored

    // interleaved sequences, each growing by one; an empty sequence may start anywhere
    EXPECT_EQ(decode({{0, 0}, {5, 1}, {1, 0}, {6, 1}}), 0) << llama_last_error();
    EXPECT_EQ(llama_memory_seq_pos_min(mem, 1), 5);
    // continuing: must start right after the memory
    EXPECT_EQ(decode({{3, 0}}), -1);
    EXPECT_EQ(decode({{1, 0}}), -1);
    EXPECT_EQ(decode({{2, 0}, {7, 1}, {4, 0}}), -1);
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 0), 1);
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 1), 6);
    EXPECT_EQ(decode({{2, 0}, {7, 1}, {3, 0}}), 0) << llama_last_error();
}

// ---- files that are not regular -------------------------------------------------------------------

#if !defined(_WIN32)
// Runs f on another thread; fails (instead of hanging) if it has not returned within 10 s, then
// opens the FIFO for writing to release a reader blocked on it. Returns f's result and the
// llama_last_error() of that thread (the last error is per thread).
template <typename F>
auto run_with_deadline(const std::string & fifo, F f) -> std::pair<decltype(f()), std::string> {
    auto fut = std::async(std::launch::async, [&] {
        auto res = f();  // before reading the error: argument order is unspecified
        return std::make_pair(res, std::string(llama_last_error()));
    });
    if (fut.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
        ADD_FAILURE() << "blocked on the FIFO " << fifo;
        const int fd = open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
        if (fd >= 0) {
            close(fd);
        }
    }
    return fut.get();
}

bool has(const std::string & s, const char * what) {
    return s.find(what) != std::string::npos;
}

TEST_F(Misuse, FifoAndDirectoryAreRefusedWithoutBlocking) {
    const std::string fifo = testing::TempDir() + "llama-misuse-fifo-" + std::to_string(getpid());
    unlink(fifo.c_str());
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    const llama_model_params mp = llama_model_default_params();

    auto r = run_with_deadline(fifo, [&] { return llama_model_load_from_file(fifo.c_str(), mp); });
    EXPECT_EQ(r.first, nullptr);
    EXPECT_TRUE(has(r.second, "not a regular file")) << r.second;
    llama_model_free(r.first);

    const std::string first    = data_path("models/stories260K.gguf");
    const char *      paths[2] = {first.c_str(), fifo.c_str()};
    r                          = run_with_deadline(fifo, [&] { return llama_model_load_from_splits(paths, 2, mp); });
    EXPECT_EQ(r.first, nullptr);
    llama_model_free(r.first);

    EXPECT_EQ(llama_model_load_from_file(testing::TempDir().c_str(), mp), nullptr);
    EXPECT_TRUE(error_has("not a regular file")) << llama_last_error();
    EXPECT_EQ(llama_model_load_from_file("/dev/null", mp), nullptr);
    EXPECT_TRUE(error_has("not a regular file")) << llama_last_error();

    // the quantizer: FIFO as input, FIFO as output
    const llama_model_quantize_params qp  = llama_model_quantize_default_params();
    const std::string                 out = testing::TempDir() + "llama-misuse-q-" + std::to_string(getpid());
    auto q = run_with_deadline(fifo, [&] { return llama_model_quantize(fifo.c_str(), out.c_str(), &qp); });
    EXPECT_NE(q.first, 0u);
    EXPECT_TRUE(has(q.second, "not a regular file")) << q.second;
    q = run_with_deadline(fifo, [&] { return llama_model_quantize(first.c_str(), fifo.c_str(), &qp); });
    EXPECT_NE(q.first, 0u);
    EXPECT_TRUE(has(q.second, "not a regular file")) << q.second;
    struct stat st;
    EXPECT_EQ(stat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode));  // refused, not replaced
    unlink(fifo.c_str());
    unlink(out.c_str());
}
#else
// Windows has no FIFOs in the file system: a directory and the NUL device are refused by the handle's
// type, as model, split part and quantizer input or output.
TEST_F(Misuse, DeviceAndDirectoryAreRefused) {
    const llama_model_params mp = llama_model_default_params();
    for (const std::string & p : {testing::TempDir(), std::string("NUL")}) {
        EXPECT_EQ(llama_model_load_from_file(p.c_str(), mp), nullptr) << p;
        EXPECT_TRUE(error_has("not a regular file")) << p << ": " << llama_last_error();
        const std::string first    = data_path("models/stories260K.gguf");
        const char *      paths[2] = {first.c_str(), p.c_str()};
        EXPECT_EQ(llama_model_load_from_splits(paths, 2, mp), nullptr) << p;
        const llama_model_quantize_params qp = llama_model_quantize_default_params();
        EXPECT_NE(llama_model_quantize(p.c_str(), (testing::TempDir() + "llama-misuse-q.gguf").c_str(), &qp), 0u);
        EXPECT_TRUE(error_has("not a regular file")) << p << ": " << llama_last_error();
        EXPECT_NE(llama_model_quantize(first.c_str(), p.c_str(), &qp), 0u);
        EXPECT_TRUE(error_has("not a regular file")) << p << ": " << llama_last_error();
    }
}
#endif

// ---- detokenize spacing (llama.cpp's rule) -------------------------------------------------------------

std::string detokenize(const llama_vocab * v, const std::vector<llama_token> & t, bool remove_special,
                       bool unparse_special) {
    char          buf[256];
    const int32_t n =
        llama_detokenize(v, t.data(), (int32_t) t.size(), buf, sizeof buf, remove_special, unparse_special);
    return n >= 0 ? std::string(buf, (size_t) n) : "<error>";
}

void check_bos_spacing(const llama_model * m) {
    const llama_vocab * v = llama_model_get_vocab(m);
    ASSERT_TRUE(llama_vocab_get_add_bos(v));
    std::vector<llama_token> t(64);
    const int                n = llama_tokenize(v, "Hello world", 11, t.data(), (int32_t) t.size(), true, false);
    ASSERT_GT(n, 1);
    t.resize((size_t) n);
    ASSERT_EQ(t[0], llama_vocab_bos(v));
    // the space SPM put before the text survives after a BOS, removed or not
    EXPECT_EQ(detokenize(v, t, false, false), " Hello world");
    EXPECT_EQ(detokenize(v, t, true, false), " Hello world");
    const std::string bos_text = llama_vocab_get_text(v, t[0]);
    EXPECT_EQ(detokenize(v, t, false, true), bos_text + " Hello world");
    // without a BOS it is stripped
    const std::vector<llama_token> body(t.begin() + 1, t.end());
    EXPECT_EQ(detokenize(v, body, false, false), "Hello world");
    EXPECT_EQ(detokenize(v, body, true, false), "Hello world");
}

TEST_F(Misuse, DetokenizeKeepsTheSpaceAfterBosSpm) {
    llama_model_params mp = llama_model_default_params();
    mp.vocab_only         = true;
    model_ptr spm(llama_model_load_from_file(data_path("vocab/ggml-vocab-llama-spm.gguf").c_str(), mp));
    ASSERT_NE(spm, nullptr);
    check_bos_spacing(spm.get());
}

TEST_F(Misuse, DetokenizeKeepsTheSpaceAfterBosStories) {
    check_bos_spacing(model);
}

// ---- buffer too small: the reason says so --------------------------------------------------------------

TEST_F(Misuse, TooSmallBuffersSayWhy) {
    const llama_vocab * v = llama_model_get_vocab(model);
    EXPECT_EQ(llama_tokenize(nullptr, "x", 1, nullptr, 0, true, false), INT32_MIN);  // a stale reason to replace
    llama_token   t[64];
    const int32_t need = llama_tokenize(v, "Hello world", 11, nullptr, 0, true, false);
    ASSERT_LT(need, -1);
    EXPECT_TRUE(error_has("output buffer too small")) << llama_last_error();
    EXPECT_TRUE(error_has(("need " + std::to_string(-need) + " tokens").c_str())) << llama_last_error();
    EXPECT_EQ(llama_tokenize(v, "Hello world", 11, t, 1, true, false), need);
    EXPECT_FALSE(error_has("invalid")) << llama_last_error();
    EXPECT_EQ(llama_tokenize(v, "Hello world", 11, t, 64, true, false), -need);

    EXPECT_EQ(llama_tokenize(v, "x", -3, t, 64, true, false), INT32_MIN);
    EXPECT_TRUE(error_has("text_len = -3")) << llama_last_error();

    char          buf[4];
    const int32_t nd = llama_detokenize(v, t, -need, buf, sizeof buf, false, false);
    ASSERT_LT(nd, -4);
    EXPECT_TRUE(error_has(("need " + std::to_string(-nd) + " bytes").c_str())) << llama_last_error();

    // a piece longer than 1 byte into a 1-byte buffer
    llama_token long_piece = -1;
    for (llama_token id = 0; id < llama_vocab_n_tokens(v) && long_piece < 0; id++) {
        if (llama_token_to_piece(v, id, nullptr, 0, 0, false) < -1) {
            long_piece = id;
        }
    }
    ASSERT_GE(long_piece, 0);
    const int32_t np = llama_token_to_piece(v, long_piece, buf, 1, 0, false);
    ASSERT_LT(np, -1);
    EXPECT_TRUE(error_has(("need " + std::to_string(-np) + " bytes").c_str())) << llama_last_error();
    EXPECT_EQ(llama_token_to_piece(v, 100000, buf, sizeof buf, 0, false), INT32_MIN);
    EXPECT_TRUE(error_has("invalid token id 100000")) << llama_last_error();
}

}  // namespace
