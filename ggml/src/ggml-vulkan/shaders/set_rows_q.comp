#version 450
// Quantized writes, one invocation per 32-element block: set_rows into Q8_0 / Q4_0 rows (the KV-cache
// write of a quantized cache: dst row ids[i, i2, i3] = quantize(src row i)), or with CPY a copy of an
// F32 tensor into a Q8_0 / Q4_0 tensor of the same shape. Quantization as the reference formats
// define it: Q8_0 d = amax / 127, q = round(x / d); Q4_0 d = (signed max) / -8, q = x / d + 8 clamped.
#include "common.glsl"
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer S { float s[]; };
layout(binding = 1) readonly buffer I { uint ids[]; };
layout(binding = 3) writeonly buffer D { uint16_t d[]; };

// s in floats, i in 32-bit words, d in 16-bit words
layout(push_constant) uniform P {
    uint ne0, ne1, ne2, ne3;
    uint s_off, s_s0, s_s1, s_s2, s_s3;
    uint i_off, i_s0, i_s1, i_s2;
    uint d_off, d_s1, d_s2, d_s3;
} p;

#if defined(D_Q8_0)
#define BLOCK_WORDS 17u
#else
#define BLOCK_WORDS 9u
#endif

void main() {
    const uint nb = p.ne0 / 32u;
    uint       n  = flat_index(64u);
    if (n >= nb * p.ne1 * p.ne2 * p.ne3) return;
    const uint b  = n % nb; n /= nb;
    const uint r  = n % p.ne1; n /= p.ne1;
    const uint i2 = n % p.ne2;
    const uint i3 = n / p.ne2;
#ifdef CPY
    const uint row = r;
#else
    const uint row = ids[p.i_off + r * p.i_s0 + i2 * p.i_s1 + i3 * p.i_s2];
#endif
    const uint sb = p.s_off + r * p.s_s1 + i2 * p.s_s2 + i3 * p.s_s3 + b * 32u * p.s_s0;
    const uint db = p.d_off + row * p.d_s1 + i2 * p.d_s2 + i3 * p.d_s3 + b * BLOCK_WORDS;
    float x[32];
    float amax = 0.0, vmax = 0.0;
    [[unroll]] for (uint j = 0u; j < 32u; ++j) {
        x[j] = s[sb + j * p.s_s0];
        if (abs(x[j]) > amax) {
            amax = abs(x[j]);
            vmax = x[j];
        }
    }
#if defined(D_Q8_0)
    const float dd = amax / 127.0;
    const float id = dd != 0.0 ? 1.0 / dd : 0.0;
    d[db] = uint16_t(packHalf2x16(vec2(dd, 0.0)) & 0xFFFFu);
    [[unroll]] for (uint j = 0u; j < 32u; j += 2u) {
        const uint q0 = uint(int(roundEven(x[j] * id))) & 0xFFu;
        const uint q1 = uint(int(roundEven(x[j + 1u] * id))) & 0xFFu;
        d[db + 1u + j / 2u] = uint16_t(q0 | (q1 << 8));
    }
#else
    const float dd = vmax / -8.0;
    const float id = dd != 0.0 ? 1.0 / dd : 0.0;
    d[db] = uint16_t(packHalf2x16(vec2(dd, 0.0)) & 0xFFFFu);
    [[unroll]] for (uint j = 0u; j < 16u; j += 2u) {
        const uint q00 = uint(min(15, int(x[j] * id + 8.5)));
        const uint q01 = uint(min(15, int(x[j + 16u] * id + 8.5)));
        const uint q10 = uint(min(15, int(x[j + 1u] * id + 8.5)));
        const uint q11 = uint(min(15, int(x[j + 17u] * id + 8.5)));
        d[db + 1u + j / 2u] = uint16_t((q00 | (q01 << 4)) | ((q10 | (q11 << 4)) << 8));
    }
#endif
}
