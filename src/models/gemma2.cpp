// Gemma 2: the Gemma block (embeddings scaled by sqrt(n_embd), GeGLU, NEOX RoPE, tied head, norm
// weights stored as 1 + w) plus RMS norms after attention and after the feed-forward, tanh
// soft-capping of the attention scores (attn_logit_softcapping) and of the final logits
// (final_logit_softcapping), and queries scaled by 1/sqrt(head_dim).
// Sliding window: every other layer attends over a local window (attention.sliding_window, 4096 in
// the released models): the even layers attend only to the last n_swa positions (their KQ mask says so).
#include <cmath>

#include "llama-graph.h"
#include "llama-model-loader.h"
#include "llama-model.h"
#include "models.h"

static void gemma2_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    ml.get_key(LLM_KV_ATTENTION_SLIDING_WINDOW, hp.n_swa, false);
    hp.set_swa_pattern(2);                 // even layers local, odd global
    hp.f_attn_logit_softcapping  = 50.0f;  // the released models' values when the keys are absent
    hp.f_final_logit_softcapping = 30.0f;
    ml.get_key(LLM_KV_ATTN_LOGIT_SOFTCAPPING, hp.f_attn_logit_softcapping, false);
    ml.get_key(LLM_KV_FINAL_LOGIT_SOFTCAPPING, hp.f_final_logit_softcapping, false);
    hp.rope_type = LLAMA_ROPE_TYPE_NEOX;
}

static void gemma2_load_tensors(llama_model & model, llama_tensor_creator & tc) {
    const llama_hparams & hp      = model.hparams;
    const int64_t         n_embd  = hp.n_embd;
    const int64_t         n_vocab = hp.n_vocab;
    const int64_t         n_ff    = hp.n_ff;
    const int64_t         n_q     = (int64_t) hp.n_embd_head_k * hp.n_head;
    const int64_t         n_k     = hp.n_embd_k_gqa();
    const int64_t         n_v     = hp.n_embd_v_gqa();

    model.tok_embd    = tc.create(LLM_TENSOR_TOKEN_EMBD, {n_embd, n_vocab});
    model.output_norm = tc.create(LLM_TENSOR_OUTPUT_NORM, {n_embd});
    model.output      = model.tok_embd;  // always tied

    model.layers.resize(hp.n_layer);
    for (int il = 0; il < (int) hp.n_layer; il++) {
        llama_layer & l  = model.layers[il];
        l.attn_norm      = tc.create(LLM_TENSOR_ATTN_NORM, {n_embd}, 0, il);
        l.wq             = tc.create(LLM_TENSOR_ATTN_Q, {n_embd, n_q}, 0, il);
        l.wk             = tc.create(LLM_TENSOR_ATTN_K, {n_embd, n_k}, 0, il);
        l.wv             = tc.create(LLM_TENSOR_ATTN_V, {n_embd, n_v}, 0, il);
        l.wo             = tc.create(LLM_TENSOR_ATTN_OUT, {n_q, n_embd}, 0, il);
        l.attn_post_norm = tc.create(LLM_TENSOR_ATTN_POST_NORM, {n_embd}, 0, il);

        l.ffn_norm      = tc.create(LLM_TENSOR_FFN_NORM, {n_embd}, 0, il);
        l.ffn_gate      = tc.create(LLM_TENSOR_FFN_GATE, {n_embd, n_ff}, 0, il);
        l.ffn_up        = tc.create(LLM_TENSOR_FFN_UP, {n_embd, n_ff}, 0, il);
        l.ffn_down      = tc.create(LLM_TENSOR_FFN_DOWN, {n_ff, n_embd}, 0, il);
        l.ffn_post_norm = tc.create(LLM_TENSOR_FFN_POST_NORM, {n_embd}, 0, il);
    }
}

// x -> cap * tanh(x * scale / cap)
static ggml_tensor * softcap(ggml_context * ctx, ggml_tensor * x, float scale, float cap) {
    x = ggml_scale(ctx, x, scale / cap);
    x = ggml_tanh(ctx, x);
    return ggml_scale(ctx, x, cap);
}

// build_attn with the scores soft-capped before the mask and softmax. Same cache protocol as
// llm_graph_context::build_attn: store this ubatch's K/V, then attend over the first n_kv cells.
static ggml_tensor * gemma2_attn(llm_graph_context & g, const llama_layer & l, ggml_tensor * q_cur, ggml_tensor * k_cur,
                                 ggml_tensor * v_cur, float kq_scale, int il) {
    ggml_context *        ctx0 = g.ctx0;
    const llama_hparams & hp   = g.hparams;
    const float           cap  = hp.f_attn_logit_softcapping;

    ggml_tensor * k2d = ggml_reshape_2d(ctx0, k_cur, hp.n_embd_k_gqa(), g.n_tokens);
    ggml_build_forward_expand(g.gf, g.kv.cpy_k(ctx0, k2d, g.res.inp.k_idxs, il));
    ggml_build_forward_expand(g.gf, g.kv.cpy_v(ctx0, v_cur, g.res.inp.v_idxs, il));

    ggml_tensor * q = ggml_permute(ctx0, q_cur, 0, 2, 1, 3);
    ggml_tensor * k = ggml_permute(ctx0, g.kv.get_k(ctx0, il, (uint32_t) g.n_kv), 0, 2, 1, 3);
    ggml_tensor * cur;
    if (g.params.flash_attn) {
        ggml_tensor * v = ggml_permute(ctx0, g.kv.get_v(ctx0, il, (uint32_t) g.n_kv), 0, 2, 1, 3);
        cur             = ggml_flash_attn_ext(ctx0, q, k, v, g.kq_mask(il), kq_scale, 0.0f, cap);
        g.cb(cur, "fattn", il);
        cur = ggml_reshape_2d(ctx0, cur, hp.n_embd_head_v * hp.n_head, g.n_tokens);
    } else {
        ggml_tensor * kq = ggml_mul_mat(ctx0, k, q);  // [n_kv, n_tokens, n_head]
        g.cb(kq, "kq", il);
        if (cap > 0.0f) {
            kq       = softcap(ctx0, kq, kq_scale, cap);
            kq_scale = 1.0f;
            g.cb(kq, "kq_softcap", il);
        }
        kq = ggml_soft_max_ext(ctx0, kq, g.kq_mask(il), kq_scale, 0.0f);
        g.cb(kq, "kq_soft_max", il);
        ggml_tensor * v   = g.kv.get_v(ctx0, il, (uint32_t) g.n_kv);
        ggml_tensor * kqv = ggml_mul_mat(ctx0, v, kq);
        g.cb(kqv, "kqv", il);
        cur = ggml_permute(ctx0, kqv, 0, 2, 1, 3);
        cur = ggml_cont_2d(ctx0, cur, hp.n_embd_head_v * hp.n_head, g.n_tokens);
    }
    g.cb(cur, "kqv_out", il);
    cur = g.build_lora_mm(l.wo, cur);
    g.cb(cur, "attn_out", il);
    return cur;
}

static void gemma2_build_graph(llm_graph_context & g) {
    const llama_model &   model    = g.model;
    const llama_hparams & hp       = g.hparams;
    ggml_context *        ctx0     = g.ctx0;
    const int64_t         head_dim = hp.n_embd_head_k;

    ggml_tensor * inpL = g.build_inp_embd(model.tok_embd);
    inpL               = ggml_scale(ctx0, inpL, sqrtf((float) hp.n_embd));
    g.cb(inpL, "inp_scaled", -1);
    ggml_tensor * inp_pos = g.build_inp_pos();
    g.build_attn_inp();
    ggml_tensor * inp_out_ids = g.build_inp_out_ids();

    for (int il = 0; il < (int) hp.n_layer; il++) {
        const llama_layer & l = model.layers[il];

        ggml_tensor * cur = g.build_norm(inpL, l.attn_norm, nullptr, LLM_NORM_RMS, il);
        g.cb(cur, "attn_norm", il);

        ggml_tensor *q, *k, *v;
        g.build_qkv_rope(l, cur, inp_pos, il, q, k, v);

        cur = gemma2_attn(g, l, q, k, v, 1.0f / sqrtf((float) head_dim), il);
        cur = g.build_norm(cur, l.attn_post_norm, nullptr, LLM_NORM_RMS, il);
        g.cb(cur, "attn_post_norm", il);

        if (il == (int) hp.n_layer - 1 && inp_out_ids) {
            cur  = ggml_get_rows(ctx0, cur, inp_out_ids);
            inpL = ggml_get_rows(ctx0, inpL, inp_out_ids);
        }

        ggml_tensor * sa_out = ggml_add(ctx0, cur, inpL);
        g.cb(sa_out, "sa_out", il);

        cur = g.build_norm(sa_out, l.ffn_norm, nullptr, LLM_NORM_RMS, il);
        g.cb(cur, "ffn_norm", il);
        cur = g.build_ffn(cur, l.ffn_up, nullptr, l.ffn_gate, nullptr, l.ffn_down, nullptr, LLM_FFN_GELU, LLM_FFN_PAR,
                          il);
        cur = g.build_norm(cur, l.ffn_post_norm, nullptr, LLM_NORM_RMS, il);
        g.cb(cur, "ffn_post_norm", il);
        cur = ggml_add(ctx0, cur, sa_out);
        g.cb(cur, "l_out", il);
        inpL = cur;
    }

    g.build_output(inpL);
}

const llm_arch_ops llm_ops_gemma2 = {
    LLM_ARCH_GEMMA2,
    gemma2_load_hparams,
    gemma2_load_tensors,
    gemma2_build_graph,
};
