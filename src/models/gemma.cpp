// Gemma (v1): the llama block shape with token embeddings scaled by sqrt(n_embd), a GELU(tanh)-gated
// feed-forward (GeGLU), NEOX-style RoPE and the LM head tied to the embeddings. Gemma's RMS norms
// multiply by (1 + w); GGUF converters store w + 1 already, so the graph multiplies by the stored
// weight like every other architecture. Head size comes from key_length (it may differ from
// n_embd / n_head).
// Built by the shared decoder (decoder.h).
#include <cmath>

#include "decoder.h"
#include "llama-model-loader.h"
#include "models.h"

static const llm_decoder_desc gemma_desc = [] {
    llm_decoder_desc d;
    d.ffn_op     = LLM_FFN_GELU;
    d.embd_scale = true;
    return d;
}();

static void gemma_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    hp.rope_type = LLAMA_ROPE_TYPE_NEOX;
}

static void gemma_build_graph(llm_graph_context & g) {
    llm_decoder_build_graph(gemma_desc, g);
}

const llm_arch_ops llm_ops_gemma = {
    LLM_ARCH_GEMMA,
    gemma_load_hparams,
    gemma_build_graph,
};
