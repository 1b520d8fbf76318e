#version 450
// dst[k, i, j1, j2] = a[k, ids[i, j1, j2], j1, j2]; a F32/F16/BF16/I32 or quantized (dequantized to F32).
#include "common.glsl"
layout(local_size_x = 256) in;
#if defined(A_F32)
layout(binding = 0) readonly buffer A { float a[]; };
#elif defined(A_F16)
layout(binding = 0) readonly buffer A { float16_t a[]; };
#elif defined(A_BF16)
layout(binding = 0) readonly buffer A { uint16_t a[]; };
#elif defined(A_I32)
layout(binding = 0) readonly buffer A { int a[]; };
#else
layout(binding = 0) readonly buffer A { uint16_t aq[]; };
#include "quants.glsl"
#endif
layout(binding = 1) readonly buffer I { int ids[]; };
#ifdef A_I32
layout(binding = 3) writeonly buffer D { int d[]; };
#else
layout(binding = 3) writeonly buffer D { float d[]; };
#endif

// a strides: elements for F32/F16/I32, 16-bit words for quantized types
layout(push_constant) uniform P {
    uint ne0, ne1, ne2, ne3;
    uint a_off, a_s1, a_s2, a_s3;
    uint i_off, i_s0, i_s1, i_s2;
    uint d_off, d_s1, d_s2, d_s3;
} p;

void main() {
    uint i = flat_index(256u);
    if (i >= p.ne0 * p.ne1 * p.ne2 * p.ne3) return;
    const uint k  = i % p.ne0; i /= p.ne0;
    const uint r  = i % p.ne1; i /= p.ne1;
    const uint j1 = i % p.ne2;
    const uint j2 = i / p.ne2;
    const uint row = uint(ids[p.i_off + r * p.i_s0 + j1 * p.i_s1 + j2 * p.i_s2]);
    const uint base = p.a_off + row * p.a_s1 + j1 * p.a_s2 + j2 * p.a_s3;
#if defined(A_F32) || defined(A_I32)
    const uint didx = p.d_off + k + r * p.d_s1 + j1 * p.d_s2 + j2 * p.d_s3;
    d[didx] = a[base + k];
#elif defined(A_BF16)
    d[p.d_off + k + r * p.d_s1 + j1 * p.d_s2 + j2 * p.d_s3] = uintBitsToFloat(uint(a[base + k]) << 16);
#elif defined(A_F16)
    d[p.d_off + k + r * p.d_s1 + j1 * p.d_s2 + j2 * p.d_s3] = float(a[base + k]);
#else
    d[p.d_off + k + r * p.d_s1 + j1 * p.d_s2 + j2 * p.d_s3] = dequant(base + (k / QK) * BLOCK_WORDS, k % QK);
#endif
}
