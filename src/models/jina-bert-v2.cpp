// jina-bert-v2: the encoder of jina-embeddings-v2 and the jina-reranker-v1 turbo/tiny models.
// bert's post-norm blocks without position embeddings: attention takes an ALiBi bias instead
// (each head adds slope * -|i - j|, max bias 8, always bidirectional). Optional layer norms of q and
// k over the whole projection and a second post-attention norm (re-adding the block input). The
// feed-forward is GEGLU: gate and up fused in ffn_up (gelu(first half) * second half), or a separate
// ffn_gate, or plain GELU when up is n_ff wide and there is no gate. Rerankers: cls (embd, 1) + tanh
// (llama-pooling.cpp).
#include "models.h"

#include "llama-graph.h"
#include "llama-model-loader.h"
#include "llama-model.h"

#include <cmath>

static void jina_bert_v2_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_EPS, hp.f_norm_eps);
    // bidirectional unless the file says otherwise (as bert); the fixed ALiBi bias of the released models
    hp.causal_attn = false;
    ml.get_key(LLM_KV_ATTENTION_CAUSAL, hp.causal_attn, false);
    hp.f_max_alibi_bias = 8.0f;
    hp.rope_type        = LLAMA_ROPE_TYPE_NONE;
}

static void jina_bert_v2_build_graph(llm_graph_context & g) {
    const llama_model &   model    = g.model;
    const llama_hparams & hp       = g.hparams;
    ggml_context *        ctx0     = g.ctx0;
    const int64_t         head_dim = hp.n_embd_head_k;
    const int64_t         n_tokens = g.n_tokens;
    const int64_t         n_q      = head_dim * hp.n_head;
    const int64_t         n_k      = hp.n_embd_k_gqa();
    const int64_t         n_v      = hp.n_embd_v_gqa();
    const float           kq_scale = 1.0f / sqrtf((float) head_dim);

    ggml_tensor * inpL = g.build_inp_embd(model.tok_embd);
    if (model.type_embd) {
        // every token is type 0, as upstream
        inpL = ggml_add(ctx0, inpL, ggml_view_1d(ctx0, model.type_embd, hp.n_embd, 0));
    }
    g.cb(inpL, "inp_embd_sum", -1);
    inpL = g.build_norm(inpL, model.tok_norm, model.tok_norm_b, LLM_NORM, -1);
    g.cb(inpL, "inp_norm", -1);

    g.build_attn_inp();
    ggml_tensor * inp_out_ids = g.build_inp_out_ids();

    for (int il = 0; il < (int) hp.n_layer; il++) {
        const llama_layer & l = model.layers[il];
        ggml_tensor *       q;
        ggml_tensor *       k;
        ggml_tensor *       v;
        if (l.wqkv) {
            ggml_tensor * qkv = g.build_lora_mm(l.wqkv, inpL, l.bqkv);
            const size_t  es  = ggml_element_size(qkv);
            const size_t  nb1 = qkv->nb[1];
            q                 = ggml_cont(ctx0, ggml_view_2d(ctx0, qkv, n_q, n_tokens, nb1, 0));
            k                 = ggml_cont(ctx0, ggml_view_2d(ctx0, qkv, n_k, n_tokens, nb1, es * n_q));
            v                 = ggml_cont(ctx0, ggml_view_2d(ctx0, qkv, n_v, n_tokens, nb1, es * (n_q + n_k)));
        } else {
            q = g.build_lora_mm(l.wq, inpL, l.bq);
            k = g.build_lora_mm(l.wk, inpL, l.bk);
            v = g.build_lora_mm(l.wv, inpL, l.bv);
        }
        // layer norms over the whole q / k projection (with bias), before the split into heads
        if (l.attn_q_norm) {
            q = g.build_norm(q, l.attn_q_norm, l.attn_q_norm_b, LLM_NORM, il);
        }
        if (l.attn_k_norm) {
            k = g.build_norm(k, l.attn_k_norm, l.attn_k_norm_b, LLM_NORM, il);
        }
        q = ggml_reshape_3d(ctx0, q, head_dim, hp.n_head, n_tokens);
        k = ggml_reshape_3d(ctx0, k, head_dim, hp.n_head_kv, n_tokens);
        g.cb(q, "Qcur", il);
        g.cb(k, "Kcur", il);
        g.cb(v, "Vcur", il);

        ggml_tensor * cur = g.build_attn(l.wo, l.bo, q, k, v, kq_scale, il);

        ggml_tensor * residual = inpL;
        if (il == (int) hp.n_layer - 1 && inp_out_ids) {
            cur      = ggml_get_rows(ctx0, cur, inp_out_ids);
            residual = ggml_get_rows(ctx0, residual, inp_out_ids);
        }
        cur = ggml_add(ctx0, cur, residual);
        cur = g.build_norm(cur, l.attn_out_norm, l.attn_out_norm_b, LLM_NORM, il);
        if (l.attn_norm_2) {
            cur = ggml_add(ctx0, cur, residual);  // the block input once more, as upstream
            cur = g.build_norm(cur, l.attn_norm_2, l.attn_norm_2_b, LLM_NORM, il);
        }
        g.cb(cur, "attn_out_norm", il);

        ggml_tensor * ffn_inp = cur;
        // up twice n_ff wide without a gate: both halves of GEGLU in one product
        const bool fused = !l.ffn_gate && l.ffn_up->ne[1] == 2 * (int64_t) hp.n_ff;
        cur              = g.build_ffn(cur, l.ffn_up, l.ffn_up_b, l.ffn_gate, nullptr, l.ffn_down, l.ffn_down_b,
                          fused ? LLM_FFN_GEGLU_FUSED : LLM_FFN_GELU, LLM_FFN_PAR, il);
        cur              = ggml_add(ctx0, cur, ffn_inp);
        cur              = g.build_norm(cur, l.layer_out_norm, l.layer_out_norm_b, LLM_NORM, il);
        cur              = g.build_cvec(cur, il);
        g.cb(cur, "l_out", il);
        inpL = cur;
    }

    g.cb(inpL, "result_embd", -1);
    g.set_result(inpL, nullptr);  // no LM head
}

const llm_arch_ops llm_ops_jina_bert_v2 = {
    LLM_ARCH_JINA_BERT_V2,
    jina_bert_v2_load_hparams,
    jina_bert_v2_build_graph,
};
