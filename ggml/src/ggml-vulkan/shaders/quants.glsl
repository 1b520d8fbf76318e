// Dequantizers over a buffer viewed as uint16 words (every block size is even, so blocks are
// 2-byte aligned). `bw` is the word index of the block, j the element inside it.
// Needs: a uint16_t array named `aq` in the including shader.

uint q_byte(uint bw, uint byte_off) {
    const uint w = uint(aq[bw + (byte_off >> 1)]);
    return (byte_off & 1u) != 0u ? (w >> 8) : (w & 0xFFu);
}
float q_half(uint bw) { return unpackHalf2x16(uint(aq[bw])).x; }

#if defined(A_Q4_0)
// {f16 d; u8 qs[16]}: x = (nibble - 8) * d, low nibbles are elements 0..15, high 16..31
#define QK 32u
#define BLOCK_WORDS 9u
float dequant(uint bw, uint j) {
    const uint b = q_byte(bw, 2u + (j & 15u));
    const uint q = j < 16u ? (b & 0xFu) : (b >> 4);
    return (float(q) - 8.0) * q_half(bw);
}
#elif defined(A_Q8_0)
// {f16 d; i8 qs[32]}: x = q * d
#define QK 32u
#define BLOCK_WORDS 17u
float dequant(uint bw, uint j) {
    const int q = int(q_byte(bw, 2u + j) << 24) >> 24;
    return float(q) * q_half(bw);
}
#elif defined(A_Q4_K)
// {f16 d; f16 dmin; u8 scales[12]; u8 qs[128]}: 8 sub-blocks of 32 with 6-bit scale and min
#define QK 256u
#define BLOCK_WORDS 72u
float dequant(uint bw, uint j) {
    const uint sb = j >> 5;  // sub-block 0..7
    uint sc, mn;
    if (sb < 4u) {
        sc = q_byte(bw, 4u + sb) & 63u;
        mn = q_byte(bw, 4u + sb + 4u) & 63u;
    } else {
        sc = (q_byte(bw, 4u + sb + 4u) & 0xFu) | ((q_byte(bw, 4u + sb - 4u) >> 6) << 4);
        mn = (q_byte(bw, 4u + sb + 4u) >> 4) | ((q_byte(bw, 4u + sb) >> 6) << 4);
    }
    const uint  qb = q_byte(bw, 16u + 32u * (sb >> 1) + (j & 31u));
    const uint  q  = (sb & 1u) != 0u ? (qb >> 4) : (qb & 0xFu);
    const float d  = q_half(bw), dmin = q_half(bw + 1u);
    return d * float(sc) * float(q) - dmin * float(mn);
}
#endif
