// Gemma 3: the Gemma 2 block (embeddings * sqrt(n_embd), GeGLU, NEOX RoPE, RMS norms before and after
// attention and the feed-forward, norm weights stored as 1 + w) without the attention soft-cap, plus
// per-head q/k RMS norms. Local/global layers: with attention.sliding_window set, every
// sliding_window_pattern-th layer (default 6: layers 5, 11, ...) attends globally with rope.freq_base,
// the others over the last n_swa positions with rope.freq_base_swa. Built by the shared decoder.
// gemma-embedding (EmbeddingGemma) is the same block run as a bidirectional encoder: attention sees
// the whole input, the local layers a window centred on the token (|i - j| <= n_swa / 2), and there
// is no LM head; its dense output projections run after the blocks (build_embd_proj).
#include <cmath>

#include "decoder.h"
#include "llama-model-loader.h"
#include "models.h"

static const llm_decoder_desc gemma3_desc = [] {
    llm_decoder_desc d;
    d.ffn_op     = LLM_FFN_GELU;
    d.embd_scale = true;
    return d;
}();

void llm_gemma3_load_swa_hparams(llama_model_loader & ml, llama_hparams & hp, uint32_t default_period) {
    // a period, or one flag per layer (true = sliding window), as upstream reads the key
    if (!ml.get_arr_flags(LLM_KV_ATTENTION_SLIDING_WINDOW_PATTERN, hp.swa_layers, hp.n_layer)) {
        uint32_t period = default_period;
        ml.get_key(LLM_KV_ATTENTION_SLIDING_WINDOW_PATTERN, period, false);
        hp.set_swa_pattern(period);
    }
    hp.rope_freq_base_train_swa = 10000.0f;  // the released models' local base (upstream's default)
    ml.get_key(LLM_KV_ROPE_FREQ_BASE_SWA, hp.rope_freq_base_train_swa, false);
}

static void gemma3_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    if (ml.get_key(LLM_KV_ATTENTION_SLIDING_WINDOW, hp.n_swa, false) && hp.n_swa > 0) {
        llm_gemma3_load_swa_hparams(ml, hp, 6);
    }
    hp.f_final_logit_softcapping = 0.0f;
    ml.get_key(LLM_KV_FINAL_LOGIT_SOFTCAPPING, hp.f_final_logit_softcapping, false);
    // 27B scales queries by 1/sqrt(n_embd / n_head), the others by 1/sqrt(head size), as upstream
    hp.f_attention_scale =
        hp.n_layer == 62 ? 1.0f / sqrtf((float) (hp.n_embd / hp.n_head)) : 1.0f / sqrtf((float) hp.n_embd_head_k);
    hp.rope_type = LLAMA_ROPE_TYPE_NEOX;
    hp.n_expert  = 0;
}

static void gemma3_build_graph(llm_graph_context & g) {
    llm_decoder_build_graph(gemma3_desc, g);
}

const llm_arch_ops llm_ops_gemma3 = {
    LLM_ARCH_GEMMA3,
    gemma3_load_hparams,
    gemma3_build_graph,
};

static void gemma_embedding_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    ml.get_key(LLM_KV_ATTENTION_SLIDING_WINDOW, hp.n_swa);  // required, as upstream reads it
    llm_gemma3_load_swa_hparams(ml, hp, 6);
    hp.swa_symmetric     = true;
    hp.causal_attn       = false;  // whatever the file says, as upstream
    hp.f_attention_scale = 1.0f / sqrtf((float) hp.n_embd_head_k);
    hp.rope_type         = LLAMA_ROPE_TYPE_NEOX;
    hp.n_expert          = 0;
}

const llm_arch_ops llm_ops_gemma_embedding = {
    LLM_ARCH_GEMMA_EMBEDDING,
    gemma_embedding_load_hparams,
    gemma3_build_graph,
};
