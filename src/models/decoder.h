// The shared decoder block, driven by a per-architecture description. An architecture that is a
// pre-norm transformer (llama-like) states how it differs -- activation, embedding scale, experts --
// and gets its graph from here. Which weights it has (biases, q/k norms, post-norms, a separate
// head) is its tensor layout (llama-arch-layout-*.h): the block uses the ones the model has.
// Layer-wise choices come from hparams (sliding-window layers and their rope base, the KQ scale, the
// attention soft-cap, the number of experts).
#pragma once

#include "llama-graph.h"
#include "llama-model.h"

// How the router's logits become expert weights.
enum llm_moe_gating {
    LLM_MOE_GATING_SOFTMAX,         // softmax over all experts, then top-k (Mixtral, Qwen3-MoE)
    LLM_MOE_GATING_SOFTMAX_WEIGHT,  // top-k of the logits, softmax over the selected (gpt-oss)
};
// The experts' gated activation.
enum llm_moe_act {
    LLM_MOE_ACT_SILU,        // SwiGLU
    LLM_MOE_ACT_SWIGLU_OAI,  // gpt-oss: min(g, 7) * sigmoid(1.702 min(g, 7)) * (clamp(u, -7, 7) + 1)
    LLM_MOE_ACT_RELU_SQR,    // relu(u)^2 without a gate (nemotron_h_moe: no ffn_gate_exps)
};

struct llm_decoder_desc {
    llm_ffn_op ffn_op     = LLM_FFN_SILU;  // gated: SwiGLU (SILU) or GeGLU (GELU)
    bool       embd_scale = false;         // token embeddings * sqrt(n_embd) (gemma family)
    // Feed-forward with experts when hparams.n_expert > 0: softmax router, top n_expert_used, SwiGLU
    // experts (stacked *_exps tensors), gate weights renormalised to sum 1 when moe_norm_w.
    bool           moe_norm_w = true;
    llm_moe_gating moe_gating = LLM_MOE_GATING_SOFTMAX;
    llm_moe_act    moe_act    = LLM_MOE_ACT_SILU;
    // ffn_up holds gate and up stacked ([2 n_ff, n_embd], gate rows first; no ffn_gate): one product,
    // SwiGLU over its halves (glm4)
    bool ffn_fused_gate_up = false;
    // hybrids (granitehybrid): the mixer of the layers hparams marks recurrent, in place of attention;
    // it reads and writes its per-sequence state through g.rs
    ggml_tensor * (*recurrent_mixer)(llm_graph_context & g, ggml_tensor * cur, int il) = nullptr;
};

void llm_decoder_build_graph(const llm_decoder_desc & d, llm_graph_context & g);

// The mixture-of-experts feed-forward on cur [n_embd, n_tokens]: route, run only the selected
// experts (GGML_OP_MUL_MAT_ID), weight and sum their outputs.
// Router and expert biases are added when the layer has them (ffn_*_b). router_in: what the router
// reads when it is not cur (nemotron_h_moe's experts read a latent projection of the router's input).
ggml_tensor * llm_build_moe_ffn(llm_graph_context & g, const llama_layer & l, ggml_tensor * cur,
                                const llm_decoder_desc & d, int il, ggml_tensor * router_in = nullptr);

// The feed-forward of DeepSeek-style blocks (deepseek2, kimi-linear): a SwiGLU on the leading dense
// layers, else the routed experts plus the always-on shared SwiGLU expert where the layer has one.
ggml_tensor * llm_build_ffn_moe_shexp(llm_graph_context & g, const llama_layer & l, ggml_tensor * cur,
                                      const llm_decoder_desc & d, int il);

// The rest of a DeepSeek-style block after its mixer: on the last layer only the rows out_ids asks
// for (of mixer_out and the residual res), the residual add, the RMS-normed llm_build_ffn_moe_shexp,
// the second residual and the control vector. Returns the block's output (l_out).
ggml_tensor * llm_build_shexp_block_tail(llm_graph_context & g, const llama_layer & l, ggml_tensor * mixer_out,
                                         ggml_tensor * res, ggml_tensor * out_ids, const llm_decoder_desc & d, int il);
