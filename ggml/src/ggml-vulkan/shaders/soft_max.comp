#version 450
// dst = softmax(a * scale + slope * mask) along rows, one workgroup per row. The mask (F32 or F16)
// broadcasts over dims 2 and 3; slope is the ALiBi factor of the head (i2) when max_bias > 0.
// A row that is entirely -inf becomes all zeros.
#include "common.glsl"
#define WG 256u
layout(local_size_x = 256) in;
layout(binding = 0) readonly buffer A { float a[]; };
layout(binding = 1) readonly buffer M32 { float m32[]; };
layout(binding = 1) readonly buffer M16 { float16_t m16[]; };
layout(binding = 3) buffer D { float d[]; };

layout(push_constant) uniform P {
    uint ne0, ne1, ne2, ne3;
    uint a_off, a_s1, a_s2, a_s3;
    uint m_off, m_s1, m_s2, m_s3, m_ne2, m_ne3, mask;  // mask: 0 none, 1 F32, 2 F16
    uint d_off, d_s1, d_s2, d_s3;
    float scale, max_bias, m0, m1;
    uint n_head_log2;
} p;

shared float red[WG];

float reduce(float v, bool is_max) {
    const uint t = gl_LocalInvocationID.x;
    red[t] = v;
    barrier();
    [[unroll]] for (uint s = WG / 2u; s > 0u; s >>= 1u) {
        if (t < s) red[t] = is_max ? max(red[t], red[t + s]) : red[t] + red[t + s];
        barrier();
    }
    const float r = red[0];
    barrier();
    return r;
}

void main() {
    uint row = flat_group();
    if (row >= p.ne1 * p.ne2 * p.ne3) return;
    const uint i1 = row % p.ne1; row /= p.ne1;
    const uint i2 = row % p.ne2;
    const uint i3 = row / p.ne2;
    const uint ab = p.a_off + i1 * p.a_s1 + i2 * p.a_s2 + i3 * p.a_s3;
    const uint db = p.d_off + i1 * p.d_s1 + i2 * p.d_s2 + i3 * p.d_s3;
    const uint mb = p.m_off + i1 * p.m_s1 + (i2 % p.m_ne2) * p.m_s2 + (i3 % p.m_ne3) * p.m_s3;
    const uint t  = gl_LocalInvocationID.x;

    float slope = 1.0;
    if (p.max_bias > 0.0) {
        slope = i2 < p.n_head_log2 ? pow(p.m0, float(i2 + 1u)) : pow(p.m1, float(2u * (i2 - p.n_head_log2) + 1u));
    }
    float mx = -1.0 / 0.0;
    for (uint i = t; i < p.ne0; i += WG) {
        float v = a[ab + i] * p.scale;
        if (p.mask == 1u) v += slope * m32[mb + i];
        else if (p.mask == 2u) v += slope * float(m16[mb + i]);
        d[db + i] = v;
        mx = max(mx, v);
    }
    mx = reduce(mx, true);
    float sum = 0.0;
    for (uint i = t; i < p.ne0; i += WG) {
        const float e = mx == -1.0 / 0.0 ? 0.0 : exp(d[db + i] - mx);
        d[db + i] = e;
        sum += e;
    }
    sum = reduce(sum, false);
    const float inv = sum > 0.0 ? 1.0 / sum : 0.0;
    for (uint i = t; i < p.ne0; i += WG) d[db + i] *= inv;
}
