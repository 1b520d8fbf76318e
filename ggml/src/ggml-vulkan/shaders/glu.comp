#version 450
// Gated linear units: dst = act(x) * y, where x and y are two views given by offsets and strides
// (the two halves of one row for the fused form, two tensors for the split form). F32 only.
#include "common.glsl"
#include "activations.glsl"
layout(local_size_x = 256) in;
layout(binding = 0) readonly buffer X { float x[]; };
layout(binding = 1) readonly buffer Y { float y[]; };
layout(binding = 3) writeonly buffer D { float d[]; };

layout(push_constant) uniform P {
    uint ne0, ne1, ne2, ne3;
    uint x_off, x_s0, x_s1, x_s2, x_s3;
    uint y_off, y_s0, y_s1, y_s2, y_s3;
    uint d_off, d_s0, d_s1, d_s2, d_s3;
    uint op;  // ggml_glu_op: SWIGLU, GEGLU, GEGLU_ERF
} p;

void main() {
    uint i = flat_index(256u);
    if (i >= p.ne0 * p.ne1 * p.ne2 * p.ne3) return;
    const uint i0 = i % p.ne0; i /= p.ne0;
    const uint i1 = i % p.ne1; i /= p.ne1;
    const uint i2 = i % p.ne2;
    const uint i3 = i / p.ne2;
    const float a = x[p.x_off + i0 * p.x_s0 + i1 * p.x_s1 + i2 * p.x_s2 + i3 * p.x_s3];
    const float b = y[p.y_off + i0 * p.y_s0 + i1 * p.y_s1 + i2 * p.y_s2 + i3 * p.y_s3];
    const float g = p.op == 0u ? a * act_sigmoid(a) : (p.op == 1u ? act_gelu(a) : act_gelu_erf(a));
    d[p.d_off + i0 * p.d_s0 + i1 * p.d_s1 + i2 * p.d_s2 + i3 * p.d_s3] = g * b;
}
