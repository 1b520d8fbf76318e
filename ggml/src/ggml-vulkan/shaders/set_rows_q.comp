#version 450
// Quantized writes, one invocation per 32-element block: set_rows into Q8_0 / Q4_0 / Q4_1 / Q5_0 /
// Q5_1 / IQ4_NL rows (the KV-cache write of a quantized cache: dst row ids[i, i2, i3] = quantize(src
// row i)), or with CPY a copy of an F32 tensor into such a tensor of the same shape. The direct
// quantizers of the reference formats (the CPU's writers search the scale further, so the two agree
// within the format's error, not bit for bit): Q8_0 d = amax / 127, q = round(x / d); Q4_0 / Q5_0
// d = (signed max) / -8 (-16), q = x / d + 8 (16) clamped; Q4_1 / Q5_1 d = (max - min) / 15 (31),
// m = min, q = (x - m) / d rounded; IQ4_NL the nearest of its 16 levels at d = (signed max) / -127,
// then d refit by least squares to the chosen levels.
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

// block sizes in 16-bit words
#if defined(D_Q8_0)
#define BLOCK_WORDS 17u
#elif defined(D_Q4_1)
#define BLOCK_WORDS 10u
#elif defined(D_Q5_0)
#define BLOCK_WORDS 11u
#elif defined(D_Q5_1)
#define BLOCK_WORDS 12u
#else
#define BLOCK_WORDS 9u  // Q4_0, IQ4_NL
#endif

#if defined(D_IQ4_NL)
const float k_iq4nl[16] = float[16](-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113);
uint iq4nl_nearest(float v) {  // v in level units
    uint best = 0u;
    float err = abs(v - k_iq4nl[0]);
    for (uint l = 1u; l < 16u; ++l) {
        const float e = abs(v - k_iq4nl[l]);
        if (e < err) {
            err  = e;
            best = l;
        }
    }
    return best;
}
#endif

uint16_t half_word(float x) { return uint16_t(packHalf2x16(vec2(x, 0.0)) & 0xFFFFu); }

// 32 4-bit codes as 8 words: byte j = code j | code (j + 16) << 4
void put_nibbles(uint w0, uint q[32]) {
    [[unroll]] for (uint j = 0u; j < 16u; j += 2u) {
        d[w0 + j / 2u] = uint16_t((q[j] & 0xFu) | ((q[j + 16u] & 0xFu) << 4) | ((q[j + 1u] & 0xFu) << 8) |
                                  ((q[j + 17u] & 0xFu) << 12));
    }
}

// the fifth bits of 32 5-bit codes as a little-endian 32-bit mask in two words
void put_high_bits(uint w0, uint q[32]) {
    uint qh = 0u;
    [[unroll]] for (uint j = 0u; j < 32u; ++j) {
        qh |= ((q[j] >> 4) & 1u) << j;
    }
    d[w0]      = uint16_t(qh & 0xFFFFu);
    d[w0 + 1u] = uint16_t(qh >> 16);
}

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
    float amax = 0.0, vmax = 0.0, xmin = 3.4e38, xmax = -3.4e38;
    [[unroll]] for (uint j = 0u; j < 32u; ++j) {
        x[j] = s[sb + j * p.s_s0];
        if (abs(x[j]) > amax) {
            amax = abs(x[j]);
            vmax = x[j];
        }
        xmin = min(xmin, x[j]);
        xmax = max(xmax, x[j]);
    }
    uint q[32];
#if defined(D_Q8_0)
    const float dd = amax / 127.0;
    const float id = dd != 0.0 ? 1.0 / dd : 0.0;
    d[db] = half_word(dd);
    [[unroll]] for (uint j = 0u; j < 32u; j += 2u) {
        const uint q0 = uint(int(roundEven(x[j] * id))) & 0xFFu;
        const uint q1 = uint(int(roundEven(x[j + 1u] * id))) & 0xFFu;
        d[db + 1u + j / 2u] = uint16_t(q0 | (q1 << 8));
    }
#elif defined(D_Q4_0) || defined(D_Q5_0)
#if defined(D_Q4_0)
    const float half_levels = 8.0;
#else
    const float half_levels = 16.0;
#endif
    const float dd = vmax / -half_levels;
    const float id = dd != 0.0 ? 1.0 / dd : 0.0;
    d[db] = half_word(dd);
    [[unroll]] for (uint j = 0u; j < 32u; ++j) {
        q[j] = uint(clamp(int(x[j] * id + half_levels + 0.5), 0, int(2.0 * half_levels) - 1));
    }
#if defined(D_Q4_0)
    put_nibbles(db + 1u, q);
#else
    put_high_bits(db + 1u, q);
    put_nibbles(db + 3u, q);
#endif
#elif defined(D_Q4_1) || defined(D_Q5_1)
#if defined(D_Q4_1)
    const float n_steps = 15.0;
#else
    const float n_steps = 31.0;
#endif
    const float dd = (xmax - xmin) / n_steps;
    const float id = dd != 0.0 ? 1.0 / dd : 0.0;
    d[db]      = half_word(dd);
    d[db + 1u] = half_word(xmin);
    [[unroll]] for (uint j = 0u; j < 32u; ++j) {
        q[j] = uint(clamp(int((x[j] - xmin) * id + 0.5), 0, int(n_steps)));
    }
#if defined(D_Q4_1)
    put_nibbles(db + 2u, q);
#else
    put_high_bits(db + 2u, q);
    put_nibbles(db + 4u, q);
#endif
#else  // IQ4_NL
    const float d0 = vmax / -127.0;
    const float id = d0 != 0.0 ? 1.0 / d0 : 0.0;
    float sumqx = 0.0, sumq2 = 0.0;
    [[unroll]] for (uint j = 0u; j < 32u; ++j) {
        q[j]          = iq4nl_nearest(x[j] * id);
        const float l = k_iq4nl[q[j]];
        sumqx += x[j] * l;
        sumq2 += l * l;
    }
    d[db] = half_word(sumq2 > 0.0 ? sumqx / sumq2 : 0.0);
    put_nibbles(db + 1u, q);
#endif
}
