// The SSM_CONV, SSM_SCAN and GATED_DELTA_NET nodes the CPU and CUDA kernels take: F32 everywhere, and the
// shapes and layouts the constructors (ggml-ops-ssm.c) check, checked again because a hand-built node
// reaches a backend without its constructor and the kernels index the result by the sources' shapes.
// One rule for both backends (cpu-op-table.cpp, cuda-op-table.cu), so the CUDA table accepts exactly
// what the CPU runs.
#pragma once

#include "ggml-impl.h"

#ifdef __cplusplus
extern "C" {
#endif

static inline bool ggml_ssm_f32_rows(const struct ggml_tensor * t) {
    return t && t->type == GGML_TYPE_F32 && t->nb[0] == 4;
}
// dims 0 and 1 contiguous
static inline bool ggml_ssm_packed2(const struct ggml_tensor * t) {
    return ggml_ssm_f32_rows(t) && t->nb[1] == (size_t) t->ne[0] * 4;
}

static inline bool ggml_ssm_conv_node_ok(const struct ggml_tensor * op) {
    const struct ggml_tensor *sx = op->src[0], *c = op->src[1];
    return ggml_ssm_f32_rows(sx) && ggml_ssm_f32_rows(c) && op->type == GGML_TYPE_F32 && ggml_is_contiguous(op) &&
           c->ne[0] >= 1 && sx->ne[1] == c->ne[1] && op->ne[0] == c->ne[1] && op->ne[1] == sx->ne[0] - c->ne[0] + 1 &&
           op->ne[2] == sx->ne[2] && op->ne[3] == 1 && sx->ne[3] == 1;
}

static inline bool ggml_ssm_scan_node_ok(const struct ggml_tensor * op) {
    const struct ggml_tensor *s = op->src[0], *x = op->src[1], *dt = op->src[2], *A = op->src[3], *B = op->src[4],
                             *C = op->src[5], *ids = op->src[6];
    if (!ggml_ssm_packed2(s) || !ggml_is_contiguous(s) || !ggml_ssm_packed2(x) || !ggml_ssm_f32_rows(dt) ||
        !ggml_is_contiguous(dt) || !ggml_ssm_f32_rows(A) || !ggml_is_contiguous(A) || !ggml_ssm_packed2(B) ||
        !ggml_ssm_packed2(C) || !ids || ids->type != GGML_TYPE_I32 || op->type != GGML_TYPE_F32 ||
        !ggml_is_contiguous(op)) {
        return false;
    }
    const int64_t ds = s->ne[0], hd = x->ne[0], nh = x->ne[1], nt = x->ne[2], ns = x->ne[3];
    const int64_t K = ggml_get_op_params_i32(op, 0);
    return K >= 1 && s->ne[1] == hd && s->ne[2] == nh && s->ne[3] >= 1 && dt->ne[0] == nh && dt->ne[1] == nt &&
           dt->ne[2] == ns && ggml_are_same_shape(B, C) && B->ne[0] == ds && B->ne[1] >= 1 && nh % B->ne[1] == 0 &&
           B->ne[2] == nt && B->ne[3] == ns && A->ne[1] == nh && (A->ne[0] == 1 || (A->ne[0] == ds && K == 1)) &&
           ids->ne[0] >= ns && ggml_nelements(op) == ggml_nelements(x) + K * ds * hd * nh * ns;
}

static inline bool ggml_gated_delta_net_node_ok(const struct ggml_tensor * op) {
    const struct ggml_tensor *q = op->src[0], *k = op->src[1], *v = op->src[2], *g = op->src[3], *beta = op->src[4],
                             *st = op->src[5];
    if (!ggml_ssm_f32_rows(q) || !ggml_ssm_f32_rows(k) || !ggml_ssm_f32_rows(v) || !ggml_ssm_f32_rows(g) ||
        !ggml_ssm_f32_rows(beta) || !ggml_ssm_f32_rows(st) || op->type != GGML_TYPE_F32 || !ggml_is_contiguous(op) ||
        !ggml_is_contiguous(st)) {
        return false;
    }
    const int64_t S = v->ne[0], H = v->ne[1], nt = v->ne[2], ns = v->ne[3];
    const int64_t K = ggml_get_op_params_i32(op, 0);
    for (int i = 0; i < 2; ++i) {
        const struct ggml_tensor * t = i == 0 ? q : k;
        if (t->ne[0] != S || t->ne[2] != nt || t->ne[1] < 1 || H % t->ne[1] != 0 || t->ne[3] < 1 ||
            ns % t->ne[3] != 0) {
            return false;
        }
    }
    return K >= 1 && S >= 1 && (g->ne[0] == 1 || g->ne[0] == S) && g->ne[1] == H && g->ne[2] == nt && g->ne[3] == ns &&
           beta->ne[0] == 1 && beta->ne[1] == H && beta->ne[2] == nt && beta->ne[3] == ns && st->ne[0] == S &&
           st->ne[1] == S && st->ne[2] == H && st->ne[3] == ns && ggml_nelements(op) == S * H * (nt * ns + K * S * ns);
}

#ifdef __cplusplus
}
#endif
