#version 450
// SSM_CONV: depthwise causal convolution, one invocation per output element (channel r, token t,
// sequence s): d[r, t, s] = sum_k sx[t + k, r, s] * c[k, r]. sx already holds the carried conv state
// in its first d_conv - 1 columns, so every output is independent.
#include "common.glsl"
layout(local_size_x = 256) in;
layout(binding = 0) readonly buffer SX { float sx[]; };
layout(binding = 1) readonly buffer CW { float cw[]; };
layout(binding = 3) writeonly buffer D { float d[]; };

layout(push_constant) uniform P {
    uint d_conv, d_inner, n_t, n_s;
    uint sx_off, sx_s1, sx_s2;  // rows contiguous
    uint c_off, c_s1;
    uint d_off, d_s1, d_s2;
} p;

void main() {
    uint i = flat_index(256u);
    if (i >= p.d_inner * p.n_t * p.n_s) return;
    const uint r = i % p.d_inner; i /= p.d_inner;
    const uint t = i % p.n_t;
    const uint s = i / p.n_t;
    const uint xb = p.sx_off + r * p.sx_s1 + s * p.sx_s2 + t;
    const uint cb = p.c_off + r * p.c_s1;
    float sum = 0.0;
    for (uint k = 0u; k < p.d_conv; ++k) sum += sx[xb + k] * cw[cb + k];
    d[p.d_off + r + t * p.d_s1 + s * p.d_s2] = sum;
}
