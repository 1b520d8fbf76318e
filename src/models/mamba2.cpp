// Mamba-2: an attention-free decoder. Each block is an RMS norm, the state-space mixer and the
// residual add. The mixer projects the input to z, x, B, C and dt (ssm_in); x, B and C go through a
// depthwise causal convolution (ssm_conv1d, the last d_conv - 1 inputs carried in the conv state)
// and SiLU; the selective scan (ssm_scan, one decay A per head, B/C shared by the heads of a group)
// carries the SSM state; y + D x is gated by SiLU(z), RMS-normed per group (ssm_norm) and projected
// back (ssm_out). The per-sequence states live in the recurrent memory (llama-memory-recurrent.h).
#include "llama-graph.h"
#include "llama-log.h"
#include "llama-model-loader.h"
#include "models.h"

void llm_mamba2_load_ssm_hparams(llama_model_loader & ml, llama_hparams & hp) {
    ml.get_key(LLM_KV_SSM_CONV_KERNEL, hp.ssm_d_conv);
    ml.get_key(LLM_KV_SSM_INNER_SIZE, hp.ssm_d_inner);
    ml.get_key(LLM_KV_SSM_STATE_SIZE, hp.ssm_d_state);
    ml.get_key(LLM_KV_SSM_TIME_STEP_RANK, hp.ssm_dt_rank);
    ml.get_key(LLM_KV_SSM_GROUP_COUNT, hp.ssm_n_group);
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hp.f_norm_rms_eps);
    // bounds that keep every state size and view below in range (a hostile file must not reach them)
    if (hp.ssm_d_conv < 2 || hp.ssm_d_conv > 64 || hp.ssm_d_inner == 0 || hp.ssm_d_state == 0 || hp.ssm_dt_rank == 0 ||
        hp.ssm_n_group == 0 || hp.ssm_d_inner % hp.ssm_dt_rank != 0 || hp.ssm_d_inner % hp.ssm_n_group != 0 ||
        hp.ssm_dt_rank % hp.ssm_n_group != 0 || hp.ssm_d_inner > (1u << 16) || hp.ssm_d_state > 1024 ||
        hp.ssm_n_group > 64) {
        throw llama_error(llama_format(
            "invalid ssm hyperparameters: conv_kernel %u, inner_size %u, state_size %u, time_step_rank %u, "
            "group_count %u",
            hp.ssm_d_conv, hp.ssm_d_inner, hp.ssm_d_state, hp.ssm_dt_rank, hp.ssm_n_group));
    }
}

static void mamba2_load_hparams(llama_model_loader & ml, llama_hparams & hp) {
    llm_mamba2_load_ssm_hparams(ml, hp);
    hp.n_expert = 0;
}

ggml_tensor * llm_build_mamba2_mixer(llm_graph_context & g, ggml_tensor * cur, int il) {
    const llama_hparams & hp       = g.hparams;
    const llama_layer &   l        = g.model.layers[il];
    ggml_context *        ctx0     = g.ctx0;
    const int64_t         d_conv   = hp.ssm_d_conv;
    const int64_t         d_inner  = hp.ssm_d_inner;
    const int64_t         d_state  = hp.ssm_d_state;
    const int64_t         n_head   = hp.ssm_dt_rank;
    const int64_t         head_dim = d_inner / n_head;
    const int64_t         n_group  = hp.ssm_n_group;
    const int64_t         n_seqs   = g.params.n_seqs;
    const int64_t         n_st     = g.n_tokens / n_seqs;              // tokens per sequence
    const int64_t         n_ch     = d_inner + 2 * n_group * d_state;  // conv channels: x, B, C

    // the scan and convolution read their small parameters as F32 (as upstream's converter writes
    // them); a file with another type is refused here, at context creation, not run
    for (const ggml_tensor * t : {l.ssm_conv1d, l.ssm_conv1d_b, l.ssm_dt_b, l.ssm_a, l.ssm_d, l.ssm_norm}) {
        if (t && t->type != GGML_TYPE_F32) {
            throw llama_error(llama_format("%s is %s; mamba2 needs it in F32", t->name, ggml_type_name(t->type)));
        }
    }
    ggml_tensor * r_all = g.rs->r_layer(il);  // [n_embd_r, n_slots]
    ggml_tensor * s_all = g.rs->s_layer(il);  // [n_embd_s, n_slots]

    cur                  = ggml_reshape_3d(ctx0, cur, cur->ne[0], n_st, n_seqs);
    ggml_tensor * zxBCdt = g.build_lora_mm(l.ssm_in, cur);  // [2 inner + 2 groups x state + heads, n_st, n_seqs]
    const size_t  es     = ggml_element_size(zxBCdt);
    ggml_tensor * z =
        ggml_view_4d(ctx0, zxBCdt, head_dim, n_head, n_st, n_seqs, head_dim * es, zxBCdt->nb[1], zxBCdt->nb[2], 0);
    ggml_tensor * xBC = ggml_view_3d(ctx0, zxBCdt, n_ch, n_st, n_seqs, zxBCdt->nb[1], zxBCdt->nb[2], d_inner * es);
    ggml_tensor * dt =
        ggml_view_3d(ctx0, zxBCdt, n_head, n_st, n_seqs, zxBCdt->nb[1], zxBCdt->nb[2], (d_inner + n_ch) * es);

    // convolution: the carried inputs, then this ubatch's; the last d_conv - 1 columns are the new state
    {
        ggml_tensor * conv   = ggml_reshape_3d(ctx0, g.build_rs_read(r_all), d_conv - 1, n_ch, n_seqs);
        ggml_tensor * conv_x = ggml_concat(ctx0, conv, ggml_transpose(ctx0, xBC), 0);  // [d_conv-1+n_st, ch, seqs]
        ggml_tensor * last   = ggml_view_3d(ctx0, conv_x, d_conv - 1, n_ch, n_seqs, conv_x->nb[1], conv_x->nb[2],
                                            n_st * ggml_element_size(conv_x));
        g.build_rs_write(r_all, ggml_reshape_2d(ctx0, ggml_cont(ctx0, last), hp.n_embd_r(), n_seqs));
        g.build_rs_rows(conv_x);  // with build_rs_replay: the state after each token (speculative rewinds)
        xBC = ggml_ssm_conv(ctx0, conv_x, l.ssm_conv1d);  // [ch, n_st, n_seqs]
        if (!xBC) {  // the op logged why: a file whose kernel is not F32 (or misshapen)
            throw llama_error(llama_format("layer %d: ssm_conv1d must be F32 [d_conv, channels]", il));
        }
        if (l.ssm_conv1d_b) {  // optional in the hybrids (granitehybrid), as upstream loads it
            xBC = ggml_add(ctx0, xBC, l.ssm_conv1d_b);
        }
        xBC = ggml_silu(ctx0, xBC);
        g.cb(xBC, "ssm_conv", il);
    }

    // selective scan from the slots' states; the output holds y, then the final states
    ggml_tensor * x  = ggml_view_4d(ctx0, xBC, head_dim, n_head, n_st, n_seqs, head_dim * ggml_element_size(xBC),
                                    xBC->nb[1], xBC->nb[2], 0);
    const size_t  xe = ggml_element_size(xBC);
    ggml_tensor * B =
        ggml_view_4d(ctx0, xBC, d_state, n_group, n_st, n_seqs, d_state * xe, xBC->nb[1], xBC->nb[2], d_inner * xe);
    ggml_tensor * C  = ggml_view_4d(ctx0, xBC, d_state, n_group, n_st, n_seqs, d_state * xe, xBC->nb[1], xBC->nb[2],
                                    (d_inner + n_group * d_state) * xe);
    dt               = ggml_add(ctx0, ggml_cont(ctx0, dt), l.ssm_dt_b);
    ggml_tensor * s  = ggml_reshape_4d(ctx0, s_all, d_state, head_dim, n_head, s_all->ne[1]);
    ggml_tensor * ys = ggml_ssm_scan(ctx0, s, x, dt, l.ssm_a, B, C, g.res.inp.rs_ids, 1);
    if (!ys) {
        throw llama_error(llama_format("layer %d: ssm_a must be F32 [1, heads]", il));
    }
    g.cb(ys, "ssm_scan", il);
    g.build_rs_replay(ys);
    const int64_t n_y    = head_dim * n_head * n_st * n_seqs;
    ggml_tensor * states = ggml_view_2d(ctx0, ys, hp.n_embd_s(), n_seqs, hp.n_embd_s() * ggml_element_size(ys),
                                        n_y * ggml_element_size(ys));
    g.build_rs_write(s_all, states);

    ggml_tensor * y =
        ggml_view_4d(ctx0, ys, head_dim, n_head, n_st, n_seqs, head_dim * ggml_element_size(ys),
                     head_dim * n_head * ggml_element_size(ys), head_dim * n_head * n_st * ggml_element_size(ys), 0);
    y = ggml_add(ctx0, y, ggml_mul(ctx0, x, l.ssm_d));   // D: [1, heads] broadcast over head_dim
    y = ggml_swiglu_split(ctx0, ggml_cont(ctx0, z), y);  // y * SiLU(z)
    // grouped RMS norm: each group of inner / groups channels normalised on its own (falcon-h1
    // models without the mamba RMS norm have no ssm_norm and skip it)
    if (l.ssm_norm) {
        y = ggml_reshape_4d(ctx0, y, d_inner / n_group, n_group, n_st, n_seqs);
        y = g.build_norm(y, l.ssm_norm, nullptr, LLM_NORM_RMS, il);
    }
    y   = ggml_reshape_3d(ctx0, y, d_inner, n_st, n_seqs);
    cur = g.build_lora_mm(l.ssm_out, y);  // [n_embd, n_st, n_seqs]
    return ggml_reshape_2d(ctx0, cur, cur->ne[0], n_st * n_seqs);
}

static void mamba2_build_graph(llm_graph_context & g) {
    const llama_model & model = g.model;
    ggml_context *      ctx0  = g.ctx0;
    ggml_tensor *       inpL  = g.build_inp_embd(model.tok_embd);
    g.build_inp_rs();
    ggml_tensor * inp_out_ids = g.build_inp_out_ids();
    for (int il = 0; il < (int) g.hparams.n_layer; il++) {
        ggml_tensor * cur = g.build_norm(inpL, model.layers[il].attn_norm, nullptr, LLM_NORM_RMS, il);
        g.cb(cur, "attn_norm", il);
        cur = llm_build_mamba2_mixer(g, cur, il);
        g.cb(cur, "mamba_out", il);
        if (il == (int) g.hparams.n_layer - 1 && inp_out_ids) {
            cur  = ggml_get_rows(ctx0, cur, inp_out_ids);  // only the rows asked for
            inpL = ggml_get_rows(ctx0, inpL, inp_out_ids);
        }
        cur = ggml_add(ctx0, cur, inpL);
        cur = g.build_cvec(cur, il);
        g.cb(cur, "l_out", il);
        inpL = cur;
    }
    g.build_output(inpL);
}

const llm_arch_ops llm_ops_mamba2 = {
    LLM_ARCH_MAMBA2,
    mamba2_load_hparams,
    mamba2_build_graph,
};
