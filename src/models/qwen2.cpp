// Qwen2: the llama block with biases on the Q/K/V projections and NEOX-style RoPE (rotating the two
// halves of each head rather than interleaved pairs). The LM head is tied to the token embeddings
// when output.weight is absent.
// Built by the shared decoder (decoder.h).
#include <cmath>

#include "decoder.h"
#include "llama-model-loader.h"
#include "models.h"

static const llm_decoder_desc qwen2_desc{};  // the defaults: SwiGLU, unscaled embeddings

static void qwen2_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    hp.rope_type = LLAMA_ROPE_TYPE_NEOX;
}

static void qwen2_build_graph(llm_graph_context & g) {
    llm_decoder_build_graph(qwen2_desc, g);
}

const llm_arch_ops llm_ops_qwen2 = {
    LLM_ARCH_QWEN2,
    qwen2_load_hparams,
    qwen2_build_graph,
};
