// OLMo 2: no norms before the attention and the feed-forward; RMS norms on their outputs instead
// (post_attention_norm, post_ffw_norm) before each residual add. q and k are RMS-normalised over the
// whole projection (attn_q_norm n_embd wide, attn_k_norm n_head_kv x head size), then split into
// heads and rotated (NEOX RoPE). SwiGLU feed-forward, a separate LM head. With
// attention.sliding_window set (OLMo 3), every sliding_window_pattern-th layer (default 4) attends
// globally, the others over the window, rotated with rope.freq_base_swa (default: the global base).
// Built by the shared decoder.
#include "decoder.h"
#include "llama-model-loader.h"
#include "models.h"

static const llm_decoder_desc olmo2_desc{};  // SwiGLU; which norms exist is the layout

static void olmo2_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    if (ml.get_key(LLM_KV_ATTENTION_SLIDING_WINDOW, hp.n_swa, false) && hp.n_swa > 0) {
        if (!ml.get_arr_flags(LLM_KV_ATTENTION_SLIDING_WINDOW_PATTERN, hp.swa_layers, hp.n_layer)) {
            uint32_t period = 4;
            ml.get_key(LLM_KV_ATTENTION_SLIDING_WINDOW_PATTERN, period, false);
            hp.set_swa_pattern(period);
        }
        hp.rope_freq_base_train_swa  = hp.rope_freq_base_train;
        hp.rope_freq_scale_train_swa = 1.0f;
        ml.get_key(LLM_KV_ROPE_FREQ_BASE_SWA, hp.rope_freq_base_train_swa, false);
    }
    hp.rope_type = LLAMA_ROPE_TYPE_NEOX;
    hp.n_expert  = 0;
}

static void olmo2_build_graph(llm_graph_context & g) {
    llm_decoder_build_graph(olmo2_desc, g);
}

const llm_arch_ops llm_ops_olmo2 = {
    LLM_ARCH_OLMO2,
    olmo2_load_hparams,
    olmo2_build_graph,
};
