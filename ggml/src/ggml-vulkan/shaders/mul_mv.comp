#version 450
// The GEMV (one column of b per (i2, i3)): dst[m, i2, i3] = sum_k a[k, m, i2 / r2, i3 / r3] * b[k, i2, i3].
// ROWS weight rows per workgroup of WG invocations (both specialization constants, chosen by the host
// from the device's subgroup size). Each subgroup takes rows gl_SubgroupID, + gl_NumSubgroups, ...:
// its lanes walk a row's K (units of 32 weights for quantized types, dequantized once each) and one
// subgroupAdd sums them, so there is no shared memory and no barrier. Correct for any subgroup size.
// With MUL_MAT_ID the same for mixture of experts: dst[m, e, t] = as[:, m, ids[e, t]] . b[:, e % n_b, t].
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "common.glsl"
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint ROWS = 4u;
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

// the mul_mat push constants (N is 1 here)
layout(push_constant) uniform P {
    uint K, M, N, ne12, r2, r3, m_base;
    uint a_off, a_s1, a_s2, a_s3;
    uint b_off, b_s0, b_s1, b_s2, b_s3;
    uint d_off, d_s1, d_s2, d_s3;
#ifdef MUL_MAT_ID
    uint i_off, i_s0, i_s1, n_b;  // ids offset and strides (ints), rows of b per token
#endif
} p;

void main() {
    const uint lane = gl_SubgroupInvocationID, nl = gl_SubgroupSize;
#ifdef MUL_MAT_ID
    // y: expert slot e, z: token; the slot's expert picks the weight matrix, e % n_b the row of b
    const uint e = gl_WorkGroupID.y, tok = gl_WorkGroupID.z;
    const uint expert = uint(ids[p.i_off + e * p.i_s0 + tok * p.i_s1]);
    const uint bbase  = p.b_off + (e % p.n_b) * p.b_s1 + tok * p.b_s2;
    const uint a23    = p.a_off + expert * p.a_s2;
    const uint d23    = p.d_off + e * p.d_s1 + tok * p.d_s2;
#else
    const uint i2 = gl_WorkGroupID.z % p.ne12;
    const uint i3 = gl_WorkGroupID.z / p.ne12;
    const uint bbase = p.b_off + i2 * p.b_s2 + i3 * p.b_s3;
    const uint a23   = p.a_off + (i2 / p.r2) * p.a_s2 + (i3 / p.r3) * p.a_s3;
    const uint d23   = p.d_off + i2 * p.d_s2 + i3 * p.d_s3;
#endif
    for (uint r = gl_SubgroupID; r < ROWS; r += gl_NumSubgroups) {
        const uint m = p.m_base + gl_WorkGroupID.x * ROWS + r;
        if (m >= p.M) break;  // uniform in the subgroup
        const uint abase = a23 + m * p.a_s1;
        float acc = 0.0;
#if defined(A_F32) || defined(A_F16) || defined(A_BF16)
        for (uint k = lane; k < p.K; k += nl) {
#ifdef A_BF16
            const float av = uintBitsToFloat(uint(a[abase + k]) << 16);
#else
            const float av = float(a[abase + k]);
#endif
            acc += av * b[bbase + k * p.b_s0];
        }
#else
        for (uint u = lane; u < p.K / 32u; u += nl) {
            const uint k0 = u * 32u;
            const uint bw = abase + (k0 / QK) * BLOCK_WORDS;
            const uint j0 = k0 % QK;
            for (uint jj = 0u; jj < 32u; ++jj) acc += dequant(bw, j0 + jj) * b[bbase + (k0 + jj) * p.b_s0];
        }
#endif
        acc = subgroupAdd(acc);
        if (subgroupElect()) d[d23 + m] = acc;
    }
}
