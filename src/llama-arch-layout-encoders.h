// Tensor layout tables: Encoders (embeddings and rerankers): bert, nomic-bert, jina-bert-v2, modern-bert.
// One table per architecture, in the order of its files' tensors; one row per line (clang-format
// would pack them), so that a table reads as the list of a model's weights. Included only by
// llama-arch-layout.cpp, which lists every table in enum order.
#pragma once

#include "llama-arch-layout-names.h"

namespace llm_layouts {

// clang-format off

// bert: q/k/v (or fused qkv) with biases, absolute positions, post-norm layer norms with biases;
// rerankers add the classifier head.
constexpr llm_tensor_layout BERT[] = {
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_TOKEN_TYPES, MAT, {E, TT}, USUAL},
    {LLM_TENSOR_POS_EMBD, MAT, {E, CTX}},
    {LLM_TENSOR_TOKEN_EMBD_NORM, NORM, {E}},
    {LLM_TENSOR_TOKEN_EMBD_NORM, BIAS, {E}},
    {LLM_TENSOR_ATTN_Q, MAT, {E, Q}, REQ, ALT_A},
    {LLM_TENSOR_ATTN_Q, BIAS, {Q}, USUAL, ALT_A},
    {LLM_TENSOR_ATTN_K, MAT, {E, K}, REQ, ALT_A},
    {LLM_TENSOR_ATTN_K, BIAS, {K}, USUAL, ALT_A},
    {LLM_TENSOR_ATTN_V, MAT, {E, V}, REQ, ALT_A},
    {LLM_TENSOR_ATTN_V, BIAS, {V}, USUAL, ALT_A},
    {LLM_TENSOR_ATTN_QKV, MAT, {E, QKV}, REQ, ALT_B},
    {LLM_TENSOR_ATTN_QKV, BIAS, {QKV}, EXTRA, ALT_B},
    {LLM_TENSOR_ATTN_OUT, MAT, {Q, E}},
    {LLM_TENSOR_ATTN_OUT, BIAS, {E}, USUAL},
    {LLM_TENSOR_ATTN_OUT_NORM, NORM, {E}},
    {LLM_TENSOR_ATTN_OUT_NORM, BIAS, {E}},
    {LLM_TENSOR_FFN_UP, MAT, {E, FF}},
    {LLM_TENSOR_FFN_UP, BIAS, {FF}, USUAL},
    {LLM_TENSOR_FFN_DOWN, MAT, {FF, E}},
    {LLM_TENSOR_FFN_DOWN, BIAS, {E}, USUAL},
    {LLM_TENSOR_LAYER_OUT_NORM, NORM, {E}},
    {LLM_TENSOR_LAYER_OUT_NORM, BIAS, {E}},
    {LLM_TENSOR_CLS, MAT, {E, E}, CLS_HEAD},
    {LLM_TENSOR_CLS, BIAS, {E}, CLS_HEAD},
    {LLM_TENSOR_CLS_OUT, MAT, {E, CLS}, CLS_HEAD},
    {LLM_TENSOR_CLS_OUT, BIAS, {CLS}, CLS_HEAD},
};

// nomic-bert: fused qkv (or q/k/v) without biases, rotary positions, a SwiGLU feed-forward.
constexpr llm_tensor_layout NOMIC_BERT[] = {
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_TOKEN_TYPES, MAT, {E, TT}, USUAL},
    {LLM_TENSOR_TOKEN_EMBD_NORM, NORM, {E}},
    {LLM_TENSOR_TOKEN_EMBD_NORM, BIAS, {E}},
    {LLM_TENSOR_ATTN_QKV, MAT, {E, QKV}, REQ, ALT_A},
    {LLM_TENSOR_ATTN_QKV, BIAS, {QKV}, EXTRA, ALT_A},
    {LLM_TENSOR_ATTN_Q, MAT, {E, Q}, REQ, ALT_B},
    {LLM_TENSOR_ATTN_Q, BIAS, {Q}, EXTRA, ALT_B},
    {LLM_TENSOR_ATTN_K, MAT, {E, K}, REQ, ALT_B},
    {LLM_TENSOR_ATTN_K, BIAS, {K}, EXTRA, ALT_B},
    {LLM_TENSOR_ATTN_V, MAT, {E, V}, REQ, ALT_B},
    {LLM_TENSOR_ATTN_V, BIAS, {V}, EXTRA, ALT_B},
    {LLM_TENSOR_ATTN_OUT, MAT, {Q, E}},
    {LLM_TENSOR_ATTN_OUT, BIAS, {E}, EXTRA},
    {LLM_TENSOR_ATTN_OUT_NORM, NORM, {E}},
    {LLM_TENSOR_ATTN_OUT_NORM, BIAS, {E}},
    {LLM_TENSOR_FFN_UP, MAT, {E, FF}},
    {LLM_TENSOR_FFN_UP, BIAS, {FF}, EXTRA},
    {LLM_TENSOR_FFN_GATE, MAT, {E, FF}},
    {LLM_TENSOR_FFN_DOWN, MAT, {FF, E}},
    {LLM_TENSOR_FFN_DOWN, BIAS, {E}, EXTRA},
    {LLM_TENSOR_LAYER_OUT_NORM, NORM, {E}},
    {LLM_TENSOR_LAYER_OUT_NORM, BIAS, {E}},
};

// jina-bert-v2: bert without position embeddings (ALiBi instead); the feed-forward is GEGLU with gate
// and up fused in ffn_up (the released embedding models) or a separate ffn_gate, or plain GELU; optional
// q/k layer norms and a second post-attention norm; the rerankers' head is cls alone, (embd, 1).
constexpr llm_tensor_layout JINA_BERT_V2[] = {
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_TOKEN_TYPES, MAT, {E, TT}},
    {LLM_TENSOR_TOKEN_EMBD_NORM, NORM, {E}},
    {LLM_TENSOR_TOKEN_EMBD_NORM, BIAS, {E}},
    {LLM_TENSOR_CLS, MAT, {E, CLS}, CLS_HEAD},
    {LLM_TENSOR_CLS, BIAS, {CLS}, CLS_HEAD},
    {LLM_TENSOR_ATTN_Q, MAT, {E, Q}, REQ, ALT_A},
    {LLM_TENSOR_ATTN_Q, BIAS, {Q}, USUAL, ALT_A},
    {LLM_TENSOR_ATTN_K, MAT, {E, K}, REQ, ALT_A},
    {LLM_TENSOR_ATTN_K, BIAS, {K}, USUAL, ALT_A},
    {LLM_TENSOR_ATTN_V, MAT, {E, V}, REQ, ALT_A},
    {LLM_TENSOR_ATTN_V, BIAS, {V}, USUAL, ALT_A},
    {LLM_TENSOR_ATTN_QKV, MAT, {E, QKV}, REQ, ALT_B},
    {LLM_TENSOR_ATTN_QKV, BIAS, {QKV}, EXTRA, ALT_B},
    {LLM_TENSOR_ATTN_Q_NORM, NORM, {E}, EXTRA},
    {LLM_TENSOR_ATTN_Q_NORM, BIAS, {E}, EXTRA},
    {LLM_TENSOR_ATTN_K_NORM, NORM, {E}, EXTRA},
    {LLM_TENSOR_ATTN_K_NORM, BIAS, {E}, EXTRA},
    {LLM_TENSOR_ATTN_OUT, MAT, {Q, E}},
    {LLM_TENSOR_ATTN_OUT, BIAS, {E}},
    {LLM_TENSOR_ATTN_OUT_NORM, NORM, {E}},
    {LLM_TENSOR_ATTN_OUT_NORM, BIAS, {E}},
    {LLM_TENSOR_ATTN_NORM_2, NORM, {E}, EXTRA},
    {LLM_TENSOR_ATTN_NORM_2, BIAS, {E}, EXTRA},
    {LLM_TENSOR_FFN_GATE, MAT, {E, FF}, EXTRA},
    {LLM_TENSOR_FFN_UP, MAT, {E, FFU}},
    {LLM_TENSOR_FFN_UP, BIAS, {FFU}, EXTRA},
    {LLM_TENSOR_FFN_DOWN, MAT, {FF, E}},
    {LLM_TENSOR_FFN_DOWN, BIAS, {E}},
    {LLM_TENSOR_LAYER_OUT_NORM, NORM, {E}},
    {LLM_TENSOR_LAYER_OUT_NORM, BIAS, {E}},
};

// modern-bert: pre-norm blocks without biases (layer norms without bias), fused qkv, RoPE, GeGLU with
// gate and up fused in ffn_up (rows: gate, up); the first block has no attention norm. Rerankers: a
// dense layer, its norm and the output projection.
constexpr llm_tensor_layout MODERN_BERT[] = {
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_TOKEN_EMBD_NORM, NORM, {E}},
    {LLM_TENSOR_OUTPUT_NORM, NORM, {E}},
    {LLM_TENSOR_ATTN_NORM, NORM, {E}, REQ, NOT_FIRST},
    {LLM_TENSOR_ATTN_QKV, MAT, {E, QKV}},
    {LLM_TENSOR_ATTN_OUT, MAT, {Q, E}},
    {LLM_TENSOR_FFN_NORM, NORM, {E}},
    {LLM_TENSOR_FFN_UP, MAT, {E, FF2}},  // rows: gate, up
    {LLM_TENSOR_FFN_DOWN, MAT, {FF, E}},
    {LLM_TENSOR_CLS, MAT, {E, E}, CLS_HEAD},
    {LLM_TENSOR_CLS_NORM, NORM, {E}, CLS_HEAD},
    {LLM_TENSOR_CLS_OUT, MAT, {E, CLS}, CLS_HEAD},
    {LLM_TENSOR_CLS_OUT, BIAS, {CLS}, CLS_HEAD},
};

// clang-format on

}  // namespace llm_layouts
