// GLM-4.5 / 4.6 / 4.7 (glm4moe): a pre-norm decoder with q/k/v biases, optional head-wide q/k norms
// (the 355B models), NEOX RoPE over the first rope.dimension_count dims of each head (half of it in the
// released models); leading dense layers, then routed experts scored by a sigmoid, picked with a
// per-expert selection bias (exp_probs_b; the weights stay the unbiased scores), renormalised and
// scaled as the file says, plus one shared expert. Unlike glm4 there are no post-norms: the tensor
// stored as post_attention_norm is the norm before the feed-forward (the layout binds it as ffn_norm).
// The file's last nextn_predict_layers blocks are multi-token-prediction (NextN) blocks; upstream
// accepts them and does not run them, and so do we (n_layer counts only the blocks that run).
// Built by the shared decoder (experts and shared expert: llm_build_moe_ffn, as deepseek2's).
#include <vector>

#include "decoder.h"
#include "llama-log.h"
#include "llama-model-loader.h"
#include "models.h"

static const llm_decoder_desc glm4moe_desc = [] {
    llm_decoder_desc d;
    d.moe_norm_w = false;  // expert_weights_norm decides (hparams)
    return d;
}();

static void glm4moe_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);

    // the NextN blocks come after the ones that run; block_count counts both
    ml.get_key(LLM_KV_NEXTN_PREDICT_LAYERS, hp.n_layer_nextn, false);
    if (hp.n_layer_nextn >= hp.n_layer) {
        throw llama_error(llama_format("glm4moe: nextn_predict_layers %u leaves no decoder block (block_count %u)",
                                       hp.n_layer_nextn, hp.n_layer));
    }
    hp.n_layer -= hp.n_layer_nextn;
    if (!hp.recurrent_layers.empty()) {  // a per-layer head_count_kv array covered the NextN blocks too
        hp.recurrent_layers.resize(hp.n_layer);
    }

    ml.get_key(LLM_KV_EXPERT_FEED_FORWARD_LENGTH, hp.n_ff_exp);
    uint32_t n_shared = 0;
    ml.get_key(LLM_KV_EXPERT_SHARED_COUNT, n_shared);
    if (hp.n_expert == 0 || n_shared > 64) {
        throw llama_error(
            llama_format("glm4moe: needs experts (expert_count %u, expert_shared_count %u)", hp.n_expert, n_shared));
    }
    hp.n_ff_shexp = hp.n_ff_exp * n_shared;  // the shared experts as one SwiGLU
    ml.get_key(LLM_KV_LEADING_DENSE_BLOCK_COUNT, hp.n_layer_dense_lead, false);
    if (hp.n_layer_dense_lead > hp.n_layer) {
        throw llama_error("glm4moe: leading_dense_block_count exceeds the decoder's blocks");
    }
    ml.get_key(LLM_KV_EXPERT_WEIGHTS_SCALE, hp.expert_weights_scale, false);
    ml.get_key(LLM_KV_EXPERT_WEIGHTS_NORM, hp.expert_weights_norm, false);
    // the converter always writes sigmoid; a file without the key means it too (as upstream)
    uint32_t gating = 2;
    ml.get_key(LLM_KV_EXPERT_GATING_FUNC, gating, false);
    gating = gating == 0 ? 2 : gating;
    if (gating != 1 && gating != 2) {
        throw llama_error(llama_format("glm4moe: expert_gating_func %u is not softmax (1) or sigmoid (2)", gating));
    }
    hp.expert_gating_sigmoid = gating == 2;

    // With rope.dimension_sections set (upstream's saver writes [8, 8, 8, 8] for every architecture)
    // upstream runs multi-section RoPE: rotary pair i takes the position of section (i mod the sum) of
    // (time, height, width, extra). A text token's first three are its position and the extra one
    // is 0, so where every rotated pair falls in the first three sections that is NEOX RoPE; other
    // sections would leave pairs unrotated, which is not supported.
    std::vector<uint32_t> sec;
    if (ml.get_arr_u32(LLM_KV_ROPE_DIMENSION_SECTIONS, sec, 4)) {
        const uint64_t txt = (uint64_t) sec[0] + sec[1] + sec[2], all = txt + sec[3];
        for (uint32_t i = 0; all > 0 && i < hp.n_rot / 2; i++) {
            if (i % all >= txt) {
                throw llama_error(
                    llama_format("glm4moe: rope.dimension_sections [%u, %u, %u, %u] leave rotary pair %u to the extra "
                                 "position (multi-section RoPE, GLM-4.5V): not supported",
                                 sec[0], sec[1], sec[2], sec[3], i));
            }
        }
    }
    hp.rope_type = LLAMA_ROPE_TYPE_NEOX;  // the converter keeps the checkpoint's half-split order
}

static void glm4moe_build_graph(llm_graph_context & g) {
    llm_decoder_build_graph(glm4moe_desc, g);
}

const llm_arch_ops llm_ops_glm4moe = {
    LLM_ARCH_GLM4_MOE,
    glm4moe_load_hparams,
    glm4moe_build_graph,
};
