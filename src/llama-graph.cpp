#include "llama-graph.h"

#include "llama-adapter.h"

#include "llama-log.h"
#include "llama-model.h"

#include "ggml-backend.h"

#include <algorithm>
#include <cmath>
#include <cstring>

// ---- llm_graph_result --------------------------------------------------------------------------

llm_graph_result::llm_graph_result(size_t max_nodes) : max_nodes(max_nodes) {
    meta.resize(ggml_tensor_overhead() * max_nodes + ggml_graph_overhead_custom(max_nodes, false));
}

llm_graph_result::~llm_graph_result() {
    ggml_free(ctx);
}

void llm_graph_result::reset() {
    ggml_free(ctx);
    ggml_init_params ip = {meta.size(), meta.data(), true};
    ctx                 = ggml_init(ip);
    if (!ctx) {
        throw llama_error("cannot create the graph context");
    }
    gf = ggml_new_graph_custom(ctx, max_nodes, false);
    if (!gf) {
        throw llama_error("cannot create the graph");
    }
    inp      = llm_graph_inputs();
    t_logits = nullptr;
    t_rs_rows.clear();
    t_rs_replay.clear();
    t_embd        = nullptr;
    t_hidden      = nullptr;
    valid         = false;
    mask_pad_done = false;
}

void llm_graph_result::set_inputs(const llama_ubatch & ub, const llama_kv_slot & slot, const llama_kv_cache * kv,
                                  int32_t n_embd, const llama_hparams & hp) {
    const uint32_t n_swa = hp.n_swa;
    const uint32_t n     = ub.n_tokens;
    if (inp.tokens) {
        ggml_backend_tensor_set(inp.tokens, ub.token, 0, n * sizeof(int32_t));
    }
    if (inp.embd) {
        ggml_backend_tensor_set(inp.embd, ub.embd + (size_t) ub.i_begin * n_embd, 0,
                                (size_t) n * n_embd * sizeof(float));
    }
    if (inp.pos && inp.pos->buffer) {  // no buffer: no layer rotates (granite's switch, nemotron_h)
        ggml_backend_tensor_set(inp.pos, ub.pos, 0, n * sizeof(int32_t));
    }
    if (inp.attn_scale) {
        s_f32.resize(n);
        for (uint32_t i = 0; i < n; i++) {
            const double p = std::floor(((double) ub.pos[i] + inp.attn_temp_offset) / inp.attn_temp_floor_scale);
            s_f32[i]       = (float) (std::log(p + 1.0) * inp.attn_temp_scale + 1.0);
        }
        ggml_backend_tensor_set(inp.attn_scale, s_f32.data(), 0, n * sizeof(float));
    }
    if (inp.out_ids) {
        s_i32.clear();
        for (uint32_t i = 0; i < n; i++) {
            if (ub.output[i]) {
                s_i32.push_back((int32_t) i);
            }
        }
        ggml_backend_tensor_set(inp.out_ids, s_i32.data(), 0, s_i32.size() * sizeof(int32_t));
    }
    if (inp.k_idxs) {
        s_i64.resize(ggml_nelements(inp.k_idxs));
        kv->fill_k_idxs(s_i64.data(), slot);
        ggml_backend_tensor_set(inp.k_idxs, s_i64.data(), 0, ggml_nbytes(inp.k_idxs));
    }
    if (inp.v_idxs) {
        s_i64.resize(ggml_nelements(inp.v_idxs));
        kv->fill_v_idxs(s_i64.data(), slot);
        ggml_backend_tensor_set(inp.v_idxs, s_i64.data(), 0, ggml_nbytes(inp.v_idxs));
    }
    if (inp.v_rows) {
        s_i32.resize(ggml_nelements(inp.v_rows));
        for (size_t i = 0; i < s_i32.size(); i++) {
            s_i32[i] = (int32_t) i;
        }
        ggml_backend_tensor_set(inp.v_rows, s_i32.data(), 0, ggml_nbytes(inp.v_rows));
    }
    if (inp.kq_mask) {
        set_mask(inp.kq_mask, ub, *kv, hp, 0);
    }
    if (inp.rs_ids) {
        // one slot per sequence (the slot index is the sequence id); sequence j's first token is
        // j * n_seq_tokens in the equal split
        s_i32.resize(ub.n_seqs);
        for (uint32_t j = 0; j < ub.n_seqs; j++) {
            s_i32[j] = ub.seq_id[j * ub.n_seq_tokens][0];
        }
        ggml_backend_tensor_set(inp.rs_ids, s_i32.data(), 0, s_i32.size() * sizeof(int32_t));
    }
    const llama_kv_cache * ws = kv ? kv->swa_cache() : nullptr;
    if (ws && (inp.k_idxs_swa || inp.v_idxs_swa || inp.kq_mask_swa)) {
        const llama_kv_slot ss = llama_kv_cache::swa_slot(slot);
        if (inp.k_idxs_swa) {
            s_i64.resize(ggml_nelements(inp.k_idxs_swa));
            ws->fill_k_idxs(s_i64.data(), ss);
            ggml_backend_tensor_set(inp.k_idxs_swa, s_i64.data(), 0, ggml_nbytes(inp.k_idxs_swa));
        }
        if (inp.v_idxs_swa) {
            s_i64.resize(ggml_nelements(inp.v_idxs_swa));
            ws->fill_v_idxs(s_i64.data(), ss);
            ggml_backend_tensor_set(inp.v_idxs_swa, s_i64.data(), 0, ggml_nbytes(inp.v_idxs_swa));
        }
        if (inp.kq_mask_swa) {
            set_mask(inp.kq_mask_swa, ub, *ws, hp, n_swa);
        }
    } else if (inp.kq_mask_swa) {
        set_mask(inp.kq_mask_swa, ub, *kv, hp, n_swa);
    }
    mask_pad_done = true;
}

void llm_graph_result::set_mask(ggml_tensor * mask, const llama_ubatch & ub, const llama_kv_cache & kv,
                                const llama_hparams & hp, uint32_t n_swa) {
    // the padding rows never change: they are written once per built graph, the token rows on every call
    const int64_t n_rows = mask_pad_done ? (int64_t) ub.n_tokens : mask->ne[1];
    s_f32.resize((size_t) n_rows * mask->ne[0]);
    kv.fill_kq_mask(s_f32.data(), n_rows, ub, (uint32_t) mask->ne[0], params.causal, n_swa, hp.swa_symmetric,
                    hp.f_max_alibi_bias > 0.0f);
    ggml_backend_tensor_set(mask, s_f32.data(), 0, s_f32.size() * sizeof(float));
}

// ---- llm_graph_context -------------------------------------------------------------------------

llm_graph_context::llm_graph_context(const llama_model & model, const llama_cparams & cparams,
                                     const llama_kv_cache * kv, const llm_graph_params & params, llm_graph_result & res,
                                     const llama_memory_recurrent * rs)
    : model(model),
      hparams(model.hparams),
      cparams(cparams),
      kv(kv),
      rs(rs),
      params(params),
      res(res),
      ctx0(res.ctx),
      gf(res.gf),
      n_tokens(params.n_tokens),
      n_outputs(params.n_outputs),
      n_kv(params.n_kv) {}

void llm_graph_context::cb(ggml_tensor * t, const char * name, int il) const {
    if (!t) {
        return;
    }
    if (il >= 0) {
        ggml_format_name(t, "%s-%d", name, il);
    } else {
        ggml_set_name(t, name);
    }
}

ggml_tensor * llm_graph_context::build_inp_embd(ggml_tensor * tok_embd) {
    ggml_tensor * cur;
    if (params.embd_input) {
        res.inp.embd = ggml_new_tensor_2d(ctx0, GGML_TYPE_F32, hparams.n_embd, n_tokens);
        ggml_set_input(res.inp.embd);
        cur = res.inp.embd;
    } else {
        res.inp.tokens = ggml_new_tensor_1d(ctx0, GGML_TYPE_I32, n_tokens);
        ggml_set_input(res.inp.tokens);
        cb(res.inp.tokens, "inp_tokens", -1);
        cur = ggml_get_rows(ctx0, tok_embd, res.inp.tokens);
        // token_embd adapters: A's columns are gathered per token, then B projects them to n_embd
        for (size_t i = 0; loras && i < loras->size(); i++) {
            const llama_adapter_lora_weight * lw = (*loras)[i].first->get_weight(tok_embd);
            if (lw && lw->embd) {
                const float   k = lw->scale((*loras)[i].first->alpha, (*loras)[i].second);
                ggml_tensor * d = ggml_mul_mat(ctx0, lw->b, ggml_get_rows(ctx0, lw->a, res.inp.tokens));
                cur             = ggml_add(ctx0, cur, ggml_scale(ctx0, d, k));
            }
        }
    }
    cb(cur, "inp_embd", -1);
    return cur;
}

ggml_tensor * llm_graph_context::build_inp_pos() {
    res.inp.pos = ggml_new_tensor_1d(ctx0, GGML_TYPE_I32, n_tokens);
    ggml_set_input(res.inp.pos);
    cb(res.inp.pos, "inp_pos", -1);
    return res.inp.pos;
}

ggml_tensor * llm_graph_context::build_inp_attn_scale() {
    res.inp.attn_scale            = ggml_new_tensor_3d(ctx0, GGML_TYPE_F32, 1, 1, n_tokens);
    res.inp.attn_temp_scale       = hparams.f_attn_temp_scale;
    res.inp.attn_temp_offset      = hparams.f_attn_temp_offset;
    res.inp.attn_temp_floor_scale = hparams.n_attn_temp_floor_scale;
    ggml_set_input(res.inp.attn_scale);
    cb(res.inp.attn_scale, "attn_scale", -1);
    return res.inp.attn_scale;
}

ggml_tensor * llm_graph_context::build_inp_out_ids() {
    if (n_outputs == n_tokens) {
        return nullptr;
    }
    res.inp.out_ids = ggml_new_tensor_1d(ctx0, GGML_TYPE_I32, n_outputs);
    ggml_set_input(res.inp.out_ids);
    cb(res.inp.out_ids, "inp_out_ids", -1);
    return res.inp.out_ids;
}

ggml_tensor * llm_graph_context::build_inp_rs() {
    res.inp.rs_ids = ggml_new_tensor_1d(ctx0, GGML_TYPE_I32, params.n_seqs);
    ggml_set_input(res.inp.rs_ids);
    cb(res.inp.rs_ids, "inp_rs_ids", -1);
    return res.inp.rs_ids;
}

ggml_tensor * llm_graph_context::build_rs_read(ggml_tensor * states) const {
    if (params.rs_slot0 >= 0) {
        // consecutive slots: their rows as they are (the write after the recurrence depends on what
        // reads them, so it cannot overtake the read)
        return ggml_view_2d(ctx0, states, states->ne[0], params.n_seqs, states->nb[1],
                            (size_t) params.rs_slot0 * states->nb[1]);
    }
    return ggml_get_rows(ctx0, states, res.inp.rs_ids);
}

void llm_graph_context::build_rs_write(ggml_tensor * states, ggml_tensor * rows) const {
    // rows are computed from the slots' old contents, which the graph reads before this write
    ggml_build_forward_expand(gf, ggml_set_rows(ctx0, states, rows, res.inp.rs_ids));
}

void llm_graph_context::build_rs_rows(ggml_tensor * conv_in) const {
    if (params.rs_rows) {
        ggml_set_output(conv_in);  // not overwritten by later nodes: read after the compute
        res.t_rs_rows.push_back(conv_in);
    }
}

void llm_graph_context::build_rs_replay(ggml_tensor * node) const {
    if (!params.rs_rows) {
        return;
    }
    llama_rs_replay_rec rec;
    rec.op = node->op;
    for (int i = 0; i < GGML_MAX_SRC; i++) {
        ggml_tensor * t  = node->src[i];
        const int     td = llama_rs_replay_token_dim(node->op, i);
        if (t == nullptr || td == -2) {
            continue;
        }
        if (td >= 0) {
            // a view (x, B, C of the conv output) is copied out: the copy, not the tensor it views, is
            // what the compute keeps
            if (t->view_src || !ggml_is_contiguous(t)) {
                t = ggml_cont(ctx0, t);
            }
            ggml_set_output(t);
            ggml_build_forward_expand(gf, t);
        }
        rec.in[i] = t;  // td -1: a weight, readable as it is
    }
    res.t_rs_replay.push_back(rec);
}

void llm_graph_context::build_attn_inp() {
    const int64_t n_rows = (n_tokens + GGML_KQ_MASK_PAD - 1) / GGML_KQ_MASK_PAD * GGML_KQ_MASK_PAD;
    res.inp.kq_mask      = ggml_new_tensor_2d(ctx0, GGML_TYPE_F32, n_kv, n_rows);
    ggml_set_input(res.inp.kq_mask);
    cb(res.inp.kq_mask, "kq_mask", -1);
    if (hparams.is_swa_any()) {
        // with a window cache the sliding-window layers attend over its cells instead
        res.inp.kq_mask_swa = ggml_new_tensor_2d(ctx0, GGML_TYPE_F32, kv->swa_cache() ? params.n_kv_swa : n_kv, n_rows);
        ggml_set_input(res.inp.kq_mask_swa);
        cb(res.inp.kq_mask_swa, "kq_mask_swa", -1);
    }

    res.inp.k_idxs = ggml_new_tensor_1d(ctx0, GGML_TYPE_I64, n_tokens);
    ggml_set_input(res.inp.k_idxs);
    cb(res.inp.k_idxs, "k_idxs", -1);

    // no V store (and no input a graph would leave unallocated) where V is held inside K
    const int64_t nv = kv->v_trans() ? n_tokens * (int64_t) hparams.n_embd_v_gqa() : n_tokens;
    if (!kv->v_in_k()) {
        res.inp.v_idxs = ggml_new_tensor_1d(ctx0, GGML_TYPE_I64, nv);
        ggml_set_input(res.inp.v_idxs);
        cb(res.inp.v_idxs, "v_idxs", -1);
    }

    if (kv->swa_cache()) {
        res.inp.k_idxs_swa = ggml_new_tensor_1d(ctx0, GGML_TYPE_I64, n_tokens);
        ggml_set_input(res.inp.k_idxs_swa);
        cb(res.inp.k_idxs_swa, "k_idxs_swa", -1);
        if (!kv->v_in_k()) {
            res.inp.v_idxs_swa = ggml_new_tensor_1d(ctx0, GGML_TYPE_I64, nv);
            ggml_set_input(res.inp.v_idxs_swa);
            cb(res.inp.v_idxs_swa, "v_idxs_swa", -1);
        }
    }
}

ggml_tensor * llm_graph_context::build_norm(ggml_tensor * cur, ggml_tensor * w, ggml_tensor * b, llm_norm_type type,
                                            int il) const {
    cur = type == LLM_NORM_RMS ? ggml_rms_norm(ctx0, cur, hparams.f_norm_rms_eps)
                               : ggml_norm(ctx0, cur, hparams.f_norm_eps);
    if (w) {
        cb(cur, "norm", il);
        cur = ggml_mul(ctx0, cur, w);
    }
    if (b) {
        cb(cur, "norm_w", il);
        cur = ggml_add(ctx0, cur, b);
    }
    return cur;
}

ggml_tensor * llm_graph_context::v_rows(uint32_t n) const {
    if (!res.inp.v_rows) {
        // made on first use: an input no node reads would never be allocated, yet set_inputs fills it
        res.inp.v_rows = ggml_new_tensor_1d(ctx0, GGML_TYPE_I32, std::max<int64_t>(n_kv, params.n_kv_swa));
        ggml_set_input(res.inp.v_rows);
        cb(res.inp.v_rows, "v_rows", -1);
    }
    return ggml_view_1d(ctx0, res.inp.v_rows, n, 0);
}

ggml_tensor * llm_graph_context::kq_mask(int il) const {
    return hparams.is_swa(il) && res.inp.kq_mask_swa ? res.inp.kq_mask_swa : res.inp.kq_mask;
}

ggml_tensor * llm_graph_context::build_rope(ggml_tensor * x, ggml_tensor * pos, ggml_tensor * freq_factors,
                                            int il) const {
    float base  = cparams.rope_freq_base;
    float scale = cparams.rope_freq_scale;
    if (hparams.is_swa(il) && hparams.rope_freq_base_train_swa > 0.0f) {
        base  = hparams.rope_freq_base_train_swa;
        scale = hparams.rope_freq_scale_train_swa;
    }
    return ggml_rope_ext(ctx0, x, pos, freq_factors, (int) hparams.n_rot, (int) hparams.rope_type,
                         (int) cparams.n_ctx_orig_yarn, base, scale, cparams.yarn_ext_factor, cparams.yarn_attn_factor,
                         cparams.yarn_beta_fast, cparams.yarn_beta_slow);
}

ggml_tensor * llm_graph_context::build_lora_mm(ggml_tensor * w, ggml_tensor * cur, ggml_tensor * b) const {
    ggml_tensor * x = cur;
    cur             = ggml_mul_mat(ctx0, w, x);
    if (ggml_tensor * s = model.scale_of(w)) {
        cur = ggml_mul(ctx0, cur, s);  // the weight's per-tensor scale (the adapters are not scaled)
    }
    for (size_t i = 0; loras && i < loras->size(); i++) {
        const llama_adapter_lora_weight * lw = (*loras)[i].first->get_weight(w);
        if (!lw || lw->embd) {
            continue;  // embd pairs are flipped: they apply to the input gathering only (tied head too)
        }
        const float   k  = lw->scale((*loras)[i].first->alpha, (*loras)[i].second);
        ggml_tensor * ab = ggml_mul_mat(ctx0, lw->b, ggml_mul_mat(ctx0, lw->a, x));
        cur              = ggml_add(ctx0, cur, ggml_scale(ctx0, ab, k));
    }
    if (b) {
        cur = ggml_add(ctx0, cur, b);
    }
    return cur;
}

ggml_tensor * llm_graph_context::build_cvec(ggml_tensor * cur, int il) const {
    if (!cvec) {
        return cur;
    }
    ggml_tensor * out = cvec->apply_to(ctx0, cur, il);
    if (out != cur) {
        cb(out, "l_out_cvec", il);
    }
    return out;
}

void llm_graph_context::build_qkv_rope(const llama_layer & l, ggml_tensor * cur, ggml_tensor * inp_pos, int il,
                                       ggml_tensor *& q, ggml_tensor *& k, ggml_tensor *& v) const {
    const int64_t head_dim = hparams.n_embd_head_k;
    q                      = build_lora_mm(l.wq, cur, l.bq);
    cb(q, "Qcur", il);
    k = build_lora_mm(l.wk, cur, l.bk);
    cb(k, "Kcur", il);
    v = build_lora_mm(l.wv, cur, l.bv);
    cb(v, "Vcur", il);
    // Q, K, V adjacent in the node order (the KV store would otherwise pull K and V in first): the CPU
    // backend runs consecutive decode products of one activation under one barrier (docs/ggml-backend.md)
    ggml_build_forward_expand(gf, q);
    ggml_build_forward_expand(gf, k);
    ggml_build_forward_expand(gf, v);

    // a q/k norm as wide as the whole projection (olmo2) normalises it before the split into heads,
    // a head-wide one (qwen3, gemma3) each head
    const bool q_full = l.attn_q_norm && l.attn_q_norm->ne[0] != head_dim;
    const bool k_full = l.attn_k_norm && l.attn_k_norm->ne[0] != head_dim;
    if (q_full) {
        q = build_norm(q, l.attn_q_norm, nullptr, LLM_NORM_RMS, il);
        cb(q, "Qcur_normed", il);
    }
    if (k_full) {
        k = build_norm(k, l.attn_k_norm, nullptr, LLM_NORM_RMS, il);
        cb(k, "Kcur_normed", il);
    }
    q = ggml_reshape_3d(ctx0, q, head_dim, hparams.n_head, n_tokens);
    k = ggml_reshape_3d(ctx0, k, head_dim, hparams.n_head_kv, n_tokens);
    if (l.attn_q_norm && !q_full) {
        q = build_norm(q, l.attn_q_norm, nullptr, LLM_NORM_RMS, il);
        cb(q, "Qcur_normed", il);
    }
    if (l.attn_k_norm && !k_full) {
        k = build_norm(k, l.attn_k_norm, nullptr, LLM_NORM_RMS, il);
        cb(k, "Kcur_normed", il);
    }
    if (!hparams.use_rope(il)) {
        return;  // a NoPE layer
    }
    q = build_rope(q, inp_pos, l.rope_freqs, il);
    cb(q, "Qcur_rope", il);
    k = build_rope(k, inp_pos, l.rope_freqs, il);
    cb(k, "Kcur_rope", il);
}

ggml_tensor * llm_graph_context::build_ffn(ggml_tensor * cur, ggml_tensor * up, ggml_tensor * up_b, ggml_tensor * gate,
                                           ggml_tensor * gate_b, ggml_tensor * down, ggml_tensor * down_b,
                                           llm_ffn_op op, llm_ffn_gate gate_type, int il) const {
    // With a per-tensor scale s, upstream's feed-forward scales the biased product, (x W + b) s, where
    // its attention projections add the bias after scaling: the bias here is b s.
    auto scaled_bias = [&](ggml_tensor * w, ggml_tensor * b) {
        ggml_tensor * s = w && b ? model.scale_of(w) : nullptr;
        return s ? ggml_mul(ctx0, b, s) : b;
    };
    up_b              = scaled_bias(up, up_b);
    gate_b            = scaled_bias(gate, gate_b);
    down_b            = scaled_bias(down, down_b);
    ggml_tensor * tmp = up ? build_lora_mm(up, cur, up_b) : cur;
    cb(tmp, "ffn_up", il);
    if (gate) {
        ggml_tensor * g = build_lora_mm(gate, gate_type == LLM_FFN_SEQ ? tmp : cur, gate_b);
        cb(g, "ffn_gate", il);
        switch (op) {
            case LLM_FFN_SILU:
                cur = ggml_swiglu_split(ctx0, g, tmp);
                break;
            case LLM_FFN_GELU:
                cur = ggml_geglu_split(ctx0, g, tmp);
                break;
            case LLM_FFN_RELU:
                cur = ggml_mul(ctx0, ggml_relu(ctx0, g), tmp);
                break;
            case LLM_FFN_RELU_SQR:
                cur = ggml_mul(ctx0, ggml_sqr(ctx0, ggml_relu(ctx0, g)), tmp);
                break;
            case LLM_FFN_GEGLU_FUSED:
            case LLM_FFN_SWIGLU_FUSED:
                throw llama_error("build_ffn: a fused gated unit takes no gate weight");
        }
        cb(cur, "ffn_act", il);
    } else {
        switch (op) {
            case LLM_FFN_SILU:
                cur = ggml_silu(ctx0, tmp);
                break;
            case LLM_FFN_GELU:
                cur = ggml_gelu(ctx0, tmp);
                break;
            case LLM_FFN_RELU:
                cur = ggml_relu(ctx0, tmp);
                break;
            case LLM_FFN_RELU_SQR:
                cur = ggml_sqr(ctx0, ggml_relu(ctx0, tmp));
                break;
            case LLM_FFN_GEGLU_FUSED:
                cur = ggml_glu(ctx0, tmp, GGML_GLU_OP_GEGLU, false);
                break;
            case LLM_FFN_SWIGLU_FUSED:
                cur = ggml_glu(ctx0, tmp, GGML_GLU_OP_SWIGLU, false);
                break;
        }
        cb(cur, "ffn_act", il);
    }
    cur = build_lora_mm(down, cur, down_b);
    cb(cur, "ffn_out", il);
    return cur;
}

ggml_tensor * llm_graph_context::build_attn(ggml_tensor * wo, ggml_tensor * wo_b, ggml_tensor * q_cur,
                                            ggml_tensor * k_cur, ggml_tensor * v_cur, float kq_scale, int il,
                                            ggml_tensor * sinks, ggml_tensor * v_mla) const {
    // K (roped) then Q first, next to each other: on the CPU two independent light nodes share a
    // barrier, and so do the K and V stores after them (one barrier less per layer at decode than
    // rope K, store K, store V, rope Q, where Q's rope could land on V's freed input)
    const bool     win    = in_window_cache(il);
    const uint32_t n_kv_l = n_kv_of(il);  // cells of the layer's cache
    if (k_cur) {
        ggml_build_forward_expand(gf, k_cur);
    }
    ggml_build_forward_expand(gf, q_cur);
    // store this ubatch's K and V: the attention below reads them back from the cache. A KV-sharing
    // layer (no k_cur / v_cur) reads the cells an earlier layer of the graph has written.
    if (k_cur) {
        ggml_tensor * k2d = ggml_reshape_2d(ctx0, k_cur, hparams.n_embd_k_gqa(), n_tokens);
        ggml_build_forward_expand(gf, kv->cpy_k(ctx0, k2d, win ? res.inp.k_idxs_swa : res.inp.k_idxs, il));
        if (ggml_tensor * v_store = kv->cpy_v(ctx0, v_cur, win ? res.inp.v_idxs_swa : res.inp.v_idxs, il)) {
            ggml_build_forward_expand(gf, v_store);  // none when V is held inside K
        }
    }

    ggml_tensor * q = ggml_permute(ctx0, q_cur, 0, 2, 1, 3);                        // [d, n_tokens, n_head]
    ggml_tensor * k = ggml_permute(ctx0, kv->get_k(ctx0, il, n_kv_l), 0, 2, 1, 3);  // [d, n_kv, n_head_kv]
    ggml_tensor * cur;
    const float   cap = hparams.f_attn_logit_softcapping;  // gemma2: cap * tanh(scores / cap), 0 = off

    if (params.flash_attn && !sinks) {
        ggml_tensor * v = ggml_permute(ctx0, kv->get_v(ctx0, il, n_kv_l), 0, 2, 1, 3);  // [dv, n_kv, n_head_kv]
        cur             = ggml_flash_attn_ext(ctx0, q, k, v, kq_mask(il), kq_scale, hparams.f_max_alibi_bias,
                                              cap);  // [dv, n_head, n_tokens]
        cb(cur, "fattn", il);
        if (v_mla) {
            cur = ggml_mul_mat(ctx0, v_mla,
                               ggml_cont(ctx0, ggml_permute(ctx0, cur, 0, 2, 1, 3)));  // [dvh, n_tokens, n_head]
            cb(cur, "fattn_mla", il);
            cur = ggml_cont(ctx0, ggml_permute(ctx0, cur, 0, 2, 1, 3));
        }
        cur = ggml_reshape_2d(ctx0, cur, cur->ne[0] * hparams.n_head, n_tokens);
    } else {
        ggml_tensor * kq = ggml_mul_mat(ctx0, k, q);  // [n_kv, n_tokens, n_head]
        cb(kq, "kq", il);
        if (cap > 0.0f) {
            kq       = ggml_scale(ctx0, ggml_tanh(ctx0, ggml_scale(ctx0, kq, kq_scale / cap)), cap);
            kq_scale = 1.0f;
            cb(kq, "kq_softcap", il);
        }
        if (sinks) {
            // softmax over [scores | sink]: the masked, scaled scores get one more column holding
            // the head's sink logit, and that column is dropped after the softmax
            ggml_tensor * m = kq_mask(il);
            m               = ggml_view_2d(ctx0, m, m->ne[0], n_tokens, m->nb[1], 0);
            kq              = ggml_scale(ctx0, kq, kq_scale);
            ggml_tensor * col0 =
                ggml_cont(ctx0, ggml_view_3d(ctx0, kq, 1, kq->ne[1], kq->ne[2], kq->nb[1], kq->nb[2], 0));
            ggml_tensor * sink_col = ggml_add(ctx0, ggml_scale(ctx0, col0, 0.0f),
                                              ggml_reshape_3d(ctx0, sinks, 1, 1, sinks->ne[0]));  // finite * 0
            kq = ggml_concat(ctx0, ggml_add(ctx0, kq, m), sink_col, 0);  // [n_kv + 1, n_tokens, n_head]
            kq = ggml_soft_max(ctx0, kq);
            kq = ggml_cont(ctx0, ggml_view_3d(ctx0, kq, n_kv_l, kq->ne[1], kq->ne[2], kq->nb[1], kq->nb[2], 0));
        } else {
            // ALiBi (f_max_alibi_bias > 0): the mask holds -|i - j|, scaled per head by its slope
            kq = ggml_soft_max_ext(ctx0, kq, kq_mask(il), kq_scale, hparams.f_max_alibi_bias);
        }
        cb(kq, "kq_soft_max", il);
        ggml_tensor * v = kv->get_v(ctx0, il, n_kv_l);  // [n_kv, dv, n_head_kv]
        if (!kv->v_trans()) {
            // row-major V on the plain path (a flash-attention cache on sink layers, or a quantized V):
            // transpose here; a quantized V is first widened to F32 by a row gather (its blocks cannot
            // be permuted, and every backend gathers quantized rows on the device that holds them)
            if (ggml_is_quantized(v->type) && kv->v_in_k()) {
                // V inside K: whole K rows gathered, then their V prefix (contiguous rows of F32)
                const int64_t dv = v->ne[0], hv = v->ne[1];
                ggml_tensor * kc = kv->get_k(ctx0, il, n_kv_l);
                ggml_tensor * rows =
                    ggml_get_rows(ctx0, ggml_reshape_2d(ctx0, kc, kc->ne[0] * kc->ne[1], n_kv_l), v_rows(n_kv_l));
                v = ggml_view_3d(ctx0, rows, dv, hv, n_kv_l, ggml_row_size(rows->type, dv), rows->nb[1], 0);
            } else if (ggml_is_quantized(v->type)) {
                const int64_t dv = v->ne[0], hv = v->ne[1];
                ggml_tensor * rows = ggml_get_rows(ctx0, ggml_reshape_2d(ctx0, v, dv * hv, n_kv_l), v_rows(n_kv_l));
                v                  = ggml_reshape_3d(ctx0, rows, dv, hv, n_kv_l);
            }
            v = ggml_cont(ctx0, ggml_permute(ctx0, v, 1, 2, 0, 3));
        }
        ggml_tensor * kqv = ggml_mul_mat(ctx0, v, kq);  // [dv, n_tokens, n_head]
        cb(kqv, "kqv", il);
        if (v_mla) {
            kqv = ggml_mul_mat(ctx0, v_mla, kqv);  // [dvh, n_tokens, n_head]
            cb(kqv, "kqv_mla", il);
        }
        cur = ggml_permute(ctx0, kqv, 0, 2, 1, 3);  // [dv, n_head, n_tokens]
        cur = ggml_cont_2d(ctx0, cur, kqv->ne[0] * hparams.n_head, n_tokens);
    }
    cb(cur, "kqv_out", il);

    if (wo) {
        cur = build_lora_mm(wo, cur, wo_b);
        cb(cur, "attn_out", il);
    }
    return cur;
}

void llm_graph_context::build_output(ggml_tensor * inpL, ggml_tensor * out_ids) {
    ggml_tensor * cur = build_norm(inpL, model.output_norm, nullptr, LLM_NORM_RMS, -1);
    if (params.hidden_all) {
        cb(cur, "result_hidden", -1);
        res.t_hidden = cur;
        ggml_set_output(cur);
        ggml_build_forward_expand(gf, cur);
        if (out_ids) {
            cur = ggml_get_rows(ctx0, cur, out_ids);  // only the outputs go through the LM head
        }
    }
    cb(cur, "result_norm", -1);
    if (!model.output) {
        set_result(cur, nullptr);  // an encoder (gemma-embedding): no LM head
        return;
    }
    ggml_tensor * logits = build_lora_mm(model.output, cur, model.output_b);
    if (hparams.f_logit_scale != 0.0f) {
        logits = ggml_scale(ctx0, logits, 1.0f / hparams.f_logit_scale);
    }
    if (hparams.f_final_logit_softcapping > 0.0f) {
        const float cap = hparams.f_final_logit_softcapping;
        logits          = ggml_scale(ctx0, ggml_tanh(ctx0, ggml_scale(ctx0, logits, 1.0f / cap)), cap);
    }
    cb(logits, "result_output", -1);
    set_result(cur, logits);
}

void llm_graph_context::build_embd_proj() {
    if (!model.dense_2 || !res.t_embd) {
        return;
    }
    ggml_tensor * cur = build_lora_mm(model.dense_2, res.t_embd, model.dense_2_b);
    if (model.dense_3) {
        cur = build_lora_mm(model.dense_3, cur);
    }
    cb(cur, "result_embd_proj", -1);
    set_result(cur, res.t_logits);
}

void llm_graph_context::set_result(ggml_tensor * embd, ggml_tensor * logits) {
    res.t_embd   = embd;
    res.t_logits = logits;
    if (embd) {
        ggml_set_output(embd);
        ggml_build_forward_expand(gf, embd);
    }
    if (logits) {
        ggml_set_output(logits);
        ggml_build_forward_expand(gf, logits);
    }
}
