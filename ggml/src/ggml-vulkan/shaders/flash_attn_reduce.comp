#version 450
// Split-K flash attention, second pass: combines the N_SPLIT chunk partials of one (query, head, ne3)
// written by flash_attn.comp after dst's data: M = max of the chunk maxima, each chunk weighted by
// exp(max_s - M), out = sum_s w_s acc_s / sum_s w_s sum_s. A chunk that saw only masked positions has
// max -inf and weight 0; a row with no visible position gets 0 (as the one-pass shader).
#include "common.glsl"
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint N_SPLIT = 2u;
layout(binding = 3) buffer D { float d[]; };

// the flash_attn.comp push constants (this pass reads Dv, n_q, n_head and dst's offset/strides)
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

void main() {
    const uint  iq = gl_WorkGroupID.x, h = gl_WorkGroupID.y, i3 = gl_WorkGroupID.z;
    const uint  n_dst  = p.Dv * p.n_head * p.n_q * gl_NumWorkGroups.z;
    const uint  n_part = N_SPLIT * p.n_head * p.n_q * gl_NumWorkGroups.z;
    const uint  pi0    = ((i3 * p.n_q + iq) * p.n_head + h) * N_SPLIT;
    const uint  pb     = p.d_off + n_dst;
    const uint  mlb    = pb + n_part * p.Dv + 2u * pi0;
    const float NEG_INF = -1.0 / 0.0;
    float       M       = NEG_INF;
    for (uint s = 0u; s < N_SPLIT; ++s) M = max(M, d[mlb + 2u * s]);
    float L = 0.0;
    for (uint s = 0u; s < N_SPLIT; ++s) {
        const float ms = d[mlb + 2u * s];
        L += ms == NEG_INF ? 0.0 : exp(ms - M) * d[mlb + 2u * s + 1u];
    }
    const float inv = L > 0.0 ? 1.0 / L : 0.0;
    const uint  db  = p.d_off + h * p.d_s1 + iq * p.d_s2 + i3 * p.d_s3;
    for (uint c = gl_LocalInvocationID.x; c < p.Dv; c += 64u) {
        float o = 0.0;
        for (uint s = 0u; s < N_SPLIT; ++s) {
            const float ms = d[mlb + 2u * s];
            if (ms != NEG_INF) o += exp(ms - M) * d[pb + (pi0 + s) * p.Dv + c];
        }
        d[db + c] = o * inv;
    }
}
