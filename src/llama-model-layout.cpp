// Creates a model's weights from its architecture's tensor layout (llama-arch-layout.h) and binds
// each to the field of llama_model / llama_layer the graph builders read.
#include "llama-arch-layout.h"
#include "llama-log.h"
#include "llama-model-loader.h"
#include "llama-model.h"

#include <algorithm>

namespace {

// The field a weight serving as `role` fills: in the layer for a block tensor, in the model for the
// others; nullptr for a weight shared by all layers (rope factors, set on each layer by the caller).
ggml_tensor ** model_field(llama_model & m, llm_tensor role, bool bias) {
    switch (role) {
        case LLM_TENSOR_TOKEN_EMBD:
            return bias ? nullptr : &m.tok_embd;
        case LLM_TENSOR_OUTPUT_NORM:
            return bias ? &m.output_norm_b : &m.output_norm;
        case LLM_TENSOR_OUTPUT:
            return bias ? &m.output_b : &m.output;
        case LLM_TENSOR_TOKEN_TYPES:
            return bias ? nullptr : &m.type_embd;
        case LLM_TENSOR_POS_EMBD:
            return bias ? nullptr : &m.pos_embd;
        case LLM_TENSOR_TOKEN_EMBD_NORM:
            return bias ? &m.tok_norm_b : &m.tok_norm;
        case LLM_TENSOR_CLS:
            return bias ? &m.cls_b : &m.cls;
        case LLM_TENSOR_CLS_OUT:
            return bias ? &m.cls_out_b : &m.cls_out;
        case LLM_TENSOR_CLS_NORM:
            return bias ? nullptr : &m.cls_norm;
        case LLM_TENSOR_DENSE_2_OUT:
            return bias ? &m.dense_2_b : &m.dense_2;
        case LLM_TENSOR_DENSE_3_OUT:
            return bias ? nullptr : &m.dense_3;
        case LLM_TENSOR_PER_LAYER_TOKEN_EMBD:
            return bias ? nullptr : &m.per_layer_tok_embd;
        case LLM_TENSOR_PER_LAYER_MODEL_PROJ:
            return bias ? nullptr : &m.per_layer_model_proj;
        case LLM_TENSOR_PER_LAYER_PROJ_NORM:
            return bias ? nullptr : &m.per_layer_proj_norm;
        case LLM_TENSOR_ALTUP_PROJ:
            return bias ? nullptr : &m.altup_proj;
        case LLM_TENSOR_ALTUP_UNEMBD_PROJ:
            return bias ? nullptr : &m.altup_unembd_proj;
        default:
            return nullptr;
    }
}

ggml_tensor * llama_layer::*layer_field(llm_tensor role, bool bias) {
    using L = llama_layer;
    switch (role) {
        case LLM_TENSOR_ROPE_FREQS:
            return bias ? nullptr : &L::rope_freqs;
        case LLM_TENSOR_ROPE_FACTORS_LONG:
            return bias ? nullptr : &L::rope_long;
        case LLM_TENSOR_ROPE_FACTORS_SHORT:
            return bias ? nullptr : &L::rope_short;
        case LLM_TENSOR_ATTN_NORM:
            return bias ? &L::attn_norm_b : &L::attn_norm;
        case LLM_TENSOR_ATTN_Q:
            return bias ? &L::bq : &L::wq;
        case LLM_TENSOR_ATTN_K:
            return bias ? &L::bk : &L::wk;
        case LLM_TENSOR_ATTN_V:
            return bias ? &L::bv : &L::wv;
        case LLM_TENSOR_ATTN_QKV:
            return bias ? &L::bqkv : &L::wqkv;
        case LLM_TENSOR_ATTN_OUT:
            return bias ? &L::bo : &L::wo;
        case LLM_TENSOR_ATTN_Q_NORM:
            return bias ? &L::attn_q_norm_b : &L::attn_q_norm;
        case LLM_TENSOR_ATTN_K_NORM:
            return bias ? &L::attn_k_norm_b : &L::attn_k_norm;
        case LLM_TENSOR_ATTN_NORM_2:
            return bias ? &L::attn_norm_2_b : &L::attn_norm_2;
        case LLM_TENSOR_ATTN_POST_NORM:
            return bias ? nullptr : &L::attn_post_norm;
        case LLM_TENSOR_ATTN_SINKS:
            return bias ? nullptr : &L::attn_sinks;
        case LLM_TENSOR_FFN_NORM:
            return bias ? &L::ffn_norm_b : &L::ffn_norm;
        case LLM_TENSOR_FFN_POST_NORM:
            return bias ? nullptr : &L::ffn_post_norm;
        case LLM_TENSOR_FFN_GATE:
            return bias ? &L::ffn_gate_b : &L::ffn_gate;
        case LLM_TENSOR_FFN_UP:
            return bias ? &L::ffn_up_b : &L::ffn_up;
        case LLM_TENSOR_FFN_DOWN:
            return bias ? &L::ffn_down_b : &L::ffn_down;
        case LLM_TENSOR_FFN_GATE_INP:
            return bias ? &L::ffn_gate_inp_b : &L::ffn_gate_inp;
        case LLM_TENSOR_FFN_GATE_EXPS:
            return bias ? &L::ffn_gate_exps_b : &L::ffn_gate_exps;
        case LLM_TENSOR_FFN_UP_EXPS:
            return bias ? &L::ffn_up_exps_b : &L::ffn_up_exps;
        case LLM_TENSOR_FFN_DOWN_EXPS:
            return bias ? &L::ffn_down_exps_b : &L::ffn_down_exps;
        case LLM_TENSOR_FFN_GATE_UP_EXPS:
            return bias ? nullptr : &L::ffn_gate_up_exps;
        case LLM_TENSOR_FFN_GATE_SHEXP:
            return bias ? nullptr : &L::ffn_gate_shexp;
        case LLM_TENSOR_FFN_UP_SHEXP:
            return bias ? nullptr : &L::ffn_up_shexp;
        case LLM_TENSOR_FFN_DOWN_SHEXP:
            return bias ? nullptr : &L::ffn_down_shexp;
        case LLM_TENSOR_FFN_EXP_PROBS_B:
            return bias ? &L::ffn_exp_probs_b : nullptr;
        case LLM_TENSOR_ATTN_Q_A:
            return bias ? nullptr : &L::wq_a;
        case LLM_TENSOR_ATTN_Q_B:
            return bias ? nullptr : &L::wq_b;
        case LLM_TENSOR_ATTN_Q_A_NORM:
            return bias ? nullptr : &L::attn_q_a_norm;
        case LLM_TENSOR_ATTN_KV_A_MQA:
            return bias ? nullptr : &L::wkv_a_mqa;
        case LLM_TENSOR_ATTN_KV_A_NORM:
            return bias ? nullptr : &L::attn_kv_a_norm;
        case LLM_TENSOR_ATTN_K_B:
            return bias ? nullptr : &L::wk_b;
        case LLM_TENSOR_ATTN_V_B:
            return bias ? nullptr : &L::wv_b;
        case LLM_TENSOR_ATTN_KV_B:
            return bias ? nullptr : &L::wkv_b;
        case LLM_TENSOR_ATTN_OUT_NORM:
            return bias ? &L::attn_out_norm_b : &L::attn_out_norm;
        case LLM_TENSOR_LAYER_OUT_NORM:
            return bias ? &L::layer_out_norm_b : &L::layer_out_norm;
        case LLM_TENSOR_SSM_IN:
            return bias ? nullptr : &L::ssm_in;
        case LLM_TENSOR_SSM_CONV1D:
            return bias ? &L::ssm_conv1d_b : &L::ssm_conv1d;
        case LLM_TENSOR_SSM_DT:
            return bias ? &L::ssm_dt_b : nullptr;
        case LLM_TENSOR_SSM_A:
            return &L::ssm_a;
        case LLM_TENSOR_SSM_D:
            return &L::ssm_d;
        case LLM_TENSOR_SSM_NORM:
            return bias ? nullptr : &L::ssm_norm;
        case LLM_TENSOR_SSM_OUT:
            return bias ? nullptr : &L::ssm_out;
        case LLM_TENSOR_SHORTCONV_CONV:
            return bias ? nullptr : &L::shortconv_conv;
        case LLM_TENSOR_SHORTCONV_INPROJ:
            return bias ? nullptr : &L::shortconv_in_proj;
        case LLM_TENSOR_SHORTCONV_OUTPROJ:
            return bias ? nullptr : &L::shortconv_out_proj;
        case LLM_TENSOR_ATTN_GATE:
            return bias ? nullptr : &L::attn_gate;
        case LLM_TENSOR_SSM_BETA_ALPHA:
            return bias ? nullptr : &L::ssm_beta_alpha;
        case LLM_TENSOR_SSM_BETA:
            return bias ? nullptr : &L::ssm_beta;
        case LLM_TENSOR_SSM_ALPHA:
            return bias ? nullptr : &L::ssm_alpha;
        case LLM_TENSOR_FFN_GATE_INP_SHEXP:
            return bias ? nullptr : &L::ffn_gate_inp_shexp;
        case LLM_TENSOR_FFN_LATENT_DOWN:
            return bias ? nullptr : &L::ffn_latent_down;
        case LLM_TENSOR_FFN_LATENT_UP:
            return bias ? nullptr : &L::ffn_latent_up;
        case LLM_TENSOR_PER_LAYER_INP_GATE:
            return bias ? nullptr : &L::per_layer_inp_gate;
        case LLM_TENSOR_PER_LAYER_PROJ:
            return bias ? nullptr : &L::per_layer_proj;
        case LLM_TENSOR_PER_LAYER_POST_NORM:
            return bias ? nullptr : &L::per_layer_post_norm;
        case LLM_TENSOR_ALTUP_CORRECT_COEF:
            return bias ? nullptr : &L::altup_correct_coef;
        case LLM_TENSOR_ALTUP_CORRECT_SCALE:
            return bias ? nullptr : &L::altup_correct_scale;
        case LLM_TENSOR_ALTUP_PREDICT_COEF:
            return bias ? nullptr : &L::altup_predict_coef;
        case LLM_TENSOR_ALTUP_ROUTER:
            return bias ? nullptr : &L::altup_router;
        case LLM_TENSOR_ALTUP_ROUTER_NORM:
            return bias ? nullptr : &L::altup_router_norm;
        case LLM_TENSOR_LAUREL_L:
            return bias ? nullptr : &L::laurel_l;
        case LLM_TENSOR_LAUREL_R:
            return bias ? nullptr : &L::laurel_r;
        case LLM_TENSOR_LAUREL_POST_NORM:
            return bias ? nullptr : &L::laurel_post_norm;
        case LLM_TENSOR_SSM_CONV1D_Q:
            return bias ? nullptr : &L::ssm_conv1d_q;
        case LLM_TENSOR_SSM_CONV1D_K:
            return bias ? nullptr : &L::ssm_conv1d_k;
        case LLM_TENSOR_SSM_CONV1D_V:
            return bias ? nullptr : &L::ssm_conv1d_v;
        case LLM_TENSOR_SSM_F_A:
            return bias ? nullptr : &L::ssm_f_a;
        case LLM_TENSOR_SSM_F_B:
            return bias ? nullptr : &L::ssm_f_b;
        case LLM_TENSOR_SSM_G_A:
            return bias ? nullptr : &L::ssm_g_a;
        case LLM_TENSOR_SSM_G_B:
            return bias ? nullptr : &L::ssm_g_b;
        case LLM_TENSOR_NEXTN_EH_PROJ:
            return bias ? nullptr : &L::nextn_eh_proj;
        case LLM_TENSOR_NEXTN_ENORM:
            return bias ? nullptr : &L::nextn_enorm;
        case LLM_TENSOR_NEXTN_HNORM:
            return bias ? nullptr : &L::nextn_hnorm;
        case LLM_TENSOR_NEXTN_EMBED_TOKENS:
            return bias ? nullptr : &L::nextn_embed_tokens;
        case LLM_TENSOR_NEXTN_SHARED_HEAD_HEAD:
            return bias ? nullptr : &L::nextn_shared_head_head;
        case LLM_TENSOR_NEXTN_SHARED_HEAD_NORM:
            return bias ? nullptr : &L::nextn_shared_head_norm;
        default:
            return nullptr;
    }
}

// The per-tensor scales of the block matrices a file has ("blk.N.<weight>.scale", model.weight_scales).
// As upstream (4df29be4): attention (and mamba2 ssm_in/ssm_out) scales in every architecture, feed-forward
// scales only where its graphs apply them (llm_arch_ops::ffn_weight_scales); elsewhere such a tensor is left
// unused, as there.
void load_weight_scales(llama_model & model, llama_tensor_creator & tc) {
    const llm_arch_ops * ops = llm_arch_get_ops(model.arch);
    const bool           ffn = ops != nullptr && ops->ffn_weight_scales;
    struct role {
        llm_tensor    t;
        ggml_tensor * llama_layer::*w;
        bool                        is_ffn, per_expert;
    };
    using L            = llama_layer;
    const role roles[] = {
        {LLM_TENSOR_ATTN_Q, &L::wq, false, false},
        {LLM_TENSOR_ATTN_K, &L::wk, false, false},
        {LLM_TENSOR_ATTN_V, &L::wv, false, false},
        {LLM_TENSOR_ATTN_QKV, &L::wqkv, false, false},
        {LLM_TENSOR_ATTN_OUT, &L::wo, false, false},
        {LLM_TENSOR_FFN_GATE, &L::ffn_gate, true, false},
        {LLM_TENSOR_FFN_UP, &L::ffn_up, true, false},
        {LLM_TENSOR_FFN_DOWN, &L::ffn_down, true, false},
        {LLM_TENSOR_FFN_GATE_EXPS, &L::ffn_gate_exps, true, true},
        {LLM_TENSOR_FFN_UP_EXPS, &L::ffn_up_exps, true, true},
        {LLM_TENSOR_FFN_DOWN_EXPS, &L::ffn_down_exps, true, true},
        {LLM_TENSOR_FFN_GATE_SHEXP, &L::ffn_gate_shexp, true, false},
        {LLM_TENSOR_FFN_UP_SHEXP, &L::ffn_up_shexp, true, false},
        {LLM_TENSOR_FFN_DOWN_SHEXP, &L::ffn_down_shexp, true, false},
        {LLM_TENSOR_SSM_IN, &L::ssm_in, false, false},  // mamba2 applies them as attention's
        {LLM_TENSOR_SSM_OUT, &L::ssm_out, false, false},
        {LLM_TENSOR_ATTN_GATE, &L::attn_gate, false, false},  // qwen35's delta-net projections
        {LLM_TENSOR_SSM_BETA, &L::ssm_beta, false, false},
        {LLM_TENSOR_SSM_ALPHA, &L::ssm_alpha, false, false},
    };
    // upstream's qwen3next graph scales none of its delta-net projections (qwen35's scales all of them)
    const bool delta_net_unscaled = model.arch == LLM_ARCH_QWEN3NEXT;
    for (int il = 0; il < (int) model.layers.size(); il++) {
        llama_layer & l = model.layers[il];
        for (const role & r : roles) {
            const ggml_tensor * w = l.*r.w;
            if (!w || (r.is_ffn && !ffn) || (delta_net_unscaled && model.hparams.is_recurrent_layer(il)) ||
                !tc.ml.get_weight(llm_tensor_name(r.t, "scale", il))) {
                continue;
            }
            const int64_t n        = r.per_expert ? (int64_t) model.hparams.n_expert : 1;
            model.weight_scales[w] = tc.create(r.t, {n}, 0, il, "scale", LLM_TL_PLACE_LAYER);
        }
    }
}

}  // namespace

void llm_layout_load_tensors(llama_model & model, llama_tensor_creator & tc) {
    const llm_arch_layout & lay = llm_arch_get_layout(model.arch);
    const llama_hparams &   hp  = model.hparams;

    // rows the file decides (token types, classifier scores); 1 if the tensor is absent
    auto rows_of = [&](llm_tensor t) {
        const llama_tensor_weight * w = tc.ml.get_weight(llm_tensor_name(t, "weight", -1));
        return w && w->n_dims >= 2 ? std::max<int64_t>(1, w->ne[1]) : 1;
    };
    llm_layout_dims d;
    d.n_embd             = hp.n_embd;
    d.n_vocab            = hp.n_vocab;
    d.n_ff               = hp.n_ff;
    d.n_ff_exp           = hp.n_ff_exp;
    d.n_expert           = hp.n_expert;
    d.n_head             = hp.n_head;
    d.n_head_kv          = hp.n_head_kv;
    d.n_embd_head_k      = hp.n_embd_head_k;
    d.n_embd_head_v      = hp.n_embd_head_v;
    d.n_rot              = hp.n_rot;
    d.n_ctx_train        = hp.n_ctx_train;
    d.n_token_types      = rows_of(LLM_TENSOR_TOKEN_TYPES);
    d.n_ff_shexp         = hp.n_ff_shexp;
    d.n_lora_q           = hp.n_lora_q;
    d.n_lora_kv          = hp.n_lora_kv;
    d.n_embd_head_k_mla  = hp.n_embd_head_k_mla;
    d.n_embd_head_v_mla  = hp.n_embd_head_v_mla;
    d.n_layer_dense_lead = hp.n_layer_dense_lead;
    d.mla_kv_fused       = hp.n_lora_kv > 0 && !hp.mla_absorbed;
    // the experts' gate and up fused: read from the first MoE layer (every MoE layer must agree)
    if (hp.n_expert > 0 && hp.n_layer_dense_lead < hp.n_layer) {
        d.exps_gate_up_fused = tc.ml.get_weight(llm_tensor_name(LLM_TENSOR_FFN_GATE_UP_EXPS, "weight",
                                                                (int) hp.n_layer_dense_lead)) != nullptr;
    }
    // the scores: cls.output's rows, or cls's where the head is cls alone (jina-bert-v2 rerankers)
    d.n_cls_out   = tc.ml.get_weight(llm_tensor_name(LLM_TENSOR_CLS_OUT, "weight", -1)) ? rows_of(LLM_TENSOR_CLS_OUT)
                                                                                        : rows_of(LLM_TENSOR_CLS);
    d.n_dense_out = rows_of(LLM_TENSOR_DENSE_2_OUT);
    // ffn_up with the gate fused in is twice as wide (read from the first block; every block must agree)
    if (const llama_tensor_weight * up = tc.ml.get_weight(llm_tensor_name(LLM_TENSOR_FFN_UP, "weight", 0))) {
        d.n_ff_up = up->n_dims >= 2 && up->ne[1] == 2 * (int64_t) hp.n_ff ? 2 * (int64_t) hp.n_ff : 0;
    }
    d.ssm_d_conv   = hp.ssm_d_conv;
    d.ssm_d_inner  = hp.ssm_d_inner;
    d.ssm_d_state  = hp.ssm_d_state;
    d.ssm_n_head   = hp.ssm_dt_rank;
    d.ssm_n_group  = hp.ssm_n_group;
    d.shortconv_l  = hp.n_shortconv_l_cache;
    d.n_moe_latent = hp.n_moe_latent;
    d.n_layer      = hp.n_layer;
    d.n_embd_altup = hp.n_embd_altup;
    d.n_altup      = hp.n_altup;
    d.laurel_rank  = hp.laurel_rank;
    // with load_mtp (an architecture with an MTP graph), the NextN blocks after the decoder's too
    const llm_arch_ops * ops      = llm_arch_get_ops(model.arch);
    const bool           nextn    = model.params.load_mtp && ops && ops->build_mtp_graph && hp.n_layer_nextn > 0;
    const int            n_blocks = (int) (hp.n_layer + (nextn ? hp.n_layer_nextn : 0));
    d.n_layer_main                = nextn ? hp.n_layer : 0;

    // the first row of the usual spelling decides, per layer, which spelling the file uses
    const llm_tensor_layout * alt_a = nullptr;
    for (size_t i = 0; i < lay.n_rows && !alt_a; i++) {
        alt_a = lay.rows[i].when == LLM_TL_ALT_A ? &lay.rows[i] : nullptr;
    }

    model.layers.resize(n_blocks);
    auto create = [&](const llm_tensor_layout & r, int il) {
        const bool use_a = alt_a && tc.ml.get_weight(llm_tensor_name(alt_a->t, alt_a->suffix(), il)) != nullptr;
        if (!llm_tl_applies(r.when, d, il) || (r.when == LLM_TL_ALT_A && !use_a) || (r.when == LLM_TL_ALT_B && use_a) ||
            (r.when == LLM_TL_ATTN_LAYER && !hp.has_kv(il)) ||
            (r.when == LLM_TL_RECR_LAYER && !hp.is_recurrent_layer(il)) ||
            (llm_tl_ffn_layer_only(r.when) && !hp.is_ffn_only_layer(il))) {
            return;
        }
        std::vector<int64_t> ne;
        for (int k = 0; k < r.n_dims(); k++) {
            ne.push_back(d.value(r.ne[k]));
        }
        const bool    opt   = r.presence != LLM_TL_REQUIRED || (r.when == LLM_TL_NOT_FIRST && il == 0);
        const int     flags = opt ? LLAMA_TENSOR_NOT_REQUIRED : 0;
        ggml_tensor * t     = tc.create(r.t, ne, flags, il, r.suffix(), r.placement());
        const bool    bias  = r.kind == LLM_TL_BIAS;
        if (ggml_tensor ** f = il < 0 ? model_field(model, r.serves_as(), bias) : nullptr) {
            *f = t;
            return;
        }
        ggml_tensor * llama_layer::*field = layer_field(r.serves_as(), bias);
        if (!field) {  // a layout row the graph builders have no place for
            throw llama_error(llama_format("%s: no weight field for it", llm_tensor_name(r.t, r.suffix(), il).c_str()));
        }
        if (il >= 0) {
            model.layers[il].*field = t;
        } else {  // one weight for all layers
            for (llama_layer & l : model.layers) {
                l.*field = t;
            }
        }
    };
    for (size_t i = 0; i < lay.n_rows;) {
        if (!llm_tensor_is_per_layer(lay.rows[i].t)) {
            create(lay.rows[i++], -1);
            continue;
        }
        size_t end = i;  // a run of block rows, repeated for every layer
        while (end < lay.n_rows && llm_tensor_is_per_layer(lay.rows[end].t)) {
            end++;
        }
        for (int il = 0; il < n_blocks; il++) {
            for (size_t k = i; k < end; k++) {
                create(lay.rows[k], il);
            }
        }
        i = end;
    }
    if (!lay.encoder && !model.output) {
        model.output = model.tok_embd;  // tied: the LM head is the token embeddings
    }
    load_weight_scales(model, tc);
}
