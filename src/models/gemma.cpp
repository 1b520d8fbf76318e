// Gemma (v1): the llama block shape with token embeddings scaled by sqrt(n_embd), a GELU(tanh)-gated
// feed-forward (GeGLU), NEOX-style RoPE and the LM head tied to the embeddings. Gemma's RMS norms
// multiply by (1 + w); GGUF converters store w + 1 already, so the graph multiplies by the stored
// weight like every other architecture. Head size comes from key_length (it may differ from
// n_embd / n_head).
#include <cmath>

#include "llama-graph.h"
#include "llama-model-loader.h"
#include "llama-model.h"
#include "models.h"

static void gemma_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    hp.rope_type = LLAMA_ROPE_TYPE_NEOX;
}

static void gemma_load_tensors(llama_model & model, llama_tensor_creator & tc) {
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
        llama_layer & l = model.layers[il];
        l.attn_norm     = tc.create(LLM_TENSOR_ATTN_NORM, {n_embd}, 0, il);
        l.wq            = tc.create(LLM_TENSOR_ATTN_Q, {n_embd, n_q}, 0, il);
        l.wk            = tc.create(LLM_TENSOR_ATTN_K, {n_embd, n_k}, 0, il);
        l.wv            = tc.create(LLM_TENSOR_ATTN_V, {n_embd, n_v}, 0, il);
        l.wo            = tc.create(LLM_TENSOR_ATTN_OUT, {n_q, n_embd}, 0, il);

        l.ffn_norm = tc.create(LLM_TENSOR_FFN_NORM, {n_embd}, 0, il);
        l.ffn_gate = tc.create(LLM_TENSOR_FFN_GATE, {n_embd, n_ff}, 0, il);
        l.ffn_up   = tc.create(LLM_TENSOR_FFN_UP, {n_embd, n_ff}, 0, il);
        l.ffn_down = tc.create(LLM_TENSOR_FFN_DOWN, {n_ff, n_embd}, 0, il);
    }
}

static void gemma_build_graph(llm_graph_context & g) {
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

        cur = g.build_attn(l.wo, nullptr, q, k, v, 1.0f / sqrtf((float) head_dim), il);

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
        cur = ggml_add(ctx0, cur, sa_out);
        g.cb(cur, "l_out", il);
        inpL = cur;
    }

    g.build_output(inpL);
}

const llm_arch_ops llm_ops_gemma = {
    LLM_ARCH_GEMMA,
    gemma_load_hparams,
    gemma_load_tensors,
    gemma_build_graph,
};
