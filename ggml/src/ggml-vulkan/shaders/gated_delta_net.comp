#version 450
// GATED_DELTA_NET: the gated delta rule, recurrent form (ggml.h). One workgroup per (sequence, head, row
// j of the state matrix M); invocation l owns M[j][i] for i = l, l + WG, ... Row j is all that output j
// needs, so rows are independent. M lives in slot 0 of the result (as on the CPU), each element read
// and written only by its owner; per token two shared-memory reductions: M[j] . k, then M[j] . q.
#include "common.glsl"
#define WG 64u
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer Q { float q[]; };      // [S, H_k, nt, ns_k], rows contiguous
layout(binding = 1) readonly buffer KK { float k[]; };     // as q
layout(binding = 2) readonly buffer V { float v[]; };      // [S, H, nt, ns], rows contiguous
layout(binding = 3) buffer D { float d[]; };               // out [S, H, nt, ns], then K state slots
layout(binding = 4) readonly buffer G { float g[]; };      // [1 or S, H, nt, ns] contiguous
layout(binding = 5) readonly buffer BETA { float beta[]; };// [1, H, nt, ns] contiguous
layout(binding = 6) readonly buffer ST { float st[]; };    // [S, S, H, ns] contiguous: element (i, j) is M[j][i]

layout(push_constant) uniform P {
    uint S, H, nt, ns, K, per_ch;
    uint hq, hk, rq3, rk3;  // q / k head counts; sequences per q / k sequence
    uint q_off, q_s1, q_s2, q_s3;
    uint k_off, k_s1, k_s2, k_s3;
    uint v_off, v_s1, v_s2, v_s3;
    uint g_off, beta_off, st_off, d_off;
    float scale;
} p;

shared float red[WG];

float reduce(float v) {
    const uint l = gl_LocalInvocationID.x;
    red[l] = v;
    barrier();
    [[unroll]] for (uint s = WG / 2u; s > 0u; s >>= 1u) {
        if (l < s) red[l] += red[l + s];
        barrier();
    }
    const float r = red[0];
    barrier();
    return r;
}

void main() {
    uint item = flat_group();
    if (item >= p.ns * p.H * p.S) return;
    const uint j = item % p.S; item /= p.S;
    const uint h = item % p.H;
    const uint is = item / p.H;
    const uint l = gl_LocalInvocationID.x;
    if (p.nt == 0u && p.K != 1u) return;  // as the CPU: without tokens only K == 1 writes slot 0
    const uint mat = p.S * p.S;
    const uint row = p.d_off + p.S * p.H * p.nt * p.ns + (is * p.H + h) * mat + j * p.S;
    const uint per_snap = mat * p.H * p.ns;
    const uint src = p.st_off + (is * p.H + h) * mat + j * p.S;
    for (uint i = l; i < p.S; i += WG) d[row + i] = st[src + i];

    const uint qb0 = p.q_off + (h % p.hq) * p.q_s1 + (is / p.rq3) * p.q_s3;
    const uint kb0 = p.k_off + (h % p.hk) * p.k_s1 + (is / p.rk3) * p.k_s3;
    for (uint t = 0u; t < p.nt; ++t) {
        const uint  qb = qb0 + t * p.q_s2, kb = kb0 + t * p.k_s2;
        const uint  ht = (is * p.nt + t) * p.H + h;  // index of (h, t, is) in [H, nt, ns]
        const uint  gb = p.g_off + ht * (p.per_ch != 0u ? p.S : 1u);
        const float e  = exp(g[gb]);
        float kd = 0.0;
        for (uint i = l; i < p.S; i += WG) {
            const float m = d[row + i] * (p.per_ch != 0u ? exp(g[gb + i]) : e);
            d[row + i] = m;
            kd += m * k[kb + i];
        }
        kd = reduce(kd);
        const float a = (v[p.v_off + j + h * p.v_s1 + t * p.v_s2 + is * p.v_s3] - kd) * beta[p.beta_off + ht];
        const uint  slot = p.nt - 1u - t;
        float o = 0.0;
        for (uint i = l; i < p.S; i += WG) {
            const float m = d[row + i] + a * k[kb + i];
            d[row + i] = m;
            o += m * q[qb + i];
            if (slot > 0u && slot < p.K) d[row + slot * per_snap + i] = m;
        }
        o = reduce(o);
        if (l == 0u) d[p.d_off + ht * p.S + j] = o * p.scale;
    }
}
