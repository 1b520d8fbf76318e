// Rope scaling read from the model file and from the context parameters, end to end on synthetic
// models written by the generator (examples/gguf-synth):
// - YaRN (<arch>.rope.scaling.type = yarn, factor, original_context_length, yarn_* keys): every rope
//   node of the graph gets the parameters upstream derives (ext_factor 1, freq_scale 1/factor, the
//   attention factor rule with and without yarn_log_multiplier, the betas from the file), context
//   parameters override them, and the logits equal an unscaled file run with the same parameters
//   given by the context. The op itself is checked against the definition in tests/unit/test-rope-yarn.
// - phi3 LongRoPE: the short factors for a context within original_context_length, the long ones
//   beyond, rope.scaling.attn_factor on the rotation, and the choice changes the logits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "../../examples/gguf-synth/gguf-synth.h"
#include "ggml-impl.h"
#include "llama.h"
#include "test-common.h"
#include "test-llama-suite.h"
#include "test-llama-util.h"
#include "test-synth-model.h"

using namespace llama_test_util;

namespace {

// The parameters of a rope node (ggml_rope_ext's op_params) and the name of its factor tensor.
struct rope_node {
    int         n_ctx_orig = 0;
    float       freq_base = 0, freq_scale = 0, ext_factor = 0, attn_factor = 0, beta_fast = 0, beta_slow = 0;
    std::string factors;  // "" without frequency factors
};

bool record_rope(ggml_tensor * t, bool ask, void * ud) {
    if (ask && t->op == GGML_OP_ROPE) {
        rope_node n;
        n.n_ctx_orig  = ggml_get_op_params_i32(t, 4);
        n.freq_base   = ggml_get_op_params_f32(t, 5);
        n.freq_scale  = ggml_get_op_params_f32(t, 6);
        n.ext_factor  = ggml_get_op_params_f32(t, 7);
        n.attn_factor = ggml_get_op_params_f32(t, 8);
        n.beta_fast   = ggml_get_op_params_f32(t, 9);
        n.beta_slow   = ggml_get_op_params_f32(t, 10);
        n.factors     = t->src[2] ? ggml_get_name(t->src[2]) : "";
        static_cast<std::vector<rope_node> *>(ud)->push_back(n);
    }
    return false;  // parameters only: no data needed
}

struct run_result {
    std::vector<rope_node> ropes;
    std::vector<float>     logits;  // last row of each step
};

// Prefill of a fixed 200-token prompt, then 4 greedy steps.
run_result run(const std::string & path, llama_context_params cp) {
    run_result r;
    model_ptr  m(llama_model_load_from_file(path.c_str(), llama_model_default_params()));
    EXPECT_NE(m, nullptr) << llama_last_error();
    if (!m) {
        return r;
    }
    cp.n_threads         = 2;
    cp.n_threads_batch   = 2;
    cp.cb_eval           = record_rope;
    cp.cb_eval_user_data = &r.ropes;
    ctx_ptr ctx(llama_init_from_model(m.get(), cp));
    EXPECT_NE(ctx, nullptr) << llama_last_error();
    if (!ctx) {
        return r;
    }
    const std::vector<llama_token> prompt = synthetic_prompt(200);
    std::vector<llama_token>       out;
    run_greedy(ctx.get(), prompt, 4, out, r.logits);
    return r;
}

class RopeScaling : public quiet_llama_suite<> {
protected:
    static synth::params micro(const char * arch) {
        synth::params p;
        synth::apply_preset("micro", p);
        p.arch    = arch;
        p.n_ctx   = 4096;
        p.std     = 0.2f;  // larger weights: rope differences show in the logits
        p.n_swa   = 0;
        p.tied    = true;
        p.n_vocab = 512;
        return p;
    }
    static llama_context_params ctx_params(uint32_t n_ctx) {
        llama_context_params cp = llama_context_default_params();
        cp.n_ctx                = n_ctx;
        cp.n_batch              = n_ctx;
        return cp;
    }
};

// upstream's rule: get_mscale(s, m) = 0.1 m ln(s) + 1 (1 for s <= 1), the op multiplies 1 + 0.1 ln(s)
float expected_yarn_attn_factor(float s, float log_mul) {
    auto        ms = [](float x, float m) { return x <= 1.0f ? 1.0f : 0.1f * m * logf(x) + 1.0f; };
    const float f  = log_mul != 0.0f ? ms(s, 1.0f) / ms(s, log_mul) : ms(s, 1.0f);
    return f / (1.0f + 0.1f * logf(s));
}

}  // namespace

TEST_F(RopeScaling, YarnFromMetadata) {
    synth::params p       = micro("qwen3");
    p.rope_scaling        = "yarn";
    p.rope_scaling_factor = 4.0f;
    p.rope_orig_ctx       = 128;
    p.yarn_beta_fast      = 16.0f;
    p.yarn_beta_slow      = 2.0f;
    temp_model yarn(p);

    const run_result r = run(yarn.path, ctx_params(512));
    ASSERT_FALSE(r.ropes.empty());
    for (const rope_node & n : r.ropes) {
        EXPECT_EQ(n.n_ctx_orig, 128);
        EXPECT_FLOAT_EQ(n.freq_base, 10000.0f);
        EXPECT_FLOAT_EQ(n.freq_scale, 0.25f);
        EXPECT_FLOAT_EQ(n.ext_factor, 1.0f);
        EXPECT_FLOAT_EQ(n.attn_factor, expected_yarn_attn_factor(4.0f, 0.0f));
        EXPECT_FLOAT_EQ(n.beta_fast, 16.0f);
        EXPECT_FLOAT_EQ(n.beta_slow, 2.0f);
    }

    // the same weights without scaling keys, the YaRN parameters given by the context instead
    synth::params        q = micro("qwen3");
    temp_model           plain(q);
    llama_context_params cp = ctx_params(512);
    cp.rope_scaling_type    = LLAMA_ROPE_SCALING_TYPE_YARN;
    cp.rope_freq_scale      = 0.25f;
    cp.yarn_orig_ctx        = 128;
    cp.yarn_beta_fast       = 16.0f;
    cp.yarn_beta_slow       = 2.0f;
    const run_result same   = run(plain.path, cp);
    ASSERT_FALSE(same.ropes.empty());
    EXPECT_FLOAT_EQ(same.ropes[0].attn_factor, r.ropes[0].attn_factor);
    EXPECT_LT(max_abs_diff(r.logits, same.logits), 1e-5);

    // and scaling does change the result: the unscaled file with default parameters differs
    const run_result unscaled = run(plain.path, ctx_params(512));
    ASSERT_FALSE(unscaled.ropes.empty());
    EXPECT_FLOAT_EQ(unscaled.ropes[0].freq_scale, 1.0f);
    EXPECT_FLOAT_EQ(unscaled.ropes[0].ext_factor, 0.0f);
    EXPECT_GT(max_abs_diff(r.logits, unscaled.logits), 1e-3);
}

TEST_F(RopeScaling, YarnContextOverridesAndLogMultiplier) {
    synth::params p       = micro("llama");
    p.rope_scaling        = "yarn";
    p.rope_scaling_factor = 8.0f;
    p.rope_orig_ctx       = 256;
    temp_model yarn(p);

    // ext_factor 0 from the context turns YaRN into plain interpolation; attn factor as given
    llama_context_params cp = ctx_params(256);
    cp.yarn_ext_factor      = 0.0f;
    cp.yarn_attn_factor     = 0.75f;
    cp.yarn_beta_fast       = 8.0f;
    cp.yarn_orig_ctx        = 64;
    const run_result r      = run(yarn.path, cp);
    ASSERT_FALSE(r.ropes.empty());
    EXPECT_FLOAT_EQ(r.ropes[0].ext_factor, 0.0f);
    EXPECT_FLOAT_EQ(r.ropes[0].attn_factor, 0.75f);
    EXPECT_FLOAT_EQ(r.ropes[0].beta_fast, 8.0f);
    EXPECT_FLOAT_EQ(r.ropes[0].beta_slow, 1.0f);  // the default
    EXPECT_EQ(r.ropes[0].n_ctx_orig, 64);
    EXPECT_FLOAT_EQ(r.ropes[0].freq_scale, 0.125f);

    // scaling type none from the context: no scaling at all
    cp                   = ctx_params(256);
    cp.rope_scaling_type = LLAMA_ROPE_SCALING_TYPE_NONE;
    const run_result n   = run(yarn.path, cp);
    ASSERT_FALSE(n.ropes.empty());
    EXPECT_FLOAT_EQ(n.ropes[0].freq_scale, 1.0f);
    EXPECT_FLOAT_EQ(n.ropes[0].ext_factor, 0.0f);
    EXPECT_FLOAT_EQ(n.ropes[0].attn_factor, 1.0f);

    // rope.scaling.attn_factor multiplies whatever the YaRN rule gives
    p.rope_attn_factor = 1.5f;
    temp_model       scaled(p);
    const run_result s = run(scaled.path, ctx_params(256));
    ASSERT_FALSE(s.ropes.empty());
    EXPECT_FLOAT_EQ(s.ropes[0].attn_factor, 1.5f * expected_yarn_attn_factor(8.0f, 0.0f));
}

TEST_F(RopeScaling, Phi3LongRopeChoosesFactorsByContext) {
    synth::params p    = micro("phi3");
    p.rope_factors     = true;
    p.rope_scaling     = "longrope";
    p.rope_orig_ctx    = 256;
    p.rope_attn_factor = 1.2f;
    temp_model lr(p);

    const run_result s = run(lr.path, ctx_params(256));  // within the original context: short
    const run_result l = run(lr.path, ctx_params(512));  // beyond it: long
    ASSERT_FALSE(s.ropes.empty());
    ASSERT_FALSE(l.ropes.empty());
    for (const rope_node & n : s.ropes) {
        EXPECT_EQ(n.factors, "rope_factors_short.weight");
        EXPECT_FLOAT_EQ(n.attn_factor, 1.2f);
        EXPECT_FLOAT_EQ(n.ext_factor, 0.0f);
        EXPECT_FLOAT_EQ(n.freq_scale, 1.0f);
    }
    for (const rope_node & n : l.ropes) {
        EXPECT_EQ(n.factors, "rope_factors_long.weight");
        EXPECT_FLOAT_EQ(n.attn_factor, 1.2f);
    }
    // the first 256 positions of the prompt see different angles, so every row differs
    ASSERT_EQ(s.logits.size(), l.logits.size());
    EXPECT_GT(max_abs_diff(s.logits, l.logits), 1e-3);

    // without factor tensors phi3 rotates plainly
    synth::params    q = micro("phi3");
    temp_model       plain(q);
    const run_result n = run(plain.path, ctx_params(256));
    ASSERT_FALSE(n.ropes.empty());
    EXPECT_EQ(n.ropes[0].factors, "");
    EXPECT_GT(max_abs_diff(s.logits, n.logits), 1e-3);
}
