// Short names for the tensor layout tables (llama-arch-layout-*.h), so that a row fits one line.
// Included only by llama-arch-layout.cpp and the table headers.
#pragma once

#include "llama-arch-layout.h"

namespace llm_layouts {

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
                  ML = LLM_DIM_MOE_LATENT, DOUT = LLM_DIM_DENSE_OUT;
constexpr llm_tl_kind MAT = LLM_TL_MATRIX, ROUTER = LLM_TL_ROUTER, NORM = LLM_TL_NORM, BIAS = LLM_TL_BIAS,
                      PARAM = LLM_TL_PARAM, CONV = LLM_TL_CONV, DECAY = LLM_TL_DECAY, BARE = LLM_TL_BARE,
                      NORM_BARE = LLM_TL_NORM_BARE;
constexpr llm_tl_presence REQ = LLM_TL_REQUIRED, USUAL = LLM_TL_USUAL, EXTRA = LLM_TL_EXTRA, UNTIED = LLM_TL_UNTIED,
                          ROPE_FACTORS = LLM_TL_ROPE_FACTORS, CLS_HEAD = LLM_TL_CLS_HEAD,
                          DENSE_PROJ = LLM_TL_DENSE_PROJ;
constexpr llm_tl_when ALWAYS = LLM_TL_ALWAYS, DENSE = LLM_TL_DENSE, MOE = LLM_TL_MOE, ALT_A = LLM_TL_ALT_A,
                      ALT_B = LLM_TL_ALT_B, SHEXP = LLM_TL_SHEXP, NOT_FIRST = LLM_TL_NOT_FIRST,
                      ATTN_L = LLM_TL_ATTN_LAYER, RECR_L = LLM_TL_RECR_LAYER, FFN_L = LLM_TL_FFN_LAYER,
                      Q_LORA = LLM_TL_Q_LORA, Q_FULL = LLM_TL_Q_FULL, KV_SPLIT = LLM_TL_KV_SPLIT,
                      KV_FUSED = LLM_TL_KV_FUSED, NEXTN = LLM_TL_NEXTN, MOE_SPLIT = LLM_TL_MOE_SPLIT,
                      MOE_FUSED = LLM_TL_MOE_FUSED, FFN_MOE = LLM_TL_FFN_MOE, FFN_DENSE = LLM_TL_FFN_DENSE,
                      FFN_LAT = LLM_TL_FFN_LATENT;

// clang-format off
// A NextN (multi-token-prediction) block's own tensors, after the rows of the block it also holds
// (glm4moe, qwen35, qwen35moe, deepseek2): its projection and norms; embed_tokens / shared_head_head
// only where a conversion kept them. Created only with load_mtp (LLM_TL_NEXTN).
#define LLM_TL_NEXTN_ROWS                                                   \
    {LLM_TENSOR_NEXTN_EH_PROJ, MAT, {E2, E}, REQ, NEXTN},                   \
    {LLM_TENSOR_NEXTN_ENORM, NORM, {E}, REQ, NEXTN},                        \
    {LLM_TENSOR_NEXTN_HNORM, NORM, {E}, REQ, NEXTN},                        \
    {LLM_TENSOR_NEXTN_EMBED_TOKENS, MAT, {E, VOC}, EXTRA, NEXTN},           \
    {LLM_TENSOR_NEXTN_SHARED_HEAD_HEAD, MAT, {E, VOC}, EXTRA, NEXTN},       \
    {LLM_TENSOR_NEXTN_SHARED_HEAD_NORM, NORM, {E}, USUAL, NEXTN}
// clang-format on

}  // namespace llm_layouts
