// The BERT family of encoders (embedding and reranker models): bert and nomic-bert.
// Input = token embedding + token type 0 embedding (+ absolute position embedding for bert), then a
// layer norm. Post-norm blocks: bidirectional attention with biases (nomic-bert: fused QKV and NEOX
// RoPE) -> residual -> layer norm -> FFN (bert: GELU with biases; nomic-bert: SwiGLU) -> residual ->
// layer norm. No LM head: the result is the last block's output, pooled by the context
// (llama-pooling.cpp); rerankers add the cls / cls.output classifier head.
#include "models.h"

#include "llama-graph.h"
#include "llama-model-loader.h"
#include "llama-model.h"

#include <cmath>

static void bert_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_EPS, hp.f_norm_eps);
    // encoders attend both ways unless the file says otherwise
    hp.causal_attn = false;
    ml.get_key(LLM_KV_ATTENTION_CAUSAL, hp.causal_attn, false);
    hp.rope_type = LLAMA_ROPE_TYPE_NONE;
}

static void nomic_bert_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    bert_load_hparams(ml, hp);
    hp.rope_type = LLAMA_ROPE_TYPE_NEOX;
}

static void bert_build_graph(llm_graph_context & g) {
    const llama_model &   model    = g.model;
    const llama_hparams & hp       = g.hparams;
    ggml_context *        ctx0     = g.ctx0;
    const bool            nomic    = model.arch == LLM_ARCH_NOMIC_BERT;
    const int64_t         head_dim = hp.n_embd_head_k;
    const int64_t         n_tokens = g.n_tokens;
    const int64_t         n_q      = head_dim * hp.n_head;
    const int64_t         n_k      = hp.n_embd_k_gqa();
    const int64_t         n_v      = hp.n_embd_v_gqa();
    const float           kq_scale = 1.0f / sqrtf((float) head_dim);

    ggml_tensor * inp_pos = g.build_inp_pos();
    ggml_tensor * inpL    = g.build_inp_embd(model.tok_embd);
    if (model.type_embd) {
        // every token is type 0 ("sentence A"), as in llama.cpp
        inpL = ggml_add(ctx0, inpL, ggml_view_1d(ctx0, model.type_embd, hp.n_embd, 0));
    }
    if (model.pos_embd) {
        inpL = ggml_add(ctx0, inpL, ggml_get_rows(ctx0, model.pos_embd, inp_pos));
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
        q = ggml_reshape_3d(ctx0, q, head_dim, hp.n_head, n_tokens);
        k = ggml_reshape_3d(ctx0, k, head_dim, hp.n_head_kv, n_tokens);
        if (nomic) {
            q = g.build_rope(q, inp_pos, nullptr);
            k = g.build_rope(k, inp_pos, nullptr);
        }
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
        g.cb(cur, "attn_out_norm", il);

        ggml_tensor * ffn_inp = cur;
        if (nomic) {
            cur = g.build_ffn(cur, l.ffn_up, l.ffn_up_b, l.ffn_gate, nullptr, l.ffn_down, l.ffn_down_b, LLM_FFN_SILU,
                              LLM_FFN_PAR, il);
        } else {
            cur = g.build_ffn(cur, l.ffn_up, l.ffn_up_b, nullptr, nullptr, l.ffn_down, l.ffn_down_b, LLM_FFN_GELU,
                              LLM_FFN_SEQ, il);
        }
        cur = ggml_add(ctx0, cur, ffn_inp);
        cur = g.build_norm(cur, l.layer_out_norm, l.layer_out_norm_b, LLM_NORM, il);
        cur = g.build_cvec(cur, il);  // control vector, if one is set
        g.cb(cur, "l_out", il);
        inpL = cur;
    }

    g.cb(inpL, "result_embd", -1);
    g.set_result(inpL, nullptr);  // no LM head
}

const llm_arch_ops llm_ops_bert = {
    LLM_ARCH_BERT,
    bert_load_hparams,
    bert_build_graph,
};

const llm_arch_ops llm_ops_nomic_bert = {
    LLM_ARCH_NOMIC_BERT,
    nomic_bert_load_hparams,
    bert_build_graph,
};
