#version 450
// Flash attention for one query row of one head per workgroup: out = softmax(scale * q.K^T (softcap)
// + slope * mask) . V, streaming K/V in chunks of WG positions with an online softmax (running max
// and sum, the accumulator rescaled whenever the max grows). Each thread owns Dv/WG output dims.
// V rows step by v_s1, so V may be a view of K (absorbed MLA: the first Dv values of each K row).
// q F32; K and V each F32, F16, BF16 or a 32-element quantized type (flash_attn_kv.glsl);
// mask F32 or F16 at binding 4.
// Split-K (N_SPLIT > 1, long KV and few queries): workgroup x = query * N_SPLIT + split takes one
// chunk of the KV and writes its unnormalized accumulators and (max, sum) after dst's data (the buffer
// type reserved them, vk-flash-attn.cpp); flash_attn_reduce.comp combines the chunks.
#include "common.glsl"
#include "activations.glsl"
#define WG 64u
#define MAX_DV_PER_THREAD 8u  // Dv <= 512 (DeepSeek's absorbed MLA: V 512 wide, K 576)
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint N_SPLIT = 1u;
layout(binding = 0) readonly buffer Q { float q[]; };
#include "flash_attn_kv.glsl"
layout(binding = 3) writeonly buffer D { float d[]; };
layout(binding = 4) readonly buffer M32 { float m32[]; };
layout(binding = 4) readonly buffer M16 { float16_t m16[]; };

layout(push_constant) uniform P {
    uint D, Dv, n_q, n_kv, n_head, gqa;  // gqa = n_head / n_head_kv
    uint q_off, q_s1, q_s2, q_s3;
    uint k_off, k_s1, k_s2, k_s3;
    uint v_off, v_s1, v_s2, v_s3;
    uint m_off, m_s1, m_s2, m_s3, mask;  // m_s2/m_s3 are 0 when the mask broadcasts; mask: 0, 1 F32, 2 F16
    uint d_off, d_s1, d_s2, d_s3;
    float scale, softcap, m0, m1;  // m0 = m1 = 1 without ALiBi
    uint n_head_log2;
} p;

shared float red[WG];
shared float pw[WG];

float reduce(float x, bool is_max) {
    const uint t = gl_LocalInvocationID.x;
    red[t] = x;
    barrier();
    [[unroll]] for (uint s = WG / 2u; s > 0u; s >>= 1u) {
        if (t < s) red[t] = is_max ? max(red[t], red[t + s]) : red[t] + red[t + s];
        barrier();
    }
    const float r = red[0];
    barrier();
    return r;
}

void main() {
    const uint iq = gl_WorkGroupID.x / N_SPLIT, split = gl_WorkGroupID.x % N_SPLIT;
    const uint h = gl_WorkGroupID.y, i3 = gl_WorkGroupID.z;
    const uint t  = gl_LocalInvocationID.x;
    const uint hk = h / p.gqa;
    const uint qb = p.q_off + iq * p.q_s1 + h * p.q_s2 + i3 * p.q_s3;
    const uint kb = p.k_off + hk * p.k_s2 + i3 * p.k_s3;
    const uint vb = p.v_off + hk * p.v_s2 + i3 * p.v_s3;
    const uint mb = p.m_off + iq * p.m_s1 + h * p.m_s2 + i3 * p.m_s3;
    const float slope = h < p.n_head_log2 ? pow(p.m0, float(h + 1u)) : pow(p.m1, float(2u * (h - p.n_head_log2) + 1u));
    const float NEG_INF = -1.0 / 0.0;

    float acc[MAX_DV_PER_THREAD];
    [[unroll]] for (uint i = 0u; i < MAX_DV_PER_THREAD; ++i) acc[i] = 0.0;
    float run_max = NEG_INF, run_sum = 0.0;

    // this workgroup's KV range: whole multiples of WG per chunk (the last may be short or empty)
    const uint chunk = ((p.n_kv + N_SPLIT - 1u) / N_SPLIT + WG - 1u) / WG * WG;
    const uint kv0 = min(p.n_kv, split * chunk), kv1 = min(p.n_kv, kv0 + chunk);
    for (uint c0 = kv0; c0 < kv1; c0 += WG) {
        const uint j = c0 + t;
        float s = NEG_INF;
        if (j < kv1) {
            float dot = 0.0;
            for (uint c = 0u; c < p.D; ++c) dot += q[qb + c] * load_k(kb + j * p.k_s1, c);
            s = dot * p.scale;
            if (p.softcap > 0.0) s = p.softcap * act_tanh(s / p.softcap);
            if (p.mask == 1u) s += slope * m32[mb + j];
            else if (p.mask == 2u) s += slope * float(m16[mb + j]);
        }
        const float new_max = max(run_max, reduce(s, true));
        const float pj      = s == NEG_INF ? 0.0 : exp(s - new_max);
        const float alpha   = run_max == NEG_INF ? 0.0 : exp(run_max - new_max);
        pw[t] = pj;
        run_sum = run_sum * alpha + reduce(pj, false);  // reduce's barriers also publish pw
        run_max = new_max;
        const uint n = min(WG, kv1 - c0);
        [[unroll]] for (uint i = 0u; i < MAX_DV_PER_THREAD; ++i) {
            const uint c = t + i * WG;
            if (c < p.Dv) {
                float a = acc[i] * alpha;
                for (uint jj = 0u; jj < n; ++jj) a += pw[jj] * load_v(vb + (c0 + jj) * p.v_s1, c);
                acc[i] = a;
            }
        }
        barrier();  // pw is rewritten by the next chunk
    }
    if (N_SPLIT > 1u) {
        // partials of (split, iq, h, i3): dst is contiguous, so they start after its n_dst floats
        const uint n_dst  = p.Dv * p.n_head * p.n_q * gl_NumWorkGroups.z;
        const uint n_part = N_SPLIT * p.n_head * p.n_q * gl_NumWorkGroups.z;
        const uint pi     = ((i3 * p.n_q + iq) * p.n_head + h) * N_SPLIT + split;
        const uint pb     = p.d_off + n_dst;
        [[unroll]] for (uint i = 0u; i < MAX_DV_PER_THREAD; ++i) {
            const uint c = t + i * WG;
            if (c < p.Dv) d[pb + pi * p.Dv + c] = acc[i];
        }
        if (t == 0u) {
            d[pb + n_part * p.Dv + 2u * pi]      = run_max;
            d[pb + n_part * p.Dv + 2u * pi + 1u] = run_sum;
        }
        return;
    }
    const float inv = run_sum > 0.0 ? 1.0 / run_sum : 0.0;
    const uint  db  = p.d_off + h * p.d_s1 + iq * p.d_s2 + i3 * p.d_s3;
    [[unroll]] for (uint i = 0u; i < MAX_DV_PER_THREAD; ++i) {
        const uint c = t + i * WG;
        if (c < p.Dv) d[db + c] = acc[i] * inv;
    }
}
