// Dequantizers over a buffer viewed as uint16 words (every block size is even, so blocks are
// 2-byte aligned). `bw` is the word index of the block, j the element inside it. Each one computes
// exactly what the CPU's dequantize_row_* computes, in the same order (bit-exact values).
// Needs: a uint16_t array named `aq` in the including shader, or QREAD(i) defined to read 16-bit word
// i as a uint (flash attention reads K and V from two buffers).
// MXFP4 blocks are 17 bytes, so for it `bw` is a byte index instead (Q_BYTE_UNITS; the host passes
// its offsets and strides in bytes).
// The helpers once per shader; the per-type part below may be included again with another A_<type>
// and DEQUANT naming its function (flash attention with K and V of two quantized types).
#ifndef QUANTS_HELPERS
#define QUANTS_HELPERS
#ifndef QREAD
#define QREAD(i) uint(aq[i])
#endif
#if defined(A_MXFP4)
#define Q_BYTE_UNITS
#endif

uint q_byte(uint bw, uint byte_off) {
#ifdef Q_BYTE_UNITS
    const uint a = bw + byte_off;
    const uint w = QREAD(a >> 1);
    return (a & 1u) != 0u ? (w >> 8) : (w & 0xFFu);
#else
    const uint w = QREAD(bw + (byte_off >> 1));
    return (byte_off & 1u) != 0u ? (w >> 8) : (w & 0xFFu);
#endif
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
// the 32-bit little-endian word at 16-bit word w (word-aligned fields of the i-quants)
uint q_u32(uint w) { return QREAD(w) | (QREAD(w + 1u) << 16); }
// value b (0..3) of a packed codebook grid word (see iq_grid below), sign-extended
int grid_val(uint w, uint b) { return int(w << (24u - 8u * b)) >> 24; }
// a 7-bit sign field of the i-quants and its parity as the eighth sign (an even count of minus signs)
uint signs7(uint f) {
    f &= 127u;
    return f | ((uint(bitCount(f)) & 1u) << 7);
}
// element jj of a group: grid value g with sign bit jj of s
int signed_val(int g, uint s, uint jj) { return ((s >> jj) & 1u) != 0u ? -g : g; }

// The codebook grid of an i-quant type: a storage buffer at binding 4 (unused by the matmul and get_rows
// shaders otherwise) that the host fills once per device from ggml-iq-grids.c, the CPU's own tables
// (vk-iq-grids.cpp). Each entry's int8 values are packed little-endian into 32-bit words: two words per
// 8-value entry (values 0..3, 4..7), one per 4-value entry (IQ3). Constant arrays in the shader source
// were the alternative; lavapipe's LLVM spent minutes compiling each pipeline that indexed them.
#if defined(A_IQ2_XXS) || defined(A_IQ2_XS) || defined(A_IQ2_S) || defined(A_IQ3_XXS) || defined(A_IQ3_S) || \
    defined(A_IQ1_S) || defined(A_IQ1_M)
layout(binding = 4) readonly buffer IQGrid { uint iq_grid[]; };
#endif

const int kvalues_iq4nl[16] = int[16](-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113);
#endif  // QUANTS_HELPERS

#ifndef DEQUANT
#define DEQUANT dequant
#endif
#if defined(A_Q4_0)
// {f16 d; u8 qs[16]}: x = (nibble - 8) * d
#define QK 32u
#define BLOCK_WORDS 9u
float DEQUANT(uint bw, uint j) {
    return q_half(bw) * float(int(q_nibble32(bw, 2u, j)) - 8);
}
#elif defined(A_Q4_1)
// {f16 d; f16 m; u8 qs[16]}: x = d * nibble + m
#define QK 32u
#define BLOCK_WORDS 10u
float DEQUANT(uint bw, uint j) {
    precise float r = q_half(bw) * float(q_nibble32(bw, 4u, j)) + q_half(bw + 1u);
    return r;
}
#elif defined(A_Q5_0)
// {f16 d; u8 qh[4]; u8 qs[16]}: x = d * (q5 - 16), bit 4 of element j is bit j of qh
#define QK 32u
#define BLOCK_WORDS 11u
float DEQUANT(uint bw, uint j) {
    const uint q = q_nibble32(bw, 6u, j) | (q_bit(bw, 2u, j) << 4);
    return q_half(bw) * float(int(q) - 16);
}
#elif defined(A_Q5_1)
// {f16 d; f16 m; u8 qh[4]; u8 qs[16]}: x = d * q5 + m
#define QK 32u
#define BLOCK_WORDS 12u
float DEQUANT(uint bw, uint j) {
    const uint q = q_nibble32(bw, 8u, j) | (q_bit(bw, 4u, j) << 4);
    precise float r = q_half(bw) * float(q) + q_half(bw + 1u);
    return r;
}
#elif defined(A_Q8_0)
// {f16 d; i8 qs[32]}: x = q * d
#define QK 32u
#define BLOCK_WORDS 17u
float DEQUANT(uint bw, uint j) {
    const int q = int(q_byte(bw, 2u + j) << 24) >> 24;
    return q_half(bw) * float(q);
}
#elif defined(A_IQ4_NL)
// {f16 d; u8 qs[16]}: x = d * kvalues_iq4nl[nibble]
#define QK 32u
#define BLOCK_WORDS 9u
float DEQUANT(uint bw, uint j) {
    return q_half(bw) * float(kvalues_iq4nl[q_nibble32(bw, 2u, j)]);
}
#elif defined(A_Q2_K)
// {u8 scales[16]; u8 qs[64]; f16 d; f16 dmin}: 16 sub-blocks of 16,
// x = d * (sc & 15) * q2 - dmin * (sc >> 4); element 128h + 32s + l has its 2 bits in qs[32h + l] at 2s
#define QK 256u
#define BLOCK_WORDS 42u
float DEQUANT(uint bw, uint j) {
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
float DEQUANT(uint bw, uint j) {
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
float DEQUANT(uint bw, uint j) {
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
float DEQUANT(uint bw, uint j) {
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
float DEQUANT(uint bw, uint j) {
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
float DEQUANT(uint bw, uint j) {
    const uint  s  = j >> 5;
    const uint  ls = ((q_byte(bw, 4u + (s >> 1)) >> (4u * (s & 1u))) & 0xFu) | (((QREAD(bw + 1u) >> (2u * s)) & 3u) << 4);
    const float dl = q_half(bw) * float(int(ls) - 32);
    return dl * float(kvalues_iq4nl[q_nibble32(bw, 8u + 16u * s, j & 31u)]);
}
#elif defined(A_MXFP4)
// {u8 e; u8 qs[16]} (17 bytes, byte units): x = 2^(e - 128) * kvalues_mxfp4[nibble], nibbles as q4_0.
// e = 0 and 1 give subnormal scales, which a device flushing denormals reads as 0.
#define QK 32u
#define BLOCK_WORDS 17u
const int kvalues_mxfp4[16] = int[16](0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12);
float DEQUANT(uint bw, uint j) {
    const uint e = q_byte(bw, 0u);
    const float d = uintBitsToFloat(e < 2u ? (0x00200000u << e) : ((e - 1u) << 23));
    return d * float(kvalues_mxfp4[q_nibble32(bw, 1u, j)]);
}
#elif defined(A_TQ1_0)
// {u8 qs[48]; u8 qh[4]; f16 d}: x = d * (t - 1), trit k of a byte = ((u8)(byte * 3^k) * 3) >> 8;
// qs[m] trit k -> element 32k + m, qs[32 + m] -> 160 + 16k + m, qh[m] -> 240 + 4k + m
#define QK 256u
#define BLOCK_WORDS 27u
const uint pow3[5] = uint[5](1u, 3u, 9u, 27u, 81u);
float DEQUANT(uint bw, uint j) {
    uint byte, k;
    if (j < 160u) {
        byte = j & 31u;
        k    = j >> 5;
    } else if (j < 240u) {
        byte = 32u + ((j - 160u) & 15u);
        k    = (j - 160u) >> 4;
    } else {
        byte = 48u + ((j - 240u) & 3u);
        k    = (j - 240u) >> 2;
    }
    const uint t = (((q_byte(bw, byte) * pow3[k]) & 0xFFu) * 3u) >> 8;
    return float(int(t) - 1) * q_half(bw + 26u);
}
#elif defined(A_TQ2_0)
// {u8 qs[64]; f16 d}: element 128h + 32l + m in qs[32h + m] at bits 2l; x = d * (t - 1)
#define QK 256u
#define BLOCK_WORDS 33u
float DEQUANT(uint bw, uint j) {
    const uint t = (q_byte(bw, 32u * (j >> 7) + (j & 31u)) >> (2u * ((j >> 5) & 3u))) & 3u;
    return float(int(t) - 1) * q_half(bw + 32u);
}
#elif defined(A_IQ2_XXS)
// {f16 d; u16 qs[32]}: sub-block ib of 32 = 8 bytes: 4 grid indices, then a u32 of four 7-bit sign
// fields and s in bits 28..31; x = (d / 8) * (2s + 1) * grid * sign
#define QK 256u
#define BLOCK_WORDS 33u
float DEQUANT(uint bw, uint j) {
    const uint  ib = j >> 5, l = (j >> 3) & 3u, jj = j & 7u;
    const uint  idx = q_byte(bw, 2u + 8u * ib + l);
    const uint  aux = q_u32(bw + 3u + 4u * ib);
    const int   g   = grid_val(iq_grid[2u * idx + (jj >> 2)], jj & 3u);
    const float dl  = (q_half(bw) * 0.125) * float(2u * (aux >> 28) + 1u);
    return dl * float(signed_val(g, signs7(aux >> (7u * l)), jj));
}
#elif defined(A_IQ2_XS)
// {f16 d; u16 qs[32]; u8 scales[8]}: qs = 9-bit grid index + 7-bit sign field; scales: s of elements
// 0..15 (low nibble) and 16..31 (high) of each sub-block; x = (d / 8) * (2s + 1) * grid * sign
#define QK 256u
#define BLOCK_WORDS 37u
float DEQUANT(uint bw, uint j) {
    const uint  ib = j >> 5, l = (j >> 3) & 3u, jj = j & 7u;
    const uint  v  = QREAD(bw + 1u + 4u * ib + l);
    const int   g  = grid_val(iq_grid[2u * (v & 511u) + (jj >> 2)], jj & 3u);
    const uint  s  = (q_byte(bw, 66u + ib) >> (4u * ((j >> 4) & 1u))) & 0xFu;
    const float dl = (q_half(bw) * 0.125) * float(2u * s + 1u);
    return dl * float(signed_val(g, signs7(v >> 9), jj));
}
#elif defined(A_IQ2_S)
// {f16 d; u8 qs[64]; u8 qh[8]; u8 scales[8]}: 10-bit index = qs[4ib + l] | qh[ib] bits 2l..2l+1,
// signs qs[32 + 4ib + l], scales as iq2_xs
#define QK 256u
#define BLOCK_WORDS 41u
float DEQUANT(uint bw, uint j) {
    const uint  ib = j >> 5, l = (j >> 3) & 3u, jj = j & 7u;
    const uint  idx = q_byte(bw, 2u + 4u * ib + l) | (((q_byte(bw, 66u + ib) >> (2u * l)) & 3u) << 8);
    const int   g   = grid_val(iq_grid[2u * idx + (jj >> 2)], jj & 3u);
    const uint  s   = (q_byte(bw, 74u + ib) >> (4u * ((j >> 4) & 1u))) & 0xFu;
    const float dl  = (q_half(bw) * 0.125) * float(2u * s + 1u);
    return dl * float(signed_val(g, q_byte(bw, 34u + 4u * ib + l), jj));
}
#elif defined(A_IQ3_XXS)
// {f16 d; u8 qs[96]}: qs[8ib + 2l + h] indexes a 4-value entry (h: which half of the group of 8);
// qs[64 + 4ib] a u32 of four 7-bit sign fields and s in bits 28..31; x = (d / 4) * (2s + 1) * grid * sign
#define QK 256u
#define BLOCK_WORDS 49u
float DEQUANT(uint bw, uint j) {
    const uint  ib = j >> 5, l = (j >> 3) & 3u, jj = j & 7u;
    const uint  idx = q_byte(bw, 2u + 8u * ib + 2u * l + (jj >> 2));
    const uint  aux = q_u32(bw + 33u + 2u * ib);
    const int   g   = grid_val(iq_grid[idx], jj & 3u);
    const float dl  = (q_half(bw) * 0.25) * float(2u * (aux >> 28) + 1u);
    return dl * float(signed_val(g, signs7(aux >> (7u * l)), jj));
}
#elif defined(A_IQ3_S)
// {f16 d; u8 qs[64]; u8 qh[8]; u8 signs[32]; u8 scales[4]}: 9-bit index qs[8ib + 2l + h] | qh[ib] bit
// 2l + h, sign byte signs[4ib + l], s = nibble ib % 2 of scales[ib / 2]; x = d * (2s + 1) * grid * sign
#define QK 256u
#define BLOCK_WORDS 55u
float DEQUANT(uint bw, uint j) {
    const uint  ib = j >> 5, l = (j >> 3) & 3u, jj = j & 7u, h = jj >> 2;
    const uint  idx = q_byte(bw, 2u + 8u * ib + 2u * l + h) | (((q_byte(bw, 66u + ib) >> (2u * l + h)) & 1u) << 8);
    const int   g   = grid_val(iq_grid[idx], jj & 3u);
    const uint  s   = (q_byte(bw, 106u + (ib >> 1)) >> (4u * (ib & 1u))) & 0xFu;
    const float dl  = q_half(bw) * float(2u * s + 1u);
    return dl * float(signed_val(g, q_byte(bw, 74u + 4u * ib + l), jj));
}
#elif defined(A_IQ1_S)
// {f16 d; u8 qs[32]; u16 qh[8]}: 11-bit index qs[4ib + l] | qh[ib] bits 3l..3l+2; qh[ib] bits 12..14: s,
// bit 15: delta sign; x = d * (2s + 1) * (8 * grid +- 1) / 8
#define QK 256u
#define BLOCK_WORDS 25u
float DEQUANT(uint bw, uint j) {
    const uint  ib = j >> 5, l = (j >> 3) & 3u, jj = j & 7u;
    const uint  qh  = QREAD(bw + 17u + ib);
    const uint  idx = q_byte(bw, 2u + 4u * ib + l) | (((qh >> (3u * l)) & 7u) << 8);
    const int   q   = 8 * grid_val(iq_grid[2u * idx + (jj >> 2)], jj & 3u) + ((qh & 0x8000u) != 0u ? -1 : 1);
    const float dl  = q_half(bw) * float(2u * ((qh >> 12) & 7u) + 1u);
    return dl * (float(q) * 0.125);
}
#elif defined(A_IQ1_M)
// {u8 qs[32]; u8 qh[16]; u16 sc[4]}: index qs[4ib + l] | 3 bits of nibble l % 2 of qh[2ib + l / 2], whose
// bit 3 is the delta sign; a 3-bit s per 16 elements in sc[ib / 2] at 6(ib % 2) (+3 for the second
// half); the fp16 d is the top nibbles of sc[0..3]; x = d * (2s + 1) * (8 * grid +- 1) / 8
#define QK 256u
#define BLOCK_WORDS 28u
float DEQUANT(uint bw, uint j) {
    const uint  ib = j >> 5, l = (j >> 3) & 3u, jj = j & 7u;
    const uint  d16 = (QREAD(bw + 24u) >> 12) | ((QREAD(bw + 25u) >> 8) & 0xF0u) | ((QREAD(bw + 26u) >> 4) & 0xF00u) |
                     (QREAD(bw + 27u) & 0xF000u);
    const uint  h   = q_byte(bw, 32u + 2u * ib + (l >> 1)) >> (4u * (l & 1u));
    const uint  idx = q_byte(bw, 4u * ib + l) | ((h & 7u) << 8);
    const int   q   = 8 * grid_val(iq_grid[2u * idx + (jj >> 2)], jj & 3u) + ((h & 8u) != 0u ? -1 : 1);
    const uint  s   = (QREAD(bw + 24u + (ib >> 1)) >> (6u * (ib & 1u) + 3u * ((j >> 4) & 1u))) & 7u;
    const float dl  = unpackHalf2x16(d16).x * float(2u * s + 1u);
    return dl * (float(q) * 0.125);
}
#endif
