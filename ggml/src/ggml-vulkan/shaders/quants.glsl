// Dequantizers over a buffer viewed as uint16 words (every block size is even, so blocks are
// 2-byte aligned). `bw` is the word index of the block, j the element inside it. Each one computes
// exactly what the CPU's dequantize_row_* computes, in the same order (bit-exact values).
// Needs: a uint16_t array named `aq` in the including shader, or QREAD(i) defined to read 16-bit word
// i as a uint (flash attention reads K and V from two buffers).
#ifndef QREAD
#define QREAD(i) uint(aq[i])
#endif

uint q_byte(uint bw, uint byte_off) {
    const uint w = QREAD(bw + (byte_off >> 1));
    return (byte_off & 1u) != 0u ? (w >> 8) : (w & 0xFFu);
}
float q_half(uint bw) { return unpackHalf2x16(QREAD(bw)).x; }
// element j of a 32-element nibble array at byte qs: low nibbles are 0..15, high nibbles 16..31
uint q_nibble32(uint bw, uint qs, uint j) {
    const uint b = q_byte(bw, qs + (j & 15u));
    return j < 16u ? (b & 0xFu) : (b >> 4);
}
// bit j of a little-endian bit array at byte off
uint q_bit(uint bw, uint off, uint j) { return (q_byte(bw, off + (j >> 3)) >> (j & 7u)) & 1u; }
// 6-bit scale and min of sub-block sb (0..7) of a q4_K / q5_K block (12 bytes at byte 4)
void q_scale_min_k4(uint bw, uint sb, out uint sc, out uint mn) {
    if (sb < 4u) {
        sc = q_byte(bw, 4u + sb) & 63u;
        mn = q_byte(bw, 4u + sb + 4u) & 63u;
    } else {
        sc = (q_byte(bw, 4u + sb + 4u) & 0xFu) | ((q_byte(bw, 4u + sb - 4u) >> 6) << 4);
        mn = (q_byte(bw, 4u + sb + 4u) >> 4) | ((q_byte(bw, 4u + sb) >> 6) << 4);
    }
}
const int kvalues_iq4nl[16] = int[16](-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113);

#if defined(A_Q4_0)
// {f16 d; u8 qs[16]}: x = (nibble - 8) * d
#define QK 32u
#define BLOCK_WORDS 9u
float dequant(uint bw, uint j) {
    return q_half(bw) * float(int(q_nibble32(bw, 2u, j)) - 8);
}
#elif defined(A_Q4_1)
// {f16 d; f16 m; u8 qs[16]}: x = d * nibble + m
#define QK 32u
#define BLOCK_WORDS 10u
float dequant(uint bw, uint j) {
    precise float r = q_half(bw) * float(q_nibble32(bw, 4u, j)) + q_half(bw + 1u);
    return r;
}
#elif defined(A_Q5_0)
// {f16 d; u8 qh[4]; u8 qs[16]}: x = d * (q5 - 16), bit 4 of element j is bit j of qh
#define QK 32u
#define BLOCK_WORDS 11u
float dequant(uint bw, uint j) {
    const uint q = q_nibble32(bw, 6u, j) | (q_bit(bw, 2u, j) << 4);
    return q_half(bw) * float(int(q) - 16);
}
#elif defined(A_Q5_1)
// {f16 d; f16 m; u8 qh[4]; u8 qs[16]}: x = d * q5 + m
#define QK 32u
#define BLOCK_WORDS 12u
float dequant(uint bw, uint j) {
    const uint q = q_nibble32(bw, 8u, j) | (q_bit(bw, 4u, j) << 4);
    precise float r = q_half(bw) * float(q) + q_half(bw + 1u);
    return r;
}
#elif defined(A_Q8_0)
// {f16 d; i8 qs[32]}: x = q * d
#define QK 32u
#define BLOCK_WORDS 17u
float dequant(uint bw, uint j) {
    const int q = int(q_byte(bw, 2u + j) << 24) >> 24;
    return q_half(bw) * float(q);
}
#elif defined(A_IQ4_NL)
// {f16 d; u8 qs[16]}: x = d * kvalues_iq4nl[nibble]
#define QK 32u
#define BLOCK_WORDS 9u
float dequant(uint bw, uint j) {
    return q_half(bw) * float(kvalues_iq4nl[q_nibble32(bw, 2u, j)]);
}
#elif defined(A_Q2_K)
// {u8 scales[16]; u8 qs[64]; f16 d; f16 dmin}: 16 sub-blocks of 16,
// x = d * (sc & 15) * q2 - dmin * (sc >> 4); element 128h + 32s + l has its 2 bits in qs[32h + l] at 2s
#define QK 256u
#define BLOCK_WORDS 42u
float dequant(uint bw, uint j) {
    const uint  sc = q_byte(bw, j >> 4);
    const uint  q  = (q_byte(bw, 16u + 32u * (j >> 7) + (j & 31u)) >> (2u * ((j >> 5) & 3u))) & 3u;
    const float dl = q_half(bw + 40u) * float(sc & 0xFu), ml = q_half(bw + 41u) * float(sc >> 4);
    precise float r = dl * float(q) - ml;
    return r;
}
#elif defined(A_Q3_K)
// {u8 hmask[32]; u8 qs[64]; u8 scales[12]; f16 d}: 16 sub-blocks of 16, x = d * (scale6 - 32) * q3;
// element 128h + 32s + l: low 2 bits in qs[32h + l] at 2s, q3 = low - (hmask[l] bit 4h + s ? 0 : 4)
#define QK 256u
#define BLOCK_WORDS 55u
float dequant(uint bw, uint j) {
    const uint i  = j >> 4;
    const uint lo = i < 8u ? (q_byte(bw, 96u + i) & 0xFu) : (q_byte(bw, 96u + i - 8u) >> 4);
    const uint hi = (q_byte(bw, 104u + (i & 3u)) >> (2u * (i >> 2))) & 3u;
    const int  sc = int(lo | (hi << 4)) - 32;
    const uint h = j >> 7, s = (j >> 5) & 3u, l = j & 31u;
    const int  q = int((q_byte(bw, 32u + 32u * h + l) >> (2u * s)) & 3u) -
                  (((q_byte(bw, l) >> (4u * h + s)) & 1u) != 0u ? 0 : 4);
    return q_half(bw + 54u) * float(sc) * float(q);
}
#elif defined(A_Q4_K)
// {f16 d; f16 dmin; u8 scales[12]; u8 qs[128]}: 8 sub-blocks of 32 with 6-bit scale and min
#define QK 256u
#define BLOCK_WORDS 72u
float dequant(uint bw, uint j) {
    const uint sb = j >> 5;  // sub-block 0..7
    uint       sc, mn;
    q_scale_min_k4(bw, sb, sc, mn);
    const uint  qb = q_byte(bw, 16u + 32u * (sb >> 1) + (j & 31u));
    const uint  q  = (sb & 1u) != 0u ? (qb >> 4) : (qb & 0xFu);
    const float dl = q_half(bw) * float(sc), ml = q_half(bw + 1u) * float(mn);
    precise float r = dl * float(q) - ml;
    return r;
}
#elif defined(A_Q5_K)
// {f16 d; f16 dmin; u8 scales[12]; u8 qh[32]; u8 qs[128]}: as q4_K with a fifth bit per element:
// element 64c + 32hi + l has its low 4 bits in qs[32c + l] at 4hi, bit 4 in qh[l] at 2c + hi
#define QK 256u
#define BLOCK_WORDS 88u
float dequant(uint bw, uint j) {
    const uint sb = j >> 5;
    uint       sc, mn;
    q_scale_min_k4(bw, sb, sc, mn);
    const uint  c = j >> 6, hi = sb & 1u, l = j & 31u;
    const uint  q = ((q_byte(bw, 48u + 32u * c + l) >> (4u * hi)) & 0xFu) |
                   (((q_byte(bw, 16u + l) >> (2u * c + hi)) & 1u) << 4);
    const float dl = q_half(bw) * float(sc), ml = q_half(bw + 1u) * float(mn);
    precise float r = dl * float(q) - ml;
    return r;
}
#elif defined(A_Q6_K)
// {u8 ql[128]; u8 qh[64]; i8 scales[16]; f16 d}: 16 sub-blocks of 16, x = d * scale * (q6 - 32);
// element 128h + 32k + l: low 4 bits in ql[64h + 32(k & 1) + l] at 4(k >> 1), high 2 in qh[32h + l] at 2k
#define QK 256u
#define BLOCK_WORDS 105u
float dequant(uint bw, uint j) {
    const uint h = j >> 7, k = (j >> 5) & 3u, l = j & 31u;
    const uint lo = (q_byte(bw, 64u * h + 32u * (k & 1u) + l) >> (4u * (k >> 1))) & 0xFu;
    const uint hb = (q_byte(bw, 128u + 32u * h + l) >> (2u * k)) & 3u;
    const int  sc = int(q_byte(bw, 192u + (j >> 4)) << 24) >> 24;
    return q_half(bw + 104u) * float(sc) * float(int(lo | (hb << 4)) - 32);
}
#elif defined(A_IQ4_XS)
// {f16 d; u16 scales_h; u8 scales_l[4]; u8 qs[128]}: 8 sub-blocks of 32, x = d * (ls - 32) * kvalues[nibble],
// 6-bit ls: 4 bits in scales_l, 2 in scales_h; sub-block s uses qs[16s .. 16s + 15] like an iq4_nl block
#define QK 256u
#define BLOCK_WORDS 68u
float dequant(uint bw, uint j) {
    const uint  s  = j >> 5;
    const uint  ls = ((q_byte(bw, 4u + (s >> 1)) >> (4u * (s & 1u))) & 0xFu) | (((QREAD(bw + 1u) >> (2u * s)) & 3u) << 4);
    const float dl = q_half(bw) * float(int(ls) - 32);
    return dl * float(kvalues_iq4nl[q_nibble32(bw, 8u + 16u * s, j & 31u)]);
}
#endif
