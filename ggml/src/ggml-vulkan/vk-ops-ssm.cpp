// vk-ops-ssm.cpp — the recurrent-layer ops SSM_CONV, SSM_SCAN, GATED_DELTA_NET (shaders/ssm_conv.comp,
// ssm_scan.comp, gated_delta_net.comp): support checks and encoders. Every shape the CPU accepts runs here: F32 data,
// any d_state / head_dim / n_group, several sequences with per-sequence state rows (ids), Mamba-1's per-state A, both
// gate forms of the delta rule and the K snapshot slots.
#include "vk-ops-util.h"

#include <cmath>

namespace vk_ops {

// dims 0 and 1 one contiguous block (x, B, C of SSM_SCAN): the shader folds them into one index
bool ssm_rows2_contiguous(const ggml_tensor * t) {
    return is_f32(t) && t->nb[0] == sizeof(float) && t->nb[1] == t->ne[0] * sizeof(float) && addressable_elems(t);
}

bool sup_ssm_conv(const vk_device *, const ggml_tensor * op) {
    const ggml_tensor *sx = op->src[0], *c = op->src[1];
    return is_f32(sx) && is_f32(c) && is_f32(op) && rows_contiguous(sx) && rows_contiguous(c) && rows_contiguous(op) &&
           addressable_elems(sx) && addressable_elems(c) && addressable_elems(op);
}

bool sup_ssm_scan(const vk_device *, const ggml_tensor * op) {
    const ggml_tensor *s = op->src[0], *dt = op->src[2], *a = op->src[3], *ids = op->src[6];
    const auto         contiguous_f32 = [](const ggml_tensor * t) {
        return is_f32(t) && ggml_is_contiguous(t) && addressable_elems(t);
    };
    return contiguous_f32(s) && ssm_rows2_contiguous(op->src[1]) && contiguous_f32(dt) && contiguous_f32(a) &&
           ssm_rows2_contiguous(op->src[4]) && ssm_rows2_contiguous(op->src[5]) && ids->type == GGML_TYPE_I32 &&
           ggml_is_contiguous(ids) && addressable_elems(ids) && contiguous_f32(op);
}

bool enc_ssm_conv(const enc & e) {
    const ggml_tensor *sx = e.node->src[0], *c = e.node->src[1], *d = e.node;
    bound              bx, bc, bd;
    if (!offsets_ok(e, sx, 4, &bx) || !offsets_ok(e, c, 4, &bc) || !offsets_ok(e, d, 4, &bd))
        return false;
    pc_words pc;
    pc.u(c->ne[0]).u(d->ne[0]).u(d->ne[1]).u(d->ne[2]);
    pc.u(bx.rem / 4).u(sx->nb[1] / 4).u(sx->nb[2] / 4).u(bc.rem / 4).u(c->nb[1] / 4);
    pc.u(bd.rem / 4).u(d->nb[1] / 4).u(d->nb[2] / 4);
    const ggml_tensor * src[4] = {sx, c, nullptr, nullptr};
    return dispatch_flat(e.dev, e.cmd, "ssm_conv_f32", src, d, pc, (uint64_t) ggml_nelements(d));
}

// One workgroup per (sequence, head, row of head_dim); see the shader for the split.
bool enc_ssm_scan(const enc & e) {
    const ggml_tensor * const * src = e.node->src;
    const ggml_tensor *         s = src[0], *x = src[1], *dt = src[2], *a = src[3], *b = src[4], *c = src[5];
    const ggml_tensor *         ids = src[6], *d = e.node;
    bound                       bb[8];
    for (int i = 0; i < 7; ++i)
        if (!offsets_ok(e, src[i], 4, &bb[i]))
            return false;
    if (!offsets_ok(e, d, 4, &bb[7]))
        return false;
    const int64_t ds = s->ne[0], hd = x->ne[0], nh = x->ne[1], nt = x->ne[2], ns = x->ne[3];
    if (nt == 0 || ns == 0)
        return true;  // nothing is written without tokens (as on the CPU)
    pc_words pc;
    pc.u(ds).u(hd).u(nh).u(nt).u(ns).u(b->ne[1]).u(s->ne[3]).u(ggml_get_op_params_i32(d, 0)).u(a->ne[0] != 1);
    pc.u(bb[0].rem / 4).u(bb[1].rem / 4).u(x->nb[2] / 4).u(x->nb[3] / 4).u(bb[2].rem / 4).u(bb[3].rem / 4);
    pc.u(bb[4].rem / 4).u(b->nb[2] / 4).u(b->nb[3] / 4).u(bb[5].rem / 4).u(c->nb[2] / 4).u(c->nb[3] / 4);
    pc.u(bb[6].rem / 4).u(bb[7].rem / 4);
    // bindings: s, x, dt -> 0..2, dst -> 3, A, B, C, ids -> 4..7
    const ggml_tensor * bind_src[7] = {s, x, dt, a, b, c, ids};
    uint32_t            gx, gy;
    grid((uint64_t) ns * nh * hd, &gx, &gy);
    return dispatch(e.dev, e.cmd, "ssm_scan_f32", bind_src, d, pc, gx, gy, 1, 7);
}

// GATED_DELTA_NET (shaders/gated_delta_net.comp): scalar gate and KDA's per-channel gate, q/k heads and
// sequences repeated over v's, K snapshot slots.
bool sup_gated_delta_net(const vk_device *, const ggml_tensor * op) {
    const auto rows_f32 = [](const ggml_tensor * t) { return is_f32(t) && rows_contiguous(t) && addressable_elems(t); };
    const auto contiguous_f32 = [](const ggml_tensor * t) {
        return is_f32(t) && ggml_is_contiguous(t) && addressable_elems(t);
    };
    return rows_f32(op->src[0]) && rows_f32(op->src[1]) && rows_f32(op->src[2]) && contiguous_f32(op->src[3]) &&
           contiguous_f32(op->src[4]) && contiguous_f32(op->src[5]) && contiguous_f32(op);
}

// One workgroup per (sequence, head, state row); see the shader for the split.
bool enc_gated_delta_net(const enc & e) {
    const ggml_tensor * const * src = e.node->src;
    const ggml_tensor *         q = src[0], *k = src[1], *v = src[2], *g = src[3], *d = e.node;
    bound                       bb[7];
    for (int i = 0; i < 6; ++i)
        if (!offsets_ok(e, src[i], 4, &bb[i]))
            return false;
    if (!offsets_ok(e, d, 4, &bb[6]))
        return false;
    const int64_t S = v->ne[0], H = v->ne[1], nt = v->ne[2], ns = v->ne[3];
    pc_words      pc;
    pc.u(S).u(H).u(nt).u(ns).u(ggml_get_op_params_i32(d, 0)).u(g->ne[0] == S && S != 1);
    pc.u(q->ne[1]).u(k->ne[1]).u(ns / q->ne[3]).u(ns / k->ne[3]);
    pc.strides(bb[0], q, 4, false).strides(bb[1], k, 4, false).strides(bb[2], v, 4, false);
    pc.u(bb[3].rem / 4).u(bb[4].rem / 4).u(bb[5].rem / 4).u(bb[6].rem / 4).f(1.0f / std::sqrt((float) S));
    // bindings: q, k, v -> 0..2, dst -> 3, g, beta, state -> 4..6
    uint32_t gx, gy;
    grid((uint64_t) ns * H * S, &gx, &gy);
    return dispatch(e.dev, e.cmd, "gated_delta_net_f32", src, d, pc, gx, gy, 1, 6);
}

}  // namespace vk_ops
