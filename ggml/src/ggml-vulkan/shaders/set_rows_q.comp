#version 450
// Quantized writes, one invocation per 32-element block: set_rows into Q8_0 / Q4_0 / Q4_1 / Q5_0 /
// Q5_1 / IQ4_NL rows (the KV-cache write of a quantized cache: dst row ids[i, i2, i3] = quantize(src
// row i)), or with CPY a copy of an F32 tensor into such a tensor of the same shape. The blocks are the
// CPU's (quantize_row_*_ref with its scale searches), bit for bit: quantize.glsl.
#include "common.glsl"
#include "quantize.glsl"
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
    [[unroll]] for (uint j = 0u; j < 32u; ++j) qb_x[j] = s[sb + j * p.s_s0];
    uint q[32];
#if defined(D_Q8_0)
    d[db] = uint16_t(quantize_q8_0());
    [[unroll]] for (uint j = 0u; j < 32u; j += 2u) {
        d[db + 1u + j / 2u] = uint16_t((uint(qb_q[j]) & 0xFFu) | ((uint(qb_q[j + 1u]) & 0xFFu) << 8));
    }
#elif defined(D_Q4_1) || defined(D_Q5_1)
    const uint dm = quantize_affine();
    d[db]         = uint16_t(dm & 0xFFFFu);
    d[db + 1u]    = uint16_t(dm >> 16);
    [[unroll]] for (uint j = 0u; j < 32u; ++j) q[j] = uint(qb_q[j]);
#if defined(D_Q4_1)
    put_nibbles(db + 2u, q);
#else
    put_high_bits(db + 2u, q);
    put_nibbles(db + 4u, q);
#endif
#else  // symmetric: Q4_0 / Q5_0 store the level + 8 (16), IQ4_NL the level's index
    d[db] = uint16_t(quantize_sym());
#if defined(D_IQ4_NL)
    [[unroll]] for (uint j = 0u; j < 32u; ++j) q[j] = uint(qb_q[j]);
    put_nibbles(db + 1u, q);
#else
    [[unroll]] for (uint j = 0u; j < 32u; ++j) q[j] = uint(qb_q[j] - Q_MIN);
#if defined(D_Q4_0)
    put_nibbles(db + 1u, q);
#else
    put_high_bits(db + 1u, q);
    put_nibbles(db + 3u, q);
#endif
#endif
#endif
}
