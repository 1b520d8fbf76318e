// IBM Granite 3.x (dense) and Granite 3.x MoE: the llama block (RMS pre-norms, NORMAL RoPE, SwiGLU)
// with four multipliers from the file: token embeddings * embedding_scale, the attention and
// feed-forward outputs * residual_scale before each residual add, KQ scaled by attention.scale, and
// logits divided by logit_scale (required). rope.scaling.finetuned = false turns rotary positions off
// (upstream's switch; absent means on). The MoE variant: softmax router, top expert_used_count,
// weights renormalised to sum 1, experts feed_forward_length wide; with
// expert_shared_feed_forward_length > 0 (Granite-MoE-Shared) a shared SwiGLU expert's output is added
// to theirs. Built by the shared decoder.
#include "decoder.h"
#include "llama-log.h"
#include "llama-model-loader.h"
#include "models.h"

static const llm_decoder_desc granite_desc{};  // SwiGLU; the multipliers are hparams

static void granite_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    ml.get_key(LLM_KV_LOGIT_SCALE, hp.f_logit_scale);
    ml.get_key(LLM_KV_RESIDUAL_SCALE, hp.f_residual_scale, false);
    ml.get_key(LLM_KV_EMBEDDING_SCALE, hp.f_embedding_scale, false);
    ml.get_key(LLM_KV_ATTENTION_SCALE, hp.f_attention_scale, false);
    if (hp.f_logit_scale == 0.0f) {
        throw llama_error("granite: logit_scale must not be 0");
    }
    bool rope = true;
    ml.get_key(LLM_KV_ROPE_SCALING_FINETUNED, rope, false);
    hp.n_no_rope_layer_step = rope ? 0 : 1;
    hp.rope_type            = LLAMA_ROPE_TYPE_NORM;
}

static void granitemoe_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    granite_load_hparams(ml, hp);
    if (hp.n_expert == 0) {
        throw llama_error("granitemoe: expert_count is missing");
    }
    ml.get_key(LLM_KV_EXPERT_SHARED_FEED_FORWARD_LENGTH, hp.n_ff_shexp, false);  // Granite-MoE-Shared
}

static void granite_build_graph(llm_graph_context & g) {
    llm_decoder_build_graph(granite_desc, g);
}

const llm_arch_ops llm_ops_granite = {
    LLM_ARCH_GRANITE,
    granite_load_hparams,
    granite_build_graph,
};

const llm_arch_ops llm_ops_granitemoe = {
    LLM_ARCH_GRANITE_MOE,
    granitemoe_load_hparams,
    granite_build_graph,
};
