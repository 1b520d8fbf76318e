// Qwen 3.5 (qwen35, dense) and its mixture-of-experts sibling (qwen35moe): qwen3next's hybrid of gated
// attention and gated delta-net layers (qwen3next.cpp builds both), with three differences:
//   - beta and alpha come from two projections (ssm_beta, ssm_alpha: one row per v head in order)
//     instead of qwen3next's fused ssm_ba;
//   - v head h reads k head h mod group_count (the converter orders the v heads so), not h / r;
//   - the rotary embedding is interleaved multi-section RoPE (rope.dimension_sections). A text token's
//     time, height and width positions are all its position and the extra one is 0, so a pair that
//     falls in one of the first three sections is rotated exactly as NEOX RoPE rotates it; the
//     released models' sections cover every rotated pair, and a file whose sections would leave a
//     pair on the extra position (unrotated) is refused.
// qwen35's feed-forward is a dense SwiGLU, qwen35moe's qwen3next's experts plus the gated shared
// expert. The file's last nextn_predict_layers blocks are multi-token-prediction (NextN) blocks: skipped
// unless the model is loaded with load_mtp, then model.layers[n_layer] is the draft head a context of
// type LLAMA_CONTEXT_TYPE_MTP runs (llm_build_delta_net_mtp; the MTP drafter of llama-speculative.h).
// n_layer counts the decoder's blocks; llama_model_n_layer_nextn reports the NextN blocks.
#include <vector>

#include "llama-graph.h"
#include "llama-log.h"
#include "llama-model-loader.h"
#include "models.h"

static void qwen35_load_common(llama_model_loader & ml, llama_hparams & hp, const char * arch) {
    ml.get_key(LLM_KV_NEXTN_PREDICT_LAYERS, hp.n_layer_nextn, false);
    if (hp.n_layer_nextn >= hp.n_layer) {
        throw llama_error(llama_format("%s: nextn_predict_layers %u leaves no decoder block (block_count %u)", arch,
                                       hp.n_layer_nextn, hp.n_layer));
    }
    hp.n_layer -= hp.n_layer_nextn;

    // Interleaved multi-section RoPE: pair i's sector is i mod the sections' sum; sector s takes the
    // time position if s % 3 == 0 and s < 3 x sections[0], height if s % 3 == 1 and s < 3 x sections[1],
    // width if s % 3 == 2 and s < 3 x sections[2], else the extra position (0 for text: unrotated).
    std::vector<uint32_t> sec;
    if (!ml.get_arr_u32(LLM_KV_ROPE_DIMENSION_SECTIONS, sec, 4)) {
        throw llama_error(llama_format("%s: rope.dimension_sections (4 integers) is missing", arch));
    }
    const uint64_t all = (uint64_t) sec[0] + sec[1] + sec[2] + sec[3];
    if (sec[0] + (uint64_t) sec[1] + sec[2] == 0) {
        throw llama_error(llama_format("%s: rope.dimension_sections [%u, %u, %u, %u] has no text section", arch, sec[0],
                                       sec[1], sec[2], sec[3]));
    }
    for (uint32_t i = 0; i < hp.n_rot / 2; i++) {
        const uint64_t s    = i % all;
        const bool     text = s < 3 * (uint64_t) sec[s % 3];
        if (!text) {
            throw llama_error(
                llama_format("%s: rope.dimension_sections [%u, %u, %u, %u] leave rotary pair %u to the "
                             "extra position (unrotated for text): not supported",
                             arch, sec[0], sec[1], sec[2], sec[3], i));
        }
    }
    llm_delta_net_load_hparams(ml, hp, arch);  // sets NEOX RoPE, which the check above makes exact
}

static void qwen35_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    qwen35_load_common(ml, hp, "qwen35");
    if (hp.n_ff == 0) {
        throw llama_error("qwen35: feed_forward_length is 0");
    }
}

static void qwen35moe_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    qwen35_load_common(ml, hp, "qwen35moe");
    llm_delta_net_load_moe_hparams(ml, hp, "qwen35moe");
}

static ggml_tensor * qwen35_dense_ffn(llm_graph_context & g, ggml_tensor * cur, int il) {
    const llama_layer & l = g.model.layers[il];
    return g.build_ffn(cur, l.ffn_up, nullptr, l.ffn_gate, nullptr, l.ffn_down, nullptr, LLM_FFN_SILU, LLM_FFN_PAR, il);
}

static void qwen35_build_graph(llm_graph_context & g) {
    llm_build_delta_net_hybrid(g, true, qwen35_dense_ffn);
}

static void qwen35moe_build_graph(llm_graph_context & g) {
    llm_build_delta_net_hybrid(g, true, llm_build_delta_net_moe_ffn);
}

static void qwen35_build_mtp_graph(llm_graph_context & g) {
    llm_build_delta_net_mtp(g, qwen35_dense_ffn);
}

static void qwen35moe_build_mtp_graph(llm_graph_context & g) {
    llm_build_delta_net_mtp(g, llm_build_delta_net_moe_ffn);
}

const llm_arch_ops llm_ops_qwen35    = {LLM_ARCH_QWEN35, qwen35_load_hparams, qwen35_build_graph, true,
                                        qwen35_build_mtp_graph};
const llm_arch_ops llm_ops_qwen35moe = {LLM_ARCH_QWEN35MOE, qwen35moe_load_hparams, qwen35moe_build_graph, true,
                                        qwen35moe_build_mtp_graph};
