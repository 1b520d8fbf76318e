// GLM-4 (0414): RMS norms before and after both the attention and the feed-forward (the post-norms
// applied to the branch output before its residual add), q/k/v with biases, NORMAL RoPE over the first
// rope.dimension_count dims of each head (half of it in the released models), and gate and up fused
// in one ffn_up (SwiGLU over its halves). GLM-4V's multi-section RoPE and the GLM-OCR NextN layers
// are not supported. Built by the shared decoder.
#include <algorithm>
#include <vector>

#include "decoder.h"
#include "gguf.h"
#include "llama-log.h"
#include "llama-model-loader.h"
#include "models.h"

static const llm_decoder_desc glm4_desc = [] {
    llm_decoder_desc d;
    d.ffn_fused_gate_up = true;
    return d;
}();

static void glm4_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    // refused rather than run wrong: the block count would include the NextN layers, and M-RoPE
    // rotates by sections of (time, height, width) positions
    uint32_t nextn = 0;
    if (ml.get_key(LLM_KV_NEXTN_PREDICT_LAYERS, nextn, false) && nextn > 0) {
        throw llama_error("glm4: NextN (multi-token prediction) layers are not supported");
    }
    // all-zero sections (upstream's saver writes the key for every architecture) mean plain RoPE
    std::vector<bool> sections;
    if (ml.get_arr_flags(LLM_KV_ROPE_DIMENSION_SECTIONS, sections, 4) &&
        std::find(sections.begin(), sections.end(), true) != sections.end()) {
        throw llama_error("glm4: multi-section RoPE (rope.dimension_sections, GLM-4V) is not supported");
    }
    hp.rope_type = LLAMA_ROPE_TYPE_NORM;
    hp.n_expert  = 0;
}

static void glm4_build_graph(llm_graph_context & g) {
    llm_decoder_build_graph(glm4_desc, g);
}

const llm_arch_ops llm_ops_glm4 = {
    LLM_ARCH_GLM4,
    glm4_load_hparams,
    glm4_build_graph,
};
