// Tensor layout tables: Decoder transformers whose feed-forward is (mostly) experts: qwen3moe, gpt-oss, granitemoe, and
// the latent-attention deepseek2 and glm4moe. One table per architecture, in the order of its files' tensors; one row
// per line (clang-format would pack them), so that a table reads as the list of a model's weights. Included only by
// llama-arch-layout.cpp, which lists every table in enum order.
#pragma once

#include "llama-arch-layout-names.h"

namespace llm_layouts {

// clang-format off

// qwen3moe: qwen3 with experts only.
constexpr llm_tensor_layout QWEN3MOE[] = {
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_OUTPUT_NORM, NORM, {E}},
    {LLM_TENSOR_OUTPUT, MAT, {E, VOC}, UNTIED},
    {LLM_TENSOR_ATTN_NORM, NORM, {E}},
    {LLM_TENSOR_ATTN_Q, MAT, {E, Q}},
    {LLM_TENSOR_ATTN_K, MAT, {E, K}},
    {LLM_TENSOR_ATTN_V, MAT, {E, V}},
    {LLM_TENSOR_ATTN_Q, BIAS, {Q}, EXTRA},
    {LLM_TENSOR_ATTN_K, BIAS, {K}, EXTRA},
    {LLM_TENSOR_ATTN_V, BIAS, {V}, EXTRA},
    {LLM_TENSOR_ATTN_Q_NORM, NORM, {HK}},
    {LLM_TENSOR_ATTN_K_NORM, NORM, {HK}},
    {LLM_TENSOR_ATTN_OUT, MAT, {Q, E}},
    {LLM_TENSOR_FFN_NORM, NORM, {E}},
    {LLM_TENSOR_FFN_GATE_INP, ROUTER, {E, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_GATE_EXPS, MAT, {E, FX, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_UP_EXPS, MAT, {E, FX, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_DOWN_EXPS, MAT, {FX, E, NX}, REQ, MOE},
};

// gpt-oss: Q/K/V/O biases, attention sinks, experts with router and expert biases; the norm before
// the experts is stored as post_attention_norm.
constexpr llm_tensor_layout GPT_OSS[] = {
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_OUTPUT_NORM, NORM, {E}},
    {LLM_TENSOR_OUTPUT, MAT, {E, VOC}},
    {LLM_TENSOR_ATTN_NORM, NORM, {E}},
    {LLM_TENSOR_ATTN_Q, MAT, {E, Q}},
    {LLM_TENSOR_ATTN_K, MAT, {E, K}},
    {LLM_TENSOR_ATTN_V, MAT, {E, V}},
    {LLM_TENSOR_ATTN_Q, BIAS, {Q}},
    {LLM_TENSOR_ATTN_K, BIAS, {K}},
    {LLM_TENSOR_ATTN_V, BIAS, {V}},
    {LLM_TENSOR_ATTN_OUT, MAT, {Q, E}},
    {LLM_TENSOR_ATTN_OUT, BIAS, {E}},
    {LLM_TENSOR_ATTN_SINKS, PARAM, {NH}},
    {LLM_TENSOR_ATTN_POST_NORM, NORM, {E}, REQ, ALWAYS, LLM_TENSOR_FFN_NORM},
    {LLM_TENSOR_FFN_GATE_INP, ROUTER, {E, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_GATE_EXPS, MAT, {E, FX, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_UP_EXPS, MAT, {E, FX, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_DOWN_EXPS, MAT, {FX, E, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_GATE_INP, BIAS, {NX}, REQ, MOE},
    {LLM_TENSOR_FFN_GATE_EXPS, BIAS, {FX, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_UP_EXPS, BIAS, {FX, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_DOWN_EXPS, BIAS, {E, NX}, REQ, MOE},
};

// granitemoe: granite with experts only, each feed_forward_length wide; Granite-MoE-Shared adds a
// shared expert (expert_shared_feed_forward_length wide) that every token also runs.
constexpr llm_tensor_layout GRANITE_MOE[] = {
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_OUTPUT_NORM, NORM, {E}},
    {LLM_TENSOR_OUTPUT, MAT, {E, VOC}, UNTIED},
    {LLM_TENSOR_ROPE_FREQS, PARAM, {ROT2}, EXTRA},
    {LLM_TENSOR_ATTN_NORM, NORM, {E}},
    {LLM_TENSOR_ATTN_Q, MAT, {E, Q}},
    {LLM_TENSOR_ATTN_K, MAT, {E, K}},
    {LLM_TENSOR_ATTN_V, MAT, {E, V}},
    {LLM_TENSOR_ATTN_OUT, MAT, {Q, E}},
    {LLM_TENSOR_ATTN_OUT, BIAS, {E}, EXTRA},
    {LLM_TENSOR_FFN_NORM, NORM, {E}},
    {LLM_TENSOR_FFN_GATE_INP, ROUTER, {E, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_GATE_EXPS, MAT, {E, FX, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_UP_EXPS, MAT, {E, FX, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_DOWN_EXPS, MAT, {FX, E, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_GATE_SHEXP, MAT, {E, FSH}, REQ, SHEXP},
    {LLM_TENSOR_FFN_UP_SHEXP, MAT, {E, FSH}, REQ, SHEXP},
    {LLM_TENSOR_FFN_DOWN_SHEXP, MAT, {FSH, E}, REQ, SHEXP},
};

// deepseek2: multi-head latent attention in the split form the current converter writes (k_b, v_b);
// q through a low-rank pair, or one attn_q (V2-Lite); leading dense layers, then routed experts with
// shared experts and, in V3 files, a selection bias. A NextN block at the end (GLM-4.7-Flash) holds a
// whole block plus its own projection and norms; loaded with load_mtp only (the MTP head).
constexpr llm_tensor_layout DEEPSEEK2[] = {
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_OUTPUT_NORM, NORM, {E}},
    {LLM_TENSOR_OUTPUT, MAT, {E, VOC}, UNTIED},
    {LLM_TENSOR_ATTN_NORM, NORM, {E}},
    {LLM_TENSOR_ATTN_Q_A_NORM, NORM, {QL}, REQ, Q_LORA},
    {LLM_TENSOR_ATTN_KV_A_NORM, NORM, {KVL}},
    {LLM_TENSOR_ATTN_Q_A, MAT, {E, QL}, REQ, Q_LORA},
    {LLM_TENSOR_ATTN_Q_B, MAT, {QL, QM}, REQ, Q_LORA},
    {LLM_TENSOR_ATTN_Q, MAT, {E, QM}, REQ, Q_FULL},
    {LLM_TENSOR_ATTN_KV_A_MQA, MAT, {E, KVA}},
    {LLM_TENSOR_ATTN_K_B, MAT, {NOPE, KVL, NH}, REQ, KV_SPLIT},
    {LLM_TENSOR_ATTN_V_B, MAT, {KVL, VM, NH}, REQ, KV_SPLIT},
    {LLM_TENSOR_ATTN_KV_B, MAT, {KVL, KVB}, REQ, KV_FUSED},
    {LLM_TENSOR_ATTN_OUT, MAT, {OM, E}},
    {LLM_TENSOR_FFN_NORM, NORM, {E}},
    {LLM_TENSOR_FFN_GATE, MAT, {E, FF}, REQ, DENSE},
    {LLM_TENSOR_FFN_DOWN, MAT, {FF, E}, REQ, DENSE},
    {LLM_TENSOR_FFN_UP, MAT, {E, FF}, REQ, DENSE},
    {LLM_TENSOR_FFN_GATE_INP, ROUTER, {E, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_EXP_PROBS_B, BIAS, {NX}, USUAL, MOE},
    {LLM_TENSOR_FFN_DOWN_EXPS, MAT, {FX, E, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_GATE_EXPS, MAT, {E, FX, NX}, REQ, MOE_SPLIT},
    {LLM_TENSOR_FFN_UP_EXPS, MAT, {E, FX, NX}, REQ, MOE_SPLIT},
    {LLM_TENSOR_FFN_GATE_UP_EXPS, MAT, {E, FX2, NX}, REQ, MOE_FUSED},  // rows: gate, up
    {LLM_TENSOR_FFN_GATE_SHEXP, MAT, {E, FSH}, REQ, SHEXP},
    {LLM_TENSOR_FFN_DOWN_SHEXP, MAT, {FSH, E}, REQ, SHEXP},
    {LLM_TENSOR_FFN_UP_SHEXP, MAT, {E, FSH}, REQ, SHEXP},
    LLM_TL_NEXTN_ROWS,
};

// glm4moe (GLM-4.5 / 4.6 / 4.7): q/k/v with biases, optional head-wide q/k norms (the 355B models),
// the norm before the feed-forward stored as post_attention_norm; leading dense layers, then sigmoid-
// routed experts with a selection bias and a shared expert. The NextN blocks at the end hold a whole
// block plus their own projection and norms (embed_tokens / shared_head_head only where a conversion
// kept them).
constexpr llm_tensor_layout GLM4_MOE[] = {
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_OUTPUT_NORM, NORM, {E}},
    {LLM_TENSOR_OUTPUT, MAT, {E, VOC}, UNTIED},
    {LLM_TENSOR_ATTN_NORM, NORM, {E}},
    {LLM_TENSOR_ATTN_Q, MAT, {E, Q}},
    {LLM_TENSOR_ATTN_K, MAT, {E, K}},
    {LLM_TENSOR_ATTN_V, MAT, {E, V}},
    {LLM_TENSOR_ATTN_Q, BIAS, {Q}, USUAL},
    {LLM_TENSOR_ATTN_K, BIAS, {K}, USUAL},
    {LLM_TENSOR_ATTN_V, BIAS, {V}, USUAL},
    {LLM_TENSOR_ATTN_OUT, MAT, {Q, E}},
    {LLM_TENSOR_ATTN_Q_NORM, NORM, {HK}, USUAL},
    {LLM_TENSOR_ATTN_K_NORM, NORM, {HK}, USUAL},
    {LLM_TENSOR_ATTN_POST_NORM, NORM, {E}, REQ, ALWAYS, LLM_TENSOR_FFN_NORM},
    {LLM_TENSOR_FFN_GATE, MAT, {E, FF}, REQ, DENSE},
    {LLM_TENSOR_FFN_DOWN, MAT, {FF, E}, REQ, DENSE},
    {LLM_TENSOR_FFN_UP, MAT, {E, FF}, REQ, DENSE},
    {LLM_TENSOR_FFN_GATE_INP, ROUTER, {E, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_EXP_PROBS_B, BIAS, {NX}, REQ, MOE},
    {LLM_TENSOR_FFN_GATE_EXPS, MAT, {E, FX, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_DOWN_EXPS, MAT, {FX, E, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_UP_EXPS, MAT, {E, FX, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_GATE_SHEXP, MAT, {E, FSH}, REQ, SHEXP},
    {LLM_TENSOR_FFN_DOWN_SHEXP, MAT, {FSH, E}, REQ, SHEXP},
    {LLM_TENSOR_FFN_UP_SHEXP, MAT, {E, FSH}, REQ, SHEXP},
    LLM_TL_NEXTN_ROWS,
};

// clang-format on

}  // namespace llm_layouts
