#version 450
// Row reductions, one workgroup per row: sum_rows, mean, norm ((x - mean) / sqrt(var + eps)),
// rms_norm (x / sqrt(mean(x^2) + eps)) and l2_norm (x / max(sqrt(sum(x^2)), eps)). norm centres in a
// second pass for accuracy. F32 only.
#include "common.glsl"
#include "op-codes.glsl"
#define WG 256u
layout(local_size_x = 256) in;
layout(binding = 0) readonly buffer A { float a[]; };
layout(binding = 3) writeonly buffer D { float d[]; };

layout(push_constant) uniform P {
    uint ne0, ne1, ne2, ne3;
    uint a_off, a_s0, a_s1, a_s2, a_s3;
    uint d_off, d_s0, d_s1, d_s2, d_s3;
    uint op;  // VK_ROW_* (op-codes.glsl)
    float eps;
} p;

shared float red[WG];

float reduce_sum(float v) {
    const uint t = gl_LocalInvocationID.x;
    red[t] = v;
    barrier();
    [[unroll]] for (uint s = WG / 2u; s > 0u; s >>= 1u) {
        if (t < s) red[t] += red[t + s];
        barrier();
    }
    const float r = red[0];
    barrier();
    return r;
}

void main() {
    uint row = flat_group();
    if (row >= p.ne1 * p.ne2 * p.ne3) return;  // uniform per workgroup
    const uint i1 = row % p.ne1; row /= p.ne1;
    const uint i2 = row % p.ne2;
    const uint i3 = row / p.ne2;
    const uint ab = p.a_off + i1 * p.a_s1 + i2 * p.a_s2 + i3 * p.a_s3;
    const uint db = p.d_off + i1 * p.d_s1 + i2 * p.d_s2 + i3 * p.d_s3;
    const uint t  = gl_LocalInvocationID.x;

    float mean = 0.0;
    if (p.op != VK_ROW_RMS_NORM && p.op != VK_ROW_L2_NORM) {
        float s = 0.0;
        for (uint i = t; i < p.ne0; i += WG) s += a[ab + i * p.a_s0];
        s = reduce_sum(s);
        if (p.op == VK_ROW_SUM || p.op == VK_ROW_MEAN) {
            if (t == 0u) d[db] = p.op == VK_ROW_SUM ? s : s / float(p.ne0);
            return;
        }
        mean = s / float(p.ne0);
    }
    float ss = 0.0;
    for (uint i = t; i < p.ne0; i += WG) {
        const float v = a[ab + i * p.a_s0] - mean;
        ss += v * v;
    }
    ss = reduce_sum(ss);
    const float sc = p.op == VK_ROW_L2_NORM ? 1.0 / max(sqrt(ss), p.eps) : inversesqrt(ss / float(p.ne0) + p.eps);
    for (uint i = t; i < p.ne0; i += WG) d[db + i * p.d_s0] = (a[ab + i * p.a_s0] - mean) * sc;
}
