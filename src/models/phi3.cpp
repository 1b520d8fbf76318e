// Phi-3: pre-norm RMS blocks with a fused Q/K/V projection (attn_qkv, split with views) and a fused
// gate+up projection (ffn_up holds [gate; up], combined by a fused SwiGLU), NEOX-style RoPE and a
// separate LM head. LongRoPE (Phi-3 128k): optional rope_factors_long / rope_factors_short divide the
// pair frequencies; a context longer than rope.scaling.original_context_length takes the long ones
// (upstream's choice, made once per context), and rope.scaling.attn_factor scales the rotated q/k
// (applied through the context's yarn_attn_factor).
// Sliding window: phi3.attention.sliding_window is read into n_swa but not applied; the context
// refuses nothing, so a context larger than the window attends over more than the model was trained
// for (the synthetic model's window, 4096, is far above the 512 tokens the reference uses).
#include <cmath>

#include "llama-graph.h"
#include "llama-log.h"
#include "llama-model-loader.h"
#include "llama-model.h"
#include "models.h"

static void phi3_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    ml.get_key(LLM_KV_ATTENTION_SLIDING_WINDOW, hp.n_swa, false);
    hp.rope_type = LLAMA_ROPE_TYPE_NEOX;
}

static void phi3_build_graph(llm_graph_context & g) {
    const llama_model &   model    = g.model;
    const llama_hparams & hp       = g.hparams;
    ggml_context *        ctx0     = g.ctx0;
    const int64_t         n_tokens = g.n_tokens;
    const int64_t         head_dim = hp.n_embd_head_k;
    const int64_t         n_q      = head_dim * hp.n_head;
    const int64_t         n_k      = hp.n_embd_k_gqa();
    const int64_t         n_v      = hp.n_embd_v_gqa();

    ggml_tensor * inpL    = g.build_inp_embd(model.tok_embd);
    ggml_tensor * inp_pos = g.build_inp_pos();
    g.build_attn_inp();
    ggml_tensor * inp_out_ids = g.build_inp_out_ids();

    for (int il = 0; il < (int) hp.n_layer; il++) {
        const llama_layer & l        = model.layers[il];
        ggml_tensor *       residual = inpL;

        ggml_tensor * cur = g.build_norm(inpL, l.attn_norm, nullptr, LLM_NORM_RMS, il);
        g.cb(cur, "attn_norm", il);

        ggml_tensor *q, *k, *v;
        if (l.wqkv) {
            ggml_tensor * qkv = g.build_lora_mm(l.wqkv, cur);
            g.cb(qkv, "wqkv", il);
            const size_t es = ggml_element_size(qkv);
            // q, k and v are consecutive row ranges of each token's column; cont so rope and the cache
            // copy see dense tensors
            q = ggml_cont(ctx0, ggml_view_2d(ctx0, qkv, n_q, n_tokens, qkv->nb[1], 0));
            k = ggml_cont(ctx0, ggml_view_2d(ctx0, qkv, n_k, n_tokens, qkv->nb[1], es * n_q));
            v = ggml_cont(ctx0, ggml_view_2d(ctx0, qkv, n_v, n_tokens, qkv->nb[1], es * (n_q + n_k)));
        } else {  // separate projections (upstream's saver writes them so)
            q = g.build_lora_mm(l.wq, cur, l.bq);
            k = g.build_lora_mm(l.wk, cur, l.bk);
            v = g.build_lora_mm(l.wv, cur, l.bv);
        }
        g.cb(q, "Qcur", il);
        g.cb(k, "Kcur", il);
        g.cb(v, "Vcur", il);

        q = ggml_reshape_3d(ctx0, q, head_dim, hp.n_head, n_tokens);
        k = ggml_reshape_3d(ctx0, k, head_dim, hp.n_head_kv, n_tokens);
        // LongRoPE: the long factors once the context outgrows the original one (upstream compares the
        // per-sequence context; our cache is unified, so a sequence may fill all of n_ctx)
        ggml_tensor * rope_factors = model.rope_factors(g.cparams.n_ctx, il);
        q                          = g.build_rope(q, inp_pos, rope_factors);
        g.cb(q, "Qcur_rope", il);
        k = g.build_rope(k, inp_pos, rope_factors);
        g.cb(k, "Kcur_rope", il);

        cur = g.build_attn(l.wo, nullptr, q, k, v, 1.0f / sqrtf((float) head_dim), il);

        if (il == (int) hp.n_layer - 1 && inp_out_ids) {
            cur      = ggml_get_rows(ctx0, cur, inp_out_ids);
            residual = ggml_get_rows(ctx0, residual, inp_out_ids);
        }

        ggml_tensor * ffn_inp = ggml_add(ctx0, cur, residual);
        g.cb(ffn_inp, "ffn_inp", il);

        cur = g.build_norm(ffn_inp, l.ffn_norm, nullptr, LLM_NORM_RMS, il);
        g.cb(cur, "ffn_norm", il);
        cur = g.build_lora_mm(l.ffn_up, cur);  // [2*n_ff, n_tokens]
        g.cb(cur, "ffn_up", il);
        cur = ggml_glu(ctx0, cur, GGML_GLU_OP_SWIGLU, false);  // silu(gate half) * up half
        g.cb(cur, "ffn_act", il);
        cur = g.build_lora_mm(l.ffn_down, cur);
        g.cb(cur, "ffn_out", il);

        cur = ggml_add(ctx0, cur, ffn_inp);
        cur = g.build_cvec(cur, il);  // control vector, if one is set
        g.cb(cur, "l_out", il);
        inpL = cur;
    }

    g.build_output(inpL);
}

const llm_arch_ops llm_ops_phi3 = {
    LLM_ARCH_PHI3,
    phi3_load_hparams,
    phi3_build_graph,
};
