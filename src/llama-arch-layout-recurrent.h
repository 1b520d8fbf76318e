// Tensor layout tables: Recurrent and hybrid models: state-space (mamba2, granite-hybrid, nemotron-h, falcon-h1), short
// convolution (lfm2) and gated delta-net (qwen3next, qwen35, kimi-linear) layers, alone or beside attention.
// One table per architecture, in the order of its files' tensors; one row per line (clang-format
// would pack them), so that a table reads as the list of a model's weights. Included only by
// llama-arch-layout.cpp, which lists every table in enum order.
#pragma once

#include "llama-arch-layout-names.h"

namespace llm_layouts {

// clang-format off

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

// lfm2: per layer either GQA attention with head-wide q/k norms or a short convolution (only the
// layers the file marks with 0 KV heads); the SwiGLU feed-forward on every layer; the final norm is
// stored as token_embd_norm. LFM2-ColBERT adds a dense output projection (dense_2, its bias optional).
constexpr llm_tensor_layout LFM2[] = {
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_OUTPUT_NORM_LFM2, NORM, {E}, REQ, ALWAYS, LLM_TENSOR_OUTPUT_NORM},
    {LLM_TENSOR_OUTPUT, MAT, {E, VOC}, UNTIED},
    output_side({LLM_TENSOR_DENSE_2_OUT, MAT, {E, DOUT}, DENSE_PROJ}),
    output_side({LLM_TENSOR_DENSE_2_OUT, BIAS, {DOUT}, EXTRA}),
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
    output_side({LLM_TENSOR_DENSE_2_OUT, MAT, {E, DOUT}, DENSE_PROJ}),
    output_side({LLM_TENSOR_DENSE_2_OUT, BIAS, {DOUT}, EXTRA}),
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
// expert (gate and up split or fused). The NextN blocks after the decoder's: a full-attention block of
// the same kind plus the NEXTN rows; loaded with load_mtp only (the MTP draft head, qwen35.cpp).
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
    LLM_TL_NEXTN_ROWS,
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
    LLM_TL_NEXTN_ROWS,
};

// kimi-linear (Kimi Linear): per layer either a KDA layer (the layers the file marks with 0 KV heads:
// q, k, v projections each through its own short conv, a per-channel decay and an output gate from
// low-rank pairs, beta per head, a per-head RMS norm before attn_output) or latent attention without
// rope (deepseek2's absorbed form, one attn_q); a leading dense feed-forward, then sigmoid-routed
// experts with a selection bias and shared experts. The convs are [d_conv, 1, inner] (upstream also
// loads them with a trailing 1), ssm_a [1, heads] holds -exp(A_log).
constexpr llm_tensor_layout KIMI_LINEAR[] = {
    {LLM_TENSOR_TOKEN_EMBD, MAT, {E, VOC}},
    {LLM_TENSOR_OUTPUT_NORM, NORM, {E}},
    {LLM_TENSOR_OUTPUT, MAT, {E, VOC}, UNTIED},
    {LLM_TENSOR_ATTN_NORM, NORM, {E}},
    {LLM_TENSOR_SSM_CONV1D_Q, CONV, {SCV, ONE, SI}, REQ, RECR_L},
    {LLM_TENSOR_SSM_CONV1D_K, CONV, {SCV, ONE, SI}, REQ, RECR_L},
    {LLM_TENSOR_SSM_CONV1D_V, CONV, {SCV, ONE, SI}, REQ, RECR_L},
    {LLM_TENSOR_ATTN_Q, MAT, {E, SI}, REQ, RECR_L},
    {LLM_TENSOR_ATTN_K, MAT, {E, SI}, REQ, RECR_L},
    {LLM_TENSOR_ATTN_V, MAT, {E, SI}, REQ, RECR_L},
    {LLM_TENSOR_SSM_F_A, MAT, {E, SST}, REQ, RECR_L},
    {LLM_TENSOR_SSM_F_B, MAT, {SST, SI}, REQ, RECR_L},
    {LLM_TENSOR_SSM_BETA, MAT, {E, SH}, REQ, RECR_L},
    {LLM_TENSOR_SSM_A, DECAY, {ONE, SH}, REQ, RECR_L},
    {LLM_TENSOR_SSM_DT, BIAS, {SI}, REQ, RECR_L},
    {LLM_TENSOR_SSM_G_A, MAT, {E, SST}, REQ, RECR_L},
    {LLM_TENSOR_SSM_G_B, MAT, {SST, SI}, REQ, RECR_L},
    {LLM_TENSOR_SSM_NORM, NORM, {SST}, REQ, RECR_L},
    {LLM_TENSOR_ATTN_OUT, MAT, {SI, E}, REQ, RECR_L},
    {LLM_TENSOR_ATTN_KV_A_NORM, NORM, {KVL}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_Q, MAT, {E, QM}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_KV_A_MQA, MAT, {E, KVA}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_K_B, MAT, {NOPE, KVL, NH}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_V_B, MAT, {KVL, VM, NH}, REQ, ATTN_L},
    {LLM_TENSOR_ATTN_OUT, MAT, {OM, E}, REQ, ATTN_L},
    {LLM_TENSOR_FFN_NORM, NORM, {E}},
    {LLM_TENSOR_FFN_GATE, MAT, {E, FF}, REQ, DENSE},
    {LLM_TENSOR_FFN_DOWN, MAT, {FF, E}, REQ, DENSE},
    {LLM_TENSOR_FFN_UP, MAT, {E, FF}, REQ, DENSE},
    {LLM_TENSOR_FFN_GATE_INP, ROUTER, {E, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_GATE_EXPS, MAT, {E, FX, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_DOWN_EXPS, MAT, {FX, E, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_UP_EXPS, MAT, {E, FX, NX}, REQ, MOE},
    {LLM_TENSOR_FFN_GATE_SHEXP, MAT, {E, FSH}, REQ, SHEXP},
    {LLM_TENSOR_FFN_DOWN_SHEXP, MAT, {FSH, E}, REQ, SHEXP},
    {LLM_TENSOR_FFN_UP_SHEXP, MAT, {E, FSH}, REQ, SHEXP},
    {LLM_TENSOR_FFN_EXP_PROBS_B, BIAS, {NX}, REQ, MOE},
};

// clang-format on

}  // namespace llm_layouts
