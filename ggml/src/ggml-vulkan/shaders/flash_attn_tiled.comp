#version 450
// Tiled flash attention (prefill): one workgroup takes BR rows of one KV head and walks the KV in
// tiles of BC positions. Each K tile, then V tile, is staged in shared memory (read and dequantized
// once for all BR rows), scores go through an online softmax per row (running max and sum, the
// accumulators rescaled when the max grows). TPR invocations serve one query row: row r = t / TPR,
// lane l = t % TPR scores positions l, l + TPR, ... of a tile and owns output dims l, l + TPR, ...
// Rows are (query, head) pairs of the gqa heads that share the KV head, row = query * gqa + head in
// group, so grouped-query attention reads each K/V tile once for all of its heads.
// Row max/sum over the TPR lanes: subgroup shuffles (variants with TILED_SG, for devices with them
// and TPR <= subgroup size) or shared memory (no subgroup capability in the module).
// Same bindings and push constants as flash_attn.comp; tile sizes and head dims are specialization
// constants chosen by the host (vk-flash-attn.cpp) to fit the device's shared memory.
#include "common.glsl"
#include "activations.glsl"
#ifdef TILED_SG
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#endif

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG     = 128u;
layout(constant_id = 1) const uint BR     = 16u;  // query rows per workgroup
layout(constant_id = 2) const uint BC     = 32u;  // KV positions per tile (a multiple of TPR)
layout(constant_id = 3) const uint DK     = 64u;  // q/K head dim
layout(constant_id = 4) const uint DV     = 64u;  // V head dim
layout(constant_id = 5) const uint TPR    = 8u;   // WG / BR, a power of two
layout(constant_id = 6) const uint KVS    = 65u;  // K/V tile row stride: max(DK, DV) + 1
const uint NA = (DV + TPR - 1u) / TPR;            // output dims per invocation
const uint NS = BC / TPR;                         // scores per invocation per tile

layout(binding = 0) readonly buffer Q { float q[]; };
#include "flash_attn_kv.glsl"
layout(binding = 3) writeonly buffer D { float d[]; };
layout(binding = 4) readonly buffer M32 { float m32[]; };
layout(binding = 4) readonly buffer M16 { float16_t m16[]; };

layout(push_constant) uniform P {
    uint D, Dv, n_q, n_kv, n_head, gqa;
    uint q_off, q_s1, q_s2, q_s3;
    uint k_off, k_s1, k_s2, k_s3;
    uint v_off, v_s1, v_s2, v_s3;
    uint m_off, m_s1, m_s2, m_s3, mask;
    uint d_off, d_s1, d_s2, d_s3;
    float scale, softcap, m0, m1;
    uint n_head_log2;
} p;

shared float sq[BR * DK];    // the query rows
shared float skv[BC * KVS];  // the K tile, then the V tile
shared float sp[BR * BC];    // probabilities of the tile
#ifndef TILED_SG
shared float sred[WG];  // row reductions without subgroups
#endif

// max (is_max) or sum of x over the TPR lanes of this invocation's row; every invocation calls it
float row_reduce(float x, bool is_max) {
#ifdef TILED_SG
    for (uint s = TPR / 2u; s > 0u; s >>= 1u) {
        const float y = subgroupShuffleXor(x, s);
        x             = is_max ? max(x, y) : x + y;
    }
    return x;
#else
    const uint t = gl_LocalInvocationID.x, r0 = (t / TPR) * TPR;
    sred[t] = x;
    barrier();
    float acc = sred[r0];
    for (uint i = 1u; i < TPR; ++i) acc = is_max ? max(acc, sred[r0 + i]) : acc + sred[r0 + i];
    barrier();
    return acc;
#endif
}

void main() {
    const uint  t = gl_LocalInvocationID.x, r = t / TPR, l = t % TPR;
    const uint  hk = gl_WorkGroupID.y, i3 = gl_WorkGroupID.z, n_rows = p.n_q * p.gqa;
    const uint  row0 = gl_WorkGroupID.x * BR, row = row0 + r;
    const bool  row_ok = row < n_rows;
    const uint  iq = row / p.gqa, h = hk * p.gqa + row % p.gqa;
    const uint  kb     = p.k_off + hk * p.k_s2 + i3 * p.k_s3;
    const uint  vb     = p.v_off + hk * p.v_s2 + i3 * p.v_s3;
    const uint  mb     = p.m_off + iq * p.m_s1 + h * p.m_s2 + i3 * p.m_s3;
    const float slope  = h < p.n_head_log2 ? pow(p.m0, float(h + 1u)) : pow(p.m1, float(2u * (h - p.n_head_log2) + 1u));
    const float NEG_INF = -1.0 / 0.0;

    for (uint i = t; i < BR * DK; i += WG) {
        const uint rq = row0 + i / DK, qi = rq / p.gqa, qh = hk * p.gqa + rq % p.gqa;
        sq[i] = rq < n_rows ? q[p.q_off + qi * p.q_s1 + qh * p.q_s2 + i3 * p.q_s3 + i % DK] : 0.0;
    }

    float acc[NA];
    [[unroll]] for (uint i = 0u; i < NA; ++i) acc[i] = 0.0;
    float run_max = NEG_INF, run_sum = 0.0;

    for (uint c0 = 0u; c0 < p.n_kv; c0 += BC) {
        barrier();  // the previous tile's V and probabilities are consumed (first tile: sq is written)
        for (uint i = t; i < BC * DK; i += WG) {
            const uint j = i / DK, c = i % DK;
            skv[j * KVS + c] = c0 + j < p.n_kv ? load_k(kb + (c0 + j) * p.k_s1, c) : 0.0;
        }
        barrier();

        float s[NS];
        float mx = NEG_INF;
        [[unroll]] for (uint n = 0u; n < NS; ++n) {
            const uint j = l + n * TPR;
            float      x = NEG_INF;
            if (row_ok && c0 + j < p.n_kv) {
                float dot = 0.0;
                for (uint c = 0u; c < DK; ++c) dot += sq[r * DK + c] * skv[j * KVS + c];
                x = dot * p.scale;
                if (p.softcap > 0.0) x = p.softcap * act_tanh(x / p.softcap);
                if (p.mask == 1u) x += slope * m32[mb + c0 + j];
                else if (p.mask == 2u) x += slope * float(m16[mb + c0 + j]);
            }
            s[n] = x;
            mx   = max(mx, x);
        }
        const float new_max = max(run_max, row_reduce(mx, true));
        const float alpha   = run_max == NEG_INF ? 0.0 : exp(run_max - new_max);
        float       ps      = 0.0;
        [[unroll]] for (uint n = 0u; n < NS; ++n) {
            const float pj = s[n] == NEG_INF ? 0.0 : exp(s[n] - new_max);
            sp[r * BC + l + n * TPR] = pj;
            ps += pj;
        }
        run_sum = run_sum * alpha + row_reduce(ps, false);
        run_max = new_max;
        barrier();  // every score of the K tile is taken

        for (uint i = t; i < BC * DV; i += WG) {
            const uint j = i / DV, c = i % DV;
            skv[j * KVS + c] = c0 + j < p.n_kv ? load_v(vb + (c0 + j) * p.v_s1, c) : 0.0;
        }
        barrier();
        const uint nj = min(BC, p.n_kv - c0);
        [[unroll]] for (uint i = 0u; i < NA; ++i) {
            const uint c = l + i * TPR;
            if (c < DV) {
                float a = acc[i] * alpha;
                for (uint j = 0u; j < nj; ++j) a += sp[r * BC + j] * skv[j * KVS + c];
                acc[i] = a;
            }
        }
    }
    if (!row_ok) return;
    const float inv = run_sum > 0.0 ? 1.0 / run_sum : 0.0;
    const uint  db  = p.d_off + h * p.d_s1 + iq * p.d_s2 + i3 * p.d_s3;
    [[unroll]] for (uint i = 0u; i < NA; ++i) {
        const uint c = l + i * TPR;
        if (c < DV) d[db + c] = acc[i] * inv;
    }
}
