// NVIDIA Nemotron-H (nemotron_h): a hybrid of three kinds of block, each an RMS pre-norm (attn_norm),
// one mixer and the residual add. Which kind a layer is comes from two per-layer arrays, as upstream
// reads them: feed_forward_length > 0 -- a feed-forward-only block, ffn_down(relu(ffn_up x))^2 without
// a gate; otherwise head_count_kv 0 -- a Mamba-2 mixer (mamba2.cpp); otherwise GQA attention without
// rotary positions, KQ scaled by 1/sqrt(key_length). There is no separate feed-forward norm. Attention
// K/V live in the KV cache, the Mamba-2 states in the recurrent memory (llama-memory-hybrid.h); the
// feed-forward blocks keep neither.
// nemotron_h_moe (Nemotron 3 Nano / Super) is the same hybrid whose feed-forward-only blocks are a
// mixture of experts: a sigmoid router with a selection bias (exp_probs_b) over squared-ReLU experts
// without a gate (llm_build_moe_ffn), weights renormalised and scaled as the file says, plus one
// squared-ReLU shared expert. With moe_latent_size (Super) the experts run in a narrower latent space:
// ffn_latent_down before them, ffn_latent_up after; the router and the shared expert read the full
// width. Without experts (expert_count 0) the blocks are nemotron_h's, as upstream. Its last
// nextn_predict_layers blocks are multi-token-prediction blocks: accepted, not run (as glm4moe's).
#include <cmath>

#include "decoder.h"
#include "llama-graph.h"
#include "llama-log.h"
#include "llama-model-loader.h"
#include "models.h"

// The experts of nemotron_h_moe (the rest of the routing comes from hparams).
static const llm_decoder_desc nemotron_h_moe_desc = [] {
    llm_decoder_desc d;
    d.moe_norm_w = false;  // expert_weights_norm decides
    d.moe_act    = LLM_MOE_ACT_RELU_SQR;
    return d;
}();

// nemotron_h_moe's expert keys and NextN blocks (hp.n_layer becomes the blocks that run).
static void nemotron_h_moe_load_experts(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_NEXTN_PREDICT_LAYERS, hp.n_layer_nextn, false);
    if (hp.n_layer_nextn >= hp.n_layer) {
        throw llama_error(
            llama_format("nemotron_h_moe: nextn_predict_layers %u leaves no decoder block (block_count %u)",
                         hp.n_layer_nextn, hp.n_layer));
    }
    hp.n_layer -= hp.n_layer_nextn;
    if (!hp.recurrent_layers.empty()) {  // the per-layer head_count_kv array covered the NextN blocks too
        hp.recurrent_layers.resize(hp.n_layer);
    }
    // the converter always writes experts; upstream reads a file without them as nemotron_h (its saver
    // writes one), and so do we
    if (hp.n_expert == 0) {
        return;
    }
    ml.get_key(LLM_KV_EXPERT_FEED_FORWARD_LENGTH, hp.n_ff_exp, false);
    if (hp.n_ff_exp == 0) {
        hp.n_ff_exp = hp.n_ff / hp.n_expert_used;  // upstream's default
    }
    ml.get_key(LLM_KV_EXPERT_SHARED_FEED_FORWARD_LENGTH, hp.n_ff_shexp, false);
    ml.get_key(LLM_KV_MOE_LATENT_SIZE, hp.n_moe_latent, false);
    ml.get_key(LLM_KV_EXPERT_WEIGHTS_NORM, hp.expert_weights_norm, false);
    ml.get_key(LLM_KV_EXPERT_WEIGHTS_SCALE, hp.expert_weights_scale, false);
    ml.get_key(LLM_KV_EXPERT_GROUP_COUNT, hp.n_expert_groups, false);
    if (hp.n_ff_exp == 0 || hp.n_ff_shexp == 0 || hp.n_ff_exp > (1u << 20) || hp.n_ff_shexp > (1u << 20) ||
        hp.n_moe_latent > (1u << 20)) {
        throw llama_error(
            llama_format("nemotron_h_moe: bad expert sizes (expert_feed_forward_length %u, "
                         "expert_shared_feed_forward_length %u, moe_latent_size %u)",
                         hp.n_ff_exp, hp.n_ff_shexp, hp.n_moe_latent));
    }
    // the converter writes expert_group_count 1 (no groups) and no used-group count to pick with
    if (hp.n_expert_groups > 1) {
        throw llama_error(
            llama_format("nemotron_h_moe: expert_group_count %u: expert groups are not supported", hp.n_expert_groups));
    }
    hp.n_expert_groups       = 0;
    hp.expert_gating_sigmoid = true;  // upstream's graph scores with a sigmoid whatever the file says
}

static void nemotron_h_load_common(llama_model_loader & ml, llama_hparams & hp, bool moe) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    if (moe) {
        nemotron_h_moe_load_experts(ml, hp);
    } else {
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
    if (!moe) {
        hp.n_expert = 0;
    }
}

static void nemotron_h_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    nemotron_h_load_common(ml, hp, false);
}

static void nemotron_h_moe_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    nemotron_h_load_common(ml, hp, true);
}

// nemotron_h_moe's feed-forward block: the routed experts (in the latent space, if any) plus the
// shared expert, both on the normed input cur [n_embd, n_tokens].
static ggml_tensor * nemotron_h_moe_ffn(llm_graph_context & g, const llama_layer & l, ggml_tensor * cur, int il) {
    ggml_context * ctx0   = g.ctx0;
    ggml_tensor *  moe_in = cur;
    if (l.ffn_latent_down) {
        moe_in = ggml_mul_mat(ctx0, l.ffn_latent_down, cur);  // [latent, n_tokens]
        g.cb(moe_in, "ffn_latent_down", il);
    }
    ggml_tensor * moe = llm_build_moe_ffn(g, l, moe_in, nemotron_h_moe_desc, il, cur);  // the router reads cur
    if (l.ffn_latent_up) {
        moe = ggml_mul_mat(ctx0, l.ffn_latent_up, moe);
        g.cb(moe, "ffn_latent_up", il);
    }
    ggml_tensor * sh = g.build_ffn(cur, l.ffn_up_shexp, nullptr, nullptr, nullptr, l.ffn_down_shexp, nullptr,
                                   LLM_FFN_RELU_SQR, LLM_FFN_SEQ, il);
    g.cb(sh, "ffn_shexp", il);
    return ggml_add(ctx0, moe, sh);
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
            cur = l.ffn_gate_inp ? nemotron_h_moe_ffn(g, l, cur, il)
                                 : g.build_ffn(cur, l.ffn_up, l.ffn_up_b, nullptr, nullptr, l.ffn_down, l.ffn_down_b,
                                               LLM_FFN_RELU_SQR, LLM_FFN_SEQ, il);
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

const llm_arch_ops llm_ops_nemotron_h_moe = {
    LLM_ARCH_NEMOTRON_H_MOE, nemotron_h_moe_load_hparams, nemotron_h_build_graph,
    true,  // and the experts' and the shared expert's
};
