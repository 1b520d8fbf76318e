#version 450
// dst[k, ids[i, i2, i3], i2, i3] = src[k, i, i2, i3] (the KV-cache write); src F32, dst F32, F16 or BF16,
// ids I32 or I64 (read as the low 32 bits: row indices are small and non-negative).
#include "common.glsl"
layout(local_size_x = 256) in;
layout(binding = 0) readonly buffer S { float s[]; };
layout(binding = 1) readonly buffer I { uint ids[]; };
#if defined(D_F16)
layout(binding = 3) writeonly buffer D { float16_t d[]; };
#define STORE(i, v) d[i] = float16_t(v)
#elif defined(D_BF16)
layout(binding = 3) writeonly buffer D { uint16_t d[]; };
#define STORE(i, v) d[i] = uint16_t(f32_to_bf16(v))
#else
layout(binding = 3) writeonly buffer D { float d[]; };
#define STORE(i, v) d[i] = (v)
#endif

// i_* are in 32-bit words (an I64 index is two words)
layout(push_constant) uniform P {
    uint ne0, ne1, ne2, ne3;
    uint s_off, s_s0, s_s1, s_s2, s_s3;
    uint i_off, i_s0, i_s1, i_s2;
    uint d_off, d_s0, d_s1, d_s2, d_s3;
} p;

void main() {
    uint n = flat_index(256u);
    if (n >= p.ne0 * p.ne1 * p.ne2 * p.ne3) return;
    const uint k  = n % p.ne0; n /= p.ne0;
    const uint r  = n % p.ne1; n /= p.ne1;
    const uint i2 = n % p.ne2;
    const uint i3 = n / p.ne2;
    const uint row = ids[p.i_off + r * p.i_s0 + i2 * p.i_s1 + i3 * p.i_s2];
    STORE(p.d_off + k * p.d_s0 + row * p.d_s1 + i2 * p.d_s2 + i3 * p.d_s3,
          s[p.s_off + k * p.s_s0 + r * p.s_s1 + i2 * p.s_s2 + i3 * p.s_s3]);
}
