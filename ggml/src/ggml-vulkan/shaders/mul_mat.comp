#version 450
// dst[m, n, i2, i3] = sum_k a[k, m, i2 / r2, i3 / r3] * b[k, n, i2, i3]
// One workgroup per (weight row m, group of NC columns n): every thread walks a strided slice of K,
// dequantizes each weight once and uses it for all NC columns; a shared-memory tree sums the slices.
// With N == 1 this is the GEMV. Weights F32/F16/BF16 or any type of quants.glsl with contiguous rows;
// b and dst F32.
// With MUL_MAT_ID (mixture of experts): dst[m, e, t] = sum_k as[k, m, ids[e, t]] * b[k, e % n_b, t]; one
// workgroup per (m, e, t), since each (e, t) may pick another expert's rows.
#include "common.glsl"
#define WG 64u
#define NC 8u
layout(local_size_x = 64) in;
#if defined(A_F32)
layout(binding = 0) readonly buffer A { float a[]; };
#elif defined(A_F16)
layout(binding = 0) readonly buffer A { float16_t a[]; };
#elif defined(A_BF16)
layout(binding = 0) readonly buffer A { uint16_t a[]; };
#else
layout(binding = 0) readonly buffer A { uint16_t aq[]; };
#include "quants.glsl"
#endif
layout(binding = 1) readonly buffer B { float b[]; };
#ifdef MUL_MAT_ID
layout(binding = 2) readonly buffer I { int ids[]; };
#endif
layout(binding = 3) writeonly buffer D { float d[]; };

// a offsets/strides: elements for F32/F16, 16-bit words for quantized types; b, d: floats
layout(push_constant) uniform P {
    uint K, M, N, ne12, r2, r3, m_base;
    uint a_off, a_s1, a_s2, a_s3;
    uint b_off, b_s0, b_s1, b_s2, b_s3;
    uint d_off, d_s1, d_s2, d_s3;
#ifdef MUL_MAT_ID
    uint i_off, i_s0, i_s1, n_b;  // ids offset and strides (ints), rows of b per token
#endif
} p;

shared float red[NC][WG];

void main() {
    const uint m  = p.m_base + gl_WorkGroupID.x;
    const uint t  = gl_LocalInvocationID.x;
#ifdef MUL_MAT_ID
    const uint e = gl_WorkGroupID.y, tok = gl_WorkGroupID.z;
    const uint nc = 1u;
    const uint expert = uint(ids[p.i_off + e * p.i_s0 + tok * p.i_s1]);
    const uint abase = p.a_off + m * p.a_s1 + expert * p.a_s2;
    const uint bbase = p.b_off + (e % p.n_b) * p.b_s1 + tok * p.b_s2;
#else
    const uint n0 = gl_WorkGroupID.y * NC;
    const uint i2 = gl_WorkGroupID.z % p.ne12;
    const uint i3 = gl_WorkGroupID.z / p.ne12;
    const uint nc = min(NC, p.N - n0);

    const uint abase = p.a_off + m * p.a_s1 + (i2 / p.r2) * p.a_s2 + (i3 / p.r3) * p.a_s3;
    const uint bbase = p.b_off + n0 * p.b_s1 + i2 * p.b_s2 + i3 * p.b_s3;
#endif

    float acc[NC];
    [[unroll]] for (uint c = 0u; c < NC; ++c) acc[c] = 0.0;

#if defined(A_F32) || defined(A_F16) || defined(A_BF16)
    for (uint k = t; k < p.K; k += WG) {
#ifdef A_BF16
        const float av = uintBitsToFloat(uint(a[abase + k]) << 16);
#else
        const float av = float(a[abase + k]);
#endif
        const uint  bk = bbase + k * p.b_s0;
        [[unroll]] for (uint c = 0u; c < NC; ++c) {
            if (c < nc) acc[c] += av * b[bk + c * p.b_s1];
        }
    }
#else
    // units of 32 consecutive weights (a whole block for Q4_0/Q8_0, a sub-block for Q4_K)
    for (uint u = t; u < p.K / 32u; u += WG) {
        const uint k0 = u * 32u;
        const uint bw = abase + (k0 / QK) * BLOCK_WORDS;
        const uint j0 = k0 % QK;
        for (uint jj = 0u; jj < 32u; ++jj) {
            const float av = dequant(bw, j0 + jj);
            const uint  bk = bbase + (k0 + jj) * p.b_s0;
            [[unroll]] for (uint c = 0u; c < NC; ++c) {
                if (c < nc) acc[c] += av * b[bk + c * p.b_s1];
            }
        }
    }
#endif

    [[unroll]] for (uint c = 0u; c < NC; ++c) red[c][t] = acc[c];
    barrier();
    for (uint s = WG / 2u; s > 0u; s >>= 1u) {
        if (t < s) {
            [[unroll]] for (uint c = 0u; c < NC; ++c) red[c][t] += red[c][t + s];
        }
        barrier();
    }
#ifdef MUL_MAT_ID
    if (t == 0u) d[p.d_off + m + e * p.d_s1 + tok * p.d_s2] = red[0][0];
#else
    if (t < nc) d[p.d_off + m + (n0 + t) * p.d_s1 + i2 * p.d_s2 + i3 * p.d_s3] = red[t][0];
#endif
}
