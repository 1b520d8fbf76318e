// Gemma 2: the Gemma block (embeddings scaled by sqrt(n_embd), GeGLU, NEOX RoPE, tied head, norm
// weights stored as 1 + w) plus RMS norms after attention and after the feed-forward, tanh
// soft-capping of the attention scores (attn_logit_softcapping) and of the final logits
// (final_logit_softcapping), and queries scaled by 1/sqrt(head_dim).
// Sliding window: every other layer attends over a local window (attention.sliding_window, 4096 in
// the released models): the even layers attend only to the last n_swa positions (their KQ mask says so).
// Built by the shared decoder (decoder.h).
#include <cmath>

#include "decoder.h"
#include "llama-model-loader.h"
#include "models.h"

static const llm_decoder_desc gemma2_desc = [] {
    llm_decoder_desc d;
    d.ffn_op     = LLM_FFN_GELU;
    d.embd_scale = true;
    return d;
}();

static void gemma2_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    hp.n_swa = 4096;  // the released models' window when the key is absent, as upstream
    ml.get_key(LLM_KV_ATTENTION_SLIDING_WINDOW, hp.n_swa, false);
    uint32_t period = 2;  // even layers local, odd global
    ml.get_key(LLM_KV_ATTENTION_SLIDING_WINDOW_PATTERN, period, false);
    hp.set_swa_pattern(period);
    ml.get_key(LLM_KV_ROPE_FREQ_BASE_SWA, hp.rope_freq_base_train_swa, false);  // default: the global base
    hp.f_attn_logit_softcapping  = 50.0f;  // the released models' values when the keys are absent
    hp.f_final_logit_softcapping = 30.0f;
    ml.get_key(LLM_KV_ATTN_LOGIT_SOFTCAPPING, hp.f_attn_logit_softcapping, false);
    ml.get_key(LLM_KV_FINAL_LOGIT_SOFTCAPPING, hp.f_final_logit_softcapping, false);
    hp.rope_type = LLAMA_ROPE_TYPE_NEOX;
}

static void gemma2_build_graph(llm_graph_context & g) {
    llm_decoder_build_graph(gemma2_desc, g);
}

const llm_arch_ops llm_ops_gemma2 = {
    LLM_ARCH_GEMMA2,
    gemma2_load_hparams,
    gemma2_build_graph,
};
