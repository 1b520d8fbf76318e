// Tensor layout tables: Dense decoder transformers: llama and its relatives, qwen2/3, phi3, the gemmas, granite, olmo2,
// smollm3, exaone4, glm4.
// One table per architecture, in the order of its files' tensors; one row per line (clang-format
// would pack them), so that a table reads as the list of a model's weights. Included only by
// llama-arch-layout.cpp, which lists every table in enum order.
#pragma once

#include "llama-arch-layout-names.h"

namespace llm_layouts {

// clang-format off

// llama 1/2/3, mistral; Mixtral-style experts when expert_count > 0. rope_freqs: llama 3.1
// per-pair factors, one tensor for all layers; Q/K/V/O and feed-forward biases in some finetunes.
constexpr llm_tensor_layout LLAMA[] = {
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_OUTPUT_NORM, NORM, {E}},
    {LLM_TENSOR_OUTPUT, MAT, {E, VOC}, UNTIED},
    {LLM_TENSOR_ROPE_FREQS, PARAM, {ROT2}, EXTRA},
    {LLM_TENSOR_ATTN_NORM, NORM, {E}},
    {LLM_TENSOR_ATTN_Q, MAT, {E, Q}},
    {LLM_TENSOR_ATTN_K, MAT, {E, K}},
    {LLM_TENSOR_ATTN_V, MAT, {E, V}},
    {LLM_TENSOR_ATTN_Q, BIAS, {Q}, EXTRA},
    {LLM_TENSOR_ATTN_K, BIAS, {K}, EXTRA},
    {LLM_TENSOR_ATTN_V, BIAS, {V}, EXTRA},
    {LLM_TENSOR_ATTN_OUT, MAT, {Q, E}},
    {LLM_TENSOR_ATTN_OUT, BIAS, {E}, EXTRA},
    {LLM_TENSOR_FFN_NORM, NORM, {E}},
    {LLM_TENSOR_FFN_GATE_INP, ROUTER, {E, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_GATE_EXPS, MAT, {E, FX, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_UP_EXPS, MAT, {E, FX, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_DOWN_EXPS, MAT, {FX, E, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_GATE, MAT, {E, FF}, REQ, DENSE},
    {LLM_TENSOR_FFN_UP, MAT, {E, FF}, REQ, DENSE},
    {LLM_TENSOR_FFN_DOWN, MAT, {FF, E}, REQ, DENSE},
    {LLM_TENSOR_FFN_GATE, BIAS, {FF}, EXTRA, DENSE},
    {LLM_TENSOR_FFN_UP, BIAS, {FF}, EXTRA, DENSE},
    {LLM_TENSOR_FFN_DOWN, BIAS, {E}, EXTRA, DENSE},
};

// qwen2: Q/K/V biases, none on the attention output; an optional bias on the LM head.
constexpr llm_tensor_layout QWEN2[] = {
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_OUTPUT_NORM, NORM, {E}},
    {LLM_TENSOR_OUTPUT, MAT, {E, VOC}, UNTIED},
    {LLM_TENSOR_OUTPUT, BIAS, {VOC}, EXTRA},
    {LLM_TENSOR_ATTN_NORM, NORM, {E}},
    {LLM_TENSOR_ATTN_Q, MAT, {E, Q}},
    {LLM_TENSOR_ATTN_K, MAT, {E, K}},
    {LLM_TENSOR_ATTN_V, MAT, {E, V}},
    {LLM_TENSOR_ATTN_Q, BIAS, {Q}},
    {LLM_TENSOR_ATTN_K, BIAS, {K}},
    {LLM_TENSOR_ATTN_V, BIAS, {V}},
    {LLM_TENSOR_ATTN_OUT, MAT, {Q, E}},
    {LLM_TENSOR_FFN_NORM, NORM, {E}},
    {LLM_TENSOR_FFN_GATE, MAT, {E, FF}},
    {LLM_TENSOR_FFN_UP, MAT, {E, FF}},
    {LLM_TENSOR_FFN_DOWN, MAT, {FF, E}},
};

// phi3: fused Q/K/V and gate+up, a separate head; LongRoPE factors shared by all layers.
constexpr llm_tensor_layout PHI3[] = {
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_OUTPUT_NORM, NORM, {E}},
    {LLM_TENSOR_ROPE_FACTORS_LONG, PARAM, {ROT2}, ROPE_FACTORS},
    {LLM_TENSOR_ROPE_FACTORS_SHORT, PARAM, {ROT2}, ROPE_FACTORS},
    {LLM_TENSOR_OUTPUT, MAT, {E, VOC}},
    {LLM_TENSOR_OUTPUT, BIAS, {VOC}, EXTRA},
    {LLM_TENSOR_ATTN_NORM, NORM, {E}},
    {LLM_TENSOR_ATTN_QKV, MAT, {E, QKV}, REQ, ALT_A},  // rows: q, k, v
    {LLM_TENSOR_ATTN_Q, MAT, {E, Q}, REQ, ALT_B},       // or separate, as upstream's saver writes them
    {LLM_TENSOR_ATTN_K, MAT, {E, K}, REQ, ALT_B},
    {LLM_TENSOR_ATTN_V, MAT, {E, V}, REQ, ALT_B},
    {LLM_TENSOR_ATTN_Q, BIAS, {Q}, EXTRA, ALT_B},
    {LLM_TENSOR_ATTN_K, BIAS, {K}, EXTRA, ALT_B},
    {LLM_TENSOR_ATTN_V, BIAS, {V}, EXTRA, ALT_B},
    {LLM_TENSOR_ATTN_OUT, MAT, {Q, E}},
    {LLM_TENSOR_FFN_NORM, NORM, {E}},
    {LLM_TENSOR_FFN_UP, MAT, {E, FF2}},    // rows: gate, up
    {LLM_TENSOR_FFN_DOWN, MAT, {FF, E}},
};

// gemma: the head is always the token embeddings.
constexpr llm_tensor_layout GEMMA[] = {
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_OUTPUT_NORM, NORM, {E}},
    {LLM_TENSOR_ATTN_NORM, NORM, {E}},
    {LLM_TENSOR_ATTN_Q, MAT, {E, Q}},
    {LLM_TENSOR_ATTN_K, MAT, {E, K}},
    {LLM_TENSOR_ATTN_V, MAT, {E, V}},
    {LLM_TENSOR_ATTN_Q, BIAS, {Q}, EXTRA},
    {LLM_TENSOR_ATTN_K, BIAS, {K}, EXTRA},
    {LLM_TENSOR_ATTN_V, BIAS, {V}, EXTRA},
    {LLM_TENSOR_ATTN_OUT, MAT, {Q, E}},
    {LLM_TENSOR_FFN_NORM, NORM, {E}},
    {LLM_TENSOR_FFN_GATE, MAT, {E, FF}},
    {LLM_TENSOR_FFN_UP, MAT, {E, FF}},
    {LLM_TENSOR_FFN_DOWN, MAT, {FF, E}},
};

// gemma2: gemma plus norms after the attention and after the feed-forward.
constexpr llm_tensor_layout GEMMA2[] = {
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_OUTPUT_NORM, NORM, {E}},
    {LLM_TENSOR_ATTN_NORM, NORM, {E}},
    {LLM_TENSOR_ATTN_Q, MAT, {E, Q}},
    {LLM_TENSOR_ATTN_K, MAT, {E, K}},
    {LLM_TENSOR_ATTN_V, MAT, {E, V}},
    {LLM_TENSOR_ATTN_Q, BIAS, {Q}, EXTRA},
    {LLM_TENSOR_ATTN_K, BIAS, {K}, EXTRA},
    {LLM_TENSOR_ATTN_V, BIAS, {V}, EXTRA},
    {LLM_TENSOR_ATTN_OUT, MAT, {Q, E}},
    {LLM_TENSOR_ATTN_POST_NORM, NORM, {E}},
    {LLM_TENSOR_FFN_NORM, NORM, {E}},
    {LLM_TENSOR_FFN_GATE, MAT, {E, FF}},
    {LLM_TENSOR_FFN_UP, MAT, {E, FF}},
    {LLM_TENSOR_FFN_DOWN, MAT, {FF, E}},
    {LLM_TENSOR_FFN_POST_NORM, NORM, {E}},
};

// qwen3: per-head q/k norms.
constexpr llm_tensor_layout QWEN3[] = {
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
    {LLM_TENSOR_FFN_GATE, MAT, {E, FF}},
    {LLM_TENSOR_FFN_UP, MAT, {E, FF}},
    {LLM_TENSOR_FFN_DOWN, MAT, {FF, E}},
};

// gemma3: gemma2's norms plus q/k norms; the head may be separate.
constexpr llm_tensor_layout GEMMA3[] = {
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
    {LLM_TENSOR_ATTN_POST_NORM, NORM, {E}},
    {LLM_TENSOR_FFN_NORM, NORM, {E}},
    {LLM_TENSOR_FFN_GATE, MAT, {E, FF}},
    {LLM_TENSOR_FFN_UP, MAT, {E, FF}},
    {LLM_TENSOR_FFN_DOWN, MAT, {FF, E}},
    {LLM_TENSOR_FFN_POST_NORM, NORM, {E}},
};

// gemma-embedding (EmbeddingGemma): gemma3's block as a bidirectional encoder without an LM head,
// and the sentence-transformers dense modules (dense_2 widens the pooled vector, dense_3 brings it
// back to n_embd) in the files converted with them.
constexpr llm_tensor_layout GEMMA_EMBEDDING[] = {
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_OUTPUT_NORM, NORM, {E}},
    output_side({LLM_TENSOR_DENSE_2_OUT, MAT, {E, DOUT}, DENSE_PROJ}),
    output_side({LLM_TENSOR_DENSE_3_OUT, MAT, {DOUT, E}, DENSE_PROJ}),
    {LLM_TENSOR_ATTN_NORM, NORM, {E}},
    {LLM_TENSOR_ATTN_Q, MAT, {E, Q}},
    {LLM_TENSOR_ATTN_K, MAT, {E, K}},
    {LLM_TENSOR_ATTN_V, MAT, {E, V}},
    {LLM_TENSOR_ATTN_Q_NORM, NORM, {HK}},
    {LLM_TENSOR_ATTN_K_NORM, NORM, {HK}},
    {LLM_TENSOR_ATTN_OUT, MAT, {Q, E}},
    {LLM_TENSOR_ATTN_POST_NORM, NORM, {E}},
    {LLM_TENSOR_FFN_NORM, NORM, {E}},
    {LLM_TENSOR_FFN_GATE, MAT, {E, FF}},
    {LLM_TENSOR_FFN_UP, MAT, {E, FF}},
    {LLM_TENSOR_FFN_DOWN, MAT, {FF, E}},
    {LLM_TENSOR_FFN_POST_NORM, NORM, {E}},
};

// gemma3n: gemma3's block plus per-layer token embeddings projected from the hidden state, the AltUp
// stack (router, prediction / correction coefficients: tiny matrices kept in F32) and LAuReL's low-rank
// pair; every block has its q/k/v, also those that read an earlier layer's KV cache. altup_proj and the
// per-layer input projection turn the embeddings into the first block's inputs, so they go with it;
// altup_unembd_proj runs right before the output norm, so it goes with the output layer.
constexpr llm_tensor_layout GEMMA3N[] = {
    {LLM_TENSOR_OUTPUT, MAT, {E, VOC}, UNTIED},
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    input_side({LLM_TENSOR_ALTUP_PROJ, MAT, {E, E, LLM_DIM_N_ALTUP_M1}}),
    output_side({LLM_TENSOR_ALTUP_UNEMBD_PROJ, MAT, {E, E, LLM_DIM_N_ALTUP_M1}}),
    {LLM_TENSOR_PER_LAYER_TOKEN_EMBD, MAT, {LLM_DIM_ALTUP_ALL, VOC}},
    input_side({LLM_TENSOR_PER_LAYER_MODEL_PROJ, MAT, {E, LLM_DIM_ALTUP_ALL}}),
    input_side({LLM_TENSOR_PER_LAYER_PROJ_NORM, NORM, {LLM_DIM_ALTUP}}),
    {LLM_TENSOR_OUTPUT_NORM, NORM, {E}},
    {LLM_TENSOR_ATTN_NORM, NORM, {E}},
    {LLM_TENSOR_ATTN_Q, MAT, {E, Q}},
    {LLM_TENSOR_ATTN_K, MAT, {E, K}},
    {LLM_TENSOR_ATTN_V, MAT, {E, V}},
    {LLM_TENSOR_ATTN_OUT, MAT, {Q, E}},
    {LLM_TENSOR_ATTN_Q_NORM, NORM, {HK}},
    {LLM_TENSOR_ATTN_K_NORM, NORM, {HK}},
    {LLM_TENSOR_ATTN_POST_NORM, NORM, {E}},
    {LLM_TENSOR_FFN_NORM, NORM, {E}},
    {LLM_TENSOR_FFN_GATE, MAT, {E, FF}},
    {LLM_TENSOR_FFN_UP, MAT, {E, FF}},
    {LLM_TENSOR_FFN_DOWN, MAT, {FF, E}},
    {LLM_TENSOR_FFN_POST_NORM, NORM, {E}},
    {LLM_TENSOR_PER_LAYER_INP_GATE, MAT, {E, LLM_DIM_ALTUP}},
    {LLM_TENSOR_PER_LAYER_PROJ, MAT, {LLM_DIM_ALTUP, E}},
    {LLM_TENSOR_PER_LAYER_POST_NORM, NORM, {E}},
    {LLM_TENSOR_ALTUP_CORRECT_COEF, ROUTER, {LLM_DIM_N_ALTUP, LLM_DIM_N_ALTUP}},
    {LLM_TENSOR_ALTUP_CORRECT_SCALE, PARAM, {E}},
    {LLM_TENSOR_ALTUP_PREDICT_COEF, ROUTER, {LLM_DIM_N_ALTUP, LLM_DIM_N_ALTUP_SQ}},
    {LLM_TENSOR_ALTUP_ROUTER, ROUTER, {E, LLM_DIM_N_ALTUP}},
    {LLM_TENSOR_ALTUP_ROUTER_NORM, NORM, {E}},
    {LLM_TENSOR_LAUREL_L, MAT, {E, LLM_DIM_LAUREL}},
    {LLM_TENSOR_LAUREL_R, MAT, {LLM_DIM_LAUREL, E}},
    {LLM_TENSOR_LAUREL_POST_NORM, NORM, {E}},
};

// granite: the llama tensors; some conversions carry the output and feed-forward biases.
constexpr llm_tensor_layout GRANITE[] = {
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
    {LLM_TENSOR_FFN_GATE, MAT, {E, FF}},
    {LLM_TENSOR_FFN_UP, MAT, {E, FF}},
    {LLM_TENSOR_FFN_DOWN, MAT, {FF, E}},
    {LLM_TENSOR_FFN_GATE, BIAS, {FF}, EXTRA},
    {LLM_TENSOR_FFN_UP, BIAS, {FF}, EXTRA},
    {LLM_TENSOR_FFN_DOWN, BIAS, {E}, EXTRA},
};

// olmo2: no pre-norms, post-norms on the attention and feed-forward outputs, q/k norms over the
// whole projection; always a separate head.
constexpr llm_tensor_layout OLMO2[] = {
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_OUTPUT_NORM, NORM, {E}},
    {LLM_TENSOR_OUTPUT, MAT, {E, VOC}},
    {LLM_TENSOR_ATTN_Q, MAT, {E, Q}},
    {LLM_TENSOR_ATTN_K, MAT, {E, K}},
    {LLM_TENSOR_ATTN_V, MAT, {E, V}},
    {LLM_TENSOR_ATTN_OUT, MAT, {Q, E}},
    {LLM_TENSOR_ATTN_Q_NORM, NORM, {Q}},
    {LLM_TENSOR_ATTN_K_NORM, NORM, {K}},
    {LLM_TENSOR_ATTN_POST_NORM, NORM, {E}},
    {LLM_TENSOR_FFN_GATE, MAT, {E, FF}},
    {LLM_TENSOR_FFN_UP, MAT, {E, FF}},
    {LLM_TENSOR_FFN_DOWN, MAT, {FF, E}},
    {LLM_TENSOR_FFN_POST_NORM, NORM, {E}},
};

// smollm3: the dense llama tensors (its NoPE layers have no weights of their own).
constexpr llm_tensor_layout SMOLLM3[] = {
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_OUTPUT_NORM, NORM, {E}},
    {LLM_TENSOR_OUTPUT, MAT, {E, VOC}, UNTIED},
    {LLM_TENSOR_ATTN_NORM, NORM, {E}},
    {LLM_TENSOR_ATTN_Q, MAT, {E, Q}},
    {LLM_TENSOR_ATTN_K, MAT, {E, K}},
    {LLM_TENSOR_ATTN_V, MAT, {E, V}},
    {LLM_TENSOR_ATTN_OUT, MAT, {Q, E}},
    {LLM_TENSOR_FFN_NORM, NORM, {E}},
    {LLM_TENSOR_FFN_GATE, MAT, {E, FF}},
    {LLM_TENSOR_FFN_UP, MAT, {E, FF}},
    {LLM_TENSOR_FFN_DOWN, MAT, {FF, E}},
};

// exaone4: olmo2's post-norms with per-head q/k norms; llama-3-style rope_freqs in some files.
constexpr llm_tensor_layout EXAONE4[] = {
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_OUTPUT_NORM, NORM, {E}},
    {LLM_TENSOR_OUTPUT, MAT, {E, VOC}, UNTIED},
    {LLM_TENSOR_ROPE_FREQS, PARAM, {ROT2}, EXTRA},
    {LLM_TENSOR_ATTN_Q, MAT, {E, Q}},
    {LLM_TENSOR_ATTN_K, MAT, {E, K}},
    {LLM_TENSOR_ATTN_V, MAT, {E, V}},
    {LLM_TENSOR_ATTN_Q, BIAS, {Q}, EXTRA},  // optional, as upstream creates them (its saver writes them)
    {LLM_TENSOR_ATTN_K, BIAS, {K}, EXTRA},
    {LLM_TENSOR_ATTN_V, BIAS, {V}, EXTRA},
    {LLM_TENSOR_ATTN_OUT, MAT, {Q, E}},
    {LLM_TENSOR_ATTN_POST_NORM, NORM, {E}},
    {LLM_TENSOR_ATTN_Q_NORM, NORM, {HK}},
    {LLM_TENSOR_ATTN_K_NORM, NORM, {HK}},
    {LLM_TENSOR_FFN_GATE, MAT, {E, FF}},
    {LLM_TENSOR_FFN_DOWN, MAT, {FF, E}},
    {LLM_TENSOR_FFN_UP, MAT, {E, FF}},
    {LLM_TENSOR_FFN_POST_NORM, NORM, {E}},
};

// glm4: q/k/v with biases, norms before and after the attention and the feed-forward, gate and up
// fused in ffn_up (rows: gate, up); usually a separate head.
constexpr llm_tensor_layout GLM4[] = {
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
    {LLM_TENSOR_ATTN_POST_NORM, NORM, {E}},
    {LLM_TENSOR_FFN_NORM, NORM, {E}},
    {LLM_TENSOR_FFN_DOWN, MAT, {FF, E}},
    {LLM_TENSOR_FFN_UP, MAT, {E, FF2}},  // rows: gate, up
    {LLM_TENSOR_FFN_POST_NORM, NORM, {E}},
};

// clang-format on

}  // namespace llm_layouts
