// Falcon-H1 (TII): a parallel hybrid decoder. In every block one RMS-normed input feeds both GQA
// attention (NEOX rope) and a Mamba-2 mixer (mamba2.cpp); their outputs are summed and added to
// the residual, then an RMS-normed SwiGLU feed-forward follows. Each layer therefore keeps K/V in
// the KV cache and a conv + SSM state in the recurrent memory. Falcon-H1's many multipliers
// (embedding, attention in/out, key, ssm in/out, the per-part zxBCdt ones, MLP, LM head) are folded
// into the weights by upstream's converter; nothing is scaled at run time.
#include <cmath>

#include "llama-graph.h"
#include "llama-log.h"
#include "llama-model-loader.h"
#include "models.h"

static void falcon_h1_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    llm_mamba2_load_ssm_hparams(ml, hp);
    if (hp.n_head == 0 || hp.n_head_kv == 0) {
        throw llama_error("falcon-h1 needs attention heads (attention.head_count / head_count_kv)");
    }
    // every layer is recurrent and attends: both memories hold every layer
    hp.recurrent_layers.assign(hp.n_layer, true);
    hp.recurrent_layers_attend = true;
    hp.rope_type               = LLAMA_ROPE_TYPE_NEOX;
    hp.n_expert                = 0;
}

static void falcon_h1_build_graph(llm_graph_context & g) {
    const llama_model &   model    = g.model;
    const llama_hparams & hp       = g.hparams;
    ggml_context *        ctx0     = g.ctx0;
    const float           kq_scale = 1.0f / sqrtf((float) hp.n_embd_head_k);

    ggml_tensor * inpL    = g.build_inp_embd(model.tok_embd);
    ggml_tensor * inp_pos = g.build_inp_pos();
    g.build_attn_inp();
    g.build_inp_rs();
    ggml_tensor * inp_out_ids = g.build_inp_out_ids();

    for (int il = 0; il < (int) hp.n_layer; il++) {
        const llama_layer & l   = model.layers[il];
        ggml_tensor *       cur = g.build_norm(inpL, l.attn_norm, nullptr, LLM_NORM_RMS, il);
        g.cb(cur, "attn_norm", il);

        ggml_tensor *q, *k, *v;
        g.build_qkv_rope(l, cur, inp_pos, il, q, k, v);
        ggml_tensor * attn_out = g.build_attn(l.wo, nullptr, q, k, v, kq_scale, il);  // no output bias, as upstream
        g.cb(attn_out, "attn_out", il);

        ggml_tensor * ssm_out = llm_build_mamba2_mixer(g, cur, il);
        g.cb(ssm_out, "ssm_out", il);

        cur = ggml_add(ctx0, attn_out, ssm_out);
        if (il == (int) hp.n_layer - 1 && inp_out_ids) {
            cur  = ggml_get_rows(ctx0, cur, inp_out_ids);  // only the rows asked for
            inpL = ggml_get_rows(ctx0, inpL, inp_out_ids);
        }
        ggml_tensor * ffn_inp = ggml_add(ctx0, cur, inpL);
        g.cb(ffn_inp, "ffn_inp", il);

        cur = g.build_norm(ffn_inp, l.ffn_norm, nullptr, LLM_NORM_RMS, il);
        cur = g.build_ffn(cur, l.ffn_up, l.ffn_up_b, l.ffn_gate, l.ffn_gate_b, l.ffn_down, l.ffn_down_b, LLM_FFN_SILU,
                          LLM_FFN_PAR, il);
        cur = ggml_add(ctx0, cur, ffn_inp);
        cur = g.build_cvec(cur, il);
        g.cb(cur, "l_out", il);
        inpL = cur;
    }
    g.build_output(inpL);
}

const llm_arch_ops llm_ops_falcon_h1 = {
    LLM_ARCH_FALCON_H1,
    falcon_h1_load_hparams,
    falcon_h1_build_graph,
};
