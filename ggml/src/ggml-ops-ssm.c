// Op constructors of the recurrent layers: SSM_CONV, SSM_SCAN (Mamba / Mamba-2) and GATED_DELTA_NET
// (Qwen3-Next). Shapes, source order and output layouts are upstream ggml's (ggml.h states them), so
// graphs ported from llama.cpp build unchanged; every argument is checked here so a kernel never meets
// a shape it cannot index. Same rules as ggml-ops.c.
#include <stdint.h>

#include "ggml-core.h"

#define op_fail ggml_op_fail

// The first of the named tensors that is not F32, or NULL.
static const char * first_not_f32(struct ggml_tensor * const * t, const char * const * names, int n) {
    for (int i = 0; i < n; ++i) {
        if (t[i]->type != GGML_TYPE_F32) {
            return names[i];
        }
    }
    return NULL;
}

// Dims 0 and 1 contiguous (rows packed one after the other), as the scan kernels index x, B and C.
static bool rows_packed(const struct ggml_tensor * t) {
    return t->nb[0] == ggml_type_size(t->type) && t->nb[1] == (size_t) t->ne[0] * t->nb[0];
}

struct ggml_tensor * ggml_ssm_conv(struct ggml_context * ctx, struct ggml_tensor * sx, struct ggml_tensor * c) {
    if (!sx || !c) {
        return NULL;
    }
    if (sx->type != GGML_TYPE_F32 || c->type != GGML_TYPE_F32) {
        return op_fail("ssm_conv", "sx and c must be F32, got %s and %s", ggml_type_name(sx->type),
                       ggml_type_name(c->type));
    }
    if (sx->ne[3] != 1 || c->ne[2] != 1 || c->ne[3] != 1) {
        return op_fail("ssm_conv", "sx " GGML_SHAPE_FMT " must be 3-D and c " GGML_SHAPE_FMT " 2-D", GGML_SHAPE_ARG(sx),
                       GGML_SHAPE_ARG(c));
    }
    const int64_t d_conv = c->ne[0], d_inner = c->ne[1];
    if (d_conv < 1 || sx->ne[1] != d_inner || sx->ne[0] < d_conv - 1) {
        return op_fail("ssm_conv",
                       "sx " GGML_SHAPE_FMT " must be [d_conv - 1 + n_t, d_inner, n_s] for c " GGML_SHAPE_FMT
                       " = [d_conv, d_inner]",
                       GGML_SHAPE_ARG(sx), GGML_SHAPE_ARG(c));
    }
    if (!ggml_is_contiguous_rows(sx) || !ggml_is_contiguous_rows(c)) {
        return op_fail("ssm_conv", "rows of sx and c must be contiguous");
    }
    const int64_t        ne[4] = {d_inner, sx->ne[0] - d_conv + 1, sx->ne[2], 1};
    struct ggml_tensor * r     = ggml_new_op_result(ctx, GGML_TYPE_F32, ne, GGML_OP_SSM_CONV, "ssm_conv");
    if (r) {
        r->src[0] = sx;
        r->src[1] = c;
    }
    return r;
}

struct ggml_tensor * ggml_ssm_scan(struct ggml_context * ctx, struct ggml_tensor * s, struct ggml_tensor * x,
                                   struct ggml_tensor * dt, struct ggml_tensor * A, struct ggml_tensor * B,
                                   struct ggml_tensor * C, struct ggml_tensor * ids, int64_t K) {
    if (!s || !x || !dt || !A || !B || !C || !ids) {
        return NULL;
    }
    struct ggml_tensor * const fs[]    = {s, x, dt, A, B, C};
    const char * const         names[] = {"s", "x", "dt", "A", "B", "C"};
    const char *               bad     = first_not_f32(fs, names, 6);
    if (bad) {
        return op_fail("ssm_scan", "%s must be F32", bad);
    }
    if (ids->type != GGML_TYPE_I32) {
        return op_fail("ssm_scan", "ids must be I32, got %s", ggml_type_name(ids->type));
    }
    if (K < 1 || K > INT32_MAX) {
        return op_fail("ssm_scan", "K = %lld must be in [1, INT32_MAX]", (long long) K);
    }
    const int64_t d_state = s->ne[0], head_dim = x->ne[0], n_head = x->ne[1];
    const int64_t n_t = x->ne[2], n_seqs = x->ne[3];
    if (s->ne[1] != head_dim || s->ne[2] != n_head || s->ne[3] < 1) {
        return op_fail("ssm_scan",
                       "s " GGML_SHAPE_FMT " must be [d_state, head_dim, n_head, n_rs] for x " GGML_SHAPE_FMT,
                       GGML_SHAPE_ARG(s), GGML_SHAPE_ARG(x));
    }
    if (dt->ne[0] != n_head || dt->ne[1] != n_t || dt->ne[2] != n_seqs || dt->ne[3] != 1) {
        return op_fail("ssm_scan", "dt " GGML_SHAPE_FMT " must be [n_head, n_t, n_seqs] for x " GGML_SHAPE_FMT,
                       GGML_SHAPE_ARG(dt), GGML_SHAPE_ARG(x));
    }
    if (!ggml_are_same_shape(B, C) || B->ne[0] != d_state || B->ne[2] != n_t || B->ne[3] != n_seqs || B->ne[1] < 1 ||
        n_head % B->ne[1] != 0) {
        return op_fail("ssm_scan",
                       "B " GGML_SHAPE_FMT " and C " GGML_SHAPE_FMT
                       " must both be [d_state, n_group, n_t, n_seqs] with n_head %% n_group == 0 (x " GGML_SHAPE_FMT
                       ")",
                       GGML_SHAPE_ARG(B), GGML_SHAPE_ARG(C), GGML_SHAPE_ARG(x));
    }
    if (A->ne[1] != n_head || A->ne[2] != 1 || A->ne[3] != 1 || (A->ne[0] != 1 && A->ne[0] != d_state)) {
        return op_fail("ssm_scan", "A " GGML_SHAPE_FMT " must be [1, n_head] or [d_state, n_head] (n_head %lld)",
                       GGML_SHAPE_ARG(A), (long long) n_head);
    }
    if (A->ne[0] != 1 && K != 1) {
        return op_fail("ssm_scan", "K must be 1 with a per-state A (Mamba-1), got %lld", (long long) K);
    }
    if (ids->ne[0] != n_seqs || ids->ne[1] != 1 || ids->ne[2] != 1 || ids->ne[3] != 1) {
        return op_fail("ssm_scan", "ids " GGML_SHAPE_FMT " must be a vector of n_seqs = %lld", GGML_SHAPE_ARG(ids),
                       (long long) n_seqs);
    }
    if (!ggml_is_contiguous(s) || !ggml_is_contiguous(dt) || !ggml_is_contiguous(A) || !ggml_is_contiguous_rows(ids)) {
        return op_fail("ssm_scan", "s, dt, A and ids must be contiguous");
    }
    if (!rows_packed(x) || !rows_packed(B) || !rows_packed(C)) {
        return op_fail("ssm_scan", "dims 0 and 1 of x, B and C must be contiguous");
    }
    const int64_t state = d_state * head_dim * n_head * n_seqs;
    if (state > 0 && K > (INT64_MAX - ggml_nelements(x)) / state) {
        return op_fail("ssm_scan", "K = %lld state snapshots overflow the result size", (long long) K);
    }
    const int64_t        ne[4] = {ggml_nelements(x) + K * state, 1, 1, 1};
    struct ggml_tensor * r     = ggml_new_op_result(ctx, GGML_TYPE_F32, ne, GGML_OP_SSM_SCAN, "ssm_scan");
    if (r) {
        r->src[0] = s;
        r->src[1] = x;
        r->src[2] = dt;
        r->src[3] = A;
        r->src[4] = B;
        r->src[5] = C;
        r->src[6] = ids;
        ggml_set_op_params_i32(r, 0, (int32_t) K);
    }
    return r;
}

struct ggml_tensor * ggml_gated_delta_net(struct ggml_context * ctx, struct ggml_tensor * q, struct ggml_tensor * k,
                                          struct ggml_tensor * v, struct ggml_tensor * g, struct ggml_tensor * beta,
                                          struct ggml_tensor * state, int64_t K) {
    if (!q || !k || !v || !g || !beta || !state) {
        return NULL;
    }
    struct ggml_tensor * const fs[]    = {q, k, v, g, beta, state};
    const char * const         names[] = {"q", "k", "v", "g", "beta", "state"};
    const char *               bad     = first_not_f32(fs, names, 6);
    if (bad) {
        return op_fail("gated_delta_net", "%s must be F32", bad);
    }
    if (K < 1 || K > INT32_MAX) {
        return op_fail("gated_delta_net", "K = %lld must be in [1, INT32_MAX]", (long long) K);
    }
    const int64_t S = v->ne[0], H = v->ne[1], n_t = v->ne[2], n_seqs = v->ne[3];
    if (S < 1 || H < 1 || n_seqs < 1) {
        return op_fail("gated_delta_net", "v " GGML_SHAPE_FMT " must be [S, H, n_t, n_seqs] with S, H, n_seqs >= 1",
                       GGML_SHAPE_ARG(v));
    }
    const struct ggml_tensor * qk[2] = {q, k};
    for (int i = 0; i < 2; ++i) {
        const struct ggml_tensor * t = qk[i];
        if (t->ne[0] != S || t->ne[2] != n_t || t->ne[1] < 1 || H % t->ne[1] != 0 || t->ne[3] < 1 ||
            n_seqs % t->ne[3] != 0) {
            return op_fail("gated_delta_net",
                           "%s " GGML_SHAPE_FMT " must be [S, H_k, n_t, n_seqs_k] dividing v " GGML_SHAPE_FMT
                           " (H %% H_k == 0, n_seqs %% n_seqs_k == 0)",
                           i == 0 ? "q" : "k", GGML_SHAPE_ARG(t), GGML_SHAPE_ARG(v));
        }
    }
    if ((g->ne[0] != 1 && g->ne[0] != S) || g->ne[1] != H || g->ne[2] != n_t || g->ne[3] != n_seqs) {
        return op_fail("gated_delta_net", "g " GGML_SHAPE_FMT " must be [1 or S, H, n_t, n_seqs] for v " GGML_SHAPE_FMT,
                       GGML_SHAPE_ARG(g), GGML_SHAPE_ARG(v));
    }
    if (beta->ne[0] != 1 || beta->ne[1] != H || beta->ne[2] != n_t || beta->ne[3] != n_seqs) {
        return op_fail("gated_delta_net", "beta " GGML_SHAPE_FMT " must be [1, H, n_t, n_seqs] for v " GGML_SHAPE_FMT,
                       GGML_SHAPE_ARG(beta), GGML_SHAPE_ARG(v));
    }
    if (state->ne[0] != S || state->ne[1] != S || state->ne[2] != H || state->ne[3] != n_seqs) {
        return op_fail("gated_delta_net", "state " GGML_SHAPE_FMT " must be [S, S, H, n_seqs] for v " GGML_SHAPE_FMT,
                       GGML_SHAPE_ARG(state), GGML_SHAPE_ARG(v));
    }
    if (!ggml_is_contiguous_rows(q) || !ggml_is_contiguous_rows(k) || !ggml_is_contiguous_rows(v)) {
        return op_fail("gated_delta_net", "rows of q, k and v must be contiguous");
    }
    if (!ggml_is_contiguous(g) || !ggml_is_contiguous(beta) || !ggml_is_contiguous(state)) {
        return op_fail("gated_delta_net", "g, beta and state must be contiguous");
    }
    if (K > (INT64_MAX / 2) / (S * n_seqs)) {
        return op_fail("gated_delta_net", "K = %lld state snapshots overflow the result size", (long long) K);
    }
    const int64_t        ne[4] = {S * H, n_t * n_seqs + K * S * n_seqs, 1, 1};
    struct ggml_tensor * r     = ggml_new_op_result(ctx, GGML_TYPE_F32, ne, GGML_OP_GATED_DELTA_NET, "gated_delta_net");
    if (r) {
        r->src[0] = q;
        r->src[1] = k;
        r->src[2] = v;
        r->src[3] = g;
        r->src[4] = beta;
        r->src[5] = state;
        ggml_set_op_params_i32(r, 0, (int32_t) K);
    }
    return r;
}
