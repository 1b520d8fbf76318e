// The llama family: llama 1/2/3, mistral, TinyLlama, stories; with expert_count > 0, Mixtral-style
// mixture of experts (softmax router, top expert_used_count, weights renormalised to sum 1).
// Pre-norm decoder blocks: RMS norm -> attention with RoPE (NORMAL pairs) and grouped-query K/V ->
// residual -> RMS norm -> SwiGLU feed-forward -> residual; final RMS norm and the LM head (tied to
// the token embeddings when output.weight is absent).
// Built by the shared decoder (decoder.h).
#include <cmath>

#include "decoder.h"
#include "llama-model-loader.h"
#include "models.h"

static const llm_decoder_desc llama_desc{};  // the defaults: SwiGLU, unscaled embeddings

static void llama_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    hp.rope_type = LLAMA_ROPE_TYPE_NORM;
}

static void llama_build_graph(llm_graph_context & g) {
    llm_decoder_build_graph(llama_desc, g);
}

const llm_arch_ops llm_ops_llama = {
    LLM_ARCH_LLAMA, llama_load_hparams, llama_build_graph,
    true,  // upstream applies feed-forward weight scales on this architecture
};
