// The per-tensor type choice of each llama_ftype mix (see llama-quant.h): the base type of the mix,
// the recipe that spends more bits where they matter, and the fallbacks for rows that do not fit a
// block. The K-quant and 4-bit mixes are our own, modelled on llama.cpp's; the i-quant mixes (IQ1_S ...
// IQ3_M) follow llama.cpp's llama_tensor_get_type rules (tests/unit/test-quant-mix.cpp holds the table).
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "llama-quant.h"

ggml_type llama_quant_base_type(llama_ftype ftype) {
    switch (ftype) {
        case LLAMA_FTYPE_ALL_F32:
            return GGML_TYPE_F32;
        case LLAMA_FTYPE_MOSTLY_F16:
            return GGML_TYPE_F16;
        case LLAMA_FTYPE_MOSTLY_BF16:
            return GGML_TYPE_BF16;
        case LLAMA_FTYPE_MOSTLY_Q4_0:
            return GGML_TYPE_Q4_0;
        case LLAMA_FTYPE_MOSTLY_Q4_1:
            return GGML_TYPE_Q4_1;
        case LLAMA_FTYPE_MOSTLY_Q5_0:
            return GGML_TYPE_Q5_0;
        case LLAMA_FTYPE_MOSTLY_Q5_1:
            return GGML_TYPE_Q5_1;
        case LLAMA_FTYPE_MOSTLY_Q8_0:
            return GGML_TYPE_Q8_0;
        case LLAMA_FTYPE_MOSTLY_Q2_K:
            return GGML_TYPE_Q2_K;
        case LLAMA_FTYPE_MOSTLY_Q3_K_S:
        case LLAMA_FTYPE_MOSTLY_Q3_K_M:
        case LLAMA_FTYPE_MOSTLY_Q3_K_L:
            return GGML_TYPE_Q3_K;
        case LLAMA_FTYPE_MOSTLY_Q4_K_S:
        case LLAMA_FTYPE_MOSTLY_Q4_K_M:
            return GGML_TYPE_Q4_K;
        case LLAMA_FTYPE_MOSTLY_Q5_K_S:
        case LLAMA_FTYPE_MOSTLY_Q5_K_M:
            return GGML_TYPE_Q5_K;
        case LLAMA_FTYPE_MOSTLY_Q6_K:
            return GGML_TYPE_Q6_K;
        case LLAMA_FTYPE_MOSTLY_IQ4_NL:
            return GGML_TYPE_IQ4_NL;
        case LLAMA_FTYPE_MOSTLY_IQ4_XS:
            return GGML_TYPE_IQ4_XS;
        case LLAMA_FTYPE_MOSTLY_TQ1_0:
            return GGML_TYPE_TQ1_0;
        case LLAMA_FTYPE_MOSTLY_TQ2_0:
            return GGML_TYPE_TQ2_0;
        case LLAMA_FTYPE_MOSTLY_MXFP4_MOE:
            return GGML_TYPE_MXFP4;
        // the i-quant mixes, with llama.cpp's base types (IQ2_S is mostly IQ2_XS, IQ2_M mostly IQ2_S)
        case LLAMA_FTYPE_MOSTLY_IQ2_XXS:
            return GGML_TYPE_IQ2_XXS;
        case LLAMA_FTYPE_MOSTLY_IQ2_XS:
        case LLAMA_FTYPE_MOSTLY_IQ2_S:
            return GGML_TYPE_IQ2_XS;
        case LLAMA_FTYPE_MOSTLY_IQ2_M:
            return GGML_TYPE_IQ2_S;
        case LLAMA_FTYPE_MOSTLY_IQ3_XXS:
            return GGML_TYPE_IQ3_XXS;
        case LLAMA_FTYPE_MOSTLY_IQ3_XS:
        case LLAMA_FTYPE_MOSTLY_IQ3_S:
        case LLAMA_FTYPE_MOSTLY_IQ3_M:
            return GGML_TYPE_IQ3_S;
        case LLAMA_FTYPE_MOSTLY_IQ1_S:
            return GGML_TYPE_IQ1_S;
        case LLAMA_FTYPE_MOSTLY_IQ1_M:
            return GGML_TYPE_IQ1_M;
        default:
            return GGML_TYPE_COUNT;
    }
}

static bool ends_with(const std::string & s, const char * suffix) {
    const size_t n = strlen(suffix);
    return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

bool llama_quant_is_weight_matrix(const std::string & name, int n_dims) {
    if (n_dims < 2 || !ends_with(name, "weight")) {
        return false;
    }
    // norms are vectors in practice; the name check also covers a [n, 1] shaped one. Convolution
    // kernels (mamba2's ssm_conv1d, [d_conv, channels]; lfm2's shortconv.conv, [l_cache, embd]) are
    // small and read as F32 (as upstream).
    return name.find("_norm") == std::string::npos && name.find("ffn_gate_inp") == std::string::npos &&
           name.find("ssm_conv1d") == std::string::npos && name.find("shortconv.conv.") == std::string::npos;
}

// Layer index of "blk.N.xxx", or -1.
static int layer_of(const std::string & name) {
    int il = -1;
    return sscanf(name.c_str(), "blk.%d.", &il) == 1 ? il : -1;
}

// The layers that get more bits in the *_M mixes: the first and last eighth and every third between.
static bool use_more_bits(int il, int n_layer) {
    return il < n_layer / 8 || il >= 7 * n_layer / 8 || (il - n_layer / 8) % 3 == 2;
}

// Where the mix spends extra bits (modelled on llama.cpp's K-quant mixes): the LM head, attn_v and
// ffn_down matter most for quality; the *_S mixes spend little, *_M some, *_L most.
static ggml_type recipe_adjust(ggml_type type, const std::string & name, const llama_quant_model_info & info,
                               llama_ftype ft) {
    const int il      = layer_of(name);
    const int n_layer = std::max(info.n_layer, 1);

    const bool is_output = name == "output.weight" || (!info.has_output && name == "token_embd.weight");
    if (ft == LLAMA_FTYPE_MOSTLY_MXFP4_MOE) {
        // as gpt-oss ships: the expert tensors (3-D, "*_exps") in MXFP4, everything else in Q8_0
        return !is_output && name.find("_exps.") != std::string::npos ? GGML_TYPE_MXFP4 : GGML_TYPE_Q8_0;
    }
    if (is_output) {
        return type == GGML_TYPE_Q8_0 ? type : GGML_TYPE_Q6_K;
    }
    if (name == "token_embd.weight") {
        // a ternary embedding table loses too much: the lookup is cheap, keep 4 bits
        return type == GGML_TYPE_TQ1_0 || type == GGML_TYPE_TQ2_0 ? GGML_TYPE_Q4_K : type;
    }
    if (ends_with(name, "attn_v.weight")) {
        switch (ft) {
            case LLAMA_FTYPE_MOSTLY_Q2_K:
                return info.n_gqa >= 4 ? GGML_TYPE_Q4_K : GGML_TYPE_Q3_K;
            case LLAMA_FTYPE_MOSTLY_Q3_K_M:
                return il < 2 ? GGML_TYPE_Q5_K : GGML_TYPE_Q4_K;
            case LLAMA_FTYPE_MOSTLY_Q3_K_L:
                return GGML_TYPE_Q5_K;
            case LLAMA_FTYPE_MOSTLY_Q4_K_S:
                return il < 4 ? GGML_TYPE_Q5_K : type;
            case LLAMA_FTYPE_MOSTLY_Q4_K_M:
            case LLAMA_FTYPE_MOSTLY_Q5_K_M:
                return use_more_bits(il, n_layer) ? GGML_TYPE_Q6_K : type;
            default:
                break;
        }
        // grouped-query attention makes attn_v small: a few more bits cost little
        if (info.n_gqa >= 4 && (ft == LLAMA_FTYPE_MOSTLY_Q3_K_S || ft == LLAMA_FTYPE_MOSTLY_IQ4_XS)) {
            return ft == LLAMA_FTYPE_MOSTLY_IQ4_XS ? GGML_TYPE_Q5_K : GGML_TYPE_Q4_K;
        }
        return type;
    }
    if (ends_with(name, "ffn_down.weight")) {
        switch (ft) {
            case LLAMA_FTYPE_MOSTLY_Q2_K:
                return GGML_TYPE_Q3_K;
            case LLAMA_FTYPE_MOSTLY_Q3_K_M:
                return il < n_layer / 16 ? GGML_TYPE_Q5_K : GGML_TYPE_Q4_K;
            case LLAMA_FTYPE_MOSTLY_Q3_K_L:
                return GGML_TYPE_Q5_K;
            case LLAMA_FTYPE_MOSTLY_Q4_K_S:
                return il < n_layer / 8 ? GGML_TYPE_Q5_K : type;
            case LLAMA_FTYPE_MOSTLY_Q4_K_M:
            case LLAMA_FTYPE_MOSTLY_Q5_K_M:
                return use_more_bits(il, n_layer) ? GGML_TYPE_Q6_K : type;
            default:
                return type;
        }
    }
    if (ends_with(name, "attn_output.weight")) {
        switch (ft) {
            case LLAMA_FTYPE_MOSTLY_Q2_K:
                return GGML_TYPE_Q3_K;
            case LLAMA_FTYPE_MOSTLY_Q3_K_M:
                return GGML_TYPE_Q4_K;
            case LLAMA_FTYPE_MOSTLY_Q3_K_L:
                return GGML_TYPE_Q5_K;
            default:
                return type;
        }
    }
    if (ends_with(name, "attn_qkv.weight")) {
        switch (ft) {
            case LLAMA_FTYPE_MOSTLY_Q3_K_M:
            case LLAMA_FTYPE_MOSTLY_Q3_K_L:
                return GGML_TYPE_Q4_K;
            case LLAMA_FTYPE_MOSTLY_Q4_K_M:
                return GGML_TYPE_Q5_K;
            case LLAMA_FTYPE_MOSTLY_Q5_K_M:
                return GGML_TYPE_Q6_K;
            default:
                return type;
        }
    }
    return type;
}

// ---- the i-quant mixes (IQ1_S ... IQ3_M): llama.cpp's llama_tensor_get_type rules -------------------

static bool is_iquant_mix(llama_ftype ft) {
    switch (ft) {
        case LLAMA_FTYPE_MOSTLY_IQ2_XXS:
        case LLAMA_FTYPE_MOSTLY_IQ2_XS:
        case LLAMA_FTYPE_MOSTLY_IQ2_S:
        case LLAMA_FTYPE_MOSTLY_IQ2_M:
        case LLAMA_FTYPE_MOSTLY_IQ3_XXS:
        case LLAMA_FTYPE_MOSTLY_IQ3_XS:
        case LLAMA_FTYPE_MOSTLY_IQ3_S:
        case LLAMA_FTYPE_MOSTLY_IQ3_M:
        case LLAMA_FTYPE_MOSTLY_IQ1_S:
        case LLAMA_FTYPE_MOSTLY_IQ1_M:
            return true;
        default:
            return false;
    }
}

enum class tensor_cat { output, token_embd, attn_v, attn_k, attn_q, attn_output, ffn_up, ffn_gate, ffn_down, other };

// llama.cpp's broad categories: substring matches, so expert ("_exps") and shared-expert tensors count
// with their dense kind; fused qkv and MLA's kv_b are treated like attn_v.
static tensor_cat category_of(const std::string & name, bool is_head) {
    const auto has = [&](const char * s) { return name.find(s) != std::string::npos; };
    if (is_head) {
        return tensor_cat::output;
    }
    if (name == "token_embd.weight") {
        return tensor_cat::token_embd;
    }
    if (has("attn_qkv.weight") || has("attn_kv_b.weight") || has("attn_v.weight")) {
        return tensor_cat::attn_v;
    }
    if (has("attn_k.weight")) {
        return tensor_cat::attn_k;
    }
    if (has("attn_q.weight")) {
        return tensor_cat::attn_q;
    }
    if (has("attn_output.weight")) {
        return tensor_cat::attn_output;
    }
    if (has("ffn_up")) {
        return tensor_cat::ffn_up;
    }
    if (has("ffn_gate")) {
        return tensor_cat::ffn_gate;
    }
    if (has("ffn_down")) {
        return tensor_cat::ffn_down;
    }
    return tensor_cat::other;
}

// At 1.5-3.5 bits the mix keeps the tensors that hurt most when coarse (LM head, attn_v, the first
// ffn_down layers, attn_output in 8-expert models) a few bits higher. ne0: row length (0 = unknown).
static ggml_type iquant_mix(ggml_type base, tensor_cat cat, int il, const llama_quant_model_info & info, llama_ftype ft,
                            bool has_imatrix, int64_t ne0) {
    const int  n_layer = std::max(info.n_layer, 1);
    const bool iq2_s_m = ft == LLAMA_FTYPE_MOSTLY_IQ2_S || ft == LLAMA_FTYPE_MOSTLY_IQ2_M;
    const bool iq1     = ft == LLAMA_FTYPE_MOSTLY_IQ1_S || ft == LLAMA_FTYPE_MOSTLY_IQ1_M;
    const bool iq2     = iq2_s_m || iq1 || ft == LLAMA_FTYPE_MOSTLY_IQ2_XXS || ft == LLAMA_FTYPE_MOSTLY_IQ2_XS;
    const bool e8      = info.n_expert == 8;

    if (cat == tensor_cat::output) {
        if (ne0 > 0 && ne0 % ggml_blck_size(base) != 0) {
            return GGML_TYPE_Q8_0;  // llama.cpp's choice for an odd head, before any fallback
        }
        return iq2 || ft == LLAMA_FTYPE_MOSTLY_IQ3_XXS ? GGML_TYPE_Q5_K : GGML_TYPE_Q6_K;
    }
    if (cat == tensor_cat::token_embd) {
        if (ft == LLAMA_FTYPE_MOSTLY_IQ2_XXS || ft == LLAMA_FTYPE_MOSTLY_IQ2_XS || iq1) {
            return GGML_TYPE_Q2_K;
        }
        return iq2_s_m || ft == LLAMA_FTYPE_MOSTLY_IQ3_XXS ? GGML_TYPE_IQ3_S : base;
    }
    if (iq2) {
        switch (cat) {
            case tensor_cat::attn_v:
                if (info.n_gqa >= 4 || info.n_expert >= 4) {
                    return GGML_TYPE_Q4_K;
                }
                return iq2_s_m ? GGML_TYPE_IQ3_S : GGML_TYPE_Q2_K;
            case tensor_cat::attn_k:
                return e8 ? GGML_TYPE_Q4_K : base;
            case tensor_cat::ffn_down:
                return il < n_layer / 8 ? (iq2_s_m ? GGML_TYPE_IQ3_S : GGML_TYPE_Q2_K) : base;
            case tensor_cat::attn_output:
                return e8 ? GGML_TYPE_Q5_K : iq1 ? GGML_TYPE_IQ2_XXS : iq2_s_m ? GGML_TYPE_IQ3_S : base;
            default:
                return base;
        }
    }
    // IQ3_XXS, IQ3_XS, IQ3_S, IQ3_M
    switch (cat) {
        case tensor_cat::attn_v: {
            if (e8) {
                return GGML_TYPE_Q8_0;  // 8 experts share it: more bits cost little
            }
            if (ft == LLAMA_FTYPE_MOSTLY_IQ3_XXS) {
                return info.n_gqa >= 4 ? GGML_TYPE_Q4_K : !has_imatrix ? GGML_TYPE_IQ3_S : GGML_TYPE_IQ3_XXS;
            }
            if (ft == LLAMA_FTYPE_MOSTLY_IQ3_M || info.n_gqa >= 4) {
                return GGML_TYPE_Q4_K;
            }
            return base;
        }
        case tensor_cat::attn_k:
            return e8                                 ? GGML_TYPE_Q8_0
                   : ft == LLAMA_FTYPE_MOSTLY_IQ3_XS  ? GGML_TYPE_IQ3_XXS
                   : ft == LLAMA_FTYPE_MOSTLY_IQ3_XXS ? GGML_TYPE_IQ2_S
                                                      : base;
        case tensor_cat::attn_q:
            return ft == LLAMA_FTYPE_MOSTLY_IQ3_XS    ? GGML_TYPE_IQ3_XXS
                   : ft == LLAMA_FTYPE_MOSTLY_IQ3_XXS ? GGML_TYPE_IQ2_S
                                                      : base;
        case tensor_cat::ffn_down:
            if (ft == LLAMA_FTYPE_MOSTLY_IQ3_XXS && !has_imatrix) {
                return il < n_layer / 8 ? GGML_TYPE_Q4_K : GGML_TYPE_Q3_K;
            }
            if (ft == LLAMA_FTYPE_MOSTLY_IQ3_M && (il < n_layer / 8 || (e8 && use_more_bits(il, n_layer)))) {
                return GGML_TYPE_Q4_K;
            }
            return base;
        case tensor_cat::attn_output:
            if (e8) {
                return GGML_TYPE_Q5_K;
            }
            return ft == LLAMA_FTYPE_MOSTLY_IQ3_XXS ? GGML_TYPE_IQ3_S
                   : ft == LLAMA_FTYPE_MOSTLY_IQ3_M ? GGML_TYPE_Q4_K
                                                    : base;
        case tensor_cat::ffn_gate:
        case tensor_cat::ffn_up:
            // IQ3_XS: the middle three quarters of the layers one step down
            return ft == LLAMA_FTYPE_MOSTLY_IQ3_XS && il >= n_layer / 8 && il < 7 * n_layer / 8 ? GGML_TYPE_IQ3_XXS
                                                                                                : base;
        default:
            return base;
    }
}

ggml_type llama_quant_recipe_type(const std::string & name, const llama_quant_model_info & info,
                                  const llama_model_quantize_params & params, int64_t ne0) {
    const ggml_type base = llama_quant_base_type(params.ftype);
    if (base == GGML_TYPE_COUNT) {
        return base;
    }
    const bool is_output = name == "output.weight";
    const bool is_embd   = name == "token_embd.weight";
    const bool is_head   = is_output || (!info.has_output && is_embd);

    // explicit user choices win over everything, even "pure"
    if (is_output && params.output_tensor_type < GGML_TYPE_COUNT) {
        return params.output_tensor_type;
    }
    if (is_embd && params.token_embedding_type < GGML_TYPE_COUNT) {
        return params.token_embedding_type;
    }
    if (is_head && !params.quantize_output_tensor) {
        return GGML_TYPE_COUNT;  // keep the input type
    }
    if (params.pure || !ggml_is_quantized(base)) {
        return base;
    }
    if (is_iquant_mix(params.ftype)) {
        return iquant_mix(base, category_of(name, is_head), layer_of(name), info, params.ftype,
                          params.imatrix != nullptr, ne0);
    }
    return recipe_adjust(base, name, info, params.ftype);
}

ggml_type llama_quant_fallback_type(ggml_type type, int64_t ne0) {
    const int64_t blck = ggml_blck_size(type);
    if (blck <= 0 || ne0 % blck == 0) {
        return type;
    }
    ggml_type alt = GGML_TYPE_F16;
    switch (type) {
        case GGML_TYPE_Q2_K:
        case GGML_TYPE_Q3_K:
        case GGML_TYPE_IQ4_XS:
        case GGML_TYPE_IQ1_S:
        case GGML_TYPE_IQ1_M:
        case GGML_TYPE_IQ2_XXS:
        case GGML_TYPE_IQ2_XS:
        case GGML_TYPE_IQ2_S:
        case GGML_TYPE_IQ3_XXS:
        case GGML_TYPE_IQ3_S:
            alt = GGML_TYPE_IQ4_NL;
            break;
        case GGML_TYPE_Q4_K:
            alt = GGML_TYPE_Q5_0;
            break;
        case GGML_TYPE_Q5_K:
            alt = GGML_TYPE_Q5_1;
            break;
        case GGML_TYPE_Q6_K:
            alt = GGML_TYPE_Q8_0;
            break;
        case GGML_TYPE_TQ1_0:
        case GGML_TYPE_TQ2_0:
            alt = GGML_TYPE_Q4_0;
            break;
        default:
            break;
    }
    return ne0 % ggml_blck_size(alt) == 0 ? alt : GGML_TYPE_F16;
}
