#include "llama-arch-layout.h"

namespace {

// short names for the tables
constexpr llm_dim E = LLM_DIM_EMBD, VOC = LLM_DIM_VOCAB, FF = LLM_DIM_FF, FF2 = LLM_DIM_FF_X2, FX = LLM_DIM_FF_EXP,
                  NX = LLM_DIM_EXPERT, NH = LLM_DIM_HEAD, HK = LLM_DIM_HEAD_K, Q = LLM_DIM_Q, K = LLM_DIM_K,
                  V = LLM_DIM_V, QKV = LLM_DIM_QKV, ROT2 = LLM_DIM_ROT_HALF, CTX = LLM_DIM_CTX,
                  TT = LLM_DIM_TOKEN_TYPES, CLS = LLM_DIM_CLS_OUT, FSH = LLM_DIM_FF_SHEXP, SCV = LLM_DIM_SSM_CONV,
                  SI = LLM_DIM_SSM_INNER, SH = LLM_DIM_SSM_HEADS, SG = LLM_DIM_SSM_GROUPS, SCH = LLM_DIM_SSM_CONV_CH,
                  SIN = LLM_DIM_SSM_IN, SGW = LLM_DIM_SSM_GROUP_W, ONE = LLM_DIM_ONE, FFU = LLM_DIM_FF_UP,
                  SCL = LLM_DIM_SHORTCONV_L, E3 = LLM_DIM_EMBD_X3, QL = LLM_DIM_Q_LORA, KVL = LLM_DIM_KV_LORA,
                  KVA = LLM_DIM_KV_A_MQA, QM = LLM_DIM_Q_MLA, NOPE = LLM_DIM_HEAD_QK_NOPE, VM = LLM_DIM_HEAD_V_MLA,
                  OM = LLM_DIM_O_MLA, KVB = LLM_DIM_KV_B, E2 = LLM_DIM_EMBD_X2, FX2 = LLM_DIM_FF_EXP_X2,
                  QG = LLM_DIM_Q_GATED, SH2 = LLM_DIM_SSM_HEADS_X2, SST = LLM_DIM_SSM_STATE, ME = LLM_DIM_MOE_EMBD,
                  ML      = LLM_DIM_MOE_LATENT;
constexpr llm_tl_kind MAT = LLM_TL_MATRIX, ROUTER = LLM_TL_ROUTER, NORM = LLM_TL_NORM, BIAS = LLM_TL_BIAS,
                      PARAM = LLM_TL_PARAM, CONV = LLM_TL_CONV, DECAY = LLM_TL_DECAY, BARE = LLM_TL_BARE,
                      NORM_BARE = LLM_TL_NORM_BARE;
constexpr llm_tl_presence REQ = LLM_TL_REQUIRED, USUAL = LLM_TL_USUAL, EXTRA = LLM_TL_EXTRA, UNTIED = LLM_TL_UNTIED,
                          ROPE_FACTORS = LLM_TL_ROPE_FACTORS, CLS_HEAD = LLM_TL_CLS_HEAD;
constexpr llm_tl_when ALWAYS = LLM_TL_ALWAYS, DENSE = LLM_TL_DENSE, MOE = LLM_TL_MOE, ALT_A = LLM_TL_ALT_A,
                      ALT_B = LLM_TL_ALT_B, SHEXP = LLM_TL_SHEXP, NOT_FIRST = LLM_TL_NOT_FIRST,
                      ATTN_L = LLM_TL_ATTN_LAYER, RECR_L = LLM_TL_RECR_LAYER, FFN_L = LLM_TL_FFN_LAYER,
                      Q_LORA = LLM_TL_Q_LORA, Q_FULL = LLM_TL_Q_FULL, KV_SPLIT = LLM_TL_KV_SPLIT,
                      KV_FUSED = LLM_TL_KV_FUSED, NEXTN = LLM_TL_NEXTN, MOE_SPLIT = LLM_TL_MOE_SPLIT,
                      MOE_FUSED = LLM_TL_MOE_FUSED, FFN_MOE = LLM_TL_FFN_MOE, FFN_DENSE = LLM_TL_FFN_DENSE,
                      FFN_LAT = LLM_TL_FFN_LATENT;

// One table per architecture, in the order of its files' tensors. One row per line (clang-format
// would pack them), so that a table reads as the list of a model's weights.
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

// gemma3n: gemma3's block plus per-layer token embeddings projected from the hidden state, the AltUp
// stack (router, prediction / correction coefficients: tiny matrices kept in F32) and LAuReL's low-rank
// pair; every block has its q/k/v, also those that read an earlier layer's KV cache.
constexpr llm_tensor_layout GEMMA3N[] = {
    {LLM_TENSOR_OUTPUT, MAT, {E, VOC}, UNTIED},
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_ALTUP_PROJ, MAT, {E, E, LLM_DIM_N_ALTUP_M1}},
    {LLM_TENSOR_ALTUP_UNEMBD_PROJ, MAT, {E, E, LLM_DIM_N_ALTUP_M1}},
    {LLM_TENSOR_PER_LAYER_TOKEN_EMBD, MAT, {LLM_DIM_ALTUP_ALL, VOC}},
    {LLM_TENSOR_PER_LAYER_MODEL_PROJ, MAT, {E, LLM_DIM_ALTUP_ALL}},
    {LLM_TENSOR_PER_LAYER_PROJ_NORM, NORM, {LLM_DIM_ALTUP}},
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

// mamba2: no attention and no feed-forward; per block a norm and the state-space mixer (ssm_in gives
// z, x, B, C and dt; a depthwise causal conv over x, B, C; A and D one value per head; a grouped RMS
// norm before ssm_out). ssm_conv1d is [d_conv, channels], ssm_a / ssm_d are [1, heads] without a suffix.
constexpr llm_tensor_layout MAMBA2[] = {
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_OUTPUT_NORM, NORM, {E}},
    {LLM_TENSOR_OUTPUT, MAT, {E, VOC}, UNTIED},
    {LLM_TENSOR_ATTN_NORM, NORM, {E}},
    {LLM_TENSOR_SSM_IN, MAT, {E, SIN}},
    {LLM_TENSOR_SSM_CONV1D, CONV, {SCV, SCH}},
    {LLM_TENSOR_SSM_CONV1D, BIAS, {SCH}},
    {LLM_TENSOR_SSM_DT, BIAS, {SH}},
    {LLM_TENSOR_SSM_A, DECAY, {ONE, SH}},
    {LLM_TENSOR_SSM_D, BARE, {ONE, SH}},
    {LLM_TENSOR_SSM_NORM, NORM, {SGW, SG}},
    {LLM_TENSOR_SSM_OUT, MAT, {SI, E}},
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

// lfm2: per layer either GQA attention with head-wide q/k norms or a short convolution (only the
// layers the file marks with 0 KV heads); the SwiGLU feed-forward on every layer; the final norm is
// stored as token_embd_norm.
constexpr llm_tensor_layout LFM2[] = {
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_OUTPUT_NORM_LFM2, NORM, {E}, REQ, ALWAYS, LLM_TENSOR_OUTPUT_NORM},
    {LLM_TENSOR_OUTPUT, MAT, {E, VOC}, UNTIED},
    {LLM_TENSOR_ATTN_NORM, NORM, {E}},
    {LLM_TENSOR_ATTN_Q, MAT, {E, Q}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_K, MAT, {E, K}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_V, MAT, {E, V}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_OUT, MAT, {Q, E}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_Q_NORM, NORM, {HK}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_K_NORM, NORM, {HK}, REQ, ATTN_L},
    {LLM_TENSOR_SHORTCONV_CONV, CONV, {SCL, E}, REQ, RECR_L},
    {LLM_TENSOR_SHORTCONV_INPROJ, MAT, {E, E3}, REQ, RECR_L},
    {LLM_TENSOR_SHORTCONV_OUTPROJ, MAT, {E, E}, REQ, RECR_L},
    {LLM_TENSOR_FFN_NORM, NORM, {E}},
    {LLM_TENSOR_FFN_GATE, MAT, {E, FF}},
    {LLM_TENSOR_FFN_UP, MAT, {E, FF}},
    {LLM_TENSOR_FFN_DOWN, MAT, {FF, E}},
};

// deepseek2: multi-head latent attention in the split form the current converter writes (k_b, v_b);
// q through a low-rank pair, or one attn_q (V2-Lite); leading dense layers, then routed experts with
// shared experts and, in V3 files, a selection bias.
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
    {LLM_TENSOR_NEXTN_EH_PROJ, MAT, {E2, E}, REQ, NEXTN},
    {LLM_TENSOR_NEXTN_ENORM, NORM, {E}, REQ, NEXTN},
    {LLM_TENSOR_NEXTN_HNORM, NORM, {E}, REQ, NEXTN},
    {LLM_TENSOR_NEXTN_EMBED_TOKENS, MAT, {E, VOC}, EXTRA, NEXTN},
    {LLM_TENSOR_NEXTN_SHARED_HEAD_HEAD, MAT, {E, VOC}, EXTRA, NEXTN},
    {LLM_TENSOR_NEXTN_SHARED_HEAD_NORM, NORM, {E}, USUAL, NEXTN},
};

// granitehybrid (Granite 4.0 H): per layer either granite attention or a Mamba-2 mixer (the
// layers the file marks with 0 KV heads); every layer has granite's feed-forward, dense SwiGLU or
// experts with an optional shared expert. The conv bias is optional, as upstream loads it.
constexpr llm_tensor_layout GRANITE_HYBRID[] = {
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_OUTPUT_NORM, NORM, {E}},
    {LLM_TENSOR_OUTPUT, MAT, {E, VOC}, UNTIED},
    {LLM_TENSOR_ROPE_FREQS, PARAM, {ROT2}, EXTRA},
    {LLM_TENSOR_ATTN_NORM, NORM, {E}},
    {LLM_TENSOR_ATTN_Q, MAT, {E, Q}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_K, MAT, {E, K}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_V, MAT, {E, V}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_OUT, MAT, {Q, E}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_OUT, BIAS, {E}, EXTRA, ATTN_L},
    {LLM_TENSOR_SSM_IN, MAT, {E, SIN}, REQ, RECR_L},
    {LLM_TENSOR_SSM_CONV1D, CONV, {SCV, SCH}, REQ, RECR_L},
    {LLM_TENSOR_SSM_CONV1D, BIAS, {SCH}, USUAL, RECR_L},
    {LLM_TENSOR_SSM_DT, BIAS, {SH}, REQ, RECR_L},
    {LLM_TENSOR_SSM_A, DECAY, {ONE, SH}, REQ, RECR_L},
    {LLM_TENSOR_SSM_D, BARE, {ONE, SH}, REQ, RECR_L},
    {LLM_TENSOR_SSM_NORM, NORM, {SGW, SG}, REQ, RECR_L},
    {LLM_TENSOR_SSM_OUT, MAT, {SI, E}, REQ, RECR_L},
    {LLM_TENSOR_FFN_NORM, NORM, {E}},
    {LLM_TENSOR_FFN_GATE, MAT, {E, FF}, REQ, DENSE},
    {LLM_TENSOR_FFN_UP, MAT, {E, FF}, REQ, DENSE},
    {LLM_TENSOR_FFN_DOWN, MAT, {FF, E}, REQ, DENSE},
    {LLM_TENSOR_FFN_GATE, BIAS, {FF}, EXTRA, DENSE},
    {LLM_TENSOR_FFN_UP, BIAS, {FF}, EXTRA, DENSE},
    {LLM_TENSOR_FFN_DOWN, BIAS, {E}, EXTRA, DENSE},
    {LLM_TENSOR_FFN_GATE_INP, ROUTER, {E, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_GATE_EXPS, MAT, {E, FX, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_UP_EXPS, MAT, {E, FX, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_DOWN_EXPS, MAT, {FX, E, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_GATE_SHEXP, MAT, {E, FSH}, REQ, SHEXP},
    {LLM_TENSOR_FFN_UP_SHEXP, MAT, {E, FSH}, REQ, SHEXP},
    {LLM_TENSOR_FFN_DOWN_SHEXP, MAT, {FSH, E}, REQ, SHEXP},
};

// nemotron_h (Nemotron-H): every block is an RMS pre-norm (attn_norm) and one of a Mamba-2 mixer, GQA
// attention without rotary positions, or a squared-ReLU feed-forward without a gate (ffn_up,
// ffn_down); which one is per layer (head_count_kv and feed_forward_length arrays). Biases and the
// conv bias optional, as upstream loads them.
constexpr llm_tensor_layout NEMOTRON_H[] = {
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_OUTPUT_NORM, NORM, {E}},
    {LLM_TENSOR_OUTPUT, MAT, {E, VOC}, UNTIED},
    {LLM_TENSOR_ATTN_NORM, NORM, {E}},
    {LLM_TENSOR_ATTN_Q, MAT, {E, Q}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_K, MAT, {E, K}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_V, MAT, {E, V}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_Q, BIAS, {Q}, EXTRA, ATTN_L},
    {LLM_TENSOR_ATTN_K, BIAS, {K}, EXTRA, ATTN_L},
    {LLM_TENSOR_ATTN_V, BIAS, {V}, EXTRA, ATTN_L},
    {LLM_TENSOR_ATTN_OUT, MAT, {Q, E}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_OUT, BIAS, {E}, EXTRA, ATTN_L},
    {LLM_TENSOR_SSM_IN, MAT, {E, SIN}, REQ, RECR_L},
    {LLM_TENSOR_SSM_CONV1D, CONV, {SCV, SCH}, REQ, RECR_L},
    {LLM_TENSOR_SSM_CONV1D, BIAS, {SCH}, USUAL, RECR_L},
    {LLM_TENSOR_SSM_DT, BIAS, {SH}, REQ, RECR_L},
    {LLM_TENSOR_SSM_A, DECAY, {ONE, SH}, REQ, RECR_L},
    {LLM_TENSOR_SSM_D, BARE, {ONE, SH}, REQ, RECR_L},
    {LLM_TENSOR_SSM_NORM, NORM, {SGW, SG}, REQ, RECR_L},
    {LLM_TENSOR_SSM_OUT, MAT, {SI, E}, REQ, RECR_L},
    {LLM_TENSOR_FFN_UP, MAT, {E, FF}, REQ, FFN_L},
    {LLM_TENSOR_FFN_DOWN, MAT, {FF, E}, REQ, FFN_L},
    {LLM_TENSOR_FFN_UP, BIAS, {FF}, EXTRA, FFN_L},
    {LLM_TENSOR_FFN_DOWN, BIAS, {E}, EXTRA, FFN_L},
};

// nemotron_h_moe (Nemotron 3 Nano / Super): nemotron_h's blocks, the feed-forward-only ones experts
// (up/down, no gate) with a router, selection bias and shared expert, Super's in a latent space
// (ffn_latent_down / _up); without experts nemotron_h's. NextN blocks: in the file, not run (not listed).
constexpr llm_tensor_layout NEMOTRON_H_MOE[] = {
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_OUTPUT_NORM, NORM, {E}},
    {LLM_TENSOR_OUTPUT, MAT, {E, VOC}, UNTIED},
    {LLM_TENSOR_ATTN_NORM, NORM, {E}},
    {LLM_TENSOR_ATTN_Q, MAT, {E, Q}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_K, MAT, {E, K}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_V, MAT, {E, V}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_Q, BIAS, {Q}, EXTRA, ATTN_L},
    {LLM_TENSOR_ATTN_K, BIAS, {K}, EXTRA, ATTN_L},
    {LLM_TENSOR_ATTN_V, BIAS, {V}, EXTRA, ATTN_L},
    {LLM_TENSOR_ATTN_OUT, MAT, {Q, E}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_OUT, BIAS, {E}, EXTRA, ATTN_L},
    {LLM_TENSOR_SSM_IN, MAT, {E, SIN}, REQ, RECR_L},
    {LLM_TENSOR_SSM_CONV1D, CONV, {SCV, SCH}, REQ, RECR_L},
    {LLM_TENSOR_SSM_CONV1D, BIAS, {SCH}, USUAL, RECR_L},
    {LLM_TENSOR_SSM_DT, BIAS, {SH}, REQ, RECR_L},
    {LLM_TENSOR_SSM_A, DECAY, {ONE, SH}, REQ, RECR_L},
    {LLM_TENSOR_SSM_D, BARE, {ONE, SH}, REQ, RECR_L},
    {LLM_TENSOR_SSM_NORM, NORM, {SGW, SG}, REQ, RECR_L},
    {LLM_TENSOR_SSM_OUT, MAT, {SI, E}, REQ, RECR_L},
    {LLM_TENSOR_FFN_GATE_INP, ROUTER, {E, NX}, REQ, FFN_MOE},
    {LLM_TENSOR_FFN_EXP_PROBS_B, BIAS, {NX}, REQ, FFN_MOE},
    {LLM_TENSOR_FFN_LATENT_DOWN, MAT, {E, ML}, REQ, FFN_LAT},
    {LLM_TENSOR_FFN_LATENT_UP, MAT, {ML, E}, REQ, FFN_LAT},
    {LLM_TENSOR_FFN_DOWN_EXPS, MAT, {FX, ME, NX}, REQ, FFN_MOE},
    {LLM_TENSOR_FFN_UP_EXPS, MAT, {ME, FX, NX}, REQ, FFN_MOE},
    {LLM_TENSOR_FFN_DOWN_SHEXP, MAT, {FSH, E}, REQ, FFN_MOE},
    {LLM_TENSOR_FFN_UP_SHEXP, MAT, {E, FSH}, REQ, FFN_MOE},
    {LLM_TENSOR_FFN_UP, MAT, {E, FF}, REQ, FFN_DENSE},
    {LLM_TENSOR_FFN_DOWN, MAT, {FF, E}, REQ, FFN_DENSE},
    {LLM_TENSOR_FFN_UP, BIAS, {FF}, EXTRA, FFN_DENSE},
    {LLM_TENSOR_FFN_DOWN, BIAS, {E}, EXTRA, FFN_DENSE},
};

// lfm2moe (LFM2-8B-A1B): lfm2's mixers; the feed-forward of the first leading_dense_block_count
// layers is lfm2's SwiGLU, the others' a mixture of experts with a sigmoid router and a selection bias.
constexpr llm_tensor_layout LFM2MOE[] = {
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_OUTPUT_NORM_LFM2, NORM, {E}, REQ, ALWAYS, LLM_TENSOR_OUTPUT_NORM},
    {LLM_TENSOR_OUTPUT, MAT, {E, VOC}, UNTIED},
    {LLM_TENSOR_ATTN_NORM, NORM, {E}},
    {LLM_TENSOR_ATTN_Q, MAT, {E, Q}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_K, MAT, {E, K}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_V, MAT, {E, V}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_OUT, MAT, {Q, E}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_Q_NORM, NORM, {HK}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_K_NORM, NORM, {HK}, REQ, ATTN_L},
    {LLM_TENSOR_SHORTCONV_CONV, CONV, {SCL, E}, REQ, RECR_L},
    {LLM_TENSOR_SHORTCONV_INPROJ, MAT, {E, E3}, REQ, RECR_L},
    {LLM_TENSOR_SHORTCONV_OUTPROJ, MAT, {E, E}, REQ, RECR_L},
    {LLM_TENSOR_FFN_NORM, NORM, {E}},
    {LLM_TENSOR_FFN_GATE, MAT, {E, FF}, REQ, DENSE},
    {LLM_TENSOR_FFN_UP, MAT, {E, FF}, REQ, DENSE},
    {LLM_TENSOR_FFN_DOWN, MAT, {FF, E}, REQ, DENSE},
    {LLM_TENSOR_FFN_GATE_INP, ROUTER, {E, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_EXP_PROBS_B, BIAS, {NX}, REQ, MOE},
    {LLM_TENSOR_FFN_GATE_EXPS, MAT, {E, FX, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_UP_EXPS, MAT, {E, FX, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_DOWN_EXPS, MAT, {FX, E, NX}, REQ, MOE},
};

// falcon-h1: every layer runs GQA attention and a mamba2 mixer side by side on the same normed
// input (their outputs summed), then a SwiGLU feed-forward. The converter folds Falcon-H1's
// multipliers into the weights. ssm_norm is absent when the model has no mamba RMS norm. Optional
// Q/K/V and feed-forward biases are used as upstream uses them; an attention-output bias or
// rope_freqs, which upstream loads but leaves out of its graph, are not read.
constexpr llm_tensor_layout FALCON_H1[] = {
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
    {LLM_TENSOR_ATTN_OUT, MAT, {Q, E}},
    {LLM_TENSOR_SSM_IN, MAT, {E, SIN}},
    {LLM_TENSOR_SSM_CONV1D, CONV, {SCV, SCH}},
    {LLM_TENSOR_SSM_CONV1D, BIAS, {SCH}},
    {LLM_TENSOR_SSM_DT, BIAS, {SH}},
    {LLM_TENSOR_SSM_A, DECAY, {ONE, SH}},
    {LLM_TENSOR_SSM_D, BARE, {ONE, SH}},
    {LLM_TENSOR_SSM_NORM, NORM, {SGW, SG}, USUAL},
    {LLM_TENSOR_SSM_OUT, MAT, {SI, E}},
    {LLM_TENSOR_FFN_NORM, NORM_BARE, {E}},
    {LLM_TENSOR_FFN_GATE, MAT, {E, FF}},
    {LLM_TENSOR_FFN_UP, MAT, {E, FF}},
    {LLM_TENSOR_FFN_DOWN, MAT, {FF, E}},
    {LLM_TENSOR_FFN_GATE, BIAS, {FF}, EXTRA},
    {LLM_TENSOR_FFN_UP, BIAS, {FF}, EXTRA},
    {LLM_TENSOR_FFN_DOWN, BIAS, {E}, EXTRA},
};

// qwen3next: every full_attention_interval-th layer is gated attention (attn_q gives each head's
// query and its sigmoid output gate; q/k norms), the others gated delta-net layers (attn_qkv feeds the
// causal conv over q, k, v; attn_gate gives z for the gated norm; ssm_ba beta and alpha per head);
// a post-attention norm before the feed-forward: routed experts plus a shared expert with a sigmoid
// gate of its own. Only the current converter's spelling (attn_qkv + attn_gate, not the older ssm_in).
constexpr llm_tensor_layout QWEN3NEXT[] = {
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_OUTPUT_NORM, NORM, {E}},
    {LLM_TENSOR_OUTPUT, MAT, {E, VOC}, UNTIED},
    {LLM_TENSOR_ATTN_NORM, NORM, {E}},
    {LLM_TENSOR_ATTN_Q, MAT, {E, QG}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_K, MAT, {E, K}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_V, MAT, {E, V}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_OUT, MAT, {Q, E}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_Q_NORM, NORM, {HK}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_K_NORM, NORM, {HK}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_QKV, MAT, {E, SCH}, REQ, RECR_L},
    {LLM_TENSOR_ATTN_GATE, MAT, {E, SI}, REQ, RECR_L},
    {LLM_TENSOR_SSM_CONV1D, CONV, {SCV, SCH}, REQ, RECR_L},
    {LLM_TENSOR_SSM_DT, BIAS, {SH}, REQ, RECR_L},
    {LLM_TENSOR_SSM_A, DECAY, {SH}, REQ, RECR_L},
    {LLM_TENSOR_SSM_BETA_ALPHA, MAT, {E, SH2}, REQ, RECR_L},
    {LLM_TENSOR_SSM_NORM, NORM, {SST}, REQ, RECR_L},
    {LLM_TENSOR_SSM_OUT, MAT, {SI, E}, REQ, RECR_L},
    {LLM_TENSOR_ATTN_POST_NORM, NORM, {E}},
    {LLM_TENSOR_FFN_GATE_INP, ROUTER, {E, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_GATE_EXPS, MAT, {E, FX, NX}, REQ, MOE_SPLIT},
    {LLM_TENSOR_FFN_UP_EXPS, MAT, {E, FX, NX}, REQ, MOE_SPLIT},
    {LLM_TENSOR_FFN_GATE_UP_EXPS, MAT, {E, FX2, NX}, REQ, MOE_FUSED},
    {LLM_TENSOR_FFN_DOWN_EXPS, MAT, {FX, E, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_GATE_INP_SHEXP, ROUTER, {E}, REQ, SHEXP},
    {LLM_TENSOR_FFN_GATE_SHEXP, MAT, {E, FSH}, REQ, SHEXP},
    {LLM_TENSOR_FFN_UP_SHEXP, MAT, {E, FSH}, REQ, SHEXP},
    {LLM_TENSOR_FFN_DOWN_SHEXP, MAT, {FSH, E}, REQ, SHEXP},
};

// qwen35 (Qwen 3.5): qwen3next's blocks with beta and alpha as two projections (ssm_beta, ssm_alpha)
// and a dense SwiGLU feed-forward; qwen35moe: the same with qwen3next's experts and gated shared
// expert (gate and up split or fused). The NextN blocks after the decoder's are in the file, not run.
constexpr llm_tensor_layout QWEN35[] = {
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_OUTPUT_NORM, NORM, {E}},
    {LLM_TENSOR_OUTPUT, MAT, {E, VOC}, UNTIED},
    {LLM_TENSOR_ATTN_NORM, NORM, {E}},
    {LLM_TENSOR_ATTN_Q, MAT, {E, QG}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_K, MAT, {E, K}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_V, MAT, {E, V}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_OUT, MAT, {Q, E}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_Q_NORM, NORM, {HK}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_K_NORM, NORM, {HK}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_QKV, MAT, {E, SCH}, REQ, RECR_L},
    {LLM_TENSOR_ATTN_GATE, MAT, {E, SI}, REQ, RECR_L},
    {LLM_TENSOR_SSM_CONV1D, CONV, {SCV, SCH}, REQ, RECR_L},
    {LLM_TENSOR_SSM_DT, BIAS, {SH}, REQ, RECR_L},
    {LLM_TENSOR_SSM_A, DECAY, {SH}, REQ, RECR_L},
    {LLM_TENSOR_SSM_BETA, MAT, {E, SH}, REQ, RECR_L},
    {LLM_TENSOR_SSM_ALPHA, MAT, {E, SH}, REQ, RECR_L},
    {LLM_TENSOR_SSM_NORM, NORM, {SST}, REQ, RECR_L},
    {LLM_TENSOR_SSM_OUT, MAT, {SI, E}, REQ, RECR_L},
    {LLM_TENSOR_ATTN_POST_NORM, NORM, {E}},
    {LLM_TENSOR_FFN_GATE, MAT, {E, FF}},
    {LLM_TENSOR_FFN_DOWN, MAT, {FF, E}},
    {LLM_TENSOR_FFN_UP, MAT, {E, FF}},
};

constexpr llm_tensor_layout QWEN35MOE[] = {
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_OUTPUT_NORM, NORM, {E}},
    {LLM_TENSOR_OUTPUT, MAT, {E, VOC}, UNTIED},
    {LLM_TENSOR_ATTN_NORM, NORM, {E}},
    {LLM_TENSOR_ATTN_Q, MAT, {E, QG}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_K, MAT, {E, K}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_V, MAT, {E, V}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_OUT, MAT, {Q, E}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_Q_NORM, NORM, {HK}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_K_NORM, NORM, {HK}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_QKV, MAT, {E, SCH}, REQ, RECR_L},
    {LLM_TENSOR_ATTN_GATE, MAT, {E, SI}, REQ, RECR_L},
    {LLM_TENSOR_SSM_CONV1D, CONV, {SCV, SCH}, REQ, RECR_L},
    {LLM_TENSOR_SSM_DT, BIAS, {SH}, REQ, RECR_L},
    {LLM_TENSOR_SSM_A, DECAY, {SH}, REQ, RECR_L},
    {LLM_TENSOR_SSM_BETA, MAT, {E, SH}, REQ, RECR_L},
    {LLM_TENSOR_SSM_ALPHA, MAT, {E, SH}, REQ, RECR_L},
    {LLM_TENSOR_SSM_NORM, NORM, {SST}, REQ, RECR_L},
    {LLM_TENSOR_SSM_OUT, MAT, {SI, E}, REQ, RECR_L},
    {LLM_TENSOR_ATTN_POST_NORM, NORM, {E}},
    {LLM_TENSOR_FFN_GATE_INP, ROUTER, {E, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_GATE_EXPS, MAT, {E, FX, NX}, REQ, MOE_SPLIT},
    {LLM_TENSOR_FFN_UP_EXPS, MAT, {E, FX, NX}, REQ, MOE_SPLIT},
    {LLM_TENSOR_FFN_GATE_UP_EXPS, MAT, {E, FX2, NX}, REQ, MOE_FUSED},
    {LLM_TENSOR_FFN_DOWN_EXPS, MAT, {FX, E, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_GATE_INP_SHEXP, ROUTER, {E}, REQ, SHEXP},
    {LLM_TENSOR_FFN_GATE_SHEXP, MAT, {E, FSH}, REQ, SHEXP},
    {LLM_TENSOR_FFN_UP_SHEXP, MAT, {E, FSH}, REQ, SHEXP},
    {LLM_TENSOR_FFN_DOWN_SHEXP, MAT, {FSH, E}, REQ, SHEXP},
};

// clang-format on

template <size_t N>
constexpr llm_arch_layout row(llm_arch arch, bool encoder, const llm_tensor_layout (&rows)[N]) {
    return {arch, encoder, rows, N};
}

// One row per architecture, in enum order.
constexpr llm_arch_layout LLM_LAYOUT_TABLE[] = {
    row(LLM_ARCH_LLAMA, false, LLAMA),
    row(LLM_ARCH_QWEN2, false, QWEN2),
    row(LLM_ARCH_PHI3, false, PHI3),
    row(LLM_ARCH_GEMMA, false, GEMMA),
    row(LLM_ARCH_GEMMA2, false, GEMMA2),
    row(LLM_ARCH_BERT, true, BERT),
    row(LLM_ARCH_NOMIC_BERT, true, NOMIC_BERT),
    row(LLM_ARCH_QWEN3, false, QWEN3),
    row(LLM_ARCH_QWEN3MOE, false, QWEN3MOE),
    row(LLM_ARCH_GEMMA3, false, GEMMA3),
    row(LLM_ARCH_GPT_OSS, false, GPT_OSS),
    row(LLM_ARCH_GRANITE, false, GRANITE),
    row(LLM_ARCH_GRANITE_MOE, false, GRANITE_MOE),
    row(LLM_ARCH_OLMO2, false, OLMO2),
    row(LLM_ARCH_SMOLLM3, false, SMOLLM3),
    row(LLM_ARCH_EXAONE4, false, EXAONE4),
    row(LLM_ARCH_MISTRAL3, false, LLAMA),  // the text model of Mistral 3 / Ministral 3
    row(LLM_ARCH_GLM4, false, GLM4),
    row(LLM_ARCH_MAMBA2, false, MAMBA2),
    row(LLM_ARCH_JINA_BERT_V2, true, JINA_BERT_V2),
    row(LLM_ARCH_MODERN_BERT, true, MODERN_BERT),
    row(LLM_ARCH_LFM2, false, LFM2),
    row(LLM_ARCH_DEEPSEEK2, false, DEEPSEEK2),
    row(LLM_ARCH_GRANITE_HYBRID, false, GRANITE_HYBRID),
    row(LLM_ARCH_NEMOTRON_H, false, NEMOTRON_H),
    row(LLM_ARCH_GLM4_MOE, false, GLM4_MOE),
    row(LLM_ARCH_FALCON_H1, false, FALCON_H1),
    row(LLM_ARCH_LFM2MOE, false, LFM2MOE),
    row(LLM_ARCH_QWEN3NEXT, false, QWEN3NEXT),
    row(LLM_ARCH_QWEN35, false, QWEN35),
    row(LLM_ARCH_QWEN35MOE, false, QWEN35MOE),
    row(LLM_ARCH_NEMOTRON_H_MOE, false, NEMOTRON_H_MOE),
    row(LLM_ARCH_GEMMA3N, false, GEMMA3N),
};
static_assert(sizeof(LLM_LAYOUT_TABLE) / sizeof(LLM_LAYOUT_TABLE[0]) == LLM_ARCH_COUNT,
              "every llm_arch needs a tensor layout");

constexpr bool layout_in_order() {
    for (int i = 0; i < LLM_ARCH_COUNT; i++) {
        if (LLM_LAYOUT_TABLE[i].arch != i) {
            return false;
        }
    }
    return true;
}
static_assert(layout_in_order(), "tensor layout rows must follow enum order");

}  // namespace

const llm_arch_layout & llm_arch_get_layout(llm_arch arch) {
    return LLM_LAYOUT_TABLE[arch];
}
