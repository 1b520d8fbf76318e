// libllama with the CPU's extra buffer type (CPU_REPACK): with use_extra_bufts on (the default) the
// Q4_0 / Q8_0 matrices of a model go there, and the logits of a prompt and of single-token steps match
// the run with it off (the kernels differ only in the float accumulation order).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "llama.h"
#include "test-common.h"
#include "test-compat.h"

using testing_util::data_path;
using testing_util::nmse;

namespace {

std::string g_log;

// The arm64 NEON level does not offer CPU_REPACK by default (ggml_repack_offered, cpu-repack.h); this
// makes it offer it, so its group kernels are checked end to end here as at the other levels. Set
// before the backend first answers (it reads the variable once).
const bool k_repack_neon = (setenv("GGML_CPU_REPACK_NEON", "1", 0), true);

void capture_log(ggml_log_level, const char * text, void *) {
    g_log += text;
}

std::string temp_path(const std::string & stem) {
    std::string p = testing_util::write_temp_file(stem, {});
    std::remove(p.c_str());
    return p;
}

// Logits of an 8-token prompt (the prefill kernels), then of 3 single-token steps (decode GEMV).
std::vector<float> run(const std::string & path, bool extra_bufts, std::string & log) {
    llama_model_params mp = llama_model_default_params();
    mp.use_extra_bufts    = extra_bufts;
    g_log.clear();
    llama_log_set(capture_log, nullptr);
    llama_model * model = llama_model_load_from_file(path.c_str(), mp);
    llama_log_set(nullptr, nullptr);
    log = g_log;
    if (!model) {
        return {};
    }
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx                = 64;
    cp.n_threads = cp.n_threads_batch = 2;
    llama_context *    ctx            = llama_init_from_model(model, cp);
    const int          n_vocab        = llama_vocab_n_tokens(llama_model_get_vocab(model));
    std::vector<float> out;
    if (ctx) {
        std::vector<llama_token> prompt = {1, 5, 9, 13, 17, 21, 25, 29};
        if (llama_decode(ctx, llama_batch_get_one(prompt.data(), (int32_t) prompt.size())) == 0) {
            const float * l = llama_get_logits_ith(ctx, -1);
            out.insert(out.end(), l, l + n_vocab);
            for (llama_token t : {3, 7, 11}) {
                if (llama_decode(ctx, llama_batch_get_one(&t, 1)) != 0) {
                    break;
                }
                l = llama_get_logits_ith(ctx, -1);
                out.insert(out.end(), l, l + n_vocab);
            }
        }
        llama_free(ctx);
    }
    llama_model_free(model);
    return out;
}

class RepackE2E : public ::testing::TestWithParam<llama_ftype> {};

TEST_P(RepackE2E, PackedWeightsGiveTheSameLogits) {
    llama_backend_init();
    const std::string           q  = temp_path("repack.gguf");
    llama_model_quantize_params qp = llama_model_quantize_default_params();
    qp.ftype                       = GetParam();
    qp.nthread                     = 2;
    ASSERT_EQ(llama_model_quantize(data_path("models/synthetic/llama-micro-f16.gguf").c_str(), q.c_str(), &qp), 0u)
        << llama_last_error();

    std::string              log_on, log_off;
    const std::vector<float> on  = run(q, true, log_on);
    const std::vector<float> off = run(q, false, log_off);
    std::remove(q.c_str());
    ASSERT_FALSE(off.empty()) << log_off;
    ASSERT_EQ(on.size(), off.size()) << log_on;
    EXPECT_NE(log_on.find("CPU_REPACK"), std::string::npos) << "no weight was packed:\n" << log_on;
    EXPECT_EQ(log_off.find("CPU_REPACK"), std::string::npos);
    EXPECT_LT(nmse(on, off), 1e-8);
}

INSTANTIATE_TEST_SUITE_P(Types, RepackE2E, ::testing::Values(LLAMA_FTYPE_MOSTLY_Q4_0, LLAMA_FTYPE_MOSTLY_Q8_0));

}  // namespace
