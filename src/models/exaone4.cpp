// EXAONE 4.0: olmo2's block shape (no pre-norms; RMS norms on the attention and feed-forward outputs
// before the residual adds) with per-head q/k RMS norms, NEOX RoPE and SwiGLU. The 64-layer (32B)
// model interleaves local and global attention, as upstream decides by the layer count: a window of
// 4096 tokens (attention.sliding_window overrides it), every sliding_window_pattern-th layer (default
// 4; or one flag per layer) global, and only the local layers rotated -- the global ones use no
// positions. Other sizes attend globally everywhere, all layers rotated. Files with NextN
// (multi-token prediction) layers are refused. Built by the shared decoder.
#include "decoder.h"
#include "llama-log.h"
#include "llama-model-loader.h"
#include "models.h"

static const llm_decoder_desc exaone4_desc{};  // SwiGLU; which norms exist is the layout

static void exaone4_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    uint32_t nextn = 0;  // the block count would include them: refused rather than run as decoder layers
    if (ml.get_key(LLM_KV_NEXTN_PREDICT_LAYERS, nextn, false) && nextn > 0) {
        throw llama_error("exaone4: NextN (multi-token prediction) layers are not supported");
    }
    if (hp.n_layer == 64) {
        hp.n_swa = 4096;
        if (!ml.get_arr_flags(LLM_KV_ATTENTION_SLIDING_WINDOW_PATTERN, hp.swa_layers, hp.n_layer)) {
            uint32_t period = 4;
            ml.get_key(LLM_KV_ATTENTION_SLIDING_WINDOW_PATTERN, period, false);
            hp.set_swa_pattern(period);
        }
        hp.rope_freq_base_train_swa  = hp.rope_freq_base_train;
        hp.rope_freq_scale_train_swa = hp.rope_freq_scale_train;
        ml.get_key(LLM_KV_ROPE_FREQ_BASE_SWA, hp.rope_freq_base_train_swa, false);
        hp.rope_swa_only = true;
    }
    ml.get_key(LLM_KV_ATTENTION_SLIDING_WINDOW, hp.n_swa, false);
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    hp.rope_type = LLAMA_ROPE_TYPE_NEOX;
    hp.n_expert  = 0;
}

static void exaone4_build_graph(llm_graph_context & g) {
    llm_decoder_build_graph(exaone4_desc, g);
}

const llm_arch_ops llm_ops_exaone4 = {
    LLM_ARCH_EXAONE4,
    exaone4_load_hparams,
    exaone4_build_graph,
};
