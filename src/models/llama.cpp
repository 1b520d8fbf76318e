// The llama family: llama 1/2/3, mistral, TinyLlama, stories; with expert_count > 0, Mixtral-style
// mixture of experts (softmax router, top expert_used_count, weights renormalised to sum 1).
// Pre-norm decoder blocks: RMS norm -> attention with RoPE (NORMAL pairs) and grouped-query K/V ->
// residual -> RMS norm -> SwiGLU feed-forward -> residual; final RMS norm and the LM head (tied to
// the token embeddings when output.weight is absent).
#include "decoder.h"
#include "models.h"

#include "llama-graph.h"
#include "llama-model-loader.h"
#include "llama-model.h"

#include <cmath>

static void llama_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    hp.rope_type = LLAMA_ROPE_TYPE_NORM;
}

static void llama_load_tensors(llama_model & model, llama_tensor_creator & tc) {
    const llama_hparams & hp      = model.hparams;
    const int64_t         n_embd  = hp.n_embd;
    const int64_t         n_vocab = hp.n_vocab;
    const int64_t         n_ff    = hp.n_ff;
    const int64_t         n_q     = (int64_t) hp.n_embd_head_k * hp.n_head;
    const int64_t         n_k     = hp.n_embd_k_gqa();
    const int64_t         n_v     = hp.n_embd_v_gqa();

    model.tok_embd    = tc.create(LLM_TENSOR_TOKEN_EMBD, {n_embd, n_vocab});  // (vocab, embd)
    model.output_norm = tc.create(LLM_TENSOR_OUTPUT_NORM, {n_embd});
    model.output      = tc.create(LLM_TENSOR_OUTPUT, {n_embd, n_vocab}, LLAMA_TENSOR_NOT_REQUIRED);
    if (!model.output) {
        model.output = model.tok_embd;  // tied embeddings
    }
    // llama 3.1 style per-pair rope frequency factors, shared by every layer
    ggml_tensor * rope_freqs = tc.create(LLM_TENSOR_ROPE_FREQS, {(int64_t) hp.n_rot / 2}, LLAMA_TENSOR_NOT_REQUIRED);

    model.layers.resize(hp.n_layer);
    for (int il = 0; il < (int) hp.n_layer; il++) {
        llama_layer & l = model.layers[il];
        l.attn_norm     = tc.create(LLM_TENSOR_ATTN_NORM, {n_embd}, 0, il);
        l.wq            = tc.create(LLM_TENSOR_ATTN_Q, {n_embd, n_q}, 0, il);  // (embd, n_head*head_dim)
        l.wk            = tc.create(LLM_TENSOR_ATTN_K, {n_embd, n_k}, 0, il);  // (embd, n_head_kv*head_dim)
        l.wv            = tc.create(LLM_TENSOR_ATTN_V, {n_embd, n_v}, 0, il);
        l.wo            = tc.create(LLM_TENSOR_ATTN_OUT, {n_q, n_embd}, 0, il);
        // optional biases (some llama-architecture finetunes carry them)
        l.bq = tc.create(LLM_TENSOR_ATTN_Q, {n_q}, LLAMA_TENSOR_NOT_REQUIRED, il, "bias");
        l.bk = tc.create(LLM_TENSOR_ATTN_K, {n_k}, LLAMA_TENSOR_NOT_REQUIRED, il, "bias");
        l.bv = tc.create(LLM_TENSOR_ATTN_V, {n_v}, LLAMA_TENSOR_NOT_REQUIRED, il, "bias");
        l.bo = tc.create(LLM_TENSOR_ATTN_OUT, {n_embd}, LLAMA_TENSOR_NOT_REQUIRED, il, "bias");

        l.ffn_norm = tc.create(LLM_TENSOR_FFN_NORM, {n_embd}, 0, il);
        if (hp.n_expert > 0) {
            // Mixtral-style experts, stacked (embd, ff, n_expert)
            const int64_t n_exp = hp.n_expert;
            l.ffn_gate_inp      = tc.create(LLM_TENSOR_FFN_GATE_INP, {n_embd, n_exp}, 0, il);
            l.ffn_gate_exps     = tc.create(LLM_TENSOR_FFN_GATE_EXPS, {n_embd, n_ff, n_exp}, 0, il);
            l.ffn_up_exps       = tc.create(LLM_TENSOR_FFN_UP_EXPS, {n_embd, n_ff, n_exp}, 0, il);
            l.ffn_down_exps     = tc.create(LLM_TENSOR_FFN_DOWN_EXPS, {n_ff, n_embd, n_exp}, 0, il);
        } else {
            l.ffn_gate = tc.create(LLM_TENSOR_FFN_GATE, {n_embd, n_ff}, 0, il);  // (embd, ff)
            l.ffn_up   = tc.create(LLM_TENSOR_FFN_UP, {n_embd, n_ff}, 0, il);
            l.ffn_down = tc.create(LLM_TENSOR_FFN_DOWN, {n_ff, n_embd}, 0, il);
        }

        l.rope_freqs = rope_freqs;
    }
}

static void llama_build_graph(llm_graph_context & g) {
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

        cur = g.build_attn(l.wo, l.bo, q, k, v, kq_scale, il);

        if (il == (int) hp.n_layer - 1 && inp_out_ids) {
            // only the requested rows go through the last FFN and the head
            cur   = ggml_get_rows(ctx0, cur, inp_out_ids);
            inpSA = ggml_get_rows(ctx0, inpSA, inp_out_ids);
        }

        ggml_tensor * ffn_inp = ggml_add(ctx0, cur, inpSA);
        g.cb(ffn_inp, "ffn_inp", il);

        cur = g.build_norm(ffn_inp, l.ffn_norm, nullptr, LLM_NORM_RMS, il);
        g.cb(cur, "ffn_norm", il);
        if (l.ffn_gate_inp) {
            cur = llm_build_moe_ffn(g, l, cur, /*norm_w=*/true, il);  // softmax top-k, renormalised (Mixtral)
        } else {
            cur = g.build_ffn(cur, l.ffn_up, nullptr, l.ffn_gate, nullptr, l.ffn_down, nullptr, LLM_FFN_SILU,
                              LLM_FFN_PAR, il);
        }
        cur = ggml_add(ctx0, cur, ffn_inp);
        g.cb(cur, "l_out", il);
        inpL = cur;
    }

    g.build_output(inpL);
}

const llm_arch_ops llm_ops_llama = {
    LLM_ARCH_LLAMA,
    llama_load_hparams,
    llama_load_tensors,
    llama_build_graph,
};
