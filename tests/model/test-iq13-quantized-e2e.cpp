// A synthetic llama quantized by our own quantizers into IQ3_XXS, IQ3_S, IQ1_S and IQ1_M (the generator
// calls ggml_quantize_chunk, no importance matrix) loads and decodes, and its logits stay within the
// type's measured distance of the same model in F16. Unlike test-iquant-files (random blocks), the
// weights here are the F16 model's weights, so the bound measures the quantizers end to end.
#include "../../examples/gguf-synth/gguf-synth.h"
#include "llama.h"
#include "test-common.h"
#include "test-llama-util.h"
#include "test-synth-model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace llama_test_util;

namespace {

void quiet_log(ggml_log_level, const char *, void *) {}

std::vector<float> prompt_logits(const std::string & path, const std::vector<llama_token> & prompt, int & n_vocab) {
    std::string              err;
    const std::vector<float> out = llama_test_util::sequence_logits(path, prompt, n_vocab, err);
    EXPECT_TRUE(err.empty()) << err;
    return out;
}

synth::params model_params(ggml_type t, uint64_t seed = 42) {
    synth::params p = llama_test_util::superblock_llama(t);
    p.seed          = seed;
    return p;
}

struct case_bound {
    ggml_type t;
    double    max_rel;  // logits RMS error / RMS against the F16 model (measured, plus ~15%)
};

class Iq13QuantizedModel : public ::testing::TestWithParam<case_bound> {};

TEST_P(Iq13QuantizedModel, DecodesNearTheF16Model) {
    const case_bound c = GetParam();
    llama_log_set(quiet_log, nullptr);
    const auto         prompt = synthetic_prompt(8);
    int                nv_q = 0, nv_f = 0;
    std::vector<float> lq, lf, lu;
    {
        temp_model mq(model_params(c.t), "iq13-q.gguf");
        temp_model mf(model_params(GGML_TYPE_F16), "iq13-f16.gguf");
        temp_model mu(model_params(GGML_TYPE_F16, 43), "iq13-other.gguf");  // unrelated weights
        lq       = prompt_logits(mq.path, prompt, nv_q);
        lf       = prompt_logits(mf.path, prompt, nv_f);
        int nv_u = 0;
        lu       = prompt_logits(mu.path, prompt, nv_u);
    }
    llama_log_set(nullptr, nullptr);
    ASSERT_EQ(nv_q, nv_f);
    ASSERT_EQ(lq.size(), lf.size());
    ASSERT_FALSE(lq.empty());
    ASSERT_EQ(lu.size(), lf.size());
    double e2 = 0, r2 = 0, u2 = 0;
    for (size_t i = 0; i < lq.size(); i++) {
        ASSERT_TRUE(std::isfinite(lq[i])) << i;
        e2 += ((double) lq[i] - lf[i]) * ((double) lq[i] - lf[i]);
        u2 += ((double) lu[i] - lf[i]) * ((double) lu[i] - lf[i]);
        r2 += (double) lf[i] * lf[i];
    }
    int same_top = 0;
    for (size_t p = 0; p < prompt.size(); p++) {
        same_top += argmax(lq.data() + p * nv_f, nv_f) == argmax(lf.data() + p * nv_f, nv_f);
    }
    const double rel = std::sqrt(e2 / r2), rel_u = std::sqrt(u2 / r2);
    printf(
        "  %s: logits RMS error / RMS = %.3f (a model with other weights: %.3f), same top token at %d of %zu "
        "positions\n",
        ggml_type_name(c.t), rel, rel_u, same_top, prompt.size());
    EXPECT_GT(r2, 0.0);
    EXPECT_LT(rel, c.max_rel) << ggml_type_name(c.t);
    EXPECT_LT(rel, 0.8 * rel_u) << ggml_type_name(c.t);  // the quantized model is still this model
}

INSTANTIATE_TEST_SUITE_P(
    Types, Iq13QuantizedModel,
    // measured 0.410, 0.262, 0.938, 0.908 (random N(0, 0.02) weights amplify the error through the layers)
    ::testing::Values(case_bound{GGML_TYPE_IQ3_XXS, 0.47}, case_bound{GGML_TYPE_IQ3_S, 0.30},
                      case_bound{GGML_TYPE_IQ1_S, 1.08}, case_bound{GGML_TYPE_IQ1_M, 1.04}),
    [](const ::testing::TestParamInfo<case_bound> & i) { return std::string(ggml_type_name(i.param.t)); });

}  // namespace
