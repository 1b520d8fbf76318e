// The layout tables' symbolic dimensions and row conditions evaluated for one model (the tables
// themselves are in llama-arch-layout-*.h).
#include "llama-arch-layout.h"

int64_t llm_layout_dims::value(llm_dim d) const {
    switch (d) {
        case LLM_DIM_NONE:
            return 1;
        case LLM_DIM_EMBD:
            return n_embd;
        case LLM_DIM_VOCAB:
            return n_vocab;
        case LLM_DIM_FF:
            return n_ff;
        case LLM_DIM_FF_X2:
            return 2 * n_ff;
        case LLM_DIM_FF_EXP:
            return n_ff_exp > 0 ? n_ff_exp : n_ff;
        case LLM_DIM_EXPERT:
            return n_expert;
        case LLM_DIM_HEAD:
            return n_head;
        case LLM_DIM_HEAD_K:
            return n_embd_head_k;
        case LLM_DIM_Q:
            return n_head * n_embd_head_k;
        case LLM_DIM_K:
            return n_head_kv * n_embd_head_k;
        case LLM_DIM_V:
            return n_head_kv * n_embd_head_v;
        case LLM_DIM_QKV:
            return n_head * n_embd_head_k + n_head_kv * (n_embd_head_k + n_embd_head_v);
        case LLM_DIM_ROT_HALF:
            return n_rot / 2;
        case LLM_DIM_CTX:
            return n_ctx_train;
        case LLM_DIM_TOKEN_TYPES:
            return n_token_types;
        case LLM_DIM_CLS_OUT:
            return n_cls_out;
        case LLM_DIM_DENSE_OUT:
            return n_dense_out;
        case LLM_DIM_FF_SHEXP:
            return n_ff_shexp;
        case LLM_DIM_ONE:
            return 1;
        case LLM_DIM_SSM_CONV:
            return ssm_d_conv;
        case LLM_DIM_SSM_INNER:
            return ssm_d_inner;
        case LLM_DIM_SSM_HEADS:
            return ssm_n_head;
        case LLM_DIM_SSM_GROUPS:
            return ssm_n_group;
        case LLM_DIM_SSM_CONV_CH:
            return ssm_d_inner + 2 * ssm_n_group * ssm_d_state;
        case LLM_DIM_SSM_IN:
            return 2 * ssm_d_inner + 2 * ssm_n_group * ssm_d_state + ssm_n_head;
        case LLM_DIM_SSM_GROUP_W:
            return ssm_n_group > 0 ? ssm_d_inner / ssm_n_group : 0;
        case LLM_DIM_FF_UP:
            return n_ff_up > 0 ? n_ff_up : n_ff;
        case LLM_DIM_SHORTCONV_L:
            return shortconv_l;
        case LLM_DIM_EMBD_X3:
            return 3 * n_embd;
        case LLM_DIM_Q_LORA:
            return n_lora_q;
        case LLM_DIM_KV_LORA:
            return n_lora_kv;
        case LLM_DIM_KV_A_MQA:
            return n_lora_kv + n_rot;
        case LLM_DIM_Q_MLA:
            return n_head * n_embd_head_k_mla;
        case LLM_DIM_HEAD_QK_NOPE:
            return n_embd_head_k_mla - n_rot;
        case LLM_DIM_HEAD_V_MLA:
            return n_embd_head_v_mla;
        case LLM_DIM_O_MLA:
            return n_head * n_embd_head_v_mla;
        case LLM_DIM_KV_B:
            return n_head * (n_embd_head_k_mla - n_rot + n_embd_head_v_mla);
        case LLM_DIM_EMBD_X2:
            return 2 * n_embd;
        case LLM_DIM_FF_EXP_X2:
            return 2 * (n_ff_exp ? n_ff_exp : n_ff);
        case LLM_DIM_Q_GATED:
            return 2 * n_head * n_embd_head_k;
        case LLM_DIM_SSM_HEADS_X2:
            return 2 * ssm_n_head;
        case LLM_DIM_SSM_STATE:
            return ssm_d_state;
        case LLM_DIM_MOE_EMBD:
            return n_moe_latent > 0 ? n_moe_latent : n_embd;
        case LLM_DIM_MOE_LATENT:
            return n_moe_latent;
        case LLM_DIM_ALTUP:
            return n_embd_altup;
        case LLM_DIM_ALTUP_ALL:
            return n_embd_altup * n_layer;
        case LLM_DIM_N_ALTUP:
            return n_altup;
        case LLM_DIM_N_ALTUP_M1:
            return n_altup - 1;
        case LLM_DIM_N_ALTUP_SQ:
            return n_altup * n_altup;
        case LLM_DIM_LAUREL:
            return laurel_rank;
    }
    return 0;
}

bool llm_tl_applies(llm_tl_when w, const llm_layout_dims & d, int il) {
    const bool moe = d.n_expert > 0 && (il < 0 || il >= d.n_layer_dense_lead);
    switch (w) {
        case LLM_TL_DENSE:
            return !moe;
        case LLM_TL_MOE:
            return moe;
        case LLM_TL_SHEXP:
            return moe && d.n_ff_shexp > 0;
        case LLM_TL_Q_LORA:
            return d.n_lora_q > 0;
        case LLM_TL_Q_FULL:
            return d.n_lora_q == 0;
        case LLM_TL_KV_SPLIT:
            return !d.mla_kv_fused;
        case LLM_TL_KV_FUSED:
            return d.mla_kv_fused;
        case LLM_TL_NEXTN:
            return d.n_layer_main > 0 && il >= d.n_layer_main;
        case LLM_TL_MOE_SPLIT:
            return moe && !d.exps_gate_up_fused;
        case LLM_TL_MOE_FUSED:
            return moe && d.exps_gate_up_fused;
        // and a feed-forward-only block: the caller decides that part
        case LLM_TL_FFN_MOE:
            return d.n_expert > 0;
        case LLM_TL_FFN_DENSE:
            return d.n_expert == 0;
        case LLM_TL_FFN_LATENT:
            return d.n_expert > 0 && d.n_moe_latent > 0;
        case LLM_TL_ALWAYS:
        case LLM_TL_ALT_A:
        case LLM_TL_ALT_B:
        // decided by the caller: the first block's optional weight (NOT_FIRST), the kind of each layer
        // of a hybrid model (hparams / the generator's per-layer flags)
        case LLM_TL_NOT_FIRST:
        case LLM_TL_ATTN_LAYER:
        case LLM_TL_RECR_LAYER:
        case LLM_TL_FFN_LAYER:
            return true;
    }
    return false;
}

bool llm_arch_layout::has(llm_tl_presence p) const {
    for (size_t i = 0; i < n_rows; i++) {
        if (rows[i].presence == p) {
            return true;
        }
    }
    return false;
}

bool llm_arch_layout::has(llm_tl_when w) const {
    for (size_t i = 0; i < n_rows; i++) {
        if (rows[i].when == w) {
            return true;
        }
    }
    return false;
}
