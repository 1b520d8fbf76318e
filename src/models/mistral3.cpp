// Mistral 3 / Ministral 3, the text model: the llama block (RMS pre-norms, NORMAL RoPE, grouped-query
// attention, SwiGLU; Mixtral-style experts when expert_count > 0). Ministral 3 files add YaRN (with
// yarn_log_multiplier, read with the common rope keys) and attention.temperature_scale: q after RoPE
// * (1 + scale * log(1 + floor(pos / n_ctx_orig))), n_ctx_orig being rope.scaling.original_context_length.
// Built by the shared decoder.
#include "decoder.h"
#include "llama-log.h"
#include "llama-model-loader.h"
#include "models.h"

static const llm_decoder_desc mistral3_desc{};

static void mistral3_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    ml.get_key(LLM_KV_ATTENTION_TEMPERATURE_SCALE, hp.f_attn_temp_scale, false);
    hp.f_attn_temp_offset = 0.0f;
    if (hp.f_attn_temp_scale != 0.0f) {
        hp.n_attn_temp_floor_scale = hp.n_ctx_orig_yarn;
        if (hp.n_attn_temp_floor_scale == 0) {
            throw llama_error("mistral3: attention.temperature_scale needs a non-zero original context length");
        }
    }
    hp.rope_type = LLAMA_ROPE_TYPE_NORM;
}

static void mistral3_build_graph(llm_graph_context & g) {
    llm_decoder_build_graph(mistral3_desc, g);
}

const llm_arch_ops llm_ops_mistral3 = {
    LLM_ARCH_MISTRAL3, mistral3_load_hparams, mistral3_build_graph,
    true,  // upstream applies feed-forward weight scales on this architecture
};
