// Qwen3-Next: a hybrid decoder. Every full_attention_interval-th layer is gated attention, the others
// gated delta-net (linear attention) layers; every block is pre-norm mixer, residual, a post-attention
// norm and a mixture-of-experts feed-forward with a gated shared expert, residual.
//   attention: attn_q gives per head the query and an output gate; q/k RMS norms per head, NEOX rope
//   over the first rope.dimension_count dims, attention, times sigmoid(gate), attn_output.
//   delta-net: attn_qkv gives q, k, v (k heads = ssm.group_count of ssm.state_size, v heads =
//   ssm.time_step_rank of ssm.state_size); a depthwise causal conv (ssm_conv1d, last d_conv - 1 inputs
//   carried per sequence) and SiLU over them; q and k L2-normed and each k head shared by the
//   consecutive v heads of its group; beta = sigmoid(b) and the log-decay g = softplus(a + ssm_dt) *
//   ssm_a from ssm_ba; the gated delta rule (ggml_gated_delta_net) carries a state matrix per head;
//   its output RMS-normed per head (ssm_norm) times SiLU(z) (attn_gate), then ssm_out.
//   feed-forward: softmax router, top expert_used_count renormalised, plus the shared expert scaled by
//   sigmoid(ffn_gate_inp_shexp x).
// The conv and delta-net states live in the recurrent memory, the attention K/V in the KV cache
// (llama-memory-hybrid.h). The loader, mixer, experts and decoder here are shared with qwen35 and
// qwen35moe (qwen35.cpp: split beta / alpha projections, k heads tiled over the v heads).
#include <cmath>

#include "decoder.h"
#include "llama-graph.h"
#include "llama-log.h"
#include "llama-model-loader.h"
#include "models.h"

static const llm_decoder_desc qwen3next_desc = [] {
    llm_decoder_desc d;
    d.moe_norm_w = true;
    return d;
}();

// The delta-net shape and the per-layer kinds (qwen3next, qwen35, qwen35moe). The NextN blocks, if
// any, are already taken off hp.n_layer; per-layer flags in the file cover them too.
void llm_delta_net_load_hparams(llama_model_loader & ml, llama_hparams & hp, const char * arch) {
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    ml.get_key(LLM_KV_SSM_CONV_KERNEL, hp.ssm_d_conv);
    ml.get_key(LLM_KV_SSM_INNER_SIZE, hp.ssm_d_inner);
    ml.get_key(LLM_KV_SSM_STATE_SIZE, hp.ssm_d_state);
    ml.get_key(LLM_KV_SSM_TIME_STEP_RANK, hp.ssm_dt_rank);
    ml.get_key(LLM_KV_SSM_GROUP_COUNT, hp.ssm_n_group);
    uint32_t interval = 4;  // upstream's default
    ml.get_key(LLM_KV_FULL_ATTENTION_INTERVAL, interval, false);

    // bounds that keep the state sizes and the views below in range (a hostile file must not reach
    // them); a v head is ssm.state_size wide, as the released models and upstream's loader have it
    if (hp.ssm_d_conv < 2 || hp.ssm_d_conv > 64 || hp.ssm_d_state == 0 || hp.ssm_d_state > 1024 ||
        hp.ssm_dt_rank == 0 || hp.ssm_n_group == 0 || hp.ssm_dt_rank % hp.ssm_n_group != 0 || hp.ssm_dt_rank > 1024 ||
        (uint64_t) hp.ssm_d_state * hp.ssm_dt_rank != hp.ssm_d_inner) {
        throw llama_error(llama_format(
            "invalid %s delta-net shape: conv_kernel %u, inner_size %u, state_size %u, time_step_rank %u, "
            "group_count %u (inner_size must be state_size x time_step_rank, the heads a multiple of the groups)",
            arch, hp.ssm_d_conv, hp.ssm_d_inner, hp.ssm_d_state, hp.ssm_dt_rank, hp.ssm_n_group));
    }
    if (hp.n_head == 0) {
        throw llama_error(llama_format("%s: attention.head_count is 0", arch));
    }
    // per-layer flags when the file has them (upstream's saver writes attention.recurrent_layers), else
    // layer il attends when (il + 1) is a multiple of the interval and the others are delta-net layers
    std::vector<bool> flags;
    if (ml.get_arr_flags(LLM_KV_ATTENTION_RECURRENT_LAYERS, flags, hp.n_layer + hp.n_layer_nextn)) {
        flags.resize(hp.n_layer);
    } else {
        if (interval == 0) {
            throw llama_error(llama_format("%s: full_attention_interval is 0", arch));
        }
        flags.assign(hp.n_layer, false);
        for (uint32_t il = 0; il < hp.n_layer; il++) {
            flags[il] = (il + 1) % interval != 0;
        }
    }
    hp.recurrent_layers = flags;
    uint32_t n_attn     = 0;
    for (uint32_t il = 0; il < hp.n_layer; il++) {
        n_attn += hp.recurrent_layers[il] ? 0 : 1;
    }
    if (n_attn == 0 || n_attn == hp.n_layer) {
        throw llama_error(
            llama_format("%s: no %s layer among the %u (full_attention_interval %u or "
                         "attention.recurrent_layers): not supported",
                         arch, n_attn == 0 ? "attention" : "delta-net", hp.n_layer, interval));
    }
    hp.rope_type = LLAMA_ROPE_TYPE_NEOX;
}

// The experts' sizes (qwen3next, qwen35moe): upstream's when the file leaves them out.
void llm_delta_net_load_moe_hparams(llama_model_loader & ml, llama_hparams & hp, const char * arch) {
    ml.get_key(LLM_KV_EXPERT_FEED_FORWARD_LENGTH, hp.n_ff_exp, false);
    ml.get_key(LLM_KV_EXPERT_SHARED_FEED_FORWARD_LENGTH, hp.n_ff_shexp, false);
    if (hp.n_expert == 0 || hp.n_expert_used == 0) {
        throw llama_error(
            llama_format("%s: expert_count or expert_used_count is missing (the feed-forward is a "
                         "mixture of experts)",
                         arch));
    }
    if (hp.n_ff_exp == 0) {
        hp.n_ff_exp = hp.n_ff / hp.n_expert_used;
    }
    if (hp.n_ff_shexp == 0) {
        hp.n_ff_shexp = hp.n_ff;
    }
    if (hp.n_ff_exp == 0 || hp.n_ff_shexp == 0) {
        throw llama_error(llama_format("%s: the expert and shared expert sizes are 0", arch));
    }
}

static void qwen3next_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    uint32_t nextn = 0;
    if (ml.get_key(LLM_KV_NEXTN_PREDICT_LAYERS, nextn, false) && nextn > 0) {
        throw llama_error("qwen3next: NextN (multi-token prediction) layers are not supported");
    }
    llm_delta_net_load_hparams(ml, hp, "qwen3next");
    llm_delta_net_load_moe_hparams(ml, hp, "qwen3next");
}

// Gated attention over cur [n_embd, n_tokens].
static ggml_tensor * delta_net_attn(llm_graph_context & g, ggml_tensor * cur, ggml_tensor * inp_pos, int il) {
    const llama_hparams & hp       = g.hparams;
    const llama_layer &   l        = g.model.layers[il];
    ggml_context *        ctx0     = g.ctx0;
    const int64_t         head_dim = hp.n_embd_head_k;
    const int64_t         n_head   = hp.n_head;

    // attn_q's rows: per head the query, then its gate
    ggml_tensor * qg = g.build_lora_mm(l.wq, cur);
    qg               = ggml_reshape_3d(ctx0, qg, 2 * head_dim, n_head, g.n_tokens);
    const size_t  es = ggml_element_size(qg);
    ggml_tensor * q  = ggml_cont(ctx0, ggml_view_3d(ctx0, qg, head_dim, n_head, g.n_tokens, qg->nb[1], qg->nb[2], 0));
    ggml_tensor * gate =
        ggml_cont(ctx0, ggml_view_3d(ctx0, qg, head_dim, n_head, g.n_tokens, qg->nb[1], qg->nb[2], head_dim * es));
    ggml_tensor * k = ggml_reshape_3d(ctx0, g.build_lora_mm(l.wk, cur), head_dim, hp.n_head_kv, g.n_tokens);
    ggml_tensor * v = g.build_lora_mm(l.wv, cur);
    g.cb(v, "Vcur", il);
    q = g.build_norm(q, l.attn_q_norm, nullptr, LLM_NORM_RMS, il);
    k = g.build_norm(k, l.attn_k_norm, nullptr, LLM_NORM_RMS, il);
    q = g.build_rope(q, inp_pos, nullptr, il);
    k = g.build_rope(k, inp_pos, nullptr, il);
    g.cb(q, "Qcur", il);
    g.cb(k, "Kcur", il);

    const float kq_scale = hp.f_attention_scale > 0.0f ? hp.f_attention_scale : 1.0f / sqrtf((float) head_dim);
    cur                  = g.build_attn(nullptr, nullptr, q, k, v, kq_scale, il);  // [head_dim x n_head, n_tokens]
    gate                 = ggml_sigmoid(ctx0, ggml_reshape_2d(ctx0, gate, head_dim * n_head, g.n_tokens));
    cur                  = ggml_mul(ctx0, cur, gate);
    g.cb(cur, "attn_gated", il);
    return g.build_lora_mm(l.wo, cur);
}

// Heads of x [S, n_k, n_st, n_seqs] repeated r times in place ([k0 k0 .. k1 k1 ..]): a v head reads
// the k head of its group.
static ggml_tensor * qwen3next_repeat_heads(ggml_context * ctx0, ggml_tensor * x, int64_t r) {
    if (r == 1) {
        return x;
    }
    const int64_t S = x->ne[0], n_k = x->ne[1], n_st = x->ne[2], n_seqs = x->ne[3];
    ggml_tensor * one = ggml_reshape_4d(ctx0, x, S, 1, n_k, n_st * n_seqs);
    ggml_tensor * rep = one;
    for (int64_t i = 1; i < r; i++) {
        rep = ggml_concat(ctx0, rep, one, 1);
    }
    return ggml_reshape_4d(ctx0, rep, S, r * n_k, n_st, n_seqs);
}

// The gated delta-net mixer over cur [n_embd, n_tokens] (n_seqs sequences of n_st tokens each).
// qwen3next projects beta and alpha together (ssm_ba, per k head its v heads' betas, then their
// alphas) and v head h reads k head h / r; qwen35 projects them apart (ssm_beta, ssm_alpha, per v
// head) and v head h reads k head h mod n_k (its converter reorders the v heads so), which the
// delta-net op does by itself.
static ggml_tensor * delta_net_mixer(llm_graph_context & g, ggml_tensor * cur, int il, bool k_heads_tiled) {
    const llama_hparams & hp     = g.hparams;
    const llama_layer &   l      = g.model.layers[il];
    ggml_context *        ctx0   = g.ctx0;
    const int64_t         d_conv = hp.ssm_d_conv;
    const int64_t         S      = hp.ssm_d_state;  // head width (k and v)
    const int64_t         n_k    = hp.ssm_n_group;
    const int64_t         n_v    = hp.ssm_dt_rank;
    const int64_t         r      = n_v / n_k;
    const int64_t         n_ch   = 2 * n_k * S + n_v * S;  // conv channels: q, k, v
    const int64_t         n_seqs = g.params.n_seqs;
    const int64_t         n_st   = g.n_tokens / n_seqs;

    // the conv reads its kernel, and the decay its parameters, as F32 (as upstream's converter writes
    // them); a file with another type is refused here, at context creation, not run
    for (const ggml_tensor * t : {l.ssm_conv1d, l.ssm_dt_b, l.ssm_a, l.ssm_norm}) {
        if (t->type != GGML_TYPE_F32) {
            throw llama_error(
                llama_format("%s is %s; the delta-net layers need it in F32", t->name, ggml_type_name(t->type)));
        }
    }
    ggml_tensor * r_all = g.rs->r_layer(il);  // [n_embd_r, n_slots]
    ggml_tensor * s_all = g.rs->s_layer(il);  // [n_embd_s, n_slots]

    cur               = ggml_reshape_3d(ctx0, cur, cur->ne[0], n_st, n_seqs);
    ggml_tensor * qkv = g.build_lora_mm(l.wqkv, cur);       // [n_ch, n_st, n_seqs]
    ggml_tensor * z   = g.build_lora_mm(l.attn_gate, cur);  // [n_v S, n_st, n_seqs]
    g.cb(qkv, "linear_attn_qkv", il);

    ggml_tensor * b = nullptr;  // [n_v, n_st, n_seqs] each, v heads in order
    ggml_tensor * a = nullptr;
    if (l.ssm_beta_alpha) {
        // ssm_ba's rows per k head: the betas of its r v heads, then their alphas
        ggml_tensor * ba = ggml_reshape_4d(ctx0, g.build_lora_mm(l.ssm_beta_alpha, cur), 2 * r, n_k, n_st, n_seqs);
        const size_t  be = ggml_element_size(ba);
        b = ggml_cont(ctx0, ggml_view_4d(ctx0, ba, r, n_k, n_st, n_seqs, ba->nb[1], ba->nb[2], ba->nb[3], 0));
        a = ggml_cont(ctx0, ggml_view_4d(ctx0, ba, r, n_k, n_st, n_seqs, ba->nb[1], ba->nb[2], ba->nb[3], r * be));
    } else {
        b = g.build_lora_mm(l.ssm_beta, cur);
        a = g.build_lora_mm(l.ssm_alpha, cur);
    }
    ggml_tensor * beta = ggml_reshape_4d(ctx0, ggml_sigmoid(ctx0, b), 1, n_v, n_st, n_seqs);
    a                  = ggml_reshape_3d(ctx0, a, n_v, n_st, n_seqs);
    ggml_tensor * gate = ggml_mul(ctx0, ggml_softplus(ctx0, ggml_add(ctx0, a, l.ssm_dt_b)), l.ssm_a);  // log decay
    gate               = ggml_reshape_4d(ctx0, gate, 1, n_v, n_st, n_seqs);
    g.cb(gate, "gate", il);

    // convolution: the carried inputs, then this ubatch's; the last d_conv - 1 columns are the new state
    ggml_tensor * conv   = ggml_reshape_3d(ctx0, g.build_rs_read(r_all), d_conv - 1, n_ch, n_seqs);
    ggml_tensor * conv_x = ggml_concat(ctx0, conv, ggml_transpose(ctx0, qkv), 0);  // [d_conv-1+n_st, ch, seqs]
    ggml_tensor * last   = ggml_view_3d(ctx0, conv_x, d_conv - 1, n_ch, n_seqs, conv_x->nb[1], conv_x->nb[2],
                                        n_st * ggml_element_size(conv_x));
    g.build_rs_write(r_all, ggml_reshape_2d(ctx0, ggml_cont(ctx0, last), hp.n_embd_r(), n_seqs));
    g.build_rs_rows(conv_x);  // with build_rs_replay: the state after each token (speculative rewinds)
    ggml_tensor * y = ggml_ssm_conv(ctx0, conv_x, l.ssm_conv1d);  // [n_ch, n_st, n_seqs]
    if (!y) {                                                     // the op logged why
        throw llama_error(llama_format("layer %d: ssm_conv1d must be F32 [d_conv, channels]", il));
    }
    y = ggml_silu(ctx0, y);
    g.cb(y, "conv_output_silu", il);

    const size_t  ye = ggml_element_size(y);
    ggml_tensor * q  = ggml_view_4d(ctx0, y, S, n_k, n_st, n_seqs, S * ye, y->nb[1], y->nb[2], 0);
    ggml_tensor * k  = ggml_view_4d(ctx0, y, S, n_k, n_st, n_seqs, S * ye, y->nb[1], y->nb[2], n_k * S * ye);
    ggml_tensor * v  = ggml_view_4d(ctx0, y, S, n_v, n_st, n_seqs, S * ye, y->nb[1], y->nb[2], 2 * n_k * S * ye);
    q                = ggml_l2_norm(ctx0, ggml_cont(ctx0, q), hp.f_norm_rms_eps);
    k                = ggml_l2_norm(ctx0, ggml_cont(ctx0, k), hp.f_norm_rms_eps);
    if (!k_heads_tiled) {
        q = qwen3next_repeat_heads(ctx0, q, r);
        k = qwen3next_repeat_heads(ctx0, k, r);
    }
    v = ggml_cont(ctx0, v);

    // the delta rule from the slots' states; the output holds the attention output, then the final states
    ggml_tensor * state = ggml_reshape_4d(ctx0, g.build_rs_read(s_all), S, S, n_v, n_seqs);
    ggml_tensor * out   = ggml_gated_delta_net(ctx0, q, k, v, gate, beta, state, 1);
    if (!out) {  // the op logged why
        throw llama_error(llama_format("layer %d: the delta-net inputs are misshapen", il));
    }
    g.cb(out, "delta_net", il);
    g.build_rs_replay(out);
    const size_t  oe     = ggml_element_size(out);
    const int64_t n_o    = S * n_v * n_st * n_seqs;
    ggml_tensor * states = ggml_view_2d(ctx0, out, hp.n_embd_s(), n_seqs, hp.n_embd_s() * oe, n_o * oe);
    g.build_rs_write(s_all, states);
    ggml_tensor * o = ggml_view_4d(ctx0, out, S, n_v, n_st, n_seqs, S * oe, S * n_v * oe, S * n_v * n_st * oe, 0);

    // gated RMS norm per head: norm(o) * SiLU(z)
    o   = g.build_norm(o, l.ssm_norm, nullptr, LLM_NORM_RMS, il);
    o   = ggml_mul(ctx0, o, ggml_silu(ctx0, ggml_reshape_4d(ctx0, z, S, n_v, n_st, n_seqs)));
    o   = ggml_reshape_3d(ctx0, o, S * n_v, n_st, n_seqs);
    cur = g.build_lora_mm(l.ssm_out, o);  // [n_embd, n_st, n_seqs]
    return ggml_reshape_2d(ctx0, cur, cur->ne[0], n_st * n_seqs);
}

// Routed experts plus the shared expert, gated per token by sigmoid(ffn_gate_inp_shexp x).
ggml_tensor * llm_build_delta_net_moe_ffn(llm_graph_context & g, ggml_tensor * cur, int il) {
    const llama_layer & l    = g.model.layers[il];
    ggml_context *      ctx0 = g.ctx0;
    ggml_tensor *       moe  = llm_build_moe_ffn(g, l, cur, qwen3next_desc, il);
    ggml_tensor * sh   = g.build_ffn(cur, l.ffn_up_shexp, nullptr, l.ffn_gate_shexp, nullptr, l.ffn_down_shexp, nullptr,
                                     LLM_FFN_SILU, LLM_FFN_PAR, il);
    ggml_tensor * gate = ggml_sigmoid(ctx0, g.build_lora_mm(l.ffn_gate_inp_shexp, cur));  // [1, n_tokens]
    g.cb(gate, "shared_expert_gate", il);
    return ggml_add(ctx0, moe, ggml_mul(ctx0, sh, gate));
}

void llm_build_delta_net_hybrid(llm_graph_context & g, bool k_heads_tiled,
                                ggml_tensor * (*ffn)(llm_graph_context &, ggml_tensor *, int) ) {
    const llama_model &   model = g.model;
    const llama_hparams & hp    = g.hparams;
    ggml_context *        ctx0  = g.ctx0;

    ggml_tensor * inpL    = g.build_inp_embd(model.tok_embd);
    ggml_tensor * inp_pos = g.build_inp_pos();
    g.build_attn_inp();
    g.build_inp_rs();
    ggml_tensor * inp_out_ids = g.build_inp_out_ids();
    // an MTP drafter's target (params.hidden_all) keeps every token's row: gathered after the final norm
    ggml_tensor * last_ids = g.last_layer_out_ids(inp_out_ids);

    for (int il = 0; il < (int) hp.n_layer; il++) {
        const llama_layer & l   = model.layers[il];
        ggml_tensor *       cur = g.build_norm(inpL, l.attn_norm, nullptr, LLM_NORM_RMS, il);
        g.cb(cur, "attn_norm", il);
        cur = hp.is_recurrent_layer(il) ? delta_net_mixer(g, cur, il, k_heads_tiled)
                                        : delta_net_attn(g, cur, inp_pos, il);
        if (il == (int) hp.n_layer - 1 && last_ids) {
            cur  = ggml_get_rows(ctx0, cur, last_ids);  // only the rows asked for
            inpL = ggml_get_rows(ctx0, inpL, last_ids);
        }
        ggml_tensor * ffn_inp = ggml_add(ctx0, cur, inpL);
        g.cb(ffn_inp, "attn_residual", il);
        cur = g.build_norm(ffn_inp, l.attn_post_norm, nullptr, LLM_NORM_RMS, il);
        g.cb(cur, "attn_post_norm", il);
        cur = ggml_add(ctx0, ffn(g, cur, il), ffn_inp);
        cur = g.build_cvec(cur, il);
        g.cb(cur, "l_out", il);
        inpL = cur;
    }
    g.build_output(inpL, inp_out_ids);
}

void llm_build_delta_net_mtp(llm_graph_context & g,
                             ggml_tensor * (*ffn)(llm_graph_context & g, ggml_tensor * cur, int il)) {
    const llama_model &   model = g.model;
    const llama_hparams & hp    = g.hparams;
    ggml_context *        ctx0  = g.ctx0;
    const int             il    = (int) hp.n_layer;  // the (first) NextN block, after the decoder's
    const llama_layer &   l     = model.layers[il];

    ggml_tensor * inp_pos     = nullptr;
    ggml_tensor * inp_out_ids = nullptr;
    ggml_tensor * x           = llm_build_nextn_input(g, l, il, inp_pos, inp_out_ids);

    // one full-attention block of the decoder's kind over this head's own KV cache
    ggml_tensor * cur = g.build_norm(x, l.attn_norm, nullptr, LLM_NORM_RMS, il);
    cur               = delta_net_attn(g, cur, inp_pos, il);
    if (inp_out_ids) {
        cur = ggml_get_rows(ctx0, cur, inp_out_ids);
        x   = ggml_get_rows(ctx0, x, inp_out_ids);
    }
    ggml_tensor * ffn_inp = ggml_add(ctx0, cur, x);
    cur                   = g.build_norm(ffn_inp, l.attn_post_norm, nullptr, LLM_NORM_RMS, il);
    cur                   = ggml_add(ctx0, ffn(g, cur, il), ffn_inp);
    g.cb(cur, "mtp_out", il);

    llm_build_nextn_head(g, l, cur);
}

static void qwen3next_build_graph(llm_graph_context & g) {
    llm_build_delta_net_hybrid(g, false, llm_build_delta_net_moe_ffn);
}

const llm_arch_ops llm_ops_qwen3next = {
    LLM_ARCH_QWEN3NEXT, qwen3next_load_hparams, qwen3next_build_graph,
    true,  // upstream passes the experts' weight scales to its MoE builder here
};
