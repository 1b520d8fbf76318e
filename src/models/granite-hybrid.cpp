// IBM Granite 4.0 H (granitehybrid): the granite decoder in which the layers with 0 KV heads in the
// per-layer attention.head_count_kv run a Mamba-2 mixer (mamba2.cpp) instead of attention. Every
// layer keeps granite's pre-norms, its feed-forward (dense SwiGLU, or softmax-routed experts with an
// optional shared expert) and the four multipliers (embedding_scale, residual_scale,
// attention.scale, logit_scale -- all optional here, as upstream reads them). The hybrid releases
// write rope.scaling.finetuned = false: their attention layers use no rotary positions. K/V of the
// attention layers live in the KV cache, the conv and SSM states in the recurrent memory
// (llama-memory-hybrid.h). Built by the shared decoder.
#include "decoder.h"
#include "llama-log.h"
#include "llama-model-loader.h"
#include "models.h"

static void granitehybrid_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    ml.get_key(LLM_KV_LOGIT_SCALE, hp.f_logit_scale, false);  // 0: logits not divided
    ml.get_key(LLM_KV_RESIDUAL_SCALE, hp.f_residual_scale, false);
    ml.get_key(LLM_KV_EMBEDDING_SCALE, hp.f_embedding_scale, false);
    ml.get_key(LLM_KV_ATTENTION_SCALE, hp.f_attention_scale, false);
    ml.get_key(LLM_KV_EXPERT_SHARED_FEED_FORWARD_LENGTH, hp.n_ff_shexp, false);
    llm_mamba2_load_ssm_hparams(ml, hp);
    if (!hp.is_hybrid()) {
        // a scalar (or nowhere 0) head_count_kv: every layer attends, as upstream runs such a file;
        // no state-space layer, so no recurrent memory
        hp.recurrent_layers.assign(hp.n_layer, false);
        hp.ssm_d_inner = 0;
    }
    bool rope = true;
    ml.get_key(LLM_KV_ROPE_SCALING_FINETUNED, rope, false);
    hp.n_no_rope_layer_step = rope ? 0 : 1;
    hp.rope_type            = LLAMA_ROPE_TYPE_NORM;
}

static void granitehybrid_build_graph(llm_graph_context & g) {
    llm_decoder_desc d;
    d.recurrent_mixer = llm_build_mamba2_mixer;
    llm_decoder_build_graph(d, g);
}

const llm_arch_ops llm_ops_granitehybrid = {
    LLM_ARCH_GRANITE_HYBRID,
    granitehybrid_load_hparams,
    granitehybrid_build_graph,
};
