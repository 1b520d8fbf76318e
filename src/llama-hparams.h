// Model hyperparameters read from the GGUF metadata (immutable after load).
#pragma once

#include "llama.h"

#include <cstdint>

struct llama_hparams {
    uint32_t n_ctx_train   = 0;  // training context length
    uint32_t n_embd        = 0;  // hidden size
    uint32_t n_layer       = 0;
    uint32_t n_head        = 0;
    uint32_t n_head_kv     = 0;  // < n_head: grouped-query attention
    uint32_t n_ff          = 0;  // feed-forward hidden size
    uint32_t n_embd_head_k = 0;  // per-head K size (default n_embd / n_head)
    uint32_t n_embd_head_v = 0;  // per-head V size
    uint32_t n_rot         = 0;  // rotated dims per head (default n_embd_head_k)
    uint32_t n_vocab       = 0;
    uint32_t n_expert      = 0;
    uint32_t n_expert_used = 0;

    float f_norm_eps     = 0.0f;  // layer norm epsilon
    float f_norm_rms_eps = 0.0f;  // RMS norm epsilon

    float    rope_freq_base_train  = 10000.0f;
    float    rope_freq_scale_train = 1.0f;
    uint32_t n_ctx_orig_yarn       = 0;
    bool     rope_finetuned        = false;

    llama_rope_scaling_type rope_scaling_type_train = LLAMA_ROPE_SCALING_TYPE_NONE;
    llama_rope_type         rope_type               = LLAMA_ROPE_TYPE_NORM;
    enum llama_pooling_type pooling_type            = LLAMA_POOLING_TYPE_NONE;

    bool causal_attn = true;

    // gemma2: tanh soft-capping of attention scores and final logits (0 = off)
    float    f_attn_logit_softcapping  = 0.0f;
    float    f_final_logit_softcapping = 0.0f;
    uint32_t n_swa                     = 0;  // sliding attention window (0 = full attention)

    // K/V row width for all KV heads of a layer
    uint32_t n_embd_k_gqa() const { return n_embd_head_k * n_head_kv; }
    uint32_t n_embd_v_gqa() const { return n_embd_head_v * n_head_kv; }
    uint32_t n_gqa() const { return n_head_kv ? n_head / n_head_kv : 0; }
};
