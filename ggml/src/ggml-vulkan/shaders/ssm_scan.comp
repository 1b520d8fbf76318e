#version 450
// SSM_SCAN: the Mamba-2 / Mamba-1 selective scan (ggml.h). One workgroup per (sequence, head, row i of
// head_dim); invocation l owns state elements j = l, l + WG, ... of that row. The working state is slot
// 0 of the result (as on the CPU), each element read and written only by its owner, so the recurrence
// needs no barrier; y[i] = dot(state row, C) is a shared-memory reduction per token.
// An out-of-range state id writes zeros (the CPU fails the compute; the host cannot see ids here).
#include "common.glsl"
#define WG 64u
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer S { float s[]; };     // [ds, hd, nh, n_rs] contiguous
layout(binding = 1) readonly buffer X { float x[]; };     // [hd, nh, nt, ns], dims 0-1 contiguous
layout(binding = 2) readonly buffer DT { float dt[]; };   // [nh, nt, ns] contiguous
layout(binding = 3) buffer D { float d[]; };              // y (as a contiguous x), then K state slots
layout(binding = 4) readonly buffer AA { float a[]; };    // [1 or ds, nh] contiguous
layout(binding = 5) readonly buffer BB { float b[]; };    // [ds, ng, nt, ns], dims 0-1 contiguous
layout(binding = 6) readonly buffer CC { float c[]; };    // as B
layout(binding = 7) readonly buffer IDS { int ids[]; };   // [ns]

layout(push_constant) uniform P {
    uint ds, hd, nh, nt, ns, ng, n_rs, K, per_a;
    uint s_off;
    uint x_off, x_s2, x_s3;
    uint dt_off;
    uint a_off;
    uint b_off, b_s2, b_s3;
    uint c_off, c_s2, c_s3;
    uint ids_off, d_off;
} p;

shared float red[WG];

float softplus(float v) {
    return v > 20.0 ? v : log(1.0 + exp(v));
}

void main() {
    uint item = flat_group();
    if (item >= p.ns * p.nh * p.hd || p.nt == 0u) return;
    const uint i = item % p.hd; item /= p.hd;
    const uint h = item % p.nh;
    const uint is = item / p.nh;
    const uint l = gl_LocalInvocationID.x;
    const int  id = ids[p.ids_off + is];
    const bool id_ok = id >= 0 && uint(id) < p.n_rs;
    const uint g = h / (p.nh / p.ng);
    const uint head_state = p.ds * p.hd;
    const uint n_y = p.hd * p.nh * p.nt * p.ns;
    const uint slot_size = head_state * p.nh * p.ns;
    // this row of the working state (slot 0) and of the initial state
    const uint row = p.d_off + n_y + (is * p.nh + h) * head_state + i * p.ds;
    const uint src = p.s_off + ((id_ok ? uint(id) : 0u) * p.nh + h) * head_state + i * p.ds;
    for (uint j = l; j < p.ds; j += WG) d[row + j] = id_ok ? s[src + j] : 0.0;

    for (uint t = 0u; t < p.nt; ++t) {
        const float dts = softplus(dt[p.dt_off + (is * p.nt + t) * p.nh + h]);
        const float xdt = x[p.x_off + i + h * p.hd + t * p.x_s2 + is * p.x_s3] * dts;
        const float dA  = exp(dts * a[p.a_off + h * (p.per_a != 0u ? p.ds : 1u)]);
        const uint  bb  = p.b_off + g * p.ds + t * p.b_s2 + is * p.b_s3;
        const uint  cb  = p.c_off + g * p.ds + t * p.c_s2 + is * p.c_s3;
        const uint  slot = p.nt - 1u - t;
        float part = 0.0;
        for (uint j = l; j < p.ds; j += WG) {
            const float da = p.per_a != 0u ? exp(dts * a[p.a_off + h * p.ds + j]) : dA;
            const float e  = id_ok ? d[row + j] * da + b[bb + j] * xdt : 0.0;
            d[row + j] = e;
            part += e * c[cb + j];
            if (slot > 0u && slot < p.K) d[row + slot * slot_size + j] = e;
        }
        red[l] = part;
        barrier();
        [[unroll]] for (uint k = WG / 2u; k > 0u; k >>= 1u) {
            if (l < k) red[l] += red[l + k];
            barrier();
        }
        if (l == 0u) d[p.d_off + ((is * p.nt + t) * p.nh + h) * p.hd + i] = red[0];
        barrier();
    }
}
