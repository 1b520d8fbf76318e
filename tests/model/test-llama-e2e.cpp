// End-to-end tests of libllama on real models: the reference engine's tokens and logits, decode
// invariants (batching, ubatches, sequences, cache edits, a full cache), error codes, and loading
// failures. Uses only the public API.
#include "gguf.h"
#include "llama.h"
#include "test-common.h"
#include "test-llama-util.h"

#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace llama_test_util;
using testing_util::data_path;
using testing_util::read_file;
using testing_util::write_temp_file;

namespace {

void quiet_log(ggml_log_level, const char *, void *) {}

// ---- model/context helpers ------------------------------------------------------------------------

model_ptr load(const std::string & rel, llama_model_params mp = llama_model_default_params()) {
    return model_ptr(llama_model_load_from_file(data_path(rel).c_str(), mp));
}

llama_context_params ctx_params(uint32_t n_ctx = 512) {
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx                = n_ctx;
    cp.n_batch              = 512;
    cp.n_threads            = 2;
    cp.n_threads_batch      = 2;
    return cp;
}

std::string detok(const llama_model * m, const std::vector<llama_token> & toks) {
    std::string s;
    char        buf[256];
    for (llama_token t : toks) {
        const int n = llama_token_to_piece(llama_model_get_vocab(m), t, buf, sizeof buf, 0, true);
        if (n > 0) {
            s.append(buf, n);
        }
    }
    return s;
}

// Rewrites a GGUF model into n_split parts (name-0000K-of-0000N.gguf under /tmp), optionally
// dropping one tensor or transposing the shape of another. Returns the part paths.
std::vector<std::string> rewrite_model(const std::string & src_path, const std::string & stem, int n_split,
                                       const std::string & drop = "", const std::string & transpose = "") {
    gguf_init_params gp  = {false};
    gguf_context *   src = gguf_init_from_file(src_path.c_str(), gp);
    EXPECT_NE(src, nullptr);
    std::vector<std::string> paths;
    if (!src) {
        return paths;
    }
    const int64_t n_tensors = gguf_get_n_tensors(src);
    for (int k = 0; k < n_split; k++) {
        char name[256];
        snprintf(name, sizeof name, "/tmp/llama-test-%d-%s-%05d-of-%05d.gguf", (int) getpid(), stem.c_str(), k + 1,
                 n_split);
        gguf_context * dst = gguf_init_empty();
        if (k == 0) {
            gguf_set_kv(dst, src);
        }
        if (n_split > 1) {
            gguf_set_val_u16(dst, "split.no", (uint16_t) k);
            gguf_set_val_u16(dst, "split.count", (uint16_t) n_split);
            gguf_set_val_i32(dst, "split.tensors.count", (int32_t) n_tensors);
        }
        for (int64_t i = k; i < n_tensors; i += n_split) {
            const std::string tname = gguf_get_tensor_name(src, i);
            if (tname == drop) {
                continue;
            }
            int64_t ne[4];
            gguf_get_tensor_shape(src, i, ne);
            if (tname == transpose) {
                std::swap(ne[0], ne[1]);
            }
            gguf_add_tensor_info(dst, tname.c_str(), gguf_get_tensor_type(src, i), (int) gguf_get_tensor_n_dims(src, i),
                                 ne, gguf_get_tensor_data(src, i));
        }
        EXPECT_TRUE(gguf_write_to_file(dst, name, false));
        gguf_free(dst);
        paths.push_back(name);
    }
    gguf_free(src);
    return paths;
}

class LlamaE2E : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        llama_log_set(quiet_log, nullptr);
        llama_backend_init();
        stories = load("models/stories260K.gguf").release();
        ASSERT_NE(stories, nullptr) << llama_last_error();
    }
    static void TearDownTestSuite() {
        llama_model_free(stories);
        stories = nullptr;
    }
    static llama_model * stories;

    int n_vocab() const { return llama_vocab_n_tokens(llama_model_get_vocab(stories)); }
    // the reference's 40-step continuation: a long, natural token sequence for the invariance tests
    std::vector<llama_token> long_prompt() const {
        const reference          r = load_reference("reference/stories260K.once40.jsonl");
        std::vector<llama_token> t = r.prompt;
        t.insert(t.end(), r.greedy.begin(), r.greedy.end());
        return t;
    }
};
llama_model * LlamaE2E::stories = nullptr;

// Decodes tokens in one batch with logits for every token; returns all rows.
std::vector<float> decode_all_logits(llama_context * ctx, const std::vector<llama_token> & toks, llama_seq_id seq = 0,
                                     llama_pos p0 = 0) {
    const int   n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(llama_get_model(ctx)));
    owned_batch b((int) toks.size());
    for (size_t i = 0; i < toks.size(); i++) {
        b.add(toks[i], p0 + (llama_pos) i, {seq}, true);
    }
    EXPECT_EQ(llama_decode(ctx, b.b), 0) << llama_last_error();
    const float * lg = llama_get_logits(ctx);
    if (!lg) {
        return {};
    }
    return std::vector<float>(lg, lg + toks.size() * (size_t) n_vocab);
}

void expect_rows_close(const std::vector<float> & a, const std::vector<float> & b, int n_vocab, double tol,
                       const char * what) {
    ASSERT_EQ(a.size(), b.size()) << what;
    for (size_t r = 0; r < a.size() / n_vocab; r++) {
        EXPECT_LT(max_err_rel_rms(a.data() + r * n_vocab, b.data() + r * n_vocab, n_vocab), tol)
            << what << ": row " << r;
    }
}

}  // namespace

// ---- reference engine agreement ------------------------------------------------------------------

TEST_F(LlamaE2E, Stories260KGreedy40MatchesReference) {
    const reference r = load_reference("reference/stories260K.once40.jsonl");
    ASSERT_EQ(r.greedy.size(), 40u);
    EXPECT_EQ(tokenize(stories, "Once upon a time"), r.prompt);

    ctx_ptr ctx(llama_init_from_model(stories, ctx_params()));
    ASSERT_NE(ctx, nullptr) << llama_last_error();
    std::vector<llama_token> out;
    std::vector<float>       rows;
    run_greedy(ctx.get(), r.prompt, 40, out, rows);
    EXPECT_EQ(out, r.greedy);
    EXPECT_EQ(detok(stories, out), r.text);
}

TEST_F(LlamaE2E, Stories260KLogitsWithinOnePercentOfRms) {
    const reference          r   = load_reference("reference/stories260K.once.jsonl");
    const std::vector<float> ref = load_logits("reference/stories260K.once.logits.f32");
    ASSERT_EQ(ref.size(), r.greedy.size() * (size_t) n_vocab());

    for (llama_flash_attn_type fa : {LLAMA_FLASH_ATTN_TYPE_DISABLED, LLAMA_FLASH_ATTN_TYPE_ENABLED}) {
        llama_context_params cp = ctx_params();
        cp.flash_attn_type      = fa;
        ctx_ptr                  ctx(llama_init_from_model(stories, cp));
        std::vector<llama_token> out;
        std::vector<float>       rows;
        run_greedy(ctx.get(), r.prompt, (int) r.greedy.size(), out, rows);
        EXPECT_EQ(out, r.greedy) << "flash_attn " << fa;
        expect_rows_close(rows, ref, n_vocab(), 0.01, fa ? "stories260K (flash attn)" : "stories260K");
    }
}

TEST(LlamaE2EMicro, LlamaMicroF16MatchesReference) {
    llama_log_set(quiet_log, nullptr);
    model_ptr m = load("models/synthetic/llama-micro-f16.gguf");
    ASSERT_NE(m, nullptr) << llama_last_error();
    const reference          r   = load_reference("reference/llama-micro-f16.once.jsonl");
    const std::vector<float> ref = load_logits("reference/llama-micro-f16.once.logits.f32");
    const int                nv  = llama_vocab_n_tokens(llama_model_get_vocab(m.get()));
    ASSERT_EQ(ref.size(), r.greedy.size() * (size_t) nv);
    EXPECT_EQ(tokenize(m.get(), "Once upon a time"), r.prompt);

    ctx_ptr ctx(llama_init_from_model(m.get(), ctx_params()));
    ASSERT_NE(ctx, nullptr) << llama_last_error();
    std::vector<llama_token> out;
    std::vector<float>       rows;
    run_greedy(ctx.get(), r.prompt, (int) r.greedy.size(), out, rows);
    EXPECT_EQ(out, r.greedy);
    expect_rows_close(rows, ref, nv, 0.01, "llama-micro vs reference");

    // direct I/O reads (its 4 MB embedding goes through the aligned bulk path) load the same weights
    llama_model_params mp = llama_model_default_params();
    mp.load_mode          = LLAMA_LOAD_MODE_DIRECT_IO;
    model_ptr mdio        = load("models/synthetic/llama-micro-f16.gguf", mp);
    ASSERT_NE(mdio, nullptr) << llama_last_error();
    ctx_ptr                  c2(llama_init_from_model(mdio.get(), ctx_params()));
    std::vector<llama_token> out2;
    std::vector<float>       rows2;
    run_greedy(c2.get(), r.prompt, (int) r.greedy.size(), out2, rows2);
    EXPECT_EQ(rows2, rows);
}

TEST_F(LlamaE2E, EmbeddingsForEveryToken) {
    llama_context_params cp = ctx_params();
    cp.embeddings           = true;
    ctx_ptr                  ctx(llama_init_from_model(stories, cp));
    std::vector<llama_token> toks = tokenize(stories, "Once upon a time");
    ASSERT_EQ(llama_decode(ctx.get(), llama_batch_get_one(toks.data(), (int) toks.size())), 0);
    for (int i = 0; i < (int) toks.size(); i++) {
        const float * e = llama_get_embeddings_ith(ctx.get(), i);
        ASSERT_NE(e, nullptr) << llama_last_error();
        EXPECT_TRUE(std::isfinite(e[0]) && std::isfinite(e[63]));
        EXPECT_NE(llama_get_logits_ith(ctx.get(), i), nullptr);  // every token outputs
    }
    EXPECT_EQ(llama_get_embeddings_ith(ctx.get(), -1), llama_get_embeddings_ith(ctx.get(), (int) toks.size() - 1));
    char buf[64];
    llama_model_desc(stories, buf, sizeof buf);
    EXPECT_NE(std::string(buf).find("F32"), std::string::npos) << buf;  // file type guessed from the weights
}

// ---- decode invariants -------------------------------------------------------------------------

TEST_F(LlamaE2E, PrefillInOneBatchEqualsTokenByToken) {
    const std::vector<llama_token> toks = long_prompt();
    ctx_ptr                        a(llama_init_from_model(stories, ctx_params()));
    const std::vector<float>       all = decode_all_logits(a.get(), toks);

    ctx_ptr            b(llama_init_from_model(stories, ctx_params()));
    std::vector<float> one;
    for (size_t i = 0; i < toks.size(); i++) {
        llama_token t = toks[i];
        ASSERT_EQ(llama_decode(b.get(), llama_batch_get_one(&t, 1)), 0) << llama_last_error();
        const float * lg = llama_get_logits_ith(b.get(), 0);
        one.insert(one.end(), lg, lg + n_vocab());
    }
    expect_rows_close(all, one, n_vocab(), 1e-3, "batch vs token by token");
}

TEST_F(LlamaE2E, SmallUbatchGivesSameLogits) {
    const std::vector<llama_token> toks = long_prompt();
    ctx_ptr                        a(llama_init_from_model(stories, ctx_params()));
    const std::vector<float>       ref = decode_all_logits(a.get(), toks);

    llama_context_params cp = ctx_params();
    cp.n_ubatch             = 7;  // 45 tokens -> 7 ubatches, the last one partial
    ctx_ptr b(llama_init_from_model(stories, cp));
    ASSERT_EQ(llama_n_ubatch(b.get()), 7u);
    expect_rows_close(decode_all_logits(b.get(), toks), ref, n_vocab(), 1e-3, "n_ubatch 7");

    // default outputs (last token only): the first ubatches produce no output at all
    ctx_ptr                  c(llama_init_from_model(stories, cp));
    std::vector<llama_token> t = toks;
    ASSERT_EQ(llama_decode(c.get(), llama_batch_get_one(t.data(), (int) t.size())), 0) << llama_last_error();
    const float * last = llama_get_logits_ith(c.get(), -1);
    ASSERT_NE(last, nullptr);
    const std::vector<float> last_ref(ref.end() - n_vocab(), ref.end());
    expect_rows_close(std::vector<float>(last, last + n_vocab()), last_ref, n_vocab(), 1e-3, "last row");
    EXPECT_EQ(llama_get_logits_ith(c.get(), 0), nullptr);

    // a batch that asks for no output at all is valid
    owned_batch nb(2, 1);
    nb.add(toks[0], (llama_pos) t.size(), {0}, false);
    nb.add(toks[1], (llama_pos) t.size() + 1, {0}, false);
    EXPECT_EQ(llama_decode(c.get(), nb.b), 0) << llama_last_error();
    EXPECT_EQ(llama_get_logits(c.get()), nullptr);
    EXPECT_EQ(llama_get_logits_ith(c.get(), -1), nullptr);
}

TEST_F(LlamaE2E, TwoSequencesInOneBatchEqualSeparateRuns) {
    const std::vector<llama_token> p0 = tokenize(stories, "Once upon a time");
    const std::vector<llama_token> p1 = tokenize(stories, "The little dog ran to the park");

    std::vector<float> r0, r1;
    {
        ctx_ptr c(llama_init_from_model(stories, ctx_params()));
        r0 = decode_all_logits(c.get(), p0);
    }
    {
        ctx_ptr c(llama_init_from_model(stories, ctx_params()));
        r1 = decode_all_logits(c.get(), p1);
    }

    llama_context_params cp = ctx_params();
    cp.n_seq_max            = 2;
    ctx_ptr     c(llama_init_from_model(stories, cp));
    owned_batch b((int) (p0.size() + p1.size()), 1);
    // interleave the two sequences so the mask, not the order, must separate them
    size_t           i0 = 0, i1 = 0;
    std::vector<int> row_seq;
    while (i0 < p0.size() || i1 < p1.size()) {
        if (i0 < p0.size()) {
            b.add(p0[i0], (llama_pos) i0, {0}, true);
            row_seq.push_back(0);
            i0++;
        }
        if (i1 < p1.size()) {
            b.add(p1[i1], (llama_pos) i1, {1}, true);
            row_seq.push_back(1);
            i1++;
        }
    }
    ASSERT_EQ(llama_decode(c.get(), b.b), 0) << llama_last_error();
    std::vector<float> got0, got1;
    for (int i = 0; i < b.b.n_tokens; i++) {
        const float * lg = llama_get_logits_ith(c.get(), i);
        ASSERT_NE(lg, nullptr);
        (row_seq[i] == 0 ? got0 : got1).insert((row_seq[i] == 0 ? got0 : got1).end(), lg, lg + n_vocab());
    }
    expect_rows_close(got0, r0, n_vocab(), 1e-3, "sequence 0");
    expect_rows_close(got1, r1, n_vocab(), 1e-3, "sequence 1");
    llama_memory_t mem = llama_get_memory(c.get());
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 0), (llama_pos) p0.size() - 1);
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 1), (llama_pos) p1.size() - 1);
}

TEST_F(LlamaE2E, SeqCpSharesAPrefixAndSeqKeepDropsTheRest) {
    const std::vector<llama_token> p = tokenize(stories, "Once upon a time there was");
    const llama_token              a = 261, b = 376;
    auto                           fresh_last = [&](llama_token t) {
        ctx_ptr                  c(llama_init_from_model(stories, ctx_params()));
        std::vector<llama_token> all = p;
        all.push_back(t);
        const std::vector<float> rows = decode_all_logits(c.get(), all);
        return std::vector<float>(rows.end() - n_vocab(), rows.end());
    };
    llama_context_params cp = ctx_params();
    cp.n_seq_max            = 2;
    ctx_ptr ctx(llama_init_from_model(stories, cp));
    decode_all_logits(ctx.get(), p);
    llama_memory_t mem = llama_get_memory(ctx.get());
    llama_memory_seq_cp(mem, 0, 1, -1, -1);
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 1), (llama_pos) p.size() - 1);

    owned_batch bt(2, 1);
    bt.add(a, (llama_pos) p.size(), {0}, true);
    bt.add(b, (llama_pos) p.size(), {1}, true);
    ASSERT_EQ(llama_decode(ctx.get(), bt.b), 0) << llama_last_error();
    const float * r0 = llama_get_logits_ith(ctx.get(), 0);
    const float * r1 = llama_get_logits_ith(ctx.get(), 1);
    expect_rows_close(std::vector<float>(r0, r0 + n_vocab()), fresh_last(a), n_vocab(), 1e-3, "seq 0 after cp");
    expect_rows_close(std::vector<float>(r1, r1 + n_vocab()), fresh_last(b), n_vocab(), 1e-3, "seq 1 after cp");

    llama_memory_seq_keep(mem, 1);
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 0), -1);
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 1), (llama_pos) p.size());
    llama_memory_clear(mem, false);
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 1), -1);
}

TEST_F(LlamaE2E, SeqRmThenRedecodeEqualsFreshRun) {
    const std::vector<llama_token> a = tokenize(stories, "Once upon a time there was");
    const std::vector<llama_token> b = tokenize(stories, " a big red dog", false);
    const std::vector<llama_token> c = tokenize(stories, " a tiny cat", false);

    ctx_ptr                  ctx(llama_init_from_model(stories, ctx_params()));
    std::vector<llama_token> ab = a;
    ab.insert(ab.end(), b.begin(), b.end());
    decode_all_logits(ctx.get(), ab);
    llama_memory_t mem = llama_get_memory(ctx.get());
    ASSERT_TRUE(llama_memory_seq_rm(mem, 0, (llama_pos) a.size(), -1));
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 0), (llama_pos) a.size() - 1);
    const std::vector<float> got = decode_all_logits(ctx.get(), c, 0, (llama_pos) a.size());

    ctx_ptr                  fresh(llama_init_from_model(stories, ctx_params()));
    std::vector<llama_token> ac = a;
    ac.insert(ac.end(), c.begin(), c.end());
    const std::vector<float> all = decode_all_logits(fresh.get(), ac);
    const std::vector<float> tail(all.end() - c.size() * (size_t) n_vocab(), all.end());
    expect_rows_close(got, tail, n_vocab(), 1e-3, "after seq_rm");
}

TEST_F(LlamaE2E, KvCacheFullReturnsOneAndKeepsCache) {
    llama_context_params cp = ctx_params(256);  // exactly 256 cells
    ctx_ptr              ctx(llama_init_from_model(stories, cp));
    ASSERT_EQ(llama_n_ctx(ctx.get()), 256u);
    std::vector<llama_token>       toks;
    const std::vector<llama_token> base = long_prompt();
    while (toks.size() < 260) {
        toks.insert(toks.end(), base.begin() + 1, base.end());
    }
    std::vector<llama_token> first(toks.begin(), toks.begin() + 200);
    ASSERT_EQ(llama_decode(ctx.get(), llama_batch_get_one(first.data(), 200)), 0);
    llama_memory_t mem = llama_get_memory(ctx.get());
    ASSERT_EQ(llama_memory_seq_pos_max(mem, 0), 199);

    std::vector<llama_token> too_many(toks.begin() + 200, toks.begin() + 260);  // 200 + 60 > 256
    EXPECT_EQ(llama_decode(ctx.get(), llama_batch_get_one(too_many.data(), 60)), 1);
    EXPECT_NE(std::string(llama_last_error()).find("KV"), std::string::npos) << llama_last_error();
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 0), 199);  // unchanged
    EXPECT_EQ(llama_memory_seq_pos_min(mem, 0), 0);

    // a smaller batch still fits, and computes exactly what a fresh run does
    std::vector<llama_token> fits(toks.begin() + 200, toks.begin() + 250);
    ASSERT_EQ(llama_decode(ctx.get(), llama_batch_get_one(fits.data(), 50)), 0) << llama_last_error();
    const std::vector<float> got(llama_get_logits_ith(ctx.get(), -1), llama_get_logits_ith(ctx.get(), -1) + n_vocab());

    ctx_ptr fresh(llama_init_from_model(stories, cp));
    ASSERT_EQ(llama_decode(fresh.get(), llama_batch_get_one(toks.data(), 250)), 0);
    const std::vector<float> want(llama_get_logits_ith(fresh.get(), -1),
                                  llama_get_logits_ith(fresh.get(), -1) + n_vocab());
    expect_rows_close(got, want, n_vocab(), 1e-3, "after a refused batch");
}

TEST_F(LlamaE2E, InvalidBatchesReturnErrorCodes) {
    llama_context_params cp = ctx_params();
    cp.n_batch              = 64;
    ctx_ptr ctx(llama_init_from_model(stories, cp));
    ASSERT_NE(ctx, nullptr);
    llama_memory_t mem = llama_get_memory(ctx.get());

    llama_token bad[2] = {1, -5};
    EXPECT_EQ(llama_decode(ctx.get(), llama_batch_get_one(bad, 2)), -1);
    EXPECT_NE(std::string(llama_last_error()).find("token"), std::string::npos) << llama_last_error();
    bad[1] = n_vocab();
    EXPECT_EQ(llama_decode(ctx.get(), llama_batch_get_one(bad, 2)), -1);

    {
        owned_batch b(2, 1);
        b.add(1, 0, {3}, true);  // n_seq_max is 1
        EXPECT_EQ(llama_decode(ctx.get(), b.b), -1);
        EXPECT_NE(std::string(llama_last_error()).find("seq_id"), std::string::npos) << llama_last_error();
    }
    {
        std::vector<llama_token> big(65, 1);
        EXPECT_EQ(llama_decode(ctx.get(), llama_batch_get_one(big.data(), 65)), -1);
        EXPECT_NE(std::string(llama_last_error()).find("n_batch"), std::string::npos) << llama_last_error();
    }
    EXPECT_EQ(llama_decode(ctx.get(), llama_batch_get_one(bad, 0)), -1);
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 0), -1);  // nothing was stored

    // positions that skip ahead of the sequence
    llama_token ok[3] = {1, 403, 407};
    ASSERT_EQ(llama_decode(ctx.get(), llama_batch_get_one(ok, 3)), 0);
    {
        owned_batch b(1, 1);
        b.add(261, 10, {0}, true);
        EXPECT_EQ(llama_decode(ctx.get(), b.b), -1);
    }
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 0), 2);

    // only the last token requested logits
    EXPECT_EQ(llama_get_logits_ith(ctx.get(), 0), nullptr);
    EXPECT_NE(std::string(llama_last_error()).find("logits"), std::string::npos) << llama_last_error();
    EXPECT_NE(llama_get_logits_ith(ctx.get(), 2), nullptr);
    EXPECT_EQ(llama_get_logits_ith(ctx.get(), 2), llama_get_logits_ith(ctx.get(), -1));
    EXPECT_EQ(llama_get_logits_ith(ctx.get(), -2), nullptr);
    EXPECT_EQ(llama_get_logits_ith(ctx.get(), 3), nullptr);

    // the context still works after the errors
    llama_token next = 261;
    EXPECT_EQ(llama_decode(ctx.get(), llama_batch_get_one(&next, 1)), 0);
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 0), 3);
}

TEST_F(LlamaE2E, GraphReuseIsCounted) {
    llama_context_params cp = ctx_params();
    cp.no_perf              = false;
    ctx_ptr                  ctx(llama_init_from_model(stories, cp));
    std::vector<llama_token> out;
    std::vector<float>       rows;
    run_greedy(ctx.get(), tokenize(stories, "Once upon a time"), 10, out, rows);
    const llama_perf_context_data d = llama_perf_context(ctx.get());
    EXPECT_EQ(d.n_eval, 9);
    EXPECT_EQ(d.n_p_eval, 5);
    EXPECT_GE(d.n_reused, 8);  // every single-token decode after the first reuses the graph
}

TEST_F(LlamaE2E, MultiSequenceStepsReuseTheGraph) {
    // continuous batching: one token for each of 4 sequences per decode, as a server steps them;
    // every step after the first has the same shape and must reuse the graph (no rebuild, no
    // re-allocation per step)
    llama_context_params cp = ctx_params(4096);
    cp.n_seq_max            = 4;
    cp.no_perf              = false;
    ctx_ptr ctx(llama_init_from_model(stories, cp));
    ASSERT_NE(ctx, nullptr) << llama_last_error();
    {
        owned_batch b(16);
        for (int s = 0; s < 4; s++) {
            for (int i = 0; i < 3; i++) {
                b.add((llama_token) (300 + 7 * s + i), i, {s}, i == 2);
            }
        }
        ASSERT_EQ(llama_decode(ctx.get(), b.b), 0) << llama_last_error();
    }
    llama_perf_context_reset(ctx.get());
    const int n_steps = 12;
    for (int step = 0; step < n_steps; step++) {
        owned_batch b(4);
        for (int s = 0; s < 4; s++) {
            b.add((llama_token) (261 + 5 * s + step), 3 + step, {s}, true);
        }
        ASSERT_EQ(llama_decode(ctx.get(), b.b), 0) << llama_last_error();
        for (int s = 0; s < 4; s++) {
            ASSERT_NE(llama_get_logits_ith(ctx.get(), s), nullptr);
        }
    }
    const llama_perf_context_data d = llama_perf_context(ctx.get());
    EXPECT_EQ(d.n_p_eval, 4 * n_steps);
    EXPECT_GE(d.n_reused, n_steps - 1);
}

TEST_F(LlamaE2E, FlashAttentionMatchesPlainAttention) {
    const std::vector<llama_token> toks = long_prompt();
    llama_context_params           cp0  = ctx_params();
    cp0.flash_attn_type                 = LLAMA_FLASH_ATTN_TYPE_DISABLED;
    ctx_ptr                  a(llama_init_from_model(stories, cp0));
    const std::vector<float> ref = decode_all_logits(a.get(), toks);
    llama_context_params     cp  = ctx_params();
    cp.flash_attn_type           = LLAMA_FLASH_ATTN_TYPE_ENABLED;
    ctx_ptr b(llama_init_from_model(stories, cp));
    ASSERT_NE(b, nullptr) << llama_last_error();
    expect_rows_close(decode_all_logits(b.get(), toks), ref, n_vocab(), 1e-2, "flash attention");
}

TEST_F(LlamaE2E, SeqAddShiftsPositions) {
    // shifting a decoded sequence by +10 (the cached K are re-rotated) must equal decoding it at
    // positions 10.. in the first place, up to the F16 rounding of the rotated keys
    const std::vector<llama_token> toks = long_prompt();
    const std::vector<llama_token> head(toks.begin(), toks.begin() + 20);
    const std::vector<llama_token> tail(toks.begin() + 20, toks.begin() + 24);

    ctx_ptr a(llama_init_from_model(stories, ctx_params()));
    decode_all_logits(a.get(), head);
    llama_memory_t mem = llama_get_memory(a.get());
    ASSERT_TRUE(llama_memory_can_shift(mem));
    llama_memory_seq_add(mem, 0, 0, -1, 10);
    EXPECT_EQ(llama_memory_seq_pos_min(mem, 0), 10);
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 0), 29);
    const std::vector<float> got = decode_all_logits(a.get(), tail, 0, 30);

    ctx_ptr b(llama_init_from_model(stories, ctx_params()));
    decode_all_logits(b.get(), head, 0, 10);
    const std::vector<float> want = decode_all_logits(b.get(), tail, 0, 30);
    expect_rows_close(got, want, n_vocab(), 1e-2, "after seq_add");

    // seq_div halves positions: 10..33 -> 5..16
    llama_memory_seq_div(mem, 0, 0, -1, 2);
    EXPECT_EQ(llama_memory_seq_pos_min(mem, 0), 5);
    EXPECT_EQ(llama_memory_seq_pos_max(mem, 0), 16);
}

// ---- loading -----------------------------------------------------------------------------------

TEST_F(LlamaE2E, LoadModesGiveIdenticalLogits) {
    const std::vector<llama_token> toks = tokenize(stories, "Once upon a time");
    ctx_ptr                        a(llama_init_from_model(stories, ctx_params()));
    const std::vector<float>       ref = decode_all_logits(a.get(), toks);
    for (llama_load_mode mode : {LLAMA_LOAD_MODE_NONE, LLAMA_LOAD_MODE_MMAP, LLAMA_LOAD_MODE_DIRECT_IO}) {
        llama_model_params mp = llama_model_default_params();
        mp.load_mode          = mode;
        mp.check_tensors      = true;
        model_ptr m           = load("models/stories260K.gguf", mp);
        ASSERT_NE(m, nullptr) << "mode " << mode << ": " << llama_last_error();
        ctx_ptr c(llama_init_from_model(m.get(), ctx_params()));
        expect_rows_close(decode_all_logits(c.get(), toks), ref, n_vocab(), 1e-6, "load mode");
    }
}

TEST_F(LlamaE2E, ProgressCallbackCancelGivesNull) {
    llama_model_params mp    = llama_model_default_params();
    int                calls = 0;
    mp.progress_callback     = [](float p, void * ud) {
        ++*(int *) ud;
        return p < 0.5f;
    };
    mp.progress_callback_user_data = &calls;
    EXPECT_EQ(load("models/stories260K.gguf", mp), nullptr);
    EXPECT_GT(calls, 0);
    EXPECT_NE(std::string(llama_last_error()).find("cancel"), std::string::npos) << llama_last_error();
}

TEST_F(LlamaE2E, CorruptOrTruncatedFilesGiveNullWithReason) {
    const std::vector<uint8_t> bytes = read_file(data_path("models/stories260K.gguf"));
    ASSERT_GT(bytes.size(), 1000u);

    // truncated in the tensor data: the header parses, the weights map check must catch it
    const std::string trunc = write_temp_file("trunc.gguf", std::vector<uint8_t>(bytes.begin(), bytes.end() - 5000));
    EXPECT_EQ(llama_model_load_from_file(trunc.c_str(), llama_model_default_params()), nullptr);
    EXPECT_NE(std::string(llama_last_error()), "");
    // truncated in the header
    const std::string head = write_temp_file("head.gguf", std::vector<uint8_t>(bytes.begin(), bytes.begin() + 100));
    EXPECT_EQ(llama_model_load_from_file(head.c_str(), llama_model_default_params()), nullptr);
    EXPECT_NE(std::string(llama_last_error()).find("GGUF"), std::string::npos) << llama_last_error();
    // garbage
    std::vector<uint8_t> junk(4096, 0xAB);
    const std::string    garbage = write_temp_file("junk.gguf", junk);
    EXPECT_EQ(llama_model_load_from_file(garbage.c_str(), llama_model_default_params()), nullptr);
    EXPECT_NE(std::string(llama_last_error()), "");
    // missing
    EXPECT_EQ(llama_model_load_from_file("/nonexistent/model.gguf", llama_model_default_params()), nullptr);
    EXPECT_NE(std::string(llama_last_error()).find("nonexistent"), std::string::npos) << llama_last_error();
    remove(trunc.c_str());
    remove(head.c_str());
    remove(garbage.c_str());
}

TEST_F(LlamaE2E, KvOverrides) {
    llama_model_kv_override kvo[2] = {};
    kvo[0].tag                     = LLAMA_KV_OVERRIDE_TYPE_STR;
    snprintf(kvo[0].key, sizeof kvo[0].key, "general.architecture");
    snprintf(kvo[0].val_str, sizeof kvo[0].val_str, "nosucharch");
    llama_model_params mp = llama_model_default_params();
    mp.kv_overrides       = kvo;
    EXPECT_EQ(load("models/stories260K.gguf", mp), nullptr);
    EXPECT_NE(std::string(llama_last_error()).find("unknown model architecture"), std::string::npos)
        << llama_last_error();

    kvo[0].tag = LLAMA_KV_OVERRIDE_TYPE_INT;
    snprintf(kvo[0].key, sizeof kvo[0].key, "llama.context_length");
    kvo[0].val_i64 = 1024;
    model_ptr m    = load("models/stories260K.gguf", mp);
    ASSERT_NE(m, nullptr) << llama_last_error();
    EXPECT_EQ(llama_model_n_ctx_train(m.get()), 1024);
    char buf[64];
    EXPECT_EQ(llama_model_meta_val_str(m.get(), "llama.context_length", buf, sizeof buf), 4);
    EXPECT_STREQ(buf, "1024");
}

TEST_F(LlamaE2E, SplitModelLoadsLikeTheWhole) {
    const std::vector<std::string> parts = rewrite_model(data_path("models/stories260K.gguf"), "split", 3);
    ASSERT_EQ(parts.size(), 3u);
    const std::vector<llama_token> toks = tokenize(stories, "Once upon a time");
    ctx_ptr                        a(llama_init_from_model(stories, ctx_params()));
    const std::vector<float>       ref = decode_all_logits(a.get(), toks);

    // from the first part (the others found by name), and from the explicit list
    model_ptr m1(llama_model_load_from_file(parts[0].c_str(), llama_model_default_params()));
    ASSERT_NE(m1, nullptr) << llama_last_error();
    std::vector<const char *> cpaths;
    for (const auto & p : parts) {
        cpaths.push_back(p.c_str());
    }
    llama_model_params mp = llama_model_default_params();
    mp.load_mode          = LLAMA_LOAD_MODE_NONE;
    model_ptr m2(llama_model_load_from_splits(cpaths.data(), cpaths.size(), mp));
    ASSERT_NE(m2, nullptr) << llama_last_error();
    for (llama_model * m : {m1.get(), m2.get()}) {
        ctx_ptr c(llama_init_from_model(m, ctx_params()));
        expect_rows_close(decode_all_logits(c.get(), toks), ref, n_vocab(), 1e-6, "split model");
    }
    // a missing part is a clear error
    remove(parts[2].c_str());
    EXPECT_EQ(llama_model_load_from_file(parts[0].c_str(), llama_model_default_params()), nullptr);
    EXPECT_NE(std::string(llama_last_error()).find("00003-of-00003"), std::string::npos) << llama_last_error();
    char prefix[256];
    EXPECT_GT(llama_split_prefix(prefix, sizeof prefix, parts[1].c_str(), 1, 3), 0);
    char path[300];
    EXPECT_GT(llama_split_path(path, sizeof path, prefix, 1, 3), 0);
    EXPECT_EQ(std::string(path), parts[1]);
    remove(parts[0].c_str());
    remove(parts[1].c_str());
}

TEST_F(LlamaE2E, MissingTensorOrWrongShapeIsAClearError) {
    const auto missing = rewrite_model(data_path("models/stories260K.gguf"), "missing", 1, "blk.2.ffn_up.weight");
    EXPECT_EQ(llama_model_load_from_file(missing[0].c_str(), llama_model_default_params()), nullptr);
    EXPECT_NE(std::string(llama_last_error()).find("missing tensor 'blk.2.ffn_up.weight'"), std::string::npos)
        << llama_last_error();
    const auto shape = rewrite_model(data_path("models/stories260K.gguf"), "shape", 1, "", "blk.1.attn_k.weight");
    EXPECT_EQ(llama_model_load_from_file(shape[0].c_str(), llama_model_default_params()), nullptr);
    EXPECT_NE(std::string(llama_last_error()).find("wrong shape"), std::string::npos) << llama_last_error();
    remove(missing[0].c_str());
    remove(shape[0].c_str());
}

TEST_F(LlamaE2E, AbortCallbackStopsDecode) {
    ctx_ptr ctx(llama_init_from_model(stories, ctx_params()));
    llama_set_abort_callback(
        ctx.get(), [](void *) { return true; }, nullptr);
    std::vector<llama_token> toks = tokenize(stories, "Once upon a time");
    EXPECT_EQ(llama_decode(ctx.get(), llama_batch_get_one(toks.data(), (int) toks.size())), 2);
    EXPECT_EQ(llama_memory_seq_pos_max(llama_get_memory(ctx.get()), 0), -1);  // the aborted ubatch is not kept
    llama_set_abort_callback(ctx.get(), nullptr, nullptr);
    EXPECT_EQ(llama_decode(ctx.get(), llama_batch_get_one(toks.data(), (int) toks.size())), 0);
}

TEST_F(LlamaE2E, VocabOnlyModelTokenizesButHasNoContext) {
    llama_model_params mp = llama_model_default_params();
    mp.vocab_only         = true;
    model_ptr m           = load("models/stories260K.gguf", mp);
    ASSERT_NE(m, nullptr) << llama_last_error();
    EXPECT_EQ(tokenize(m.get(), "Once upon a time"), tokenize(stories, "Once upon a time"));
    EXPECT_EQ(llama_init_from_model(m.get(), ctx_params()), nullptr);
    EXPECT_NE(std::string(llama_last_error()).find("vocab_only"), std::string::npos) << llama_last_error();
}

TEST_F(LlamaE2E, ModelQueries) {
    EXPECT_EQ(llama_model_n_embd(stories), 64);
    EXPECT_EQ(llama_model_n_layer(stories), 5);
    EXPECT_EQ(llama_model_n_head(stories), 8);
    EXPECT_EQ(llama_model_n_head_kv(stories), 4);
    EXPECT_EQ(llama_model_n_ctx_train(stories), 2048);
    EXPECT_GT(llama_model_n_params(stories), 200000u);
    EXPECT_GT(llama_model_size(stories), 800000u);
    char buf[128];
    EXPECT_GT(llama_model_desc(stories, buf, sizeof buf), 0);
    EXPECT_EQ(std::string(buf).rfind("llama", 0), 0u) << buf;
    EXPECT_EQ(llama_model_meta_val_str(stories, "general.architecture", buf, sizeof buf), 5);
    EXPECT_STREQ(buf, "llama");
    EXPECT_EQ(llama_model_meta_val_str(stories, "no.such.key", buf, sizeof buf), -1);
    const int n = llama_model_meta_count(stories);
    EXPECT_GE(n, 19);
    EXPECT_GT(llama_model_meta_key_by_index(stories, 0, buf, sizeof buf), 0);
    EXPECT_EQ(llama_model_meta_key_by_index(stories, n, buf, sizeof buf), -1);
    EXPECT_EQ(llama_model_chat_template(stories, nullptr), nullptr);
    EXPECT_STREQ(llama_version(), "0.1.0");
    EXPECT_EQ(llama_abi_version(), LLAMA_ABI_VERSION);
    EXPECT_TRUE(llama_supports_mmap());
}
