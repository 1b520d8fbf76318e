// NVIDIA Nemotron-H (nemotron_h): a hybrid of three kinds of block, each an RMS pre-norm (attn_norm),
// one mixer and the residual add. Which kind a layer is comes from two per-layer arrays, as upstream
// reads them: feed_forward_length > 0 -- a feed-forward-only block, ffn_down(relu(ffn_up x))^2 without
// a gate; otherwise head_count_kv 0 -- a Mamba-2 mixer (mamba2.cpp); otherwise GQA attention without
// rotary positions, KQ scaled by 1/sqrt(key_length). There is no separate feed-forward norm. Attention
// K/V live in the KV cache, the Mamba-2 states in the recurrent memory (llama-memory-hybrid.h); the
// feed-forward blocks keep neither. The mixture-of-experts form is another architecture upstream
// (nemotron_h_moe) and is not read here.
#include <cmath>

#include "llama-graph.h"
#include "llama-log.h"
#include "llama-model-loader.h"
#include "models.h"

static void nemotron_h_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    uint32_t n_nextn = 0;
    ml.get_key(LLM_KV_NEXTN_PREDICT_LAYERS, n_nextn, false);
    if (n_nextn > 0) {
        throw llama_error(
            llama_format("nemotron_h: %u NextN (multi-token prediction) layers are not supported", n_nextn));
    }
    if (hp.n_expert > 0) {
        throw llama_error(
            "nemotron_h: experts (expert_count > 0) are not supported (upstream writes those "
            "models as nemotron_h_moe)");
    }
    llm_mamba2_load_ssm_hparams(ml, hp);
    // the generic loader marked the layers with 0 KV heads recurrent (none for a scalar head_count_kv);
    // the feed-forward blocks have 0 KV heads too
    const std::vector<bool> kv0 = hp.recurrent_layers;
    hp.recurrent_layers.assign(hp.n_layer, false);
    hp.ffn_only_layers.assign(hp.n_layer, false);
    bool any_recurrent = false;
    for (uint32_t il = 0; il < hp.n_layer; il++) {
        const uint32_t n_ff     = hp.n_ff_layers.empty() ? hp.n_ff : hp.n_ff_layers[il];
        hp.ffn_only_layers[il]  = n_ff > 0;
        hp.recurrent_layers[il] = n_ff == 0 && il < kv0.size() && kv0[il];
        any_recurrent           = any_recurrent || hp.recurrent_layers[il];
    }
    if (!any_recurrent) {
        hp.ssm_d_inner = 0;  // no Mamba-2 layer: no recurrent memory
    }
    hp.n_no_rope_layer_step = 1;  // no layer rotates q and k
    hp.n_expert             = 0;
}

static void nemotron_h_build_graph(llm_graph_context & g) {
    const llama_model &   model    = g.model;
    const llama_hparams & hp       = g.hparams;
    ggml_context *        ctx0     = g.ctx0;
    const float           kq_scale = 1.0f / sqrtf((float) hp.n_embd_head_k);

    ggml_tensor * inpL    = g.build_inp_embd(model.tok_embd);
    ggml_tensor * inp_pos = g.build_inp_pos();  // build_qkv_rope's argument; no layer rotates
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
            cur = llm_build_mamba2_mixer(g, cur, il);
        } else if (hp.is_ffn_only_layer(il)) {
            cur = g.build_ffn(cur, l.ffn_up, l.ffn_up_b, nullptr, nullptr, l.ffn_down, l.ffn_down_b, LLM_FFN_RELU_SQR,
                              LLM_FFN_SEQ, il);
            cur = g.build_cvec(cur, il);  // upstream steers the feed-forward blocks' outputs only
        } else {
            ggml_tensor *q, *k, *v;
            g.build_qkv_rope(l, cur, inp_pos, il, q, k, v);  // no rotation: n_no_rope_layer_step 1
            cur = g.build_attn(l.wo, l.bo, q, k, v, kq_scale, il);
        }
        if (il == (int) hp.n_layer - 1 && inp_out_ids) {
            cur  = ggml_get_rows(ctx0, cur, inp_out_ids);  // only the rows asked for
            inpL = ggml_get_rows(ctx0, inpL, inp_out_ids);
        }
        cur = ggml_add(ctx0, cur, inpL);
        g.cb(cur, "l_out", il);
        inpL = cur;
    }
    g.build_output(inpL);
}

const llm_arch_ops llm_ops_nemotron_h = {
    LLM_ARCH_NEMOTRON_H, nemotron_h_load_hparams, nemotron_h_build_graph,
    true,  // upstream applies ffn_up / ffn_down per-tensor scales here
};
