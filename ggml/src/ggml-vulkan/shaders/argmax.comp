#version 450
// dst[r] = index of the first maximum of row r of a (F32, ne0 elements). One workgroup per row: each
// thread keeps the first maximum of its strided slice, then a tree keeps the larger value, or on a tie
// the lower index, so the result is the first maximum as on the CPU.
#include "common.glsl"
#define WG 64u
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer A { float a[]; };
layout(binding = 3) writeonly buffer D { int d[]; };

layout(push_constant) uniform P {
    uint ne0, nrows;
    uint a_off, a_s0, a_s1;
    uint d_off;
} p;

shared float sv[WG];
shared uint  si[WG];

void main() {
    const uint r = flat_group();
    if (r >= p.nrows) return;
    const uint t    = gl_LocalInvocationID.x;
    const uint base = p.a_off + r * p.a_s1;
    float best = 0.0;
    uint  bi   = 0xFFFFFFFFu;  // none yet
    for (uint i = t; i < p.ne0; i += WG) {
        const float v = a[base + i * p.a_s0];
        if (bi == 0xFFFFFFFFu || v > best) {
            best = v;
            bi   = i;
        }
    }
    sv[t] = best;
    si[t] = bi;
    barrier();
    for (uint s = WG / 2u; s > 0u; s >>= 1u) {
        if (t < s) {
            const float ov = sv[t + s];
            const uint  oi = si[t + s];
            if (oi != 0xFFFFFFFFu && (si[t] == 0xFFFFFFFFu || ov > sv[t] || (ov == sv[t] && oi < si[t]))) {
                sv[t] = ov;
                si[t] = oi;
            }
        }
        barrier();
    }
    if (t == 0u) d[p.d_off + r] = int(si[0]);
}
