#include "decoder.h"

#include "llama-model-loader.h"

#include <cmath>

// Adds the selected experts' bias rows: b [n, n_expert], ids I32 [n_used, n_tokens], x [n, n_used, n_tokens].
static ggml_tensor * add_expert_bias(ggml_context * ctx, ggml_tensor * x, ggml_tensor * b, ggml_tensor * ids) {
    if (!b) {
        return x;
    }
    ggml_tensor * rows = ggml_get_rows(ctx, b, ggml_reshape_1d(ctx, ids, ggml_nelements(ids)));
    return ggml_add(ctx, x, ggml_reshape_3d(ctx, rows, x->ne[0], x->ne[1], x->ne[2]));
}

// Multiplies by the selected experts' per-tensor scales: s [n_expert] (or none), x [n, n_used, n_tokens].
static ggml_tensor * mul_expert_scale(ggml_context * ctx, ggml_tensor * x, ggml_tensor * s, ggml_tensor * ids) {
    if (!s) {
        return x;
    }
    ggml_tensor * rows = ggml_get_rows(ctx, ggml_reshape_2d(ctx, s, 1, ggml_nelements(s)),
                                       ggml_reshape_1d(ctx, ids, ggml_nelements(ids)));
    return ggml_mul(ctx, x, ggml_reshape_3d(ctx, rows, 1, x->ne[1], x->ne[2]));
}

ggml_tensor * llm_build_moe_ffn(llm_graph_context & g, const llama_layer & l, ggml_tensor * cur,
                                const llm_decoder_desc & d, int il, ggml_tensor * router_in) {
    ggml_context * ctx0     = g.ctx0;
    const int64_t  n_embd   = cur->ne[0];
    const int64_t  n_tokens = cur->ne[1];
    const int64_t  n_expert = g.hparams.n_expert;
    const int64_t  n_used   = g.hparams.n_expert_used;

    ggml_tensor * logits = g.build_lora_mm(l.ffn_gate_inp, router_in ? router_in : cur,
                                           l.ffn_gate_inp_b);  // [n_expert, n_tokens]
    g.cb(logits, "ffn_moe_logits", il);
    ggml_tensor * probs = g.hparams.expert_gating_sigmoid          ? ggml_sigmoid(ctx0, logits)
                          : d.moe_gating == LLM_MOE_GATING_SOFTMAX ? ggml_soft_max(ctx0, logits)
                                                                   : logits;
    g.cb(probs, "ffn_moe_probs", il);

    // the selection bias (deepseek-v3) picks the experts; their weights stay the unbiased scores
    ggml_tensor * sel = probs;
    if (l.ffn_exp_probs_b) {
        sel = ggml_add(ctx0, probs, l.ffn_exp_probs_b);
        g.cb(sel, "ffn_moe_probs_biased", il);
    }
    const int64_t n_groups = g.hparams.n_expert_groups;
    if (n_groups > 1 && n_tokens > 0) {
        // a group scores the sum of its two best experts; the experts of all but the best
        // n_group_used groups are masked out (-inf) before the top-k
        const int64_t n_per  = n_expert / n_groups;
        ggml_tensor * groups = ggml_reshape_3d(ctx0, sel, n_per, n_groups, n_tokens);
        ggml_tensor * best2  = ggml_cont(ctx0, ggml_top_k(ctx0, groups, 2));  // I32 [2, n_groups, n_tokens]
        ggml_tensor * score  = ggml_get_rows(ctx0, ggml_reshape_4d(ctx0, groups, 1, n_per, n_groups, n_tokens), best2);
        score = ggml_sum_rows(ctx0, ggml_reshape_3d(ctx0, score, 2, n_groups, n_tokens));  // [1, n_groups, n_tokens]
        score = ggml_reshape_2d(ctx0, score, n_groups, n_tokens);
        ggml_tensor * kept = ggml_cont(ctx0, ggml_top_k(ctx0, score, (int) g.hparams.n_group_used));
        g.cb(kept, "ffn_moe_group_topk", il);
        ggml_tensor * masked = ggml_scale_bias(ctx0, groups, 0.0f, -INFINITY);  // scores are finite
        masked               = ggml_set_rows(ctx0, masked, ggml_get_rows(ctx0, groups, kept), kept);
        sel                  = ggml_reshape_2d(ctx0, masked, n_expert, n_tokens);
        g.cb(sel, "ffn_moe_probs_masked", il);
    }

    ggml_tensor * selected = ggml_cont(ctx0, ggml_top_k(ctx0, sel, (int) n_used));  // I32 [n_used, n_tokens]
    g.cb(selected, "ffn_moe_topk", il);
    ggml_tensor * weights = ggml_get_rows(ctx0, ggml_reshape_3d(ctx0, probs, 1, n_expert, n_tokens), selected);
    g.cb(weights, "ffn_moe_weights", il);  // [1, n_used, n_tokens]
    if (d.moe_gating == LLM_MOE_GATING_SOFTMAX_WEIGHT) {
        weights = ggml_soft_max(ctx0, ggml_reshape_2d(ctx0, weights, n_used, n_tokens));
        weights = ggml_reshape_3d(ctx0, weights, 1, n_used, n_tokens);
        g.cb(weights, "ffn_moe_weights_softmax", il);
    }
    if (d.moe_norm_w || g.hparams.expert_weights_norm) {
        weights = ggml_reshape_2d(ctx0, weights, n_used, n_tokens);
        // a sum of sigmoid scores can be tiny: kept at least the smallest normal F16, as upstream
        weights = ggml_div(ctx0, weights, ggml_clamp(ctx0, ggml_sum_rows(ctx0, weights), 6.103515625e-5f, INFINITY));
        weights = ggml_reshape_3d(ctx0, weights, 1, n_used, n_tokens);
        g.cb(weights, "ffn_moe_weights_norm", il);
    }
    const float w_scale = g.hparams.expert_weights_scale;
    if (w_scale != 0.0f && w_scale != 1.0f) {
        weights = ggml_scale(ctx0, weights, w_scale);
        g.cb(weights, "ffn_moe_weights_scaled", il);
    }

    cur = ggml_reshape_3d(ctx0, cur, n_embd, 1, n_tokens);
    ggml_tensor *u, *gt = nullptr;
    if (d.moe_act == LLM_MOE_ACT_RELU_SQR) {
        u = ggml_mul_mat_id(ctx0, l.ffn_up_exps, cur, selected);  // [n_ff_exp, n_used, n_tokens]; no gate
        u = mul_expert_scale(ctx0, u, g.model.scale_of(l.ffn_up_exps), selected);
        u = add_expert_bias(ctx0, u, l.ffn_up_exps_b, selected);
    } else if (l.ffn_gate_up_exps) {
        // gate and up in one stack (rows: gate, up): one product, then its two halves
        ggml_tensor * gu = ggml_mul_mat_id(ctx0, l.ffn_gate_up_exps, cur, selected);  // [2 n_ff_exp, n_used, n_tokens]
        g.cb(gu, "ffn_moe_gate_up", il);
        const int64_t n_ff = gu->ne[0] / 2;
        // no rows (a ubatch without outputs, last layer): a view at the up half would start past the
        // empty tensor, so both views start at 0
        const size_t up_off = n_tokens > 0 ? n_ff * gu->nb[0] : 0;
        gt = ggml_cont(ctx0, ggml_view_3d(ctx0, gu, n_ff, gu->ne[1], gu->ne[2], gu->nb[1], gu->nb[2], 0));
        u  = ggml_cont(ctx0, ggml_view_3d(ctx0, gu, n_ff, gu->ne[1], gu->ne[2], gu->nb[1], gu->nb[2], up_off));
    } else {
        u  = ggml_mul_mat_id(ctx0, l.ffn_up_exps, cur, selected);  // [n_ff_exp, n_used, n_tokens]
        u  = mul_expert_scale(ctx0, u, g.model.scale_of(l.ffn_up_exps), selected);
        u  = add_expert_bias(ctx0, u, l.ffn_up_exps_b, selected);
        gt = ggml_mul_mat_id(ctx0, l.ffn_gate_exps, cur, selected);
        gt = mul_expert_scale(ctx0, gt, g.model.scale_of(l.ffn_gate_exps), selected);
        gt = add_expert_bias(ctx0, gt, l.ffn_gate_exps_b, selected);
    }
    g.cb(u, "ffn_moe_up", il);
    ggml_tensor * par;
    if (d.moe_act == LLM_MOE_ACT_RELU_SQR) {
        par = ggml_sqr(ctx0, ggml_relu(ctx0, u));
    } else if (d.moe_act == LLM_MOE_ACT_SWIGLU_OAI) {
        g.cb(gt, "ffn_moe_gate", il);
        const float   alpha = 1.702f, limit = 7.0f;  // gpt-oss's constants, as upstream
        ggml_tensor * x   = ggml_clamp(ctx0, gt, -INFINITY, limit);
        ggml_tensor * y   = ggml_clamp(ctx0, u, -limit, limit);
        ggml_tensor * glu = ggml_mul(ctx0, x, ggml_sigmoid(ctx0, ggml_scale(ctx0, x, alpha)));
        par               = ggml_mul(ctx0, glu, ggml_scale_bias(ctx0, y, 1.0f, 1.0f));
    } else {
        g.cb(gt, "ffn_moe_gate", il);
        par = ggml_swiglu_split(ctx0, gt, u);
    }
    g.cb(par, "ffn_moe_act", il);
    ggml_tensor * experts = ggml_mul_mat_id(ctx0, l.ffn_down_exps, par, selected);  // [n_embd, n_used, n_tokens]
    experts               = mul_expert_scale(ctx0, experts, g.model.scale_of(l.ffn_down_exps), selected);
    experts               = add_expert_bias(ctx0, experts, l.ffn_down_exps_b, selected);
    g.cb(experts, "ffn_moe_down", il);
    experts = ggml_mul(ctx0, experts, weights);
    g.cb(experts, "ffn_moe_weighted", il);

    ggml_tensor * out = nullptr;
    // a ubatch without outputs has no rows left in the last layer: a view past the first expert would
    // start beyond the (empty) tensor, and the sum of nothing is the first empty view
    const int64_t n_sum = n_tokens > 0 ? n_used : 1;
    for (int64_t e = 0; e < n_sum; e++) {
        ggml_tensor * v = ggml_view_2d(ctx0, experts, n_embd, n_tokens, experts->nb[2], e * experts->nb[1]);
        out             = out ? ggml_add(ctx0, out, v) : ggml_cont(ctx0, v);
    }
    g.cb(out, "ffn_moe_out", il);
    return out;
}

void llm_decoder_build_graph(const llm_decoder_desc & d, llm_graph_context & g) {
    const llama_model &   model = g.model;
    const llama_hparams & hp    = g.hparams;
    ggml_context *        ctx0  = g.ctx0;
    const float kq_scale = hp.f_attention_scale > 0.0f ? hp.f_attention_scale : 1.0f / sqrtf((float) hp.n_embd_head_k);

    ggml_tensor * inpL = g.build_inp_embd(model.tok_embd);
    if (d.embd_scale) {
        inpL = ggml_scale(ctx0, inpL, sqrtf((float) hp.n_embd));
        g.cb(inpL, "inp_scaled", -1);
    }
    if (hp.f_embedding_scale != 0.0f) {
        inpL = ggml_scale(ctx0, inpL, hp.f_embedding_scale);
        g.cb(inpL, "inp_scaled", -1);
    }
    ggml_tensor * inp_pos = g.build_inp_pos();
    g.build_attn_inp();
    if (g.rs) {
        g.build_inp_rs();  // a hybrid's recurrent layers
    }
    ggml_tensor * inp_out_ids    = g.build_inp_out_ids();
    ggml_tensor * inp_attn_scale = hp.f_attn_temp_scale != 0.0f ? g.build_inp_attn_scale() : nullptr;

    for (int il = 0; il < (int) hp.n_layer; il++) {
        const llama_layer & l     = model.layers[il];
        ggml_tensor *       inpSA = inpL;

        // a block without pre-norms (olmo2) normalises the outputs only (attn_post_norm, ffn_post_norm)
        ggml_tensor * cur = inpL;
        if (l.attn_norm) {
            cur = g.build_norm(inpL, l.attn_norm, nullptr, LLM_NORM_RMS, il);
            g.cb(cur, "attn_norm", il);
        }

        if (d.recurrent_mixer && hp.is_recurrent_layer(il)) {
            cur = d.recurrent_mixer(g, cur, il);
        } else {
            ggml_tensor *q, *k, *v;
            g.build_qkv_rope(l, cur, inp_pos, il, q, k, v);  // q/k norms and the layer's rope base included
            if (inp_attn_scale) {
                q = ggml_mul(ctx0, q, inp_attn_scale);
                g.cb(q, "Qcur_attn_temp_scaled", il);
            }
            cur = g.build_attn(l.wo, l.bo, q, k, v, kq_scale, il, l.attn_sinks);
        }

        if (il == (int) hp.n_layer - 1 && inp_out_ids) {
            // only the requested rows go through the last FFN and the head
            cur   = ggml_get_rows(ctx0, cur, inp_out_ids);
            inpSA = ggml_get_rows(ctx0, inpSA, inp_out_ids);
        }
        if (l.attn_post_norm) {
            cur = g.build_norm(cur, l.attn_post_norm, nullptr, LLM_NORM_RMS, il);
            g.cb(cur, "attn_post_norm", il);
        }
        if (hp.f_residual_scale != 0.0f) {
            cur = ggml_scale(ctx0, cur, hp.f_residual_scale);
        }

        ggml_tensor * ffn_inp = ggml_add(ctx0, cur, inpSA);
        g.cb(ffn_inp, "ffn_inp", il);

        cur = ffn_inp;
        if (l.ffn_norm) {
            cur = g.build_norm(ffn_inp, l.ffn_norm, nullptr, LLM_NORM_RMS, il);
            g.cb(cur, "ffn_norm", il);
        }
        if (l.ffn_gate_inp) {
            ggml_tensor * moe_in = cur;
            cur                  = llm_build_moe_ffn(g, l, moe_in, d, il);
            if (l.ffn_up_shexp) {  // the shared expert, unweighted (granitemoe)
                ggml_tensor * sh = g.build_ffn(moe_in, l.ffn_up_shexp, nullptr, l.ffn_gate_shexp, nullptr,
                                               l.ffn_down_shexp, nullptr, LLM_FFN_SILU, LLM_FFN_PAR, il);
                g.cb(sh, "ffn_shexp", il);
                cur = ggml_add(ctx0, cur, sh);
            }
        } else if (d.ffn_fused_gate_up) {
            cur = g.build_lora_mm(l.ffn_up, cur);  // [2 n_ff, n_tokens]
            g.cb(cur, "ffn_up", il);
            cur = ggml_glu(ctx0, cur, GGML_GLU_OP_SWIGLU, false);  // silu(gate half) * up half
            g.cb(cur, "ffn_act", il);
            cur = g.build_lora_mm(l.ffn_down, cur);
        } else {
            cur = g.build_ffn(cur, l.ffn_up, l.ffn_up_b, l.ffn_gate, l.ffn_gate_b, l.ffn_down, l.ffn_down_b, d.ffn_op,
                              LLM_FFN_PAR, il);
        }
        if (l.ffn_post_norm) {
            cur = g.build_norm(cur, l.ffn_post_norm, nullptr, LLM_NORM_RMS, il);
            g.cb(cur, "ffn_post_norm", il);
        }
        if (hp.f_residual_scale != 0.0f) {
            cur = ggml_scale(ctx0, cur, hp.f_residual_scale);
        }
        cur = ggml_add(ctx0, cur, ffn_inp);
        cur = g.build_cvec(cur, il);  // control vector, if one is set
        g.cb(cur, "l_out", il);
        inpL = cur;
    }

    g.build_output(inpL);
}

ggml_tensor * llm_build_ffn_moe_shexp(llm_graph_context & g, const llama_layer & l, ggml_tensor * cur,
                                      const llm_decoder_desc & d, int il) {
    if (!g.hparams.is_moe_layer(il)) {
        return g.build_ffn(cur, l.ffn_up, nullptr, l.ffn_gate, nullptr, l.ffn_down, nullptr, LLM_FFN_SILU, LLM_FFN_PAR,
                           il);
    }
    ggml_tensor * routed = llm_build_moe_ffn(g, l, cur, d, il);
    if (!l.ffn_up_shexp) {  // expert_shared_count 0: none
        return routed;
    }
    ggml_tensor * shared = g.build_ffn(cur, l.ffn_up_shexp, nullptr, l.ffn_gate_shexp, nullptr, l.ffn_down_shexp,
                                       nullptr, LLM_FFN_SILU, LLM_FFN_PAR, il);
    g.cb(shared, "ffn_shexp", il);
    return ggml_add(g.ctx0, routed, shared);
}

ggml_tensor * llm_build_shexp_block_tail(llm_graph_context & g, const llama_layer & l, ggml_tensor * mixer_out,
                                         ggml_tensor * res, ggml_tensor * out_ids, const llm_decoder_desc & d, int il) {
    ggml_tensor * cur = mixer_out;
    if (il == (int) g.hparams.n_layer - 1 && out_ids) {
        cur = ggml_get_rows(g.ctx0, cur, out_ids);  // only the rows asked for
        res = ggml_get_rows(g.ctx0, res, out_ids);
    }
    ggml_tensor * ffn_inp = ggml_add(g.ctx0, cur, res);
    g.cb(ffn_inp, "ffn_inp", il);
    cur = g.build_norm(ffn_inp, l.ffn_norm, nullptr, LLM_NORM_RMS, il);
    g.cb(cur, "ffn_norm", il);
    cur = llm_build_ffn_moe_shexp(g, l, cur, d, il);
    g.cb(cur, "ffn_out", il);
    cur = ggml_add(g.ctx0, cur, ffn_inp);
    cur = g.build_cvec(cur, il);
    g.cb(cur, "l_out", il);
    return cur;
}
