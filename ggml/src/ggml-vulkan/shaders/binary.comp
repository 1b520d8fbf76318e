#version 450
// dst = a (op) b with b broadcast (repeated) over a; a and dst F32 or F16, b F32. Any strides.
#include "common.glsl"
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
layout(binding = 1) readonly buffer B { float b[]; };

layout(push_constant) uniform P {
    uint ne0, ne1, ne2, ne3;
    uint a_off, a_s0, a_s1, a_s2, a_s3;
    uint b_off, b_ne0, b_ne1, b_ne2, b_ne3, b_s0, b_s1, b_s2, b_s3;
    uint d_off, d_s0, d_s1, d_s2, d_s3;
    uint op;  // VK_BINARY_* (op-codes.glsl)
} p;

void main() {
    uint i = flat_index(256u);
    if (i >= p.ne0 * p.ne1 * p.ne2 * p.ne3) return;
    const uint i0 = i % p.ne0; i /= p.ne0;
    const uint i1 = i % p.ne1; i /= p.ne1;
    const uint i2 = i % p.ne2;
    const uint i3 = i / p.ne2;
    const float x = float(a[p.a_off + i0 * p.a_s0 + i1 * p.a_s1 + i2 * p.a_s2 + i3 * p.a_s3]);
    const float y = b[p.b_off + (i0 % p.b_ne0) * p.b_s0 + (i1 % p.b_ne1) * p.b_s1 + (i2 % p.b_ne2) * p.b_s2 +
                      (i3 % p.b_ne3) * p.b_s3];
    float r;
    if (p.op == VK_BINARY_ADD) r = x + y;
    else if (p.op == VK_BINARY_SUB) r = x - y;
    else if (p.op == VK_BINARY_MUL) r = x * y;
    else r = x / y;
    STORE(p.d_off + i0 * p.d_s0 + i1 * p.d_s1 + i2 * p.d_s2 + i3 * p.d_s3, r);
}
