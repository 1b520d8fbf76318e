#version 450
// Elementwise maps on F32 or F16: the unary ops (relu, tanh, sigmoid, silu, gelu, gelu_erf, neg, exp)
// plus sqr, sqrt, scale (x * f0 + f1) and clamp (f0..f1). Any strides.
#include "common.glsl"
#include "activations.glsl"
#include "op-codes.glsl"
layout(local_size_x = 256) in;
#ifdef A_F16
layout(binding = 0) readonly buffer A { float16_t a[]; };
layout(binding = 3) writeonly buffer D { float16_t d[]; };
#define STORE(i, v) d[i] = float16_t(v)
#else
layout(binding = 0) readonly buffer A { float a[]; };
layout(binding = 3) writeonly buffer D { float d[]; };
#define STORE(i, v) d[i] = (v)
#endif

layout(push_constant) uniform P {
    uint ne0, ne1, ne2, ne3;
    uint a_off, a_s0, a_s1, a_s2, a_s3;
    uint d_off, d_s0, d_s1, d_s2, d_s3;
    uint op;  // a ggml_unary_op value, or VK_MAP_* (op-codes.glsl)
    float f0, f1;
} p;

void main() {
    uint i = flat_index(256u);
    if (i >= p.ne0 * p.ne1 * p.ne2 * p.ne3) return;
    const uint i0 = i % p.ne0; i /= p.ne0;
    const uint i1 = i % p.ne1; i /= p.ne1;
    const uint i2 = i % p.ne2;
    const uint i3 = i / p.ne2;
    const float x = float(a[p.a_off + i0 * p.a_s0 + i1 * p.a_s1 + i2 * p.a_s2 + i3 * p.a_s3]);
    float r;
    switch (p.op) {
        case VK_MAP_SQR: r = x * x; break;
        case VK_MAP_SQRT: r = sqrt(x); break;
        case VK_MAP_SCALE: r = x * p.f0 + p.f1; break;
        case VK_MAP_CLAMP: r = min(max(x, p.f0), p.f1); break;
        default: r = act_unary(p.op, x); break;
    }
    STORE(p.d_off + i0 * p.d_s0 + i1 * p.d_s1 + i2 * p.d_s2 + i3 * p.d_s3, r);
}
