// The synthetic model generator's parameters and its table of architectures (every one libllama
// registers); see gguf-synth.h for the generator itself.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ggml.h"
#include "llama-arch-layout.h"

namespace synth {

struct params {
    std::string arch      = "llama";  // a name of arch_table()
    std::string name      = "";       // general.name ("synthetic-<arch>" if empty)
    int64_t     n_vocab   = 0;        // 0: the vocab file's size, or 512 with the built-in vocab
    int64_t     n_embd    = 64;
    int64_t     n_layer   = 2;
    int64_t     n_ff      = 192;
    int64_t     n_head    = 4;
    int64_t     n_head_kv = 2;
    int64_t     head_dim  = 0;  // 0: n_embd / n_head
    int64_t     n_rot     = 0;  // rotated dims per head (rope.dimension_count where written); 0: head_dim
    int64_t     n_ctx     = 4096;
    float       rms_eps   = 0.0f;  // 0: the architecture's usual value
    float       rope_base = 10000.0f;
    int64_t     n_swa     = 0;  // sliding window (phi3, gemma2, gemma3); 0: the architecture's default
    // rope scaling keys: type "" (none written), "linear", "yarn" or "longrope"; factor and original
    // context written when > 0; yarn betas and the attention factor written when > 0
    std::string rope_scaling;
    float       rope_scaling_factor = 0.0f;
    int64_t     rope_orig_ctx       = 0;
    float       yarn_beta_fast      = 0.0f;
    float       yarn_beta_slow      = 0.0f;
    float       rope_attn_factor    = 0.0f;
    bool        rope_factors        = false;  // phi3: write rope_factors_long / rope_factors_short (LongRoPE)
    // gemma3, gpt-oss: non-empty writes attention.sliding_window_pattern as one flag per layer
    // (true = sliding window) instead of the architecture's default period
    std::vector<bool> swa_flags;
    // gemma3n's shape constants: the per-layer input width, AltUp's copies, LAuReL's rank (upstream
    // fixes them rather than reading keys, so they are the released models' values)
    int64_t n_embd_altup = 256;
    int64_t n_altup      = 4;
    int64_t laurel_rank  = 64;
    // mixture of experts (llama, qwen3moe): n_expert > 0 writes a router and stacked experts
    int64_t n_expert      = 0;
    int64_t n_expert_used = 0;  // 0: 2 (or n_expert if fewer)
    int64_t n_ff_exp      = 0;  // qwen3moe expert size; 0: n_ff
    int64_t n_ff_shexp    = 0;  // granitemoe: > 0 writes a shared expert this wide
    // nemotron_h_moe: > 0 writes moe_latent_size and the experts' latent projections (Nemotron 3 Super)
    int64_t n_moe_latent = 0;
    // deepseek2's routing: shared experts (each n_ff_exp wide), leading dense layers, expert groups,
    // expert_gating_func (0: not written, 1 softmax, 2 sigmoid), the weights' scale (0: not written)
    // and renormalisation; keys written when set
    int64_t n_expert_shared      = 0;
    int64_t n_layer_dense_lead   = 0;
    int64_t n_expert_groups      = 0;
    int64_t n_group_used         = 0;
    int     expert_gating        = 0;
    float   expert_weights_scale = 0.0f;
    bool    expert_weights_norm  = false;
    // glm4moe, qwen35, qwen35moe, deepseek2: the last n_nextn of the n_layer blocks are NextN blocks
    // (nextn_predict_layers, written when > 0): a whole block (an attention block in the delta-net
    // hybrids) plus the NextN projection and norms
    int64_t n_nextn = 0;
    // deepseek2: the experts' gate and up as one ffn_gate_up_exps stack (rows: gate, up)
    bool exps_gate_up_fused = false;
    // leave out optional q/k norms the architecture's usual files have (glm4moe: GLM-4.5-Air has none)
    bool no_qk_norm = false;
    // multi-head latent attention (deepseek2, n_lora_kv > 0): head_dim is the q/k head (nope + rope,
    // n_rot of it rotated) and the value head; one KV head of n_lora_kv + n_rot is written as the
    // cache shape; n_lora_q > 0 writes q through the low-rank pair
    int64_t n_lora_q     = 0;
    int64_t n_lora_kv    = 0;
    float   yarn_log_mul = 0.0f;  // rope.scaling.yarn_log_multiplier, written when != 0
    // latent attention as older conversions wrote it: one attn_kv_b, head_count_kv n_head, no
    // key_length_mla / value_length_mla
    bool      mla_kv_fused = false;
    bool      tied         = true;           // no output.weight: the LM head is token_embd (where the layout allows)
    ggml_type type         = GGML_TYPE_F16;  // type of the weight matrices (1-D tensors are F32)
    uint64_t  seed         = 42;
    float     std          = 0.02f;
    bool      ternary      = false;  // weight matrices ternary x one scale per tensor (see the top)
    // blocks from quiet_from on (0: none) write their residual projections quiet_scale times as large,
    // and every block's are scaled for a quiet_from-block model: the file's first quiet_from blocks,
    // embeddings and head are then those of the same seed's quiet_from-block model, which predicts
    // nearly what this one does (an agreeing draft / target pair of random weights)
    int         quiet_from  = 0;
    float       quiet_scale = 0.01f;
    int         n_threads   = 0;  // 0: hardware concurrency
    std::string vocab_path;       // GGUF whose tokenizer.* keys are copied; empty: built-in byte vocab
    // encoders (bert, nomic-bert)
    int64_t n_cls_out = 0;   // bert: > 0 writes a reranker head (cls, cls.output) with this many scores
    int     pooling   = -1;  // <name>.pooling_type; -1: CLS (2), or RANK (4) with a classifier head
    // embedding models (the layouts with dense output projections: lfm2, lfm2moe, gemma-embedding):
    // > 0 writes dense_2 with this many outputs (and dense_3 back to n_embd where the layout has it)
    int64_t n_dense_out = 0;
    int     causal      = -1;  // <arch>.attention.causal: -1 not written (encoders: false), 0, 1
    // write the other spelling of weights the layout allows two of (bert: fused qkv, nomic-bert:
    // separate q/k/v) instead of the architecture's usual one
    bool alt_spelling = false;
    // state-space layers (architectures whose layout has ssm_in: mamba2): ssm.* keys, no attention
    int64_t ssm_d_conv  = 4;
    int64_t ssm_d_inner = 0;  // 0: 2 n_embd
    int64_t ssm_d_state = 16;
    int64_t ssm_n_head  = 0;  // ssm.time_step_rank; 0: d_inner / 16 (heads of 16 channels)
    int64_t ssm_n_group = 1;
    int64_t ssm_inner() const { return ssm_d_inner > 0 ? ssm_d_inner : 2 * n_embd; }
    int64_t ssm_heads() const { return ssm_n_head > 0 ? ssm_n_head : ssm_inner() / 16; }
    // also write the optional weights only some models have (the layout's EXTRA rows: biases, rope_freqs,
    // jina-bert-v2's q/k norms, second attention norm and separate ffn_gate, with ffn_up then n_ff wide)
    bool extras = false;
    // hybrids: per layer, whether it is a recurrent layer -- lfm2's short convolution, granitehybrid's
    // Mamba-2 mixer (written as 0 in the per-layer attention.head_count_kv); empty: the even layers are
    // recurrent, the odd ones attend (so that two layers already have one of each). shortconv_l: lfm2's
    // kernel width (shortconv.l_cache)
    int64_t           shortconv_l = 3;
    std::vector<bool> conv_flags;
    // nemotron_h, nemotron_h_moe: one letter per layer as their configs' hybrid_override_pattern -- M a
    // Mamba-2 layer, * attention, - (nemotron_h) or E (nemotron_h_moe) a feed-forward-only block; empty:
    // M*- or M*E repeated (so that three layers have one of each). Other architectures: none (conv_flags
    // decide).
    std::string layer_pattern;
    std::string pattern() const {
        if (!layer_pattern.empty() || (arch != "nemotron_h" && arch != "nemotron_h_moe")) {
            return layer_pattern;
        }
        std::string s;
        for (int64_t il = 0; il < n_layer; il++) {
            s += (arch == "nemotron_h" ? "M*-" : "M*E")[il % 3];
        }
        return s;
    }
    bool conv_layer(int il) const {
        const std::string s = pattern();
        if (!s.empty()) {
            return (size_t) il < s.size() && s[il] == 'M';
        }
        return conv_flags.empty() ? il % 2 == 0 : (size_t) il < conv_flags.size() && conv_flags[il];
    }
    bool ffn_layer(int il) const {
        const std::string s = pattern();
        return (size_t) il < s.size() && (s[il] == '-' || s[il] == 'E');
    }
    // gated delta-net hybrids (qwen3next): every full_attn_interval-th layer attends, the others are
    // delta-net layers (ssm.* keys: conv kernel, state size = head width, groups = k heads, heads = v heads)
    int64_t full_attn_interval = 4;
};

// The architectures the generator writes: every one libllama registers, with the facts the writer
// needs from its tensor layout (src/llama-arch-layout-*.h). tests/model/test-arch-registry.cpp checks
// that every decoder has a shared micro model and a reference run.
struct arch_info {
    const char *            name;  // general.architecture
    llm_arch                arch;
    const llm_arch_layout * layout;         // the tensors, in file order
    bool                    encoder;        // BERT family: layer norms, bidirectional, pooled
    bool                    moe;            // can write experts (--n-expert)
    bool                    needs_experts;  // always has experts (no plain feed-forward)
};

// Whether the feed-forward-only blocks of a hybrid are experts when the model has experts
// (nemotron_h_moe: the router is a FFN_MOE row), their shared expert included.
inline bool ffn_blocks_are_experts(const llm_arch_layout & l) {
    for (size_t i = 0; i < l.n_rows; i++) {
        if (l.rows[i].t == LLM_TENSOR_FFN_GATE_INP && l.rows[i].when == LLM_TL_FFN_MOE) {
            return true;
        }
    }
    return false;
}

inline const std::vector<arch_info> & arch_table() {
    static const std::vector<arch_info> t = [] {
        std::vector<arch_info> v;
        for (int a = 0; a < (int) LLM_ARCH_COUNT; a++) {
            const llm_arch_layout & l = llm_arch_get_layout((llm_arch) a);
            // lfm2moe's dense rows are only its leading dense layers': it always has experts
            // (nemotron_h_moe's feed-forward-only blocks are experts or, without, nemotron_h's)
            v.push_back({llm_arch_name((llm_arch) a), (llm_arch) a, &l, l.encoder,
                         l.has(LLM_TL_MOE) || ffn_blocks_are_experts(l),
                         l.has(LLM_TL_MOE) && (!l.has(LLM_TL_DENSE) || a == LLM_ARCH_LFM2MOE)});
        }
        return v;
    }();
    return t;
}

// Whether some rows are only on the recurrent layers (a hybrid: lfm2, granitehybrid).
inline bool layout_has_recurrent_rows(const llm_arch_layout & l) {
    for (size_t i = 0; i < l.n_rows; i++) {
        if (l.rows[i].when == LLM_TL_RECR_LAYER) {
            return true;
        }
    }
    return false;
}

// Whether an architecture's layout has a tensor (ssm_in: its blocks are state-space mixers).
inline bool layout_has(const llm_arch_layout & l, llm_tensor t) {
    for (size_t i = 0; i < l.n_rows; i++) {
        if (l.rows[i].t == t) {
            return true;
        }
    }
    return false;
}

// kimi-linear's KDA layers: the per-layer head_count_kv marks them (as lfm2's), their heads are the
// query heads, kda.head_dim (--ssm-state) wide.
inline bool kda_layout(const llm_arch_layout & l) {
    return layout_has(l, LLM_TENSOR_SSM_F_A);
}

// The gated delta-net hybrids: qwen3next (ssm_ba), qwen35 and qwen35moe (ssm_beta, ssm_alpha).
inline bool delta_net_layout(const llm_arch_layout & l) {
    return !kda_layout(l) && (layout_has(l, LLM_TENSOR_SSM_BETA_ALPHA) || layout_has(l, LLM_TENSOR_SSM_BETA));
}

// Whether layer il of a hybrid model is a recurrent one: the delta-net hybrids' follow
// full_attn_interval, the others the per-layer flags (lfm2).
inline bool recurrent_layer(const params & p, const llm_arch_layout & l, int il) {
    if (p.n_nextn > 0 && il >= p.n_layer - p.n_nextn) {
        return false;  // a NextN block attends (qwen35's MTP head)
    }
    if (delta_net_layout(l)) {
        return p.full_attn_interval > 0 && (il + 1) % p.full_attn_interval != 0;
    }
    return p.conv_layer(il);
}

inline const arch_info * find_arch(const std::string & a) {
    for (const arch_info & i : arch_table()) {
        if (a == i.name) {
            return &i;
        }
    }
    return nullptr;
}

}  // namespace synth
