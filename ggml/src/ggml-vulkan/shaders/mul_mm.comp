#version 450
// The batched GEMM (prefill): dst[m, n, i2, i3] = sum_k a[k, m, i2 / r2, i3 / r3] * b[k, n, i2, i3].
// One workgroup of 256 invocations per BM x BN tile of dst; K is walked in BK steps: the A tile
// (dequantized once, whatever the weight type) and the B tile are staged in shared memory, then each
// invocation accumulates a TM x TN block of outputs from them. Same push constants as mul_mat.comp.
#include "common.glsl"
#define BM 32u
#define BN 32u
#define BK 32u
#define TM 2u
#define TN 2u
layout(local_size_x = 256) in;
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
layout(binding = 3) writeonly buffer D { float d[]; };

layout(push_constant) uniform P {
    uint K, M, N, ne12, r2, r3, m_base;
    uint a_off, a_s1, a_s2, a_s3;
    uint b_off, b_s0, b_s1, b_s2, b_s3;
    uint d_off, d_s1, d_s2, d_s3;
} p;

shared float As[BK][BM + 1u];  // +1: no bank conflicts on the transposed reads
shared float Bs[BK][BN + 1u];

float load_a(uint abase, uint k) {
#if defined(A_BF16)
    return uintBitsToFloat(uint(a[abase + k]) << 16);
#elif defined(A_F32) || defined(A_F16)
    return float(a[abase + k]);
#else
    return dequant(abase + (k / QK) * BLOCK_WORDS, k % QK);
#endif
}

void main() {
    const uint t  = gl_LocalInvocationID.x;
    const uint m0 = p.m_base + gl_WorkGroupID.x * BM;
    const uint n0 = gl_WorkGroupID.y * BN;
    const uint i2 = gl_WorkGroupID.z % p.ne12;
    const uint i3 = gl_WorkGroupID.z / p.ne12;
    const uint abase0 = p.a_off + (i2 / p.r2) * p.a_s2 + (i3 / p.r3) * p.a_s3;
    const uint bbase0 = p.b_off + i2 * p.b_s2 + i3 * p.b_s3;
    const uint tm = (t % (BM / TM)) * TM;  // this invocation's outputs: rows tm.., columns tn..
    const uint tn = (t / (BM / TM)) * TN;

    float acc[TM][TN];
    [[unroll]] for (uint i = 0u; i < TM; ++i)
        [[unroll]] for (uint j = 0u; j < TN; ++j) acc[i][j] = 0.0;

    for (uint k0 = 0u; k0 < p.K; k0 += BK) {
        // each invocation stages 4 elements of each tile: k = t % BK, rows/columns (t / BK) + 8 * e
        const uint kk = t % BK;
        const uint k  = k0 + kk;
        [[unroll]] for (uint e = 0u; e < 4u; ++e) {
            const uint r = t / BK + 8u * e;
            const uint m = m0 + r, n = n0 + r;
            As[kk][r] = (m < p.M && k < p.K) ? load_a(abase0 + m * p.a_s1, k) : 0.0;
            Bs[kk][r] = (n < p.N && k < p.K) ? b[bbase0 + k * p.b_s0 + n * p.b_s1] : 0.0;
        }
        barrier();
        [[unroll]] for (uint q = 0u; q < BK; ++q) {
            float av[TM], bv[TN];
            [[unroll]] for (uint i = 0u; i < TM; ++i) av[i] = As[q][tm + i];
            [[unroll]] for (uint j = 0u; j < TN; ++j) bv[j] = Bs[q][tn + j];
            [[unroll]] for (uint i = 0u; i < TM; ++i)
                [[unroll]] for (uint j = 0u; j < TN; ++j) acc[i][j] += av[i] * bv[j];
        }
        barrier();
    }
    [[unroll]] for (uint i = 0u; i < TM; ++i)
        [[unroll]] for (uint j = 0u; j < TN; ++j) {
            const uint m = m0 + tm + i, n = n0 + tn + j;
            if (m < p.M && n < p.N) d[p.d_off + m + n * p.d_s1 + i2 * p.d_s2 + i3 * p.d_s3] = acc[i][j];
        }
}
