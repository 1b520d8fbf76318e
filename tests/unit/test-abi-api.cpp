// The llama.h functions added for drop-in compatibility with llama.cpp (docs/abi.md), on the
// stories260K model: model save -> reload gives the same logits; caller thread pools compute the
// same logits; backend sampling equals running the chain by hand; the abort and eval callbacks
// stop a decode with code 2; training and user-built models fail cleanly; the deprecated names
// answer as the current ones; unsupported context/model parameters are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

#include "ggml-cpu.h"
#include "llama.h"
#include "test-common.h"
#include "test-llama-util.h"

using namespace llama_test_util;
using testing_util::data_path;

namespace {

void quiet_log(ggml_log_level, const char *, void *) {}

const std::string k_model = "models/stories260K.gguf";

model_ptr load(const std::string & path) {
    llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers       = 0;
    return model_ptr(llama_model_load_from_file(path.c_str(), mp));
}

ctx_ptr make_ctx(llama_model * m, llama_context_params cp = llama_context_default_params()) {
    cp.n_ctx     = 256;
    cp.n_batch   = 64;
    cp.n_threads = cp.n_threads_batch = 2;
    return ctx_ptr(llama_init_from_model(m, cp));
}

// Decodes the prompt and returns the logits of its last token.
std::vector<float> prompt_logits(llama_context * ctx, const llama_model * m) {
    std::vector<llama_token> toks = tokenize(m, "Once upon a time");
    EXPECT_EQ(llama_decode(ctx, llama_batch_get_one(toks.data(), (int32_t) toks.size())), 0) << llama_last_error();
    const float * lg = llama_get_logits_ith(ctx, -1);
    EXPECT_NE(lg, nullptr);
    const int n = llama_vocab_n_tokens(llama_model_get_vocab(m));
    return lg ? std::vector<float>(lg, lg + n) : std::vector<float>();
}

std::string tmp_path(const char * tag) {
    return testing::TempDir() + "test-abi-api-" + std::to_string(getpid()) + "-" + tag + ".gguf";
}

class AbiApi : public ::testing::Test {
protected:
    void SetUp() override { llama_log_set(quiet_log, nullptr); }
    void TearDown() override { llama_log_set(nullptr, nullptr); }
};

TEST_F(AbiApi, SavedModelReloadsWithSameLogits) {
    model_ptr m = load(data_path(k_model));
    ASSERT_TRUE(m) << llama_last_error();
    const std::string path = tmp_path("save");
    llama_model_save_to_file(m.get(), path.c_str());
    model_ptr m2 = load(path);
    std::remove(path.c_str());
    ASSERT_TRUE(m2) << llama_last_error();
    EXPECT_EQ(llama_model_n_params(m2.get()), llama_model_n_params(m.get()));
    EXPECT_EQ(llama_model_meta_count(m2.get()), llama_model_meta_count(m.get()));
    EXPECT_EQ(llama_model_ftype(m2.get()), llama_model_ftype(m.get()));

    ctx_ptr                  c1 = make_ctx(m.get()), c2 = make_ctx(m2.get());
    const std::vector<float> a = prompt_logits(c1.get(), m.get()), b = prompt_logits(c2.get(), m2.get());
    ASSERT_EQ(a.size(), b.size());
    ASSERT_FALSE(a.empty());
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float)));
}

TEST_F(AbiApi, SaveWithoutWeightsFailsCleanly) {
    llama_model_params mp = llama_model_default_params();
    mp.vocab_only         = true;
    model_ptr m(llama_model_load_from_file(data_path(k_model).c_str(), mp));
    ASSERT_TRUE(m);
    const std::string path = tmp_path("vocab-only");
    llama_model_save_to_file(m.get(), path.c_str());
    EXPECT_NE(std::strstr(llama_last_error(), "vocab_only"), nullptr) << llama_last_error();
    FILE * f = std::fopen(path.c_str(), "rb");
    EXPECT_EQ(f, nullptr);
    if (f) {
        std::fclose(f);
    }
    llama_model_save_to_file(nullptr, path.c_str());  // no crash
}

TEST_F(AbiApi, LoadFromFilePtr) {
    FILE * f = std::fopen(data_path(k_model).c_str(), "rb");
    ASSERT_NE(f, nullptr);
    std::fseek(f, 100, SEEK_SET);  // the whole file is read whatever the position
    model_ptr m(llama_model_load_from_file_ptr(f, llama_model_default_params()));
    std::fclose(f);
    ASSERT_TRUE(m) << llama_last_error();
    model_ptr ref = load(data_path(k_model));
    EXPECT_EQ(llama_model_n_params(m.get()), llama_model_n_params(ref.get()));
    EXPECT_EQ(llama_model_load_from_file_ptr(nullptr, llama_model_default_params()), nullptr);
}

TEST_F(AbiApi, AttachedThreadpoolGivesSameLogits) {
    model_ptr m = load(data_path(k_model));
    ASSERT_TRUE(m);
    ctx_ptr                  ref  = make_ctx(m.get());
    const std::vector<float> want = prompt_logits(ref.get(), m.get());

    ggml_threadpool_params tpp = ggml_threadpool_params_default(3);
    ggml_threadpool_t      tp  = ggml_threadpool_new(&tpp);
    ASSERT_NE(tp, nullptr);
    EXPECT_EQ(ggml_threadpool_get_n_threads(tp), 3);
    ctx_ptr c = make_ctx(m.get());
    llama_attach_threadpool(c.get(), tp, nullptr);
    const std::vector<float> got = prompt_logits(c.get(), m.get());
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); i++) {
        ASSERT_NEAR(got[i], want[i], 1e-4f * (1.0f + std::fabs(want[i]))) << i;
    }
    // a single-token decode with the pool, then detached (the context's own pool again)
    llama_token t = argmax(got.data(), (int) got.size());
    EXPECT_EQ(llama_decode(c.get(), llama_batch_get_one(&t, 1)), 0);
    llama_detach_threadpool(c.get());
    EXPECT_EQ(llama_decode(c.get(), llama_batch_get_one(&t, 1)), 0);
    c.reset();
    ggml_threadpool_free(tp);

    ggml_threadpool_params bad = ggml_threadpool_params_default(0);
    EXPECT_EQ(ggml_threadpool_new(&bad), nullptr);
    EXPECT_TRUE(ggml_threadpool_params_match(&tpp, &tpp));
    EXPECT_FALSE(ggml_threadpool_params_match(&tpp, &bad));
}

llama_sampler * make_chain(uint32_t seed) {
    llama_sampler * ch = llama_sampler_chain_init(llama_sampler_chain_default_params());
    llama_sampler_chain_add(ch, llama_sampler_init_top_k(8));
    llama_sampler_chain_add(ch, llama_sampler_init_temp(0.7f));
    llama_sampler_chain_add(ch, llama_sampler_init_dist(seed));
    return ch;
}

TEST_F(AbiApi, BackendSamplingEqualsTheChainByHand) {
    model_ptr m = load(data_path(k_model));
    ASSERT_TRUE(m);
    llama_sampler *          chain = make_chain(1234);
    llama_sampler_seq_config cfg   = {0, chain};
    llama_context_params     cp    = llama_context_default_params();
    cp.samplers                    = &cfg;
    cp.n_samplers                  = 1;
    cp.n_seq_max                   = 2;
    ctx_ptr c                      = make_ctx(m.get(), cp);
    ASSERT_TRUE(c) << llama_last_error();
    llama_sampler * by_hand = make_chain(1234);

    std::vector<llama_token> toks = tokenize(m.get(), "Once upon a time");
    for (int step = 0; step < 4; step++) {
        ASSERT_EQ(llama_decode(c.get(), llama_batch_get_one(toks.data(), (int32_t) toks.size())), 0);
        const int     n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(m.get()));
        const float * lg      = llama_get_logits_ith(c.get(), -1);
        ASSERT_NE(lg, nullptr);
        std::vector<llama_token_data> cand(n_vocab);
        for (int t = 0; t < n_vocab; t++) {
            cand[t] = {t, lg[t], 0.0f};
        }
        llama_token_data_array arr = {cand.data(), cand.size(), -1, false};
        llama_sampler_apply(by_hand, &arr);
        ASSERT_GE(arr.selected, 0);

        const llama_token tok = llama_get_sampled_token_ith(c.get(), -1);
        EXPECT_EQ(tok, arr.data[arr.selected].id);
        ASSERT_EQ(llama_get_sampled_candidates_count_ith(c.get(), -1), arr.size);
        ASSERT_EQ(llama_get_sampled_logits_count_ith(c.get(), -1), arr.size);
        ASSERT_EQ(llama_get_sampled_probs_count_ith(c.get(), -1), arr.size);
        const llama_token * ids   = llama_get_sampled_candidates_ith(c.get(), -1);
        const float *       lgs   = llama_get_sampled_logits_ith(c.get(), -1);
        const float *       probs = llama_get_sampled_probs_ith(c.get(), -1);
        double              sum   = 0.0;
        float               max_l = -INFINITY;
        for (size_t k = 0; k < arr.size; k++) {
            EXPECT_EQ(ids[k], arr.data[k].id);
            EXPECT_EQ(lgs[k], arr.data[k].logit);
            max_l = std::max(max_l, lgs[k]);
        }
        for (size_t k = 0; k < arr.size; k++) {
            sum += std::exp((double) lgs[k] - max_l);
        }
        for (size_t k = 0; k < arr.size; k++) {
            EXPECT_NEAR(probs[k], std::exp((double) lgs[k] - max_l) / sum, 1e-6);
        }
        // batch index: the last token of the batch is the only output
        EXPECT_EQ(llama_get_sampled_token_ith(c.get(), (int32_t) toks.size() - 1), tok);
        if (toks.size() > 1) {
            EXPECT_EQ(llama_get_sampled_token_ith(c.get(), 0), LLAMA_TOKEN_NULL);  // not an output
        }
        llama_sampler_accept(chain, tok);
        llama_sampler_accept(by_hand, tok);
        toks = {tok};
    }
    // a sequence without a sampler gives nothing
    ASSERT_TRUE(llama_set_sampler(c.get(), 0, nullptr));
    llama_token t = toks[0];
    ASSERT_EQ(llama_decode(c.get(), llama_batch_get_one(&t, 1)), 0);
    EXPECT_EQ(llama_get_sampled_token_ith(c.get(), -1), LLAMA_TOKEN_NULL);
    EXPECT_EQ(llama_get_sampled_probs_ith(c.get(), -1), nullptr);
    EXPECT_EQ(llama_get_sampled_candidates_count_ith(c.get(), -1), 0u);
    // invalid sequences and non-chains are refused
    EXPECT_FALSE(llama_set_sampler(c.get(), 2, chain));
    llama_sampler * greedy = llama_sampler_init_greedy();
    EXPECT_FALSE(llama_set_sampler(c.get(), 0, greedy));
    EXPECT_NE(std::strstr(llama_last_error(), "chain"), nullptr);
    llama_sampler_free(greedy);
    c.reset();
    llama_sampler_free(chain);
    llama_sampler_free(by_hand);
}

bool abort_now(void *) {
    return true;
}

TEST_F(AbiApi, AbortCallbackStopsDecode) {
    model_ptr m = load(data_path(k_model));
    ASSERT_TRUE(m);
    llama_context_params cp = llama_context_default_params();
    cp.abort_callback       = abort_now;
    ctx_ptr c               = make_ctx(m.get(), cp);
    ASSERT_TRUE(c);
    std::vector<llama_token> toks = tokenize(m.get(), "Once upon a time");
    EXPECT_EQ(llama_decode(c.get(), llama_batch_get_one(toks.data(), (int32_t) toks.size())), 2);
    llama_set_abort_callback(c.get(), nullptr, nullptr);
    llama_memory_clear(llama_get_memory(c.get()), true);
    EXPECT_EQ(llama_decode(c.get(), llama_batch_get_one(toks.data(), (int32_t) toks.size())), 0);
}

struct eval_log {
    int                      n_ask = 0, n_seen = 0;
    int                      stop_after = -1;  // answer false after this many computed nodes
    std::vector<std::string> names;
};

bool on_eval(ggml_tensor * t, bool ask, void * ud) {
    auto * log = (eval_log *) ud;
    if (ask) {
        log->n_ask++;
        return true;
    }
    log->n_seen++;
    log->names.emplace_back(t->name);
    return log->stop_after < 0 || log->n_seen < log->stop_after;
}

TEST_F(AbiApi, EvalCallbackSeesNodesAndCanStop) {
    model_ptr m = load(data_path(k_model));
    ASSERT_TRUE(m);
    eval_log             log;
    llama_context_params cp = llama_context_default_params();
    cp.cb_eval              = on_eval;
    cp.cb_eval_user_data    = &log;
    ctx_ptr c               = make_ctx(m.get(), cp);
    ASSERT_TRUE(c);
    ctx_ptr                  ref  = make_ctx(m.get());
    const std::vector<float> want = prompt_logits(ref.get(), m.get());
    const std::vector<float> got  = prompt_logits(c.get(), m.get());
    EXPECT_EQ(got, want);  // observing does not change results
    EXPECT_GT(log.n_ask, 10);
    EXPECT_EQ(log.n_seen, log.n_ask);
    EXPECT_FALSE(log.names.empty());

    eval_log stop;
    stop.stop_after               = 3;
    cp.cb_eval_user_data          = &stop;
    ctx_ptr                  c2   = make_ctx(m.get(), cp);
    std::vector<llama_token> toks = tokenize(m.get(), "Once upon a time");
    EXPECT_EQ(llama_decode(c2.get(), llama_batch_get_one(toks.data(), (int32_t) toks.size())), 2);
    EXPECT_EQ(stop.n_seen, 3);
}

TEST_F(AbiApi, TrainingFailsCleanly) {
    model_ptr m = load(data_path(k_model));
    ASSERT_TRUE(m);
    ctx_ptr c = make_ctx(m.get());
    ASSERT_TRUE(c);
    EXPECT_TRUE(llama_opt_param_filter_all(nullptr, nullptr));
    llama_opt_params op = {};
    op.param_filter     = llama_opt_param_filter_all;
    llama_opt_init(c.get(), m.get(), op);
    EXPECT_NE(std::strstr(llama_last_error(), "training is not supported"), nullptr) << llama_last_error();
    llama_opt_epoch(c.get(), nullptr, nullptr, nullptr, 0, nullptr, nullptr);
    EXPECT_NE(std::strstr(llama_last_error(), "llama_opt_epoch"), nullptr) << llama_last_error();
    // the context still works
    EXPECT_FALSE(prompt_logits(c.get(), m.get()).empty());
}

TEST_F(AbiApi, UnsupportedParametersAreRefused) {
    EXPECT_EQ(llama_model_init_from_user(nullptr, nullptr, nullptr, llama_model_default_params()), nullptr);
    EXPECT_NE(std::strstr(llama_last_error(), "not supported"), nullptr);

    llama_model_params mp = llama_model_default_params();
    mp.no_alloc           = true;
    EXPECT_EQ(llama_model_load_from_file(data_path(k_model).c_str(), mp), nullptr);
    mp           = llama_model_default_params();
    mp.load_mode = (llama_load_mode) 42;
    EXPECT_EQ(llama_model_load_from_file(data_path(k_model).c_str(), mp), nullptr);

    model_ptr m = load(data_path(k_model));
    ASSERT_TRUE(m);
    llama_context_params cp = llama_context_default_params();
    cp.ctx_type             = LLAMA_CONTEXT_TYPE_MTP;
    EXPECT_FALSE(make_ctx(m.get(), cp));
    cp          = llama_context_default_params();
    cp.n_rs_seq = 1;
    EXPECT_FALSE(make_ctx(m.get(), cp));
    cp            = llama_context_default_params();
    ctx_ptr other = make_ctx(m.get());
    cp.ctx_other  = other.get();
    EXPECT_FALSE(make_ctx(m.get(), cp));
    cp            = llama_context_default_params();
    cp.n_samplers = 1;  // samplers NULL
    EXPECT_FALSE(make_ctx(m.get(), cp));
}

#if defined(__GNUC__)
#    pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

TEST_F(AbiApi, DeprecatedNamesAnswerAsCurrentOnes) {
    model_ptr m(llama_load_model_from_file(data_path(k_model).c_str(), llama_model_default_params()));
    ASSERT_TRUE(m);
    const llama_model * mm = m.get();
    const llama_vocab * v  = llama_model_get_vocab(mm);
    EXPECT_EQ(llama_n_ctx_train(mm), llama_model_n_ctx_train(mm));
    EXPECT_EQ(llama_n_embd(mm), llama_model_n_embd(mm));
    EXPECT_EQ(llama_n_layer(mm), llama_model_n_layer(mm));
    EXPECT_EQ(llama_n_head(mm), llama_model_n_head(mm));
    EXPECT_EQ(llama_n_vocab(v), llama_vocab_n_tokens(v));
    EXPECT_EQ(llama_model_n_embd_inp(mm), llama_model_n_embd(mm));
    EXPECT_EQ(llama_model_n_layer_nextn(mm), 0);
    EXPECT_EQ(llama_token_bos(v), llama_vocab_bos(v));
    EXPECT_EQ(llama_token_eos(v), llama_vocab_eos(v));
    EXPECT_EQ(llama_token_cls(v), llama_vocab_bos(v));
    EXPECT_EQ(llama_vocab_cls(v), llama_vocab_bos(v));
    EXPECT_EQ(llama_add_bos_token(v), llama_vocab_get_add_bos(v));
    EXPECT_STREQ(llama_token_get_text(v, 5), llama_vocab_get_text(v, 5));
    EXPECT_EQ(llama_token_get_attr(v, 1), llama_vocab_get_attr(v, 1));
    EXPECT_EQ(llama_token_is_eog(v, llama_vocab_eos(v)), true);
    EXPECT_EQ(llama_model_cls_label(mm, 0), nullptr);
    int32_t n_sup = -1;
    EXPECT_EQ(llama_vocab_get_suppress_tokens(v, &n_sup), nullptr);
    EXPECT_EQ(n_sup, 0);

    llama_context * c = llama_new_context_with_model(m.get(), llama_context_default_params());
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(llama_n_ctx_seq(c), llama_n_ctx(c));
    EXPECT_EQ(llama_n_rs_seq(c), 0u);
    llama_free(c);
    llama_free_model(m.release());
}

TEST_F(AbiApi, EnumNames) {
    EXPECT_STREQ(llama_ftype_name(LLAMA_FTYPE_MOSTLY_Q4_K_M), "Q4_K - Medium");
    EXPECT_STREQ(llama_ftype_name(LLAMA_FTYPE_ALL_F32), "all F32");
    EXPECT_STREQ(llama_ftype_name((llama_ftype) (LLAMA_FTYPE_MOSTLY_Q8_0 | LLAMA_FTYPE_GUESSED)), "Q8_0 (guessed)");
    EXPECT_STREQ(llama_flash_attn_type_name(LLAMA_FLASH_ATTN_TYPE_DISABLED), "disabled");
    for (llama_load_mode mode : {LLAMA_LOAD_MODE_AUTO, LLAMA_LOAD_MODE_NONE, LLAMA_LOAD_MODE_MMAP,
                                 LLAMA_LOAD_MODE_MLOCK, LLAMA_LOAD_MODE_MMAP_MLOCK, LLAMA_LOAD_MODE_DIRECT_IO}) {
        EXPECT_EQ(llama_load_mode_from_str(llama_load_mode_name(mode)), mode);
    }
    EXPECT_EQ(llama_load_mode_from_str("bogus"), LLAMA_LOAD_MODE_AUTO);
    EXPECT_NE(std::strstr(llama_last_error(), "bogus"), nullptr);
    EXPECT_EQ(llama_load_mode_from_str(nullptr), LLAMA_LOAD_MODE_AUTO);
    EXPECT_STREQ(llama_model_meta_key_str(LLAMA_MODEL_META_KEY_SAMPLING_TOP_K), "general.sampling.top_k");
    EXPECT_EQ(llama_model_meta_key_str((llama_model_meta_key) 99), nullptr);
    EXPECT_EQ(llama_max_tensor_buft_overrides(), 4096u);
    llama_numa_init(GGML_NUMA_STRATEGY_DISTRIBUTE);  // accepted
}

TEST_F(AbiApi, LogGetReturnsWhatWasSet) {
    int               tag = 0;
    ggml_log_callback cb  = nullptr;
    void *            ud  = nullptr;
    llama_log_set(quiet_log, &tag);
    llama_log_get(&cb, &ud);
    EXPECT_EQ(cb, quiet_log);
    EXPECT_EQ(ud, &tag);
    llama_log_set(nullptr, nullptr);
    llama_log_get(&cb, &ud);
    EXPECT_NE(cb, nullptr);  // the default (stderr) callback
    EXPECT_NE(cb, quiet_log);
    llama_log_get(nullptr, nullptr);  // no crash
}

}  // namespace
