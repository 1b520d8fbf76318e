// Qwen3-MoE: the Qwen3 block (q/k RMS norms, NEOX RoPE) with a mixture-of-experts feed-forward:
// softmax router, top expert_used_count of expert_count experts of size expert_feed_forward_length,
// their gate weights renormalised to sum 1. Built by the shared decoder (decoder.h).
#include "decoder.h"
#include "llama-log.h"
#include "llama-model-loader.h"
#include "models.h"

static const llm_decoder_desc qwen3moe_desc = [] {
    llm_decoder_desc d;
    d.moe_norm_w = true;
    return d;
}();

static void qwen3moe_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    ml.get_key(LLM_KV_EXPERT_FEED_FORWARD_LENGTH, hp.n_ff_exp, false);
    hp.rope_type = LLAMA_ROPE_TYPE_NEOX;
    if (hp.n_expert == 0) {
        throw llama_error("qwen3moe: expert_count is missing");
    }
}

static void qwen3moe_build_graph(llm_graph_context & g) {
    llm_decoder_build_graph(qwen3moe_desc, g);
}

const llm_arch_ops llm_ops_qwen3moe = {
    LLM_ARCH_QWEN3MOE, qwen3moe_load_hparams, qwen3moe_build_graph,
    true,  // upstream applies feed-forward weight scales on this architecture
};
