#version 450
// dst = src converted, element by element in logical (row-major over ne) order; the two tensors may
// have different shapes (reshaped dst) and any strides. Used by CPY, CONT and DUP. F32, F16, BF16
// (converted through F32, rounded to nearest even as the CPU does), I32 -> I32.
#include "common.glsl"
layout(local_size_x = 256) in;
#if defined(A_F16)
layout(binding = 0) readonly buffer A { float16_t a[]; };
#define LOAD(i) float(a[i])
#elif defined(A_BF16)
layout(binding = 0) readonly buffer A { uint16_t a[]; };
#define LOAD(i) uintBitsToFloat(uint(a[i]) << 16)
#elif defined(A_I32)
layout(binding = 0) readonly buffer A { int a[]; };
#define LOAD(i) a[i]
#else
layout(binding = 0) readonly buffer A { float a[]; };
#define LOAD(i) a[i]
#endif
#if defined(D_F16)
layout(binding = 3) writeonly buffer D { float16_t d[]; };
#define STORE(i, v) d[i] = float16_t(v)
#elif defined(D_BF16)
layout(binding = 3) writeonly buffer D { uint16_t d[]; };
#define STORE(i, v) d[i] = uint16_t(f32_to_bf16(v))
#elif defined(D_I32)
layout(binding = 3) writeonly buffer D { int d[]; };
#define STORE(i, v) d[i] = (v)
#else
layout(binding = 3) writeonly buffer D { float d[]; };
#define STORE(i, v) d[i] = (v)
#endif

layout(push_constant) uniform P {
    uint a_ne0, a_ne1, a_ne2, a_ne3;
    uint a_off, a_s0, a_s1, a_s2, a_s3;
    uint d_ne0, d_ne1, d_ne2, d_ne3;
    uint d_off, d_s0, d_s1, d_s2, d_s3;
} p;

void main() {
    const uint n = flat_index(256u);
    if (n >= p.a_ne0 * p.a_ne1 * p.a_ne2 * p.a_ne3) return;
    uint i = n;
    const uint a0 = i % p.a_ne0; i /= p.a_ne0;
    const uint a1 = i % p.a_ne1; i /= p.a_ne1;
    const uint a2 = i % p.a_ne2;
    const uint a3 = i / p.a_ne2;
    i = n;
    const uint d0 = i % p.d_ne0; i /= p.d_ne0;
    const uint d1 = i % p.d_ne1; i /= p.d_ne1;
    const uint d2 = i % p.d_ne2;
    const uint d3 = i / p.d_ne2;
    STORE(p.d_off + d0 * p.d_s0 + d1 * p.d_s1 + d2 * p.d_s2 + d3 * p.d_s3,
          LOAD(p.a_off + a0 * p.a_s0 + a1 * p.a_s1 + a2 * p.a_s2 + a3 * p.a_s3));
}
