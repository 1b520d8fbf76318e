// Model hyperparameters read from the GGUF metadata (immutable after load).
#pragma once

#include "llama.h"

#include <cstdint>
#include <vector>

struct llama_hparams {
    uint32_t n_ctx_train = 0;  // training context length
    uint32_t n_embd      = 0;  // hidden size
    // the width of the embeddings the model gives when its dense output projections run (set from
    // their shapes when the weights load; 0 = none: n_embd). See n_embd_out().
    uint32_t n_embd_proj   = 0;
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
    // YaRN (rope.scaling.yarn_*); yarn_ext_factor < 0: derived from the scaling type at context
    // creation (1 for yarn, else 0), like the context parameters' "not set"
    float yarn_ext_factor   = -1.0f;
    float yarn_attn_factor  = 1.0f;
    float yarn_beta_fast    = 32.0f;
    float yarn_beta_slow    = 1.0f;
    float rope_yarn_log_mul = 0.0f;  // mscale_all_dim: attention factor ratio (0 = plain YaRN mscale)
    float rope_attn_factor  = 1.0f;  // rope.scaling.attn_factor: extra factor on the rotated q/k

    llama_rope_scaling_type rope_scaling_type_train = LLAMA_ROPE_SCALING_TYPE_NONE;
    llama_rope_type         rope_type               = LLAMA_ROPE_TYPE_NORM;
    enum llama_pooling_type pooling_type            = LLAMA_POOLING_TYPE_NONE;

    bool causal_attn = true;

    // jina-bert-v2: ALiBi (> 0: the mask holds -|i - j| and each head scales it by its slope, as
    // ggml_soft_max_ext's max_bias); the models have no position embeddings
    float f_max_alibi_bias = 0.0f;
    // modern-bert: the window is centred on the token (|i - j| <= n_swa / 2, upstream's
    // LLAMA_SWA_TYPE_SYMMETRIC) rather than the n_swa positions up to it
    bool swa_symmetric = false;
    // modern-bert: the feed-forward's up projection holds both halves of a gated unit (act(first) *
    // second); false: the activation is GELU there, true: SiLU (a "silu" hidden_activation)
    bool ffn_glu_silu = false;
    // modern-bert: pooling RANK averages the tokens (instead of taking the first) and its dense
    // layer is GELU followed by cls.norm (instead of tanh)
    bool rank_mean_gelu = false;

    // gemma2: tanh soft-capping of attention scores and final logits (0 = off)
    float    f_attn_logit_softcapping  = 0.0f;
    float    f_final_logit_softcapping = 0.0f;
    uint32_t n_swa                     = 0;  // sliding attention window (0 = full attention)
    // per layer: attends over the sliding window (only when n_swa > 0); empty = no layer does
    std::vector<bool> swa_layers;
    // rope of the sliding-window layers (gemma3: local layers rotate with a smaller base)
    float rope_freq_base_train_swa  = 0.0f;  // 0 = same as the global layers
    float rope_freq_scale_train_swa = 1.0f;
    float f_attention_scale         = 0.0f;  // KQ scale; 0 = 1/sqrt(head size)
    // granite's multipliers (0 = off): token embeddings * f_embedding_scale, the attention and
    // feed-forward outputs * f_residual_scale before their residual adds, logits / f_logit_scale
    float f_embedding_scale = 0.0f;
    float f_residual_scale  = 0.0f;
    float f_logit_scale     = 0.0f;
    // NoPE layers: every n_no_rope_layer_step-th layer (il + 1 a multiple of it) attends without
    // rotary positions (smollm3: 4; 1 = no layer is rotated); 0 = every layer is rotated
    uint32_t n_no_rope_layer_step = 0;
    // exaone4: in a model with sliding-window layers only those are rotated; the global ones use no
    // positions
    bool rope_swa_only = false;
    // mistral3 (llama-4-style attention temperature; 0 = off): q * (1 + f_attn_temp_scale *
    // log(1 + floor((pos + f_attn_temp_offset) / n_attn_temp_floor_scale)))
    float    f_attn_temp_scale       = 0.0f;
    float    f_attn_temp_offset      = 0.0f;
    uint32_t n_attn_temp_floor_scale = 0;

    // KV sharing (gemma3n): layers from n_layer_kv_from_start on keep no K/V of their own and attend
    // over those of an earlier layer of the same kind (kv_layer); -1: every layer has its own
    int32_t n_layer_kv_from_start = -1;
    // gemma3n: AltUp's copies of the hidden state and the one that runs through the block, the width of
    // the per-layer inputs, LAuReL's rank (0 elsewhere)
    uint32_t n_altup      = 0;
    uint32_t i_altup_act  = 0;
    uint32_t n_embd_altup = 0;
    uint32_t laurel_rank  = 0;

    // mixture of experts
    uint32_t n_ff_exp            = 0;      // expert feed-forward size (0 = n_ff)
    bool     expert_weights_norm = false;  // renormalise the selected experts' gate weights to sum 1
    uint32_t n_ff_shexp          = 0;      // the shared expert's feed-forward size (0 = none)
    uint32_t n_moe_latent        = 0;      // nemotron_h_moe: the experts' latent width (0 = none, n_embd wide)
    uint32_t n_layer_dense_lead  = 0;      // deepseek2: the first layers have a plain feed-forward
    // glm4moe: multi-token-prediction blocks the file has after the n_layer blocks that run (its
    // block_count counts them); loaded by no one, run by no one, as upstream
    uint32_t n_layer_nextn         = 0;
    float    expert_weights_scale  = 0.0f;   // the routed experts' gate weights * this (0, 1: none)
    bool     expert_gating_sigmoid = false;  // router scores sigmoid(logits) instead of a softmax
    // experts in n_expert_groups equal groups: a token picks its n_group_used groups with the best
    // sums of their top-2 scores, then its experts among those (0, 1: no groups)
    uint32_t n_expert_groups = 0;
    uint32_t n_group_used    = 0;

    // multi-head latent attention (deepseek2; n_lora_kv > 0). The cache holds per token and layer one
    // "head": the normed latent (n_lora_kv) followed by the rotated shared part (n_rot); the heads'
    // q/k were n_embd_head_k_mla wide (nope + rope) and their values n_embd_head_v_mla before absorption.
    uint32_t n_lora_q          = 0;  // 0: one attn_q (V2-Lite)
    uint32_t n_lora_kv         = 0;
    uint32_t n_embd_head_k_mla = 0;
    uint32_t n_embd_head_v_mla = 0;
    // true: the absorbed form over a one-head latent cache (files with attn_k_b / attn_v_b); false
    // with n_lora_kv > 0: an older file's fused attn_kv_b, decompressed per head into plain
    // multi-head attention (the cache holds n_head full keys and values)
    bool mla_absorbed = false;
    // the cached V of a layer is the first n_embd_v_gqa values of its cached K row (absorbed MLA: the
    // value is the latent the key starts with). The cache then holds no V: reads view K, writes skip.
    bool v_in_k = false;
    // deepseek2's YaRN: mscale also taken from yarn_log_multiplier (upstream's rule for this
    // architecture), so the rope's factor cancels and the KQ scale carries mscale^2
    bool yarn_mscale_all_dim = false;

    // state-space layers (mamba2; 0 elsewhere): conv kernel width, inner size, state size per head,
    // heads (ssm.time_step_rank) and B/C groups
    uint32_t ssm_d_conv  = 0;
    uint32_t ssm_d_inner = 0;
    uint32_t ssm_d_state = 0;
    uint32_t ssm_dt_rank = 0;
    uint32_t ssm_n_group = 0;
    // lfm2's short-convolution layers: the kernel width (shortconv.l_cache; 0 elsewhere)
    uint32_t n_shortconv_l_cache = 0;
    // hybrid models (lfm2): per layer, whether it is a recurrent layer (attention.head_count_kv 0 in
    // the file) with a state in the recurrent memory instead of K/V in the KV cache; empty = none is
    std::vector<bool> recurrent_layers;
    // feed_forward_length per layer when the file has an array (its non-zero entries agree: n_ff);
    // empty for a scalar
    std::vector<uint32_t> n_ff_layers;
    // nemotron_h: per layer, whether it is a feed-forward-only block (no mixer, no state, no K/V);
    // empty = none is
    std::vector<bool> ffn_only_layers;
    // falcon-h1: every recurrent layer also attends (its mixer and attention run side by side), so
    // such a layer has a state in the recurrent memory and K/V in the KV cache
    bool recurrent_layers_attend = false;

    // A recurrent model keeps per-sequence state (llama-memory-recurrent.h) instead of a KV cache; a
    // model with state-space layers and per-layer attention (granitehybrid, falcon-h1) is hybrid instead.
    bool is_recurrent() const { return ssm_d_inner > 0 && !is_hybrid(); }
    // A hybrid model has both: a KV cache for its attention layers, a recurrent memory for the others.
    bool is_hybrid() const {
        for (bool b : recurrent_layers) {
            if (b) {
                return true;
            }
        }
        return false;
    }
    // Whether layer il holds a conv (+ SSM) state in the recurrent memory: every layer of a recurrent
    // model, the marked layers of a hybrid one.
    bool is_recurrent_layer(int il) const {
        return (ssm_d_inner > 0 && recurrent_layers.empty()) ||
               (il >= 0 && (size_t) il < recurrent_layers.size() && recurrent_layers[il]);
    }
    bool is_ffn_only_layer(int il) const {
        return il >= 0 && (size_t) il < ffn_only_layers.size() && ffn_only_layers[il];
    }
    // Whether layer il keeps K/V in the KV cache: an attention layer, or (falcon-h1) a recurrent layer
    // that also attends; never a feed-forward-only block. The one predicate the KV cache, its state
    // image and the tensor layout use (is_recurrent_layer is the recurrent memory's).
    bool has_kv(int il) const { return !is_ffn_only_layer(il) && (!is_recurrent_layer(il) || recurrent_layers_attend); }
    // The layer whose K/V layer il attends over: il itself, or (KV sharing) the last layer before
    // n_layer_kv_from_start of il's kind, as upstream picks it (n - 1 global, n - 2 sliding-window;
    // the loader checks that those layers are of that kind).
    int kv_layer(int il) const {
        if (n_layer_kv_from_start < 0 || il < n_layer_kv_from_start) {
            return il;
        }
        return n_layer_kv_from_start - (is_swa(il) ? 2 : 1);
    }
    // Whether layer il has cells of its own in the KV cache (an attention layer that reuses no other's):
    // what the KV cache allocates and its state image holds.
    bool     has_own_kv(int il) const { return has_kv(il) && kv_layer(il) == il; }
    uint32_t n_layer_kv() const {
        uint32_t n = 0;
        for (uint32_t il = 0; il < n_layer; il++) {
            n += has_own_kv((int) il) ? 1 : 0;
        }
        return n;
    }
    uint32_t n_layer_recurrent() const {
        uint32_t n = 0;
        for (uint32_t il = 0; il < n_layer; il++) {
            n += is_recurrent_layer((int) il) ? 1 : 0;
        }
        return n;
    }
    // Floats of one sequence's conv state ((d_conv - 1) x channels; lfm2: (l_cache - 1) x n_embd)
    // and SSM state (d_state x inner; none in lfm2).
    uint32_t n_embd_r() const {
        if (n_shortconv_l_cache > 0) {
            return (n_shortconv_l_cache - 1) * n_embd;
        }
        return ssm_d_conv > 0 ? (ssm_d_conv - 1) * (ssm_d_inner + 2 * ssm_n_group * ssm_d_state) : 0;
    }
    uint32_t n_embd_s() const { return ssm_d_state * ssm_d_inner; }

    // K/V row width for all KV heads of a layer
    uint32_t n_embd_k_gqa() const { return n_embd_head_k * n_head_kv; }
    uint32_t n_embd_v_gqa() const { return n_embd_head_v * n_head_kv; }
    // Whether layer il attends over the sliding window only.
    bool is_swa(int il) const { return n_swa > 0 && il >= 0 && (size_t) il < swa_layers.size() && swa_layers[il]; }
    bool is_swa_any() const {
        for (bool b : swa_layers) {
            if (b && n_swa > 0) {
                return true;
            }
        }
        return false;
    }
    // Marks layers as sliding-window the way upstream llama.cpp does: with period p, every p-th layer
    // (the last of each group) attends globally; p == 0: all layers local. dense_first: the first of
    // each group is the global one instead.
    void set_swa_pattern(uint32_t p, bool dense_first = false) {
        swa_layers.assign(n_layer, false);
        for (uint32_t il = 0; il < n_layer; il++) {
            swa_layers[il] = p == 0 || (dense_first ? il % p != 0 : il % p < p - 1);
        }
    }
    // Whether layer il rotates q and k (see n_no_rope_layer_step, rope_swa_only).
    bool use_rope(int il) const {
        if (rope_swa_only && is_swa_any()) {
            return is_swa(il);
        }
        return n_no_rope_layer_step == 0 || (il + 1) % n_no_rope_layer_step != 0;
    }
    // Whether layer il runs its experts (not one of the leading dense layers).
    bool     is_moe_layer(int il) const { return n_expert > 0 && (uint32_t) il >= n_layer_dense_lead; }
    uint32_t n_gqa() const { return n_head_kv ? n_head / n_head_kv : 0; }

    // The width of an embedding row (llama_get_embeddings*): n_embd, or the dense projections' output.
    uint32_t n_embd_out() const { return n_embd_proj > 0 ? n_embd_proj : n_embd; }
};
