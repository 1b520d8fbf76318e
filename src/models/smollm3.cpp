// SmolLM3: the llama block (RMS pre-norms, NORMAL RoPE, grouped-query attention, SwiGLU) where every
// 4th layer (3, 7, 11, ...) uses no positional encoding (NoPE), as upstream fixes it: the files carry
// no key for it. Built by the shared decoder.
#include "decoder.h"
#include "llama-model-loader.h"
#include "models.h"

static const llm_decoder_desc smollm3_desc{};

static void smollm3_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    hp.n_no_rope_layer_step = 4;
    hp.rope_type            = LLAMA_ROPE_TYPE_NORM;
    hp.n_expert             = 0;
}

static void smollm3_build_graph(llm_graph_context & g) {
    llm_decoder_build_graph(smollm3_desc, g);
}

const llm_arch_ops llm_ops_smollm3 = {
    LLM_ARCH_SMOLLM3,
    smollm3_load_hparams,
    smollm3_build_graph,
};
