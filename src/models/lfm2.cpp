// LFM2 (Liquid): a hybrid decoder. Every block is a pre-norm mixer and a SwiGLU feed-forward; the
// mixer is either GQA attention with per-head q/k RMS norms (the layers with KV heads in
// attention.head_count_kv) or a short convolution (the layers with 0 there): in_proj gives B, C and
// x; B x goes through a depthwise causal convolution whose last l_cache - 1 inputs are carried per
// sequence in the recurrent memory; C gates its output, out_proj projects it back. Attention K/V
// are in the KV cache, the conv states in the recurrent memory (llama-memory-hybrid.h). The final
// norm is stored as token_embd_norm. With attention.causal false (LFM2-ColBERT's bidirectional
// encoder) attention sees the whole ubatch and the convolution a window centred on the token.
// Embedding models may add a dense output projection (dense_2: llm_graph_context::build_embd_proj).
// lfm2moe (LFM2-8B-A1B) is the same decoder whose feed-forward,
// past the first leading_dense_block_count layers, is a mixture of experts: sigmoid router scores,
// a selection bias (exp_probs_b) that only picks the experts, the selected weights renormalised to
// sum 1 (decoder.cpp's llm_build_moe_ffn).
#include <cmath>

#include "decoder.h"
#include "llama-graph.h"
#include "llama-log.h"
#include "llama-model-loader.h"
#include "models.h"

static void lfm2_load_common(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_SHORTCONV_L_CACHE, hp.n_shortconv_l_cache);
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    // bounds that keep the conv state and its views in range (a hostile file must not reach them)
    if (hp.n_shortconv_l_cache < 2 || hp.n_shortconv_l_cache > 64) {
        throw llama_error(llama_format("invalid shortconv.l_cache %u (2..64)", hp.n_shortconv_l_cache));
    }
    if (!hp.causal_attn && hp.n_shortconv_l_cache % 2 == 0) {
        // a centred window needs an odd width (upstream's padding leaves one output short otherwise)
        throw llama_error(
            llama_format("attention.causal false needs an odd shortconv.l_cache, not %u", hp.n_shortconv_l_cache));
    }
    if (!hp.is_hybrid()) {
        // a file with a scalar head_count_kv has no convolution layers: upstream runs it as attention
        // only, and so do we (every layer then needs the attention weights)
        hp.recurrent_layers.assign(hp.n_layer, false);
    }
    hp.rope_type = LLAMA_ROPE_TYPE_NEOX;
}

static void lfm2_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    lfm2_load_common(ml, hp);
    hp.n_expert = 0;
}

static void lfm2moe_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    lfm2_load_common(ml, hp);
    ml.get_key(LLM_KV_LEADING_DENSE_BLOCK_COUNT, hp.n_layer_dense_lead, false);
    ml.get_key(LLM_KV_EXPERT_FEED_FORWARD_LENGTH, hp.n_ff_exp);
    uint32_t gating = 0;
    ml.get_key(LLM_KV_EXPERT_GATING_FUNC, gating);
    if (gating != 1 && gating != 2) {
        throw llama_error(llama_format("lfm2moe: expert_gating_func %u is not softmax (1) or sigmoid (2)", gating));
    }
    hp.expert_gating_sigmoid = gating == 2;
    if (hp.n_expert == 0 || hp.n_expert_used == 0 || hp.n_ff_exp == 0) {
        throw llama_error(
            llama_format("lfm2moe: needs experts (expert_count %u, expert_used_count %u, "
                         "expert_feed_forward_length %u)",
                         hp.n_expert, hp.n_expert_used, hp.n_ff_exp));
    }
    if (hp.n_layer_dense_lead > hp.n_layer) {
        throw llama_error("lfm2moe: leading_dense_block_count exceeds the block count");
    }
}

// The short-convolution mixer over cur [n_embd, n_tokens] (n_seqs sequences of n_st tokens each).
static ggml_tensor * lfm2_shortconv(llm_graph_context & g, ggml_tensor * cur, int il) {
    const llama_hparams & hp     = g.hparams;
    const llama_layer &   l      = g.model.layers[il];
    ggml_context *        ctx0   = g.ctx0;
    const int64_t         n_embd = hp.n_embd;
    const int64_t         d_conv = hp.n_shortconv_l_cache - 1;  // carried inputs
    const int64_t         n_seqs = g.params.n_seqs;
    const int64_t         n_st   = g.n_tokens / n_seqs;

    if (l.shortconv_conv->type != GGML_TYPE_F32) {
        throw llama_error(llama_format("%s is %s; lfm2 needs it in F32", l.shortconv_conv->name,
                                       ggml_type_name(l.shortconv_conv->type)));
    }
    cur               = ggml_reshape_3d(ctx0, cur, n_embd, n_st, n_seqs);
    ggml_tensor * bcx = g.build_lora_mm(l.shortconv_in_proj, cur);  // [3 n_embd, n_st, n_seqs]: B, C, x
    g.cb(bcx, "shortconv_in_proj", il);
    const size_t  es = ggml_element_size(bcx);
    ggml_tensor * b  = ggml_view_3d(ctx0, bcx, n_embd, n_st, n_seqs, bcx->nb[1], bcx->nb[2], 0);
    ggml_tensor * c  = ggml_view_3d(ctx0, bcx, n_embd, n_st, n_seqs, bcx->nb[1], bcx->nb[2], n_embd * es);
    ggml_tensor * x  = ggml_view_3d(ctx0, bcx, n_embd, n_st, n_seqs, bcx->nb[1], bcx->nb[2], 2 * n_embd * es);

    // the carried inputs, then this ubatch's B x; the last d_conv columns are the new state
    ggml_tensor * r_all = g.rs->r_layer(il);  // [n_embd_r, n_slots]
    ggml_tensor * conv  = ggml_reshape_3d(ctx0, g.build_rs_read(r_all), d_conv, n_embd, n_seqs);
    ggml_tensor * bx_t  = ggml_transpose(ctx0, ggml_mul(ctx0, b, x));
    ggml_tensor * bx    = nullptr;
    if (hp.causal_attn) {
        bx = ggml_concat(ctx0, conv, bx_t, 0);
        g.build_rs_rows(bx);  // the state after each token is a window of bx (speculative rewinds)
    } else {
        // bidirectional (Lfm2BidirectionalModel): a window centred on the token, as upstream: the
        // state's last `pad` inputs before the ubatch, `pad` zeros after it. The zeros are a carried
        // column times 0 (the state is finite), as the core has no padding op.
        const int64_t pad  = d_conv / 2;
        const size_t  es_c = ggml_element_size(conv);
        ggml_tensor * left = ggml_cont(
            ctx0, ggml_view_3d(ctx0, conv, pad, n_embd, n_seqs, conv->nb[1], conv->nb[2], (d_conv - pad) * es_c));
        ggml_tensor * zeros = ggml_scale(ctx0, left, 0.0f);
        bx                  = ggml_concat(ctx0, ggml_concat(ctx0, left, bx_t, 0), zeros, 0);
    }
    ggml_tensor * last = ggml_view_3d(ctx0, bx, d_conv, n_embd, n_seqs, bx->nb[1], bx->nb[2],
                                      (bx->ne[0] - d_conv) * ggml_element_size(bx));
    g.build_rs_write(r_all, ggml_reshape_2d(ctx0, ggml_cont(ctx0, last), hp.n_embd_r(), n_seqs));

    ggml_tensor * y = ggml_ssm_conv(ctx0, bx, l.shortconv_conv);  // [n_embd, n_st, n_seqs]
    if (!y) {                                                     // the op logged why
        throw llama_error(llama_format("layer %d: shortconv.conv must be F32 [l_cache, n_embd]", il));
    }
    g.cb(y, "shortconv_conv", il);
    y = ggml_mul(ctx0, c, y);
    y = g.build_lora_mm(l.shortconv_out_proj, y);
    return ggml_reshape_2d(ctx0, y, n_embd, n_st * n_seqs);
}

static void lfm2_build_graph(llm_graph_context & g) {
    const llama_model &    model    = g.model;
    const llama_hparams &  hp       = g.hparams;
    ggml_context *         ctx0     = g.ctx0;
    const float            kq_scale = 1.0f / sqrtf((float) hp.n_embd_head_k);
    const llm_decoder_desc moe;  // softmax or sigmoid scores (hparams), weights renormalised, SwiGLU experts

    ggml_tensor * inpL    = g.build_inp_embd(model.tok_embd);
    ggml_tensor * inp_pos = g.build_inp_pos();
    g.build_attn_inp();
    if (g.rs) {
        g.build_inp_rs();
    }
    ggml_tensor * inp_out_ids = g.build_inp_out_ids();

    for (int il = 0; il < (int) hp.n_layer; il++) {
        const llama_layer & l   = model.layers[il];
        ggml_tensor *       cur = g.build_norm(inpL, l.attn_norm, nullptr, LLM_NORM_RMS, il);
        g.cb(cur, "attn_norm", il);
        if (hp.is_recurrent_layer(il)) {
            cur = lfm2_shortconv(g, cur, il);
        } else {
            ggml_tensor *q, *k, *v;
            g.build_qkv_rope(l, cur, inp_pos, il, q, k, v);  // the per-head q/k norms included
            cur = g.build_attn(l.wo, l.bo, q, k, v, kq_scale, il);
        }
        if (il == (int) hp.n_layer - 1 && inp_out_ids) {
            cur  = ggml_get_rows(ctx0, cur, inp_out_ids);  // only the rows asked for
            inpL = ggml_get_rows(ctx0, inpL, inp_out_ids);
        }
        ggml_tensor * ffn_inp = ggml_add(ctx0, cur, inpL);
        g.cb(ffn_inp, "ffn_inp", il);
        cur = g.build_norm(ffn_inp, l.ffn_norm, nullptr, LLM_NORM_RMS, il);
        if (hp.is_moe_layer(il)) {
            cur = llm_build_moe_ffn(g, l, cur, moe, il);
        } else {
            cur = g.build_ffn(cur, l.ffn_up, nullptr, l.ffn_gate, nullptr, l.ffn_down, nullptr, LLM_FFN_SILU,
                              LLM_FFN_PAR, il);
        }
        cur = ggml_add(ctx0, cur, ffn_inp);
        cur = g.build_cvec(cur, il);
        g.cb(cur, "l_out", il);
        inpL = cur;
    }
    g.build_output(inpL);
}

const llm_arch_ops llm_ops_lfm2 = {
    LLM_ARCH_LFM2,
    lfm2_load_hparams,
    lfm2_build_graph,
};

const llm_arch_ops llm_ops_lfm2moe = {
    LLM_ARCH_LFM2MOE,
    lfm2moe_load_hparams,
    lfm2_build_graph,
};
