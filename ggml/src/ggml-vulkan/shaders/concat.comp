#version 450
// dst = concat(a, b) along dim: element i of dst comes from a while i[dim] < a.ne[dim], else from b at
// i[dim] - a.ne[dim]. Copies raw bits: W32 for F32/I32, W16 for F16.
#include "common.glsl"
layout(local_size_x = 256) in;
#ifdef W16
#define ELEM uint16_t
#else
#define ELEM uint
#endif
layout(binding = 0) readonly buffer A { ELEM a[]; };
layout(binding = 1) readonly buffer B { ELEM b[]; };
layout(binding = 3) writeonly buffer D { ELEM d[]; };

// offsets and strides in elements
layout(push_constant) uniform P {
    uint ne0, ne1, ne2, ne3;
    uint dim, a_ne_dim;
    uint a_off, a_s0, a_s1, a_s2, a_s3;
    uint b_off, b_s0, b_s1, b_s2, b_s3;
    uint d_off, d_s0, d_s1, d_s2, d_s3;
} p;

void main() {
    uint i = flat_index(256u);
    if (i >= p.ne0 * p.ne1 * p.ne2 * p.ne3) return;
    uint c[4];
    c[0] = i % p.ne0; i /= p.ne0;
    c[1] = i % p.ne1; i /= p.ne1;
    c[2] = i % p.ne2;
    c[3] = i / p.ne2;
    const uint didx = p.d_off + c[0] * p.d_s0 + c[1] * p.d_s1 + c[2] * p.d_s2 + c[3] * p.d_s3;
    if (c[p.dim] < p.a_ne_dim) {
        d[didx] = a[p.a_off + c[0] * p.a_s0 + c[1] * p.a_s1 + c[2] * p.a_s2 + c[3] * p.a_s3];
    } else {
        c[p.dim] -= p.a_ne_dim;
        d[didx] = b[p.b_off + c[0] * p.b_s0 + c[1] * p.b_s1 + c[2] * p.b_s2 + c[3] * p.b_s3];
    }
}
