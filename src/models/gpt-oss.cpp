// gpt-oss (upstream's LLM_ARCH_OPENAI_MOE): a pre-norm decoder with Q/K/V/O biases, NEOX RoPE, one
// learned sink logit per head in the attention softmax, sliding-window attention on the even layers
// (attention.sliding_window, period sliding_window_pattern = 2) and a mixture-of-experts feed-forward:
// router with bias, top-k of the raw logits with a softmax over the selected, experts with biases and
// the clamped SwiGLU (swiglu_oai). The pre-FFN norm is stored as post_attention_norm. Built by the
// shared decoder (decoder.h); its tensors are in llama-arch-layout-moe.h.
#include "decoder.h"
#include "llama-log.h"
#include "llama-model-loader.h"
#include "models.h"

static const llm_decoder_desc gpt_oss_desc = [] {
    llm_decoder_desc d;
    d.moe_norm_w = false;
    d.moe_gating = LLM_MOE_GATING_SOFTMAX_WEIGHT;
    d.moe_act    = LLM_MOE_ACT_SWIGLU_OAI;
    return d;
}();

static void gpt_oss_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    ml.get_key(LLM_KV_EXPERT_FEED_FORWARD_LENGTH, hp.n_ff_exp);
    ml.get_key(LLM_KV_ATTENTION_SLIDING_WINDOW, hp.n_swa);
    // a period, or one flag per layer (true = sliding window), as upstream reads the key
    if (!ml.get_arr_flags(LLM_KV_ATTENTION_SLIDING_WINDOW_PATTERN, hp.swa_layers, hp.n_layer)) {
        uint32_t period = 2;
        ml.get_key(LLM_KV_ATTENTION_SLIDING_WINDOW_PATTERN, period, false);
        hp.set_swa_pattern(period);
    }
    ml.get_key(LLM_KV_ROPE_FREQ_BASE_SWA, hp.rope_freq_base_train_swa, false);  // default: the global base
    hp.rope_type = LLAMA_ROPE_TYPE_NEOX;
    if (hp.n_expert == 0) {
        throw llama_error("gpt-oss: expert_count is missing");
    }
}

static void gpt_oss_build_graph(llm_graph_context & g) {
    llm_decoder_build_graph(gpt_oss_desc, g);
}

const llm_arch_ops llm_ops_gpt_oss = {
    LLM_ARCH_GPT_OSS,
    gpt_oss_load_hparams,
    gpt_oss_build_graph,
};
