// Synthetic model generator: writes a GGUF model of a given architecture and shape with seeded
// random weights, for tests and benchmarks (no trained model of realistic size is at hand).
// Header-only on the public gguf.h / ggml.h and libllama's tensor layouts (src/llama-arch-layout.h,
// in libllama and in the llama-arch-layout archive) so both llama-gguf-synth and the tests use it.
//
// Weights: matrices ~ N(0, std) (std 0.02; the residual projections attn_output / ffn_down scaled by
// 1/sqrt(2 n_layer) as in GPT-2 so the residual stream stays O(1) in deep models), norms = 1,
// biases ~ N(0, std). With ternary set, every weight matrix (not the F32 MoE router) is BitNet-b1.58
// style instead: values in {-1, 0, +1} (zero with probability 1/3) times one F16-exact scale per
// tensor, std * sqrt(3/2), so its variance is the Gaussian one. Every row has its own seed derived
// from (seed, tensor name, row), so the file is the same whatever the thread count. Data is streamed
// tensor by tensor: a 1.1B model needs little RAM.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ggml.h"
#include "gguf-synth-archs.h"
#include "gguf.h"

namespace synth {

// "llama, qwen2, ..." for messages: the architectures `pick` accepts (all by default).
inline std::string arch_names(bool (*pick)(const arch_info &) = nullptr) {
    std::string s;
    for (const arch_info & i : arch_table()) {
        if (!pick || pick(i)) {
            s += (s.empty() ? "" : ", ") + std::string(i.name);
        }
    }
    return s;
}

inline bool is_encoder_arch(const std::string & a) {
    const arch_info * i = find_arch(a);
    return i && i->encoder;
}

// ---- deterministic random numbers ----------------------------------------------------------------
inline uint64_t splitmix64(uint64_t & s) {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z          = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z          = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

inline uint64_t hash_str(const std::string & s) {
    uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (unsigned char c : s) {
        h = (h ^ c) * 1099511628211ull;
    }
    return h;
}

// n normal values * stddev (Box-Muller on splitmix64).
inline void fill_normal(float * out, int64_t n, uint64_t seed, float stddev) {
    uint64_t s = seed;
    for (int64_t i = 0; i < n; i += 2) {
        const double u1 = ((splitmix64(s) >> 11) + 1.0) * (1.0 / 9007199254740993.0);  // (0, 1]
        const double u2 = (splitmix64(s) >> 11) * (1.0 / 9007199254740992.0);
        const double r  = std::sqrt(-2.0 * std::log(u1));
        out[i]          = (float) (r * std::cos(6.283185307179586 * u2)) * stddev;
        if (i + 1 < n) {
            out[i + 1] = (float) (r * std::sin(6.283185307179586 * u2)) * stddev;
        }
    }
}

// ---- model layout --------------------------------------------------------------------------------
// near_one: 1 + N(0, std) (encoder norms); abs_one: 1 + |N(0, std)| (LongRoPE divisors, >= 1);
// neg_one: -(1 + |N(0, std)|) (decay rates)
enum class init { normal, ones, near_one, abs_one, neg_one };

struct tensor_desc {
    std::string name;
    int64_t     ne[3];
    int         n_dims;
    init        kind;
    float       stddev;
    bool        f32 = false;  // a matrix kept in F32 whatever the type (the MoE router, expert biases)

    int64_t   n_rows() const { return ne[1] * (n_dims > 2 ? ne[2] : 1); }
    ggml_type type(ggml_type matrices) const { return n_dims == 1 || f32 ? GGML_TYPE_F32 : matrices; }
};

inline int64_t head_dim_of(const params & p) {
    return p.head_dim > 0 ? p.head_dim : p.n_embd / std::max<int64_t>(p.n_head, 1);
}

// Whether layer il (-1: global) of the model p describes has layout row r (see llm_tl_presence /
// llm_tl_when): optional weights are written when the parameters ask for them or the released models
// have them.
inline bool writes_row(const params & p, const llm_tensor_layout & r, const llm_layout_dims & d, int il) {
    if (!llm_tl_applies(r.when, d, il) || (r.when == LLM_TL_ALT_A && p.alt_spelling) ||
        (r.when == LLM_TL_ALT_B && !p.alt_spelling)) {
        return false;
    }
    if (r.when == LLM_TL_NOT_FIRST && il == 0) {
        return false;  // left out of the first block, as converted files do
    }
    if (p.n_dense_out == 0 && (r.ne[0] == LLM_DIM_DENSE_OUT || r.ne[1] == LLM_DIM_DENSE_OUT)) {
        return false;  // a part of the dense projection (its bias) without the projection
    }
    if (p.no_qk_norm && r.presence != LLM_TL_REQUIRED &&
        (r.t == LLM_TENSOR_ATTN_Q_NORM || r.t == LLM_TENSOR_ATTN_K_NORM)) {
        return false;
    }
    switch (r.presence) {
        case LLM_TL_REQUIRED:
        case LLM_TL_USUAL:
            return true;
        case LLM_TL_EXTRA:
            return p.extras;
        case LLM_TL_UNTIED:
            return !p.tied;
        case LLM_TL_ROPE_FACTORS:
            return p.rope_factors;
        case LLM_TL_CLS_HEAD:
            return p.n_cls_out > 0;
        case LLM_TL_DENSE_PROJ:
            return p.n_dense_out > 0;
    }
    return false;
}

// How the generator fills a weight of the layout: N(0, std) for matrices (the decoders' residual
// projections by 1/sqrt(2 n_layer), as GPT-2), biases and other vectors; RMS norms 1, layer norms
// 1 + N(0, std); LongRoPE factors >= 1 (long ones well above 1, short ones near 1).
inline tensor_desc describe(const params & p, const arch_info & ai, const llm_tensor_layout & r, int il,
                            const llm_layout_dims & dims) {
    tensor_desc t;
    t.name   = llm_tensor_name(r.t, r.suffix(), il);
    t.n_dims = r.n_dims();
    for (int k = 0; k < 3; k++) {
        t.ne[k] = dims.value(r.ne[k]);
    }
    t.kind   = init::normal;
    t.stddev = p.std;
    t.f32    = r.kind != LLM_TL_MATRIX;  // routers, biases, norms, conv kernels: F32 at any rank
    switch (r.kind) {
        case LLM_TL_NORM:
        case LLM_TL_NORM_BARE:
            t.kind = ai.encoder ? init::near_one : init::ones;
            break;
        case LLM_TL_PARAM:
            if (r.t == LLM_TENSOR_ROPE_FACTORS_LONG || r.t == LLM_TENSOR_ROPE_FACTORS_SHORT) {
                t.kind   = init::abs_one;
                t.stddev = r.t == LLM_TENSOR_ROPE_FACTORS_LONG ? 4.0f : 0.25f;
            }
            break;
        case LLM_TL_MATRIX:
            if (!ai.encoder && (r.t == LLM_TENSOR_ATTN_OUT || r.t == LLM_TENSOR_FFN_DOWN ||
                                r.t == LLM_TENSOR_FFN_DOWN_EXPS || r.t == LLM_TENSOR_SSM_OUT)) {
                const int64_t n_scaled = p.quiet_from > 0 ? p.quiet_from : p.n_layer;
                t.stddev               = p.std / std::sqrt(2.0f * (float) std::max<int64_t>(n_scaled, 1));
                if (p.quiet_from > 0 && il >= p.quiet_from) {
                    t.stddev *= p.quiet_scale;
                }
            }
            break;
        case LLM_TL_DECAY:  // negative decay rates, -(1 + |N(0, 1)|): a state that fades
            t.kind   = init::neg_one;
            t.stddev = 1.0f;
            break;
        case LLM_TL_ROUTER:
        case LLM_TL_BIAS:
        case LLM_TL_CONV:
        case LLM_TL_BARE:
            break;
    }
    return t;
}

// The tensors of the model, in file order: the architecture's layout rows that p has, a run of
// per-layer rows repeated for every block.
inline std::vector<tensor_desc> layout(const params & p, int64_t n_vocab) {
    const arch_info * ai = find_arch(p.arch);
    if (!ai) {
        return {};
    }
    llm_layout_dims d;
    d.n_embd             = p.n_embd;
    d.n_vocab            = n_vocab;
    d.n_ff               = p.n_ff;
    d.n_ff_exp           = p.n_ff_exp;
    d.n_expert           = p.n_expert;
    d.n_head             = p.n_head;
    d.n_head_kv          = p.n_head_kv;
    d.n_embd_head_k      = head_dim_of(p);
    d.n_embd_head_v      = head_dim_of(p);
    d.n_rot              = p.n_rot > 0 ? p.n_rot : head_dim_of(p);
    d.n_ctx_train        = p.n_ctx;
    d.n_token_types      = 2;  // BERT's sentence A and B
    d.n_cls_out          = p.n_cls_out;
    d.n_dense_out        = p.n_dense_out;
    d.n_ff_shexp         = p.n_ff_shexp > 0 ? p.n_ff_shexp : (p.n_ff_exp > 0 ? p.n_ff_exp : p.n_ff) * p.n_expert_shared;
    d.n_lora_q           = p.n_lora_q;
    d.n_lora_kv          = p.n_lora_kv;
    d.n_embd_head_k_mla  = head_dim_of(p);
    d.n_embd_head_v_mla  = head_dim_of(p);
    d.n_layer_dense_lead = p.n_layer_dense_lead;
    d.mla_kv_fused       = p.mla_kv_fused;
    d.ssm_d_conv         = p.ssm_d_conv;
    d.ssm_d_inner        = p.ssm_inner();
    d.ssm_d_state        = p.ssm_d_state;
    d.ssm_n_head         = p.ssm_heads();
    d.ssm_n_group        = p.ssm_n_group;
    // jina-bert-v2: gate and up fused, as the released embedding models; n_ff with the separate gate
    d.n_ff_up            = p.extras ? p.n_ff : 2 * p.n_ff;
    d.shortconv_l        = p.shortconv_l;
    d.n_layer_main       = p.n_nextn > 0 ? p.n_layer - p.n_nextn : 0;
    d.exps_gate_up_fused = p.exps_gate_up_fused;
    d.n_moe_latent       = p.n_moe_latent;
    d.n_layer            = p.n_layer;
    d.n_embd_altup       = p.n_embd_altup;
    d.n_altup            = p.n_altup;
    d.laurel_rank        = p.laurel_rank;
    if (delta_net_layout(*ai->layout)) {
        d.ssm_d_inner = d.ssm_n_head * p.ssm_d_state;  // delta-net v heads are state_size wide
    }
    if (kda_layout(*ai->layout)) {
        d.ssm_n_head  = p.n_head;  // KDA: a head per query head, kda.head_dim wide
        d.ssm_d_inner = p.n_head * p.ssm_d_state;
    }

    const llm_arch_layout &  lay = *ai->layout;
    std::vector<tensor_desc> t;
    for (size_t i = 0; i < lay.n_rows;) {
        size_t end = i + 1;
        if (!llm_tensor_is_per_layer(lay.rows[i].t)) {
            if (writes_row(p, lay.rows[i], d, -1)) {
                t.push_back(describe(p, *ai, lay.rows[i], -1, d));
            }
            i = end;
            continue;
        }
        while (end < lay.n_rows && llm_tensor_is_per_layer(lay.rows[end].t)) {
            end++;
        }
        for (int il = 0; il < (int) p.n_layer; il++) {
            for (size_t k = i; k < end; k++) {
                const llm_tl_when w  = lay.rows[k].when;
                const bool        rl = recurrent_layer(p, lay, il);
                if ((w == LLM_TL_ATTN_LAYER && (rl || p.ffn_layer(il))) || (w == LLM_TL_RECR_LAYER && !rl) ||
                    (llm_tl_ffn_layer_only(w) && !p.ffn_layer(il))) {
                    continue;  // another kind of layer (the hybrids, nemotron_h's feed-forward blocks)
                }
                if (writes_row(p, lay.rows[k], d, il)) {
                    t.push_back(describe(p, *ai, lay.rows[k], il, d));
                }
            }
        }
        i = end;
    }
    return t;
}

// general.file_type of a model whose matrices are `type` (llama_ftype values).
inline uint32_t file_type_of(ggml_type type) {
    switch (type) {
        case GGML_TYPE_F32:
            return 0;
        case GGML_TYPE_F16:
            return 1;
        case GGML_TYPE_Q4_0:
            return 2;
        case GGML_TYPE_Q4_1:
            return 3;
        case GGML_TYPE_Q8_0:
            return 7;
        case GGML_TYPE_Q5_0:
            return 8;
        case GGML_TYPE_Q5_1:
            return 9;
        case GGML_TYPE_Q2_K:
            return 10;
        case GGML_TYPE_Q3_K:
            return 12;
        case GGML_TYPE_Q4_K:
            return 15;
        case GGML_TYPE_Q5_K:
            return 17;
        case GGML_TYPE_Q6_K:
            return 18;
        case GGML_TYPE_BF16:
            return 32;
        default:
            return 1024;  // guessed
    }
}

struct gguf_free_t {
    void operator()(gguf_context * c) const { gguf_free(c); }
};
using gguf_ptr = std::unique_ptr<gguf_context, gguf_free_t>;

// A minimal SPM vocab: <unk> <s> </s>, the 256 byte tokens, then filler pieces "▁t<i>".
inline void builtin_vocab(gguf_context * g, int64_t n_vocab) {
    std::vector<std::string> toks;
    std::vector<float>       scores;
    std::vector<int32_t>     types;
    const char *             special[3] = {"<unk>", "<s>", "</s>"};
    for (int i = 0; i < 3; i++) {
        toks.push_back(special[i]), scores.push_back(0.0f), types.push_back(i == 0 ? 2 : 3);
    }
    for (int b = 0; b < 256; b++) {
        char buf[8];
        snprintf(buf, sizeof(buf), "<0x%02X>", b);
        toks.push_back(buf), scores.push_back(0.0f), types.push_back(6);
    }
    for (int64_t i = (int64_t) toks.size(); i < n_vocab; i++) {
        toks.push_back("\xE2\x96\x81t" + std::to_string(i)), scores.push_back(-(float) i), types.push_back(1);
    }
    std::vector<const char *> ptrs;
    for (auto & s : toks) {
        ptrs.push_back(s.c_str());
    }
    gguf_set_val_str(g, "tokenizer.ggml.model", "llama");
    gguf_set_val_str(g, "tokenizer.ggml.pre", "default");
    gguf_set_arr_str(g, "tokenizer.ggml.tokens", ptrs.data(), ptrs.size());
    gguf_set_arr_data(g, "tokenizer.ggml.scores", GGUF_TYPE_FLOAT32, scores.data(), scores.size());
    gguf_set_arr_data(g, "tokenizer.ggml.token_type", GGUF_TYPE_INT32, types.data(), types.size());
    gguf_set_val_u32(g, "tokenizer.ggml.bos_token_id", 1);
    gguf_set_val_u32(g, "tokenizer.ggml.eos_token_id", 2);
    gguf_set_val_u32(g, "tokenizer.ggml.unknown_token_id", 0);
    gguf_set_val_bool(g, "tokenizer.ggml.add_bos_token", true);
    gguf_set_val_bool(g, "tokenizer.ggml.add_eos_token", false);
}

// Fills rows [r0, r1) of tensor t as `type` into dst (row-major, ggml_row_size bytes per row).
inline bool gen_rows(const params & p, const tensor_desc & t, ggml_type type, int64_t r0, int64_t r1, uint8_t * dst) {
    const int64_t      n = t.ne[0];
    std::vector<float> row(n);
    const uint64_t     tseed = p.seed ^ hash_str(t.name);
    // random weights have no activation statistics: the types that refuse a NULL importance matrix
    // (IQ2_XXS, IQ2_XS, IQ1_S) get a uniform one
    const std::vector<float> uniform(n, 1.0f);
    const float *            imatrix = ggml_quantize_requires_imatrix(type) ? uniform.data() : nullptr;
    for (int64_t r = r0; r < r1; r++) {
        if (t.kind == init::ones) {
            std::fill(row.begin(), row.end(), 1.0f);
        } else {
            uint64_t   s    = tseed + (uint64_t) r * 0x632BE59BD9B4E019ull;
            const bool tern = p.ternary && t.kind == init::normal && t.n_dims >= 2 && !t.f32;
            fill_normal(row.data(), n, splitmix64(s), tern ? 1.0f : t.stddev);
            if (tern) {
                // |z| < 0.4307 has probability 1/3; the scale is F16-exact so an F16 file holds these
                // values exactly and a ternary type's per-block F16 scale can too
                const float scale = ggml_fp16_to_fp32(ggml_fp32_to_fp16(t.stddev * 1.2247449f));
                for (float & x : row) {
                    x = std::fabs(x) < 0.4307273f ? 0.0f : (x > 0 ? scale : -scale);
                }
            }
            if (t.kind == init::near_one || t.kind == init::abs_one) {
                for (float & x : row) {
                    x = 1.0f + (t.kind == init::abs_one ? std::fabs(x) : x);
                }
            } else if (t.kind == init::neg_one) {
                for (float & x : row) {
                    x = -1.0f - std::fabs(x);
                }
            }
        }
        if (ggml_quantize_chunk(type, row.data(), dst + (size_t) (r - r0) * ggml_row_size(type, n), 0, 1, n, imatrix) ==
            0) {
            return false;
        }
    }
    return true;
}

// Writes the model to path. False with a message in err on failure (the partial file is removed).
inline bool write_model(const params & p, const std::string & path, std::string & err) {
    const arch_info * ai = find_arch(p.arch);
    if (!ai) {
        err = "unknown architecture '" + p.arch + "' (" + arch_names() + ")";
        return false;
    }
    // what an architecture can have comes from its layout
    const llm_arch_layout & lay = *ai->layout;
    if (p.quiet_from > 0 && (ai->encoder || p.quiet_from > p.n_layer)) {
        err = "--quiet-from: a decoder's block count, 1 to --n-layer (" + std::to_string(p.n_layer) + ")";
        return false;
    }
    if (p.n_expert < 0 || p.n_expert > 256 || (p.n_expert > 0 && !ai->moe) || (ai->needs_experts && p.n_expert == 0) ||
        p.n_expert_used < 0 || p.n_expert_used > p.n_expert || p.n_ff_exp < 0) {
        err = "experts: --n-expert 1 to 256 for " + arch_names([](const arch_info & i) { return i.moe; }) +
              " (required for " + arch_names([](const arch_info & i) { return i.needs_experts; }) +
              "), --n-expert-used up to it";
        return false;
    }
    if (p.n_ff_exp > 0 && !meta_of(p.arch).expert_ff) {
        err = "--n-ff-exp: the experts of " + p.arch + " are n_ff wide; an expert size of its own is written for " +
              arch_names([](const arch_info & i) { return meta_of(i.name).expert_ff; });
        return false;
    }
    const bool ffn_exps = ffn_blocks_are_experts(lay);
    if (p.n_ff_shexp < 0 || (p.n_ff_shexp > 0 && (!(lay.has(LLM_TL_SHEXP) || ffn_exps) || p.n_expert == 0)) ||
        (ffn_exps && p.n_expert > 0 && p.n_ff_shexp == 0)) {
        err = "a shared expert (--n-ff-shexp) is written for " +
              arch_names([](const arch_info & i) { return i.layout->has(LLM_TL_SHEXP); }) +
              " with experts only (and is required for " +
              arch_names([](const arch_info & i) { return ffn_blocks_are_experts(*i.layout); }) + ")";
        return false;
    }
    if (p.n_moe_latent < 0 || (p.n_moe_latent > 0 && (!lay.has(LLM_TL_FFN_LATENT) || p.n_expert == 0))) {
        err = "an expert latent size (--moe-latent) is written for " +
              arch_names([](const arch_info & i) { return i.layout->has(LLM_TL_FFN_LATENT); }) + " with experts only";
        return false;
    }
    // latent attention: the architectures with its rows need a latent rank, the others take none
    const bool has_mla = lay.has(LLM_TL_KV_SPLIT) || kda_layout(lay);
    if ((has_mla && p.n_lora_kv <= 0) || (!has_mla && (p.n_lora_kv > 0 || p.n_lora_q > 0 || p.mla_kv_fused)) ||
        p.n_lora_q < 0 || p.n_layer_dense_lead < 0 || p.n_layer_dense_lead > p.n_layer ||
        (has_mla && (p.n_expert == 0 || (p.n_rot > 0 ? p.n_rot : head_dim_of(p)) >= head_dim_of(p)))) {
        err = "latent attention (--n-lora-kv, --n-lora-q, --mla-kv-fused) is written for " +
              arch_names([](const arch_info & i) { return i.layout->has(LLM_TL_KV_SPLIT); }) +
              " only, which needs it, experts, and --n-rot below the head size; --n-dense-lead up to n_layer";
        return false;
    }
    if (kda_layout(lay) && (p.n_lora_q > 0 || p.mla_kv_fused)) {
        err =
            "kimi-linear's latent attention has one attn_q and split attn_k_b / attn_v_b (no --n-lora-q, "
            "--mla-kv-fused)";
        return false;
    }
    if (p.exps_gate_up_fused && (!lay.has(LLM_TL_MOE_FUSED) || p.n_expert == 0)) {
        err = "fused expert gate and up (--exps-gate-up) are written for " +
              arch_names([](const arch_info & i) { return i.layout->has(LLM_TL_MOE_FUSED); }) + " with experts only";
        return false;
    }
    // glm4moe's NextN blocks follow its dense lead with experts; the delta-net hybrids' are of either kind
    if (p.n_nextn < 0 || (p.n_nextn > 0 && (!lay.has(LLM_TL_NEXTN) || p.n_nextn >= p.n_layer ||
                                            (!delta_net_layout(lay) &&
                                             (p.n_expert == 0 || p.n_layer_dense_lead > p.n_layer - p.n_nextn))))) {
        err = "NextN blocks (--n-nextn) are written for " +
              arch_names([](const arch_info & i) { return i.layout->has(LLM_TL_NEXTN); }) +
              ", fewer than --n-layer (glm4moe: with experts, after the leading dense blocks)";
        return false;
    }
    if (p.rope_factors && !lay.has(LLM_TL_ROPE_FACTORS)) {
        err = "LongRoPE factors (--rope-factors) are written for " +
              arch_names([](const arch_info & i) { return i.layout->has(LLM_TL_ROPE_FACTORS); }) + " only";
        return false;
    }
    if (!p.rope_scaling.empty() && p.rope_scaling != "linear" && p.rope_scaling != "yarn" &&
        p.rope_scaling != "longrope" && p.rope_scaling != "none") {
        err = "rope scaling type '" + p.rope_scaling + "' is not none, linear, yarn or longrope";
        return false;
    }
    const bool encoder = ai->encoder;
    if (encoder && p.n_head_kv != p.n_head) {
        err =
            "the encoders (" + arch_names([](const arch_info & i) { return i.encoder; }) + ") need n_head_kv == n_head";
        return false;
    }
    if (p.n_dense_out < 0 || (p.n_dense_out > 0 && !lay.has(LLM_TL_DENSE_PROJ))) {
        err = "dense output projections are written for " +
              arch_names([](const arch_info & i) { return i.layout->has(LLM_TL_DENSE_PROJ); }) + " only";
        return false;
    }
    if (p.n_cls_out < 0 || (p.n_cls_out > 0 && !lay.has(LLM_TL_CLS_HEAD)) || p.pooling < -1 || p.pooling > 4) {
        err = "a classifier head is written for " +
              arch_names([](const arch_info & i) { return i.layout->has(LLM_TL_CLS_HEAD); }) +
              " only; pooling is -1 to 4";
        return false;
    }
    if (p.n_embd <= 0 || p.n_layer <= 0 || p.n_ff <= 0 || p.n_head <= 0 || p.n_head_kv <= 0 ||
        p.n_head % p.n_head_kv != 0 || head_dim_of(p) <= 0 || head_dim_of(p) % 2 != 0 || p.n_rot < 0 ||
        p.n_rot > head_dim_of(p) || p.n_rot % 2 != 0 || (p.n_rot > 0 && !meta_of(p.arch).rope_dim)) {
        err =
            "bad shape: all dims > 0, n_head a multiple of n_head_kv, even head_dim, an even --n-rot up to "
            "head_dim (for the architectures that write rope.dimension_count)";
        return false;
    }
    gguf_ptr          g(gguf_init_empty());
    const std::string A = p.arch + ".";

    gguf_set_val_str(g.get(), "general.architecture", p.arch.c_str());
    gguf_set_val_str(g.get(), "general.name", (p.name.empty() ? "synthetic-" + p.arch : p.name).c_str());
    gguf_set_val_u32(g.get(), (A + "context_length").c_str(), (uint32_t) p.n_ctx);
    gguf_set_val_u32(g.get(), (A + "embedding_length").c_str(), (uint32_t) p.n_embd);
    gguf_set_val_u32(g.get(), (A + "block_count").c_str(), (uint32_t) p.n_layer);
    const bool mla = p.n_lora_kv > 0 && !p.mla_kv_fused;
    // a state-space model has no attention and no feed-forward: 0 for both, then its ssm.* shape (as
    // upstream's converter writes them); a hybrid (per-layer rows) or falcon-h1 (attention and a
    // mixer in every layer) has both: the attention keys, a hybrid's with a per-layer head_count_kv
    const bool        hybrid  = layout_has_recurrent_rows(lay);
    const bool        ssm     = layout_has(lay, LLM_TENSOR_SSM_IN);
    const bool        no_att  = ssm && !layout_has(lay, LLM_TENSOR_ATTN_Q);
    const std::string pattern = p.pattern();
    if (!pattern.empty()) {
        // nemotron_h(_moe): the feed-forward (expert) width on its feed-forward-only blocks, 0 elsewhere
        const char * letters = p.arch == "nemotron_h_moe" ? "M*E" : "M*-";
        if (pattern.size() != (size_t) p.n_layer || pattern.find_first_not_of(letters) != std::string::npos) {
            err = std::string("bad --hybrid-pattern: one of ") + letters + " per layer";
            return false;
        }
        std::vector<int32_t> ff((size_t) p.n_layer);
        for (int il = 0; il < (int) p.n_layer; il++) {
            ff[il] = p.ffn_layer(il) ? (int32_t) p.n_ff : 0;
        }
        gguf_set_arr_data(g.get(), (A + "feed_forward_length").c_str(), GGUF_TYPE_INT32, ff.data(), ff.size());
    } else {
        gguf_set_val_u32(g.get(), (A + "feed_forward_length").c_str(), (uint32_t) (no_att ? 0 : p.n_ff));
    }
    gguf_set_val_u32(g.get(), (A + "attention.head_count").c_str(), (uint32_t) (no_att ? 0 : p.n_head));
    if (ssm) {
        const int64_t inner = p.ssm_inner(), heads = p.ssm_heads();
        if (p.ssm_d_conv < 2 || p.ssm_d_state <= 0 || heads <= 0 || p.ssm_n_group <= 0 || inner % heads != 0 ||
            inner % p.ssm_n_group != 0 || heads % p.ssm_n_group != 0) {
            err = "bad state-space shape: conv kernel >= 2, inner size a multiple of the heads and groups";
            return false;
        }
        gguf_set_val_u32(g.get(), (A + "ssm.conv_kernel").c_str(), (uint32_t) p.ssm_d_conv);
        gguf_set_val_u32(g.get(), (A + "ssm.inner_size").c_str(), (uint32_t) inner);
        gguf_set_val_u32(g.get(), (A + "ssm.state_size").c_str(), (uint32_t) p.ssm_d_state);
        gguf_set_val_u32(g.get(), (A + "ssm.time_step_rank").c_str(), (uint32_t) heads);
        gguf_set_val_u32(g.get(), (A + "ssm.group_count").c_str(), (uint32_t) p.ssm_n_group);
    }
    if (delta_net_layout(lay)) {
        // qwen3next, qwen35, qwen35moe: attention layers by full_attention_interval; the delta-net heads
        // are ssm.state_size wide (inner size = state size x v heads), the k heads are the groups
        const int64_t heads = p.ssm_heads();
        const bool    moe   = layout_has(lay, LLM_TENSOR_FFN_GATE_INP_SHEXP);
        if (p.ssm_d_conv < 2 || p.ssm_d_state <= 0 || heads <= 0 || p.ssm_n_group <= 0 || heads % p.ssm_n_group != 0 ||
            p.full_attn_interval < 2 || (moe && (p.n_expert == 0 || p.n_ff_shexp <= 0))) {
            err =
                "bad delta-net hybrid: conv kernel >= 2, the v heads (--ssm-heads) a multiple of the k heads "
                "(--ssm-groups), --full-attn-interval >= 2, experts and a shared expert (--n-ff-shexp)";
            return false;
        }
        gguf_set_val_u32(g.get(), (A + "attention.head_count_kv").c_str(), (uint32_t) p.n_head_kv);
        gguf_set_val_u32(g.get(), (A + "ssm.conv_kernel").c_str(), (uint32_t) p.ssm_d_conv);
        gguf_set_val_u32(g.get(), (A + "ssm.state_size").c_str(), (uint32_t) p.ssm_d_state);
        gguf_set_val_u32(g.get(), (A + "ssm.group_count").c_str(), (uint32_t) p.ssm_n_group);
        gguf_set_val_u32(g.get(), (A + "ssm.time_step_rank").c_str(), (uint32_t) heads);
        gguf_set_val_u32(g.get(), (A + "ssm.inner_size").c_str(), (uint32_t) (heads * p.ssm_d_state));
        gguf_set_val_u32(g.get(), (A + "full_attention_interval").c_str(), (uint32_t) p.full_attn_interval);
        if (layout_has(lay, LLM_TENSOR_SSM_BETA)) {
            // qwen35's interleaved multi-section RoPE: the converter's sections cover every rotated pair
            // (Qwen3.5's [11, 11, 10, 0] for 32 pairs); split the same way
            const uint32_t n =
                (uint32_t) (p.n_rot > 0 ? p.n_rot : (p.head_dim > 0 ? p.head_dim : p.n_embd / p.n_head)) / 2;
            const int32_t sec[4] = {(int32_t) (n + 2) / 3, (int32_t) (n + 1) / 3, (int32_t) n / 3, 0};
            gguf_set_arr_data(g.get(), (A + "rope.dimension_sections").c_str(), GGUF_TYPE_INT32, sec, 4);
        }
    } else if (hybrid) {
        // lfm2, lfm2moe, granitehybrid, nemotron_h, kimi-linear: KV heads per layer, 0 on the recurrent and
        // feed-forward-only layers (an INT32 array, as upstream's converters write it)
        std::vector<int32_t> kvh((size_t) p.n_layer);
        for (int il = 0; il < (int) p.n_layer; il++) {
            kvh[il] = p.conv_layer(il) || p.ffn_layer(il) ? 0 : (int32_t) p.n_head_kv;
        }
        gguf_set_arr_data(g.get(), (A + "attention.head_count_kv").c_str(), GGUF_TYPE_INT32, kvh.data(), kvh.size());
        if (layout_has(lay, LLM_TENSOR_SHORTCONV_CONV)) {
            if (p.shortconv_l < 2) {
                err = "bad short-convolution kernel: shortconv.l_cache >= 2";
                return false;
            }
            gguf_set_val_u32(g.get(), (A + "shortconv.l_cache").c_str(), (uint32_t) p.shortconv_l);
            if (p.n_expert > 0 && p.expert_gating == 0) {
                // lfm2moe: its converter always writes the (sigmoid) gating, and upstream requires it
                gguf_set_val_u32(g.get(), (A + "expert_gating_func").c_str(), 2u);
            }
        }
        if (kda_layout(lay)) {
            if (p.ssm_d_conv < 2 || p.ssm_d_state <= 0) {
                err = "bad KDA shape: conv kernel >= 2, head width (--ssm-state) > 0";
                return false;
            }
            gguf_set_val_u32(g.get(), (A + "ssm.conv_kernel").c_str(), (uint32_t) p.ssm_d_conv);
            gguf_set_val_u32(g.get(), (A + "kda.head_dim").c_str(), (uint32_t) p.ssm_d_state);
        }
        if (ssm && pattern.empty()) {
            // Granite 4.0 H: the converter turns rotary positions off for the hybrids
            gguf_set_val_bool(g.get(), (A + "rope.scaling.finetuned").c_str(), false);
        }
    } else if (!no_att) {
        // latent attention keeps one KV head (the latent); the older fused form one per query head
        gguf_set_val_u32(g.get(), (A + "attention.head_count_kv").c_str(),
                         (uint32_t) (mla              ? 1
                                     : p.mla_kv_fused ? p.n_head
                                                      : p.n_head_kv));
    }
    const arch_meta & am  = meta_of(p.arch);
    const float       eps = p.rms_eps > 0 ? p.rms_eps : am.eps;
    if (encoder) {
        // layer norm (with bias; gemma-embedding: RMS), bidirectional attention, the pooling the model
        // was trained for
        gguf_set_val_f32(
            g.get(),
            (A + (am.rms_encoder ? "attention.layer_norm_rms_epsilon" : "attention.layer_norm_epsilon")).c_str(), eps);
        gguf_set_val_bool(g.get(), (A + "attention.causal").c_str(), p.causal == 1);
        gguf_set_val_u32(g.get(), (A + "pooling_type").c_str(),
                         (uint32_t) (p.pooling >= 0    ? p.pooling
                                     : p.n_cls_out > 0 ? 4
                                                       : 2));
    } else {
        gguf_set_val_f32(g.get(), (A + "attention.layer_norm_rms_epsilon").c_str(), eps);
        if (p.causal >= 0) {
            gguf_set_val_bool(g.get(), (A + "attention.causal").c_str(), p.causal == 1);
        }
        if (p.pooling >= 0) {
            gguf_set_val_u32(g.get(), (A + "pooling_type").c_str(), (uint32_t) p.pooling);
        }
    }
    if (p.n_dense_out > 0) {
        // the widths of the dense modules, as the converters write them (upstream shapes the weights
        // from these keys)
        const bool back = [&] {
            for (size_t i = 0; i < lay.n_rows; i++) {
                if (lay.rows[i].t == LLM_TENSOR_DENSE_3_OUT) {
                    return true;
                }
            }
            return false;
        }();
        gguf_set_val_u32(g.get(), (A + "embedding_length_out").c_str(), (uint32_t) (back ? p.n_embd : p.n_dense_out));
        if (back) {
            gguf_set_val_u32(g.get(), (A + "dense_2_feat_in").c_str(), (uint32_t) p.n_embd);
            gguf_set_val_u32(g.get(), (A + "dense_2_feat_out").c_str(), (uint32_t) p.n_dense_out);
            gguf_set_val_u32(g.get(), (A + "dense_3_feat_in").c_str(), (uint32_t) p.n_dense_out);
            gguf_set_val_u32(g.get(), (A + "dense_3_feat_out").c_str(), (uint32_t) p.n_embd);
        }
    }
    if (!am.no_rope) {
        gguf_set_val_f32(g.get(), (A + "rope.freq_base").c_str(), p.rope_base);
    }
    if (am.rope_dim) {
        gguf_set_val_u32(g.get(), (A + "rope.dimension_count").c_str(),
                         (uint32_t) (p.n_rot > 0 ? p.n_rot : head_dim_of(p)));
    }
    const int64_t n_rot = p.n_rot > 0 ? p.n_rot : head_dim_of(p);
    if (mla) {
        // the absorbed form's cache shape: one KV head of the latent and the rope part, as the converter
        if (p.n_lora_q > 0) {
            gguf_set_val_u32(g.get(), (A + "attention.q_lora_rank").c_str(), (uint32_t) p.n_lora_q);
        }
        gguf_set_val_u32(g.get(), (A + "attention.kv_lora_rank").c_str(), (uint32_t) p.n_lora_kv);
        gguf_set_val_u32(g.get(), (A + "attention.key_length").c_str(), (uint32_t) (p.n_lora_kv + n_rot));
        gguf_set_val_u32(g.get(), (A + "attention.value_length").c_str(), (uint32_t) p.n_lora_kv);
        gguf_set_val_u32(g.get(), (A + "attention.key_length_mla").c_str(), (uint32_t) head_dim_of(p));
        gguf_set_val_u32(g.get(), (A + "attention.value_length_mla").c_str(), (uint32_t) head_dim_of(p));
    } else if (p.mla_kv_fused) {
        if (p.n_lora_q > 0) {
            gguf_set_val_u32(g.get(), (A + "attention.q_lora_rank").c_str(), (uint32_t) p.n_lora_q);
        }
        gguf_set_val_u32(g.get(), (A + "attention.kv_lora_rank").c_str(), (uint32_t) p.n_lora_kv);
        gguf_set_val_u32(g.get(), (A + "attention.key_length").c_str(), (uint32_t) head_dim_of(p));
        gguf_set_val_u32(g.get(), (A + "attention.value_length").c_str(), (uint32_t) head_dim_of(p));
    } else if ((p.head_dim > 0 && p.head_dim * p.n_head != p.n_embd) || am.head_len) {
        gguf_set_val_u32(g.get(), (A + "attention.key_length").c_str(), (uint32_t) head_dim_of(p));
        gguf_set_val_u32(g.get(), (A + "attention.value_length").c_str(), (uint32_t) head_dim_of(p));
    }
    const auto write_swa = [&] {
        const int64_t def = am.swa == -1 ? p.n_ctx : am.swa == -2 ? p.n_ctx / 2 : am.swa;
        gguf_set_val_u32(g.get(), (A + "attention.sliding_window").c_str(), (uint32_t) (p.n_swa ? p.n_swa : def));
    };
    if (am.swa != 0 && !am.swa_late) {
        write_swa();
    }
    if (am.attn_softcap > 0) {
        gguf_set_val_f32(g.get(), (A + "attn_logit_softcapping").c_str(), am.attn_softcap);
        gguf_set_val_f32(g.get(), (A + "final_logit_softcapping").c_str(), am.final_softcap);
    }
    if (am.swa_period > 0) {
        gguf_set_val_u32(g.get(), (A + "attention.sliding_window_pattern").c_str(), am.swa_period);
    }
    if (am.rope_base_swa > 0) {
        gguf_set_val_f32(g.get(), (A + "rope.freq_base_swa").c_str(), am.rope_base_swa);
    }
    if (!p.swa_flags.empty()) {
        if (!am.swa_pattern || (int64_t) p.swa_flags.size() != p.n_layer) {
            err = "sliding-window flags (--swa-layers): one per layer, for " +
                  arch_names([](const arch_info & i) { return meta_of(i.name).swa_pattern; });
            return false;
        }
        std::vector<int8_t> f(p.swa_flags.begin(), p.swa_flags.end());
        gguf_set_arr_data(g.get(), (A + "attention.sliding_window_pattern").c_str(), GGUF_TYPE_BOOL, f.data(),
                          f.size());
    }
    if (!p.rope_scaling.empty()) {
        gguf_set_val_str(g.get(), (A + "rope.scaling.type").c_str(), p.rope_scaling.c_str());
    }
    if (p.rope_scaling_factor > 0) {
        gguf_set_val_f32(g.get(), (A + "rope.scaling.factor").c_str(), p.rope_scaling_factor);
    }
    if (p.rope_orig_ctx > 0) {
        gguf_set_val_u32(g.get(), (A + "rope.scaling.original_context_length").c_str(), (uint32_t) p.rope_orig_ctx);
    }
    if (p.yarn_beta_fast > 0) {
        gguf_set_val_f32(g.get(), (A + "rope.scaling.yarn_beta_fast").c_str(), p.yarn_beta_fast);
    }
    if (p.yarn_beta_slow > 0) {
        gguf_set_val_f32(g.get(), (A + "rope.scaling.yarn_beta_slow").c_str(), p.yarn_beta_slow);
    }
    if (p.rope_attn_factor > 0) {
        gguf_set_val_f32(g.get(), (A + "rope.scaling.attn_factor").c_str(), p.rope_attn_factor);
    }
    if (p.n_expert > 0) {
        const int64_t used = p.n_expert_used > 0 ? p.n_expert_used : std::min<int64_t>(2, p.n_expert);
        gguf_set_val_u32(g.get(), (A + "expert_count").c_str(), (uint32_t) p.n_expert);
        gguf_set_val_u32(g.get(), (A + "expert_used_count").c_str(), (uint32_t) used);
        if (am.expert_ff) {
            gguf_set_val_u32(g.get(), (A + "expert_feed_forward_length").c_str(),
                             (uint32_t) (p.n_ff_exp > 0 ? p.n_ff_exp : p.n_ff));
        }
        if (p.n_ff_shexp > 0) {
            gguf_set_val_u32(g.get(), (A + "expert_shared_feed_forward_length").c_str(), (uint32_t) p.n_ff_shexp);
        }
        const std::pair<const char *, int64_t> u32s[] = {
            {"leading_dense_block_count", p.n_layer_dense_lead},
            {"expert_shared_count", p.n_expert_shared},
            {"expert_group_count", p.n_expert_groups},
            {"expert_group_used_count", p.n_group_used},
            {"expert_gating_func", p.expert_gating},
            {"nextn_predict_layers", p.n_nextn},
        };
        for (const auto & k : u32s) {
            if (k.second > 0) {
                gguf_set_val_u32(g.get(), (A + k.first).c_str(), (uint32_t) k.second);
            }
        }
        if (p.expert_weights_scale != 0.0f) {
            gguf_set_val_f32(g.get(), (A + "expert_weights_scale").c_str(), p.expert_weights_scale);
        }
        if (p.expert_weights_norm) {
            gguf_set_val_bool(g.get(), (A + "expert_weights_norm").c_str(), true);
        }
        if (p.n_moe_latent > 0) {
            gguf_set_val_u32(g.get(), (A + "moe_latent_size").c_str(), (uint32_t) p.n_moe_latent);
        }
    }
    if (p.n_nextn > 0 && p.n_expert == 0) {
        // a dense model's NextN blocks (qwen35); a model with experts has the key among theirs above
        gguf_set_val_u32(g.get(), (A + "nextn_predict_layers").c_str(), (uint32_t) p.n_nextn);
    }
    if (p.yarn_log_mul != 0.0f) {
        gguf_set_val_f32(g.get(), (A + "rope.scaling.yarn_log_multiplier").c_str(), p.yarn_log_mul);
    }
    if (am.swa != 0 && am.swa_late) {
        write_swa();
    }
    for (const arch_meta::f32_key & k : am.extra) {
        if (k.key) {
            gguf_set_val_f32(g.get(), (A + k.key).c_str(), k.value);
        }
    }
    gguf_set_val_u32(g.get(), "general.file_type", file_type_of(p.type));

    // tokenizer: the tokenizer.* keys of the vocab file, or the built-in byte vocab
    int64_t n_vocab = p.n_vocab;
    if (!p.vocab_path.empty()) {
        gguf_ptr v(gguf_init_from_file(p.vocab_path.c_str(), {true}));
        if (!v) {
            err = "cannot read vocab file " + p.vocab_path;
            return false;
        }
        gguf_ptr tok(gguf_init_empty());
        gguf_set_kv(tok.get(), v.get());
        for (int64_t i = gguf_get_n_kv(tok.get()) - 1; i >= 0; i--) {
            const std::string key = gguf_get_key(tok.get(), i);
            if (key.rfind("tokenizer.", 0) != 0) {
                gguf_remove_key(tok.get(), key.c_str());
            }
        }
        const int64_t id = gguf_find_key(tok.get(), "tokenizer.ggml.tokens");
        if (id < 0) {
            err = "vocab file has no tokenizer.ggml.tokens";
            return false;
        }
        const int64_t nv = (int64_t) gguf_get_arr_n(tok.get(), id);
        if (n_vocab != 0 && n_vocab != nv) {
            err = "n_vocab " + std::to_string(n_vocab) + " differs from the vocab file's " + std::to_string(nv);
            return false;
        }
        n_vocab = nv;
        gguf_set_kv(g.get(), tok.get());
    } else {
        n_vocab = n_vocab ? n_vocab : 512;
        if (n_vocab < 259) {
            err = "the built-in vocab needs n_vocab >= 259";
            return false;
        }
        builtin_vocab(g.get(), n_vocab);
    }

    const std::vector<tensor_desc> tensors = layout(p, n_vocab);
    for (const auto & t : tensors) {
        // upstream sizes token_types by this key (a BERT vocab has it; the built-in one does not)
        if (t.name == llm_tensor_name(LLM_TENSOR_TOKEN_TYPES) &&
            gguf_find_key(g.get(), "tokenizer.ggml.token_type_count") < 0) {
            gguf_set_val_u32(g.get(), "tokenizer.ggml.token_type_count", (uint32_t) t.ne[1]);
        }
    }
    for (const auto & t : tensors) {
        const ggml_type ty = t.type(p.type);
        if (t.ne[0] % ggml_blck_size(ty) != 0) {
            err = t.name + ": rows of " + std::to_string(t.ne[0]) + " do not fit " + ggml_type_name(ty) + " blocks";
            return false;
        }
        if (!gguf_add_tensor_info(g.get(), t.name.c_str(), ty, t.n_dims, t.ne, nullptr)) {
            err = "cannot add tensor " + t.name;
            return false;
        }
    }

    FILE * f = ggml_fopen(path.c_str(), "wb");
    if (!f) {
        err = "cannot create " + path + ": " + strerror(errno);
        return false;
    }
    auto fail = [&](const std::string & msg) {
        fclose(f);
        remove(path.c_str());
        err = msg;
        return false;
    };
    std::vector<uint8_t> meta(gguf_get_meta_size(g.get()));
    gguf_get_meta_data(g.get(), meta.data());
    if (fwrite(meta.data(), 1, meta.size(), f) != meta.size()) {
        return fail("write failed");
    }
    const int            nt  = p.n_threads > 0 ? p.n_threads : (int) std::max(1u, std::thread::hardware_concurrency());
    size_t               pos = 0;
    std::vector<uint8_t> buf;
    for (const auto & t : tensors) {
        const ggml_type ty   = t.type(p.type);
        const int64_t   id   = gguf_find_tensor(g.get(), t.name.c_str());
        const size_t    off  = gguf_get_tensor_offset(g.get(), id);
        const size_t    size = gguf_get_tensor_size(g.get(), id);
        const size_t    rs   = ggml_row_size(ty, t.ne[0]);
        buf.assign(off - pos, 0);  // alignment padding
        if (!buf.empty() && fwrite(buf.data(), 1, buf.size(), f) != buf.size()) {
            return fail("write failed");
        }
        buf.resize(size);
        const int64_t            nrows = t.n_rows();
        const int                n     = (int) std::min<int64_t>(nt, std::max<int64_t>(1, nrows * t.ne[0] / 65536));
        std::vector<char>        ok(n, 1);
        std::vector<std::thread> th;
        for (int i = 0; i < n; i++) {
            const int64_t r0 = nrows * i / n, r1 = nrows * (i + 1) / n;
            auto          job = [&, i, r0, r1] { ok[i] = gen_rows(p, t, ty, r0, r1, buf.data() + (size_t) r0 * rs); };
            if (i + 1 < n) {
                th.emplace_back(job);
            } else {
                job();
            }
        }
        for (auto & x : th) {
            x.join();
        }
        if (std::find(ok.begin(), ok.end(), 0) != ok.end()) {
            return fail("cannot convert " + t.name + " to " + ggml_type_name(ty));
        }
        if (fwrite(buf.data(), 1, size, f) != size) {
            return fail("write failed");
        }
        pos = off + size;
    }
    if (fclose(f) != 0) {
        remove(path.c_str());
        err = "write failed";
        return false;
    }
    return true;
}

}  // namespace synth
