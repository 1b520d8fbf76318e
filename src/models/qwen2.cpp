// Qwen2: the llama block with biases on the Q/K/V projections and NEOX-style RoPE (rotating the two
// halves of each head rather than interleaved pairs). The LM head is tied to the token embeddings
// when output.weight is absent.
#include <cmath>

#include "llama-graph.h"
#include "llama-model-loader.h"
#include "llama-model.h"
#include "models.h"

static void qwen2_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    hp.rope_type = LLAMA_ROPE_TYPE_NEOX;
}

static void qwen2_load_tensors(llama_model & model, llama_tensor_creator & tc) {
    const llama_hparams & hp      = model.hparams;
    const int64_t         n_embd  = hp.n_embd;
    const int64_t         n_vocab = hp.n_vocab;
    const int64_t         n_ff    = hp.n_ff;
    const int64_t         n_q     = (int64_t) hp.n_embd_head_k * hp.n_head;
    const int64_t         n_k     = hp.n_embd_k_gqa();
    const int64_t         n_v     = hp.n_embd_v_gqa();

    model.tok_embd    = tc.create(LLM_TENSOR_TOKEN_EMBD, {n_embd, n_vocab});
    model.output_norm = tc.create(LLM_TENSOR_OUTPUT_NORM, {n_embd});
    model.output      = tc.create(LLM_TENSOR_OUTPUT, {n_embd, n_vocab}, LLAMA_TENSOR_NOT_REQUIRED);
    if (!model.output) {
        model.output = model.tok_embd;  // tied embeddings (the small Qwen2 models)
    }

    model.layers.resize(hp.n_layer);
    for (int il = 0; il < (int) hp.n_layer; il++) {
        llama_layer & l = model.layers[il];
        l.attn_norm     = tc.create(LLM_TENSOR_ATTN_NORM, {n_embd}, 0, il);
        l.wq            = tc.create(LLM_TENSOR_ATTN_Q, {n_embd, n_q}, 0, il);
        l.wk            = tc.create(LLM_TENSOR_ATTN_K, {n_embd, n_k}, 0, il);
        l.wv            = tc.create(LLM_TENSOR_ATTN_V, {n_embd, n_v}, 0, il);
        l.wo            = tc.create(LLM_TENSOR_ATTN_OUT, {n_q, n_embd}, 0, il);
        // Q/K/V biases are part of the architecture (required), the output projection has none
        l.bq = tc.create(LLM_TENSOR_ATTN_Q, {n_q}, 0, il, "bias");
        l.bk = tc.create(LLM_TENSOR_ATTN_K, {n_k}, 0, il, "bias");
        l.bv = tc.create(LLM_TENSOR_ATTN_V, {n_v}, 0, il, "bias");

        l.ffn_norm = tc.create(LLM_TENSOR_FFN_NORM, {n_embd}, 0, il);
        l.ffn_gate = tc.create(LLM_TENSOR_FFN_GATE, {n_embd, n_ff}, 0, il);
        l.ffn_up   = tc.create(LLM_TENSOR_FFN_UP, {n_embd, n_ff}, 0, il);
        l.ffn_down = tc.create(LLM_TENSOR_FFN_DOWN, {n_ff, n_embd}, 0, il);
    }
}

static void qwen2_build_graph(llm_graph_context & g) {
    const llama_model &   model    = g.model;
    const llama_hparams & hp       = g.hparams;
    ggml_context *        ctx0     = g.ctx0;
    const int64_t         head_dim = hp.n_embd_head_k;
    const float           kq_scale = 1.0f / sqrtf((float) head_dim);

    ggml_tensor * inpL    = g.build_inp_embd(model.tok_embd);
    ggml_tensor * inp_pos = g.build_inp_pos();
    g.build_attn_inp();
    ggml_tensor * inp_out_ids = g.build_inp_out_ids();

    for (int il = 0; il < (int) hp.n_layer; il++) {
        const llama_layer & l     = model.layers[il];
        ggml_tensor *       inpSA = inpL;

        ggml_tensor * cur = g.build_norm(inpL, l.attn_norm, nullptr, LLM_NORM_RMS, il);
        g.cb(cur, "attn_norm", il);

        ggml_tensor *q, *k, *v;
        g.build_qkv_rope(l, cur, inp_pos, il, q, k, v);

        cur = g.build_attn(l.wo, nullptr, q, k, v, kq_scale, il);

        if (il == (int) hp.n_layer - 1 && inp_out_ids) {
            cur   = ggml_get_rows(ctx0, cur, inp_out_ids);
            inpSA = ggml_get_rows(ctx0, inpSA, inp_out_ids);
        }

        ggml_tensor * ffn_inp = ggml_add(ctx0, cur, inpSA);
        g.cb(ffn_inp, "ffn_inp", il);

        cur = g.build_norm(ffn_inp, l.ffn_norm, nullptr, LLM_NORM_RMS, il);
        g.cb(cur, "ffn_norm", il);
        cur = g.build_ffn(cur, l.ffn_up, nullptr, l.ffn_gate, nullptr, l.ffn_down, nullptr, LLM_FFN_SILU, LLM_FFN_PAR,
                          il);
        cur = ggml_add(ctx0, cur, ffn_inp);
        g.cb(cur, "l_out", il);
        inpL = cur;
    }

    g.build_output(inpL);
}

const llm_arch_ops llm_ops_qwen2 = {
    LLM_ARCH_QWEN2,
    qwen2_load_hparams,
    qwen2_load_tensors,
    qwen2_build_graph,
};
