// Kimi Linear (kimi-linear): a hybrid decoder of KDA layers (Kimi Delta Attention, linear attention
// with a per-channel decay) and latent attention layers; the file marks the KDA layers with 0 in the
// per-layer attention.head_count_kv. Every block is pre-norm mixer, residual, pre-norm feed-forward,
// residual; the first leading_dense_block_count feed-forwards are dense SwiGLU, the others routed
// experts (sigmoid or softmax scores, a selection bias, the chosen weights renormalised and scaled by
// expert_weights_scale) plus the shared experts as one SwiGLU.
//   KDA: q, k, v from their own projections, each through its own depthwise causal conv (the last
//   d_conv - 1 inputs carried per sequence, q's then k's then v's channels) and SiLU; q and k
//   L2-normed per head; the log decay per channel g = ssm_a[head] * softplus(ssm_f_b ssm_f_a x +
//   ssm_dt) (ssm_a holds -exp(A_log)); beta = sigmoid(ssm_beta x) per head; the gated delta rule
//   (ggml_gated_delta_net with a per-channel gate) carries a kda.head_dim-square state per head; its
//   output RMS-normed per head (ssm_norm) times sigmoid(ssm_g_b ssm_g_a x), then attn_output.
//   latent attention: deepseek2's absorbed form (llm_build_mla) with one attn_q and no rope: the
//   cache holds per token the normed latent and the unrotated shared part.
// The conv and KDA states live in the recurrent memory, the latent K in the KV cache
// (llama-memory-hybrid.h).
#include <cmath>

#include "decoder.h"
#include "llama-graph.h"
#include "llama-log.h"
#include "llama-model-loader.h"
#include "models.h"

static void kimi_linear_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    uint32_t head_dim = 0;
    ml.get_key(LLM_KV_SSM_CONV_KERNEL, hp.ssm_d_conv);
    ml.get_key(LLM_KV_KDA_HEAD_DIM, head_dim);
    if (!hp.is_hybrid()) {
        // the KDA layers are only known from the per-layer head_count_kv (0 on them); a model of
        // attention layers only is not one the hybrid memory serves
        throw llama_error("kimi-linear: no KDA layer (attention.head_count_kv must be per layer, 0 on the KDA layers)");
    }
    // bounds that keep the state sizes and the views in range (a hostile file must not reach them)
    if (hp.ssm_d_conv < 2 || hp.ssm_d_conv > 64 || head_dim == 0 || head_dim > 1024 || hp.n_head > 1024) {
        throw llama_error(llama_format("kimi-linear: invalid KDA shape: conv_kernel %u, kda.head_dim %u, %u heads",
                                       hp.ssm_d_conv, head_dim, hp.n_head));
    }
    // the recurrent memory's sizes: conv channels q, k, v (inner + 2 groups x state = 3 inner), a
    // head_dim x head_dim state per head
    hp.ssm_d_state = head_dim;
    hp.ssm_d_inner = head_dim * hp.n_head;
    hp.ssm_n_group = hp.n_head;
    hp.ssm_dt_rank = hp.n_head;

    // latent attention: only the absorbed form (attn_k_b / attn_v_b, as the converter writes it) and
    // one attn_q (the released model has no q_lora_rank)
    ml.get_key(LLM_KV_ATTENTION_Q_LORA_RANK, hp.n_lora_q, false);
    ml.get_key(LLM_KV_ATTENTION_KV_LORA_RANK, hp.n_lora_kv);
    const bool has_mla = ml.get_key(LLM_KV_ATTENTION_KEY_LENGTH_MLA, hp.n_embd_head_k_mla, false) &&
                         ml.get_key(LLM_KV_ATTENTION_VALUE_LENGTH_MLA, hp.n_embd_head_v_mla, false);
    if (hp.n_lora_q != 0) {
        throw llama_error("kimi-linear: a compressed query (attention.q_lora_rank) is not supported");
    }
    if (!has_mla || hp.n_lora_kv == 0 || hp.n_lora_kv > (1u << 16) || hp.n_head_kv != 1 ||
        hp.n_embd_head_k != hp.n_lora_kv + hp.n_rot || hp.n_embd_head_k_mla <= hp.n_rot ||
        hp.n_embd_head_k_mla > (1u << 16) || hp.n_embd_head_v_mla == 0 || hp.n_embd_head_v_mla > (1u << 16)) {
        throw llama_error(llama_format(
            "kimi-linear: unsupported latent attention shape (kv_lora_rank %u, head_count_kv %u, key_length %u, "
            "rope %u, key_length_mla %u, value_length_mla %u; attn_k_b / attn_v_b files only)",
            hp.n_lora_kv, hp.n_head_kv, hp.n_embd_head_k, hp.n_rot, hp.n_embd_head_k_mla, hp.n_embd_head_v_mla));
    }
    hp.n_embd_head_v = hp.n_lora_kv;  // the value is the latent the cached key starts with
    hp.mla_absorbed  = true;
    hp.v_in_k        = true;

    uint32_t n_shared = 0;
    ml.get_key(LLM_KV_EXPERT_FEED_FORWARD_LENGTH, hp.n_ff_exp);
    ml.get_key(LLM_KV_EXPERT_SHARED_COUNT, n_shared);
    ml.get_key(LLM_KV_LEADING_DENSE_BLOCK_COUNT, hp.n_layer_dense_lead, false);
    ml.get_key(LLM_KV_EXPERT_WEIGHTS_SCALE, hp.expert_weights_scale, false);
    uint32_t gating = 0;
    ml.get_key(LLM_KV_EXPERT_GATING_FUNC, gating);
    if (hp.n_expert == 0 || hp.n_ff_exp == 0 || n_shared > 64 || hp.n_layer_dense_lead > hp.n_layer) {
        throw llama_error(
            llama_format("kimi-linear: invalid experts (expert_count %u, expert_feed_forward_length %u, "
                         "expert_shared_count %u, leading_dense_block_count %u)",
                         hp.n_expert, hp.n_ff_exp, n_shared, hp.n_layer_dense_lead));
    }
    llm_load_expert_routing(ml, hp, gating, "kimi-linear");
    hp.expert_weights_norm = true;  // upstream renormalises the chosen experts' weights always
    hp.n_ff_shexp          = hp.n_ff_exp * n_shared;
    hp.rope_type           = LLAMA_ROPE_TYPE_NONE;
}

// The KDA mixer over cur [n_embd, n_tokens] (n_seqs sequences of n_st tokens each).
static ggml_tensor * kda_mixer(llm_graph_context & g, ggml_tensor * cur, int il) {
    const llama_hparams & hp      = g.hparams;
    const llama_layer &   l       = g.model.layers[il];
    ggml_context *        ctx0    = g.ctx0;
    const int64_t         d_conv  = hp.ssm_d_conv;
    const int64_t         S       = hp.ssm_d_state;  // head width (q, k and v)
    const int64_t         H       = hp.n_head;
    const int64_t         d_inner = S * H;
    const int64_t         n_seqs  = g.params.n_seqs;
    const int64_t         n_st    = g.n_tokens / n_seqs;

    // the convs read their kernels, and the decay its parameters, as F32 (as the converter writes
    // them); a file with another type is refused here, at context creation, not run
    for (const ggml_tensor * t : {l.ssm_conv1d_q, l.ssm_conv1d_k, l.ssm_conv1d_v, l.ssm_dt_b, l.ssm_a, l.ssm_norm}) {
        if (t->type != GGML_TYPE_F32) {
            throw llama_error(
                llama_format("%s is %s; the KDA layers need it in F32", t->name, ggml_type_name(t->type)));
        }
    }
    ggml_tensor * r_all = g.rs->r_layer(il);  // [n_embd_r, n_slots]
    ggml_tensor * s_all = g.rs->s_layer(il);  // [n_embd_s, n_slots]

    // q, k, v side by side as the conv's channels (the carried state holds them in that order)
    ggml_tensor * qkv = ggml_concat(ctx0, g.build_lora_mm(l.wq, cur), g.build_lora_mm(l.wk, cur), 0);
    qkv               = ggml_concat(ctx0, qkv, g.build_lora_mm(l.wv, cur), 0);  // [3 inner, n_tokens]
    qkv               = ggml_reshape_3d(ctx0, qkv, 3 * d_inner, n_st, n_seqs);
    g.cb(qkv, "kda_qkv", il);
    ggml_tensor * kernel = ggml_concat(ctx0, ggml_reshape_2d(ctx0, l.ssm_conv1d_q, d_conv, d_inner),
                                       ggml_reshape_2d(ctx0, l.ssm_conv1d_k, d_conv, d_inner), 1);
    kernel               = ggml_concat(ctx0, kernel, ggml_reshape_2d(ctx0, l.ssm_conv1d_v, d_conv, d_inner), 1);

    // convolution: the carried inputs, then this ubatch's; the last d_conv - 1 columns are the new state
    ggml_tensor * conv   = ggml_reshape_3d(ctx0, g.build_rs_read(r_all), d_conv - 1, 3 * d_inner, n_seqs);
    ggml_tensor * conv_x = ggml_concat(ctx0, conv, ggml_transpose(ctx0, qkv), 0);  // [d_conv-1+n_st, ch, seqs]
    ggml_tensor * last   = ggml_view_3d(ctx0, conv_x, d_conv - 1, 3 * d_inner, n_seqs, conv_x->nb[1], conv_x->nb[2],
                                        n_st * ggml_element_size(conv_x));
    g.build_rs_write(r_all, ggml_reshape_2d(ctx0, ggml_cont(ctx0, last), hp.n_embd_r(), n_seqs));
    g.build_rs_rows(conv_x);  // with build_rs_replay: the state after each token (speculative rewinds)
    ggml_tensor * y = ggml_ssm_conv(ctx0, conv_x, kernel);  // [3 inner, n_st, n_seqs]
    if (!y) {                                               // the op logged why
        throw llama_error(llama_format("layer %d: the KDA convs must be F32 [d_conv, 1, inner]", il));
    }
    y = ggml_silu(ctx0, y);
    g.cb(y, "kda_conv_silu", il);

    const size_t  ye = ggml_element_size(y);
    ggml_tensor * q  = ggml_view_4d(ctx0, y, S, H, n_st, n_seqs, S * ye, y->nb[1], y->nb[2], 0);
    ggml_tensor * k  = ggml_view_4d(ctx0, y, S, H, n_st, n_seqs, S * ye, y->nb[1], y->nb[2], d_inner * ye);
    ggml_tensor * v  = ggml_view_4d(ctx0, y, S, H, n_st, n_seqs, S * ye, y->nb[1], y->nb[2], 2 * d_inner * ye);
    q                = ggml_l2_norm(ctx0, ggml_cont(ctx0, q), hp.f_norm_rms_eps);
    k                = ggml_l2_norm(ctx0, ggml_cont(ctx0, k), hp.f_norm_rms_eps);
    v                = ggml_cont(ctx0, v);

    // the per-channel log decay: softplus of the low-rank projection plus ssm_dt, times the head's -exp(A_log)
    ggml_tensor * gate = g.build_lora_mm(l.ssm_f_b, g.build_lora_mm(l.ssm_f_a, cur));  // [inner, n_tokens]
    gate               = ggml_softplus(ctx0, ggml_add(ctx0, gate, l.ssm_dt_b));
    gate = ggml_mul(ctx0, ggml_reshape_3d(ctx0, gate, S, H, g.n_tokens), ggml_reshape_3d(ctx0, l.ssm_a, 1, H, 1));
    gate = ggml_reshape_4d(ctx0, gate, S, H, n_st, n_seqs);
    g.cb(gate, "kda_gate", il);
    ggml_tensor * beta = ggml_sigmoid(ctx0, g.build_lora_mm(l.ssm_beta, cur));  // [H, n_tokens]
    beta               = ggml_reshape_4d(ctx0, beta, 1, H, n_st, n_seqs);

    // the delta rule from the slots' states; the output holds the attention output, then the final states
    ggml_tensor * state = ggml_reshape_4d(ctx0, g.build_rs_read(s_all), S, S, H, n_seqs);
    ggml_tensor * out   = ggml_gated_delta_net(ctx0, q, k, v, gate, beta, state, 1);
    if (!out) {  // the op logged why
        throw llama_error(llama_format("layer %d: the KDA inputs are misshapen", il));
    }
    g.cb(out, "kda", il);
    g.build_rs_replay(out);
    const size_t  oe     = ggml_element_size(out);
    const int64_t n_o    = d_inner * n_st * n_seqs;
    ggml_tensor * states = ggml_view_2d(ctx0, out, hp.n_embd_s(), n_seqs, hp.n_embd_s() * oe, n_o * oe);
    g.build_rs_write(s_all, states);
    ggml_tensor * o = ggml_view_3d(ctx0, out, S, H, g.n_tokens, S * oe, d_inner * oe, 0);

    // RMS norm per head times sigmoid of the low-rank output gate
    ggml_tensor * og = g.build_lora_mm(l.ssm_g_b, g.build_lora_mm(l.ssm_g_a, cur));  // [inner, n_tokens]
    o                = g.build_norm(o, l.ssm_norm, nullptr, LLM_NORM_RMS, il);
    o                = ggml_mul(ctx0, o, ggml_sigmoid(ctx0, ggml_reshape_3d(ctx0, og, S, H, g.n_tokens)));
    o                = ggml_reshape_2d(ctx0, o, d_inner, g.n_tokens);
    return g.build_lora_mm(l.wo, o);
}

static void kimi_linear_build_graph(llm_graph_context & g) {
    const llama_model &   model = g.model;
    const llama_hparams & hp    = g.hparams;

    llm_decoder_desc moe;
    moe.moe_norm_w       = true;
    const float kq_scale = 1.0f / sqrtf((float) hp.n_embd_head_k_mla);

    ggml_tensor * inpL = g.build_inp_embd(model.tok_embd);
    g.build_attn_inp();
    g.build_inp_rs();
    ggml_tensor * out_ids = g.build_inp_out_ids();

    for (int il = 0; il < (int) hp.n_layer; il++) {
        const llama_layer & l   = model.layers[il];
        ggml_tensor *       res = inpL;
        ggml_tensor *       cur = g.build_norm(inpL, l.attn_norm, nullptr, LLM_NORM_RMS, il);
        g.cb(cur, "attn_norm", il);
        cur  = hp.is_recurrent_layer(il) ? kda_mixer(g, cur, il)
                                         : llm_build_mla(g, l, cur, nullptr, nullptr, kq_scale, il);
        cur  = llm_build_shexp_block_tail(g, l, cur, res, out_ids, moe, il);
        inpL = cur;
    }
    g.build_output(inpL);
}

const llm_arch_ops llm_ops_kimi_linear = {
    LLM_ARCH_KIMI_LINEAR,
    kimi_linear_load_hparams,
    kimi_linear_build_graph,
};
