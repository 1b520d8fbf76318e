#version 450
// dst row r = the indices of row r of a (F32) in stable ascending (or descending) order. One invocation
// per element i, which goes to its rank: the number of elements that sort strictly before it plus the
// equal ones at lower indices. O(n^2) per row but exactly stable; rows here are expert scores or
// sampling candidates.
#include "common.glsl"
#define WG 256u
layout(local_size_x = 256) in;
layout(binding = 0) readonly buffer A { float a[]; };
layout(binding = 3) writeonly buffer D { int d[]; };

// a, d offsets and strides in elements (rows of d contiguous)
layout(push_constant) uniform P {
    uint ne0, nrows, desc;
    uint a_off, a_s0, a_s1;
    uint d_off, d_s1;
} p;

void main() {
    // x: element chunks of WG, y (and beyond 65535, z): rows
    const uint r = gl_WorkGroupID.z * gl_NumWorkGroups.y + gl_WorkGroupID.y;
    const uint i = gl_WorkGroupID.x * WG + gl_LocalInvocationID.x;
    if (r >= p.nrows || i >= p.ne0) return;
    const uint  base = p.a_off + r * p.a_s1;
    const float x    = a[base + i * p.a_s0];
    uint        rank = 0u;
    for (uint j = 0u; j < p.ne0; ++j) {
        const float y      = a[base + j * p.a_s0];
        const bool  before = p.desc != 0u ? y > x : y < x;
        rank += (before || (y == x && j < i)) ? 1u : 0u;
    }
    d[p.d_off + r * p.d_s1 + rank] = int(i);
}
