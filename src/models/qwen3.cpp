// Qwen3: the llama block with NEOX RoPE and per-head RMS norms of Q and K before the rotation
// (attn_q_norm / attn_k_norm, one weight of head size shared by all heads); no projection biases.
// Built by the shared decoder (decoder.h).
#include "decoder.h"
#include "llama-model-loader.h"
#include "models.h"

static const llm_decoder_desc qwen3_desc{};  // the defaults: SwiGLU, unscaled embeddings

static void qwen3_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    hp.rope_type = LLAMA_ROPE_TYPE_NEOX;
    hp.n_expert  = 0;  // dense: experts are qwen3moe
}

static void qwen3_build_graph(llm_graph_context & g) {
    llm_decoder_build_graph(qwen3_desc, g);
}

const llm_arch_ops llm_ops_qwen3 = {
    LLM_ARCH_QWEN3, qwen3_load_hparams, qwen3_build_graph,
    true,  // upstream applies feed-forward weight scales on this architecture
};
