// modern-bert: ModernBERT embedding and reranker models. Pre-norm blocks without biases (layer
// norms without bias): the first block has no attention norm (the identity). Fused qkv, NEOX RoPE;
// layers alternate global attention and a local window centred on the token (|i - j| <= window / 2,
// one global layer every sliding_window_pattern layers starting with the first), the local ones with
// their own rope base (rope.freq_base_swa, 10000 when absent). The feed-forward is GeGLU (SwiGLU for
// a "silu" hidden_activation) with gate and up fused in ffn_up. An embedding norm and a final norm.
// Rerankers (pooling RANK): the mean of the tokens through cls + GELU, cls.norm and cls.output
// (llama-pooling.cpp).
#include "models.h"

#include "llama-graph.h"
#include "llama-log.h"
#include "llama-model-loader.h"
#include "llama-model.h"

#include <cmath>
#include <string>

static void modern_bert_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_EPS, hp.f_norm_eps);
    hp.causal_attn = false;
    ml.get_key(LLM_KV_ATTENTION_CAUSAL, hp.causal_attn, false);
    hp.rope_type      = LLAMA_ROPE_TYPE_NEOX;
    hp.rank_mean_gelu = true;

    uint32_t n_swa = 0;
    if (ml.get_key(LLM_KV_ATTENTION_SLIDING_WINDOW, n_swa, false) && n_swa > 0) {
        hp.n_swa         = n_swa;
        hp.swa_symmetric = true;
        // the local layers rotate with their own base, upstream's default when the file has none
        hp.rope_freq_base_train_swa = 10000.0f;
        ml.get_key(LLM_KV_ROPE_FREQ_BASE_SWA, hp.rope_freq_base_train_swa, false);
        uint32_t period = 3;  // ModernBERT's global_attn_every_n_layers
        ml.get_key(LLM_KV_ATTENTION_SLIDING_WINDOW_PATTERN, period, false);
        hp.set_swa_pattern(period, true);  // layer 0, period, 2 period, ... are global
    }

    std::string act;
    if (ml.get_key(LLM_KV_HIDDEN_ACT, act, false)) {
        if (act == "silu" || act == "swish" || act == "swiglu") {
            hp.ffn_glu_silu = true;
        } else if (act != "gelu" && act != "geglu") {
            // upstream falls back to GeGLU for names it does not know; "relu" it would run as a
            // plain ReLU, which cannot fit the fused 2 n_ff projection
            if (act == "relu" || act == "reglu") {
                throw llama_error("modern-bert: hidden_activation '" + act + "' is not supported");
            }
        }
    }
}

static void modern_bert_build_graph(llm_graph_context & g) {
    const llama_model &   model    = g.model;
    const llama_hparams & hp       = g.hparams;
    ggml_context *        ctx0     = g.ctx0;
    const int64_t         head_dim = hp.n_embd_head_k;
    const int64_t         n_tokens = g.n_tokens;
    const int64_t         n_q      = head_dim * hp.n_head;
    const int64_t         n_k      = hp.n_embd_k_gqa();
    const int64_t         n_v      = hp.n_embd_v_gqa();
    const float           kq_scale = 1.0f / sqrtf((float) head_dim);

    ggml_tensor * inp_pos = g.build_inp_pos();
    ggml_tensor * inpL    = g.build_inp_embd(model.tok_embd);
    inpL                  = g.build_norm(inpL, model.tok_norm, nullptr, LLM_NORM, -1);
    g.cb(inpL, "inp_norm", -1);

    g.build_attn_inp();
    ggml_tensor * inp_out_ids = g.build_inp_out_ids();

    for (int il = 0; il < (int) hp.n_layer; il++) {
        const llama_layer & l   = model.layers[il];
        ggml_tensor *       cur = inpL;
        if (l.attn_norm) {
            cur = g.build_norm(cur, l.attn_norm, nullptr, LLM_NORM, il);
            g.cb(cur, "attn_norm", il);
        }
        ggml_tensor * qkv = g.build_lora_mm(l.wqkv, cur, l.bqkv);
        const size_t  es  = ggml_element_size(qkv);
        const size_t  nb1 = qkv->nb[1];
        ggml_tensor * q   = ggml_cont(ctx0, ggml_view_2d(ctx0, qkv, n_q, n_tokens, nb1, 0));
        ggml_tensor * k   = ggml_cont(ctx0, ggml_view_2d(ctx0, qkv, n_k, n_tokens, nb1, es * n_q));
        ggml_tensor * v   = ggml_cont(ctx0, ggml_view_2d(ctx0, qkv, n_v, n_tokens, nb1, es * (n_q + n_k)));
        q                 = ggml_reshape_3d(ctx0, q, head_dim, hp.n_head, n_tokens);
        k                 = ggml_reshape_3d(ctx0, k, head_dim, hp.n_head_kv, n_tokens);
        q                 = g.build_rope(q, inp_pos, nullptr, il);  // the local layers' own base
        k                 = g.build_rope(k, inp_pos, nullptr, il);
        g.cb(q, "Qcur", il);
        g.cb(k, "Kcur", il);
        g.cb(v, "Vcur", il);

        cur = g.build_attn(l.wo, l.bo, q, k, v, kq_scale, il);

        ggml_tensor * residual = inpL;
        if (il == (int) hp.n_layer - 1 && inp_out_ids) {
            cur      = ggml_get_rows(ctx0, cur, inp_out_ids);
            residual = ggml_get_rows(ctx0, residual, inp_out_ids);
        }
        ggml_tensor * ffn_inp = ggml_add(ctx0, cur, residual);
        g.cb(ffn_inp, "ffn_inp", il);
        cur = g.build_norm(ffn_inp, l.ffn_norm, nullptr, LLM_NORM, il);
        g.cb(cur, "ffn_norm", il);
        cur = g.build_ffn(cur, l.ffn_up, nullptr, nullptr, nullptr, l.ffn_down, nullptr,
                          hp.ffn_glu_silu ? LLM_FFN_SWIGLU_FUSED : LLM_FFN_GEGLU_FUSED, LLM_FFN_SEQ, il);
        cur = ggml_add(ctx0, cur, ffn_inp);
        cur = g.build_cvec(cur, il);
        g.cb(cur, "l_out", il);
        inpL = cur;
    }

    ggml_tensor * cur = g.build_norm(inpL, model.output_norm, nullptr, LLM_NORM, -1);
    g.cb(cur, "result_embd", -1);
    g.set_result(cur, nullptr);  // no LM head
}

const llm_arch_ops llm_ops_modern_bert = {
    LLM_ARCH_MODERN_BERT,
    modern_bert_load_hparams,
    modern_bert_build_graph,
};
