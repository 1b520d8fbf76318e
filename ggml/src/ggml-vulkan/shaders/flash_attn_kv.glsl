// K and V of the flash-attention shaders (bindings 1 and 2) and their element loaders, each side of
// its own type: K_F16 / K_BF16 / K_Q (quantized, A_<type> of quants.glsl) / F32 when none, and the
// same with V_. Both quantized sides of one type share the one A_<type>; two quantized types come as
// A_<K type> and V_A_<V type>, and quants.glsl's per-type part is included twice (dequant_k, then
// dequant_v). BF16 is the upper half of an F32, widened by a shift.
// Quantized data is addressed in 16-bit words; q_sel picks the buffer the dequantizer reads.
#if defined(K_F16)
layout(binding = 1) readonly buffer K { float16_t k[]; };
#elif defined(K_BF16) || defined(K_Q)
layout(binding = 1) readonly buffer K { uint16_t k[]; };
#else
layout(binding = 1) readonly buffer K { float k[]; };
#endif
#if defined(V_F16)
layout(binding = 2) readonly buffer V { float16_t v[]; };
#elif defined(V_BF16) || defined(V_Q)
layout(binding = 2) readonly buffer V { uint16_t v[]; };
#else
layout(binding = 2) readonly buffer V { float v[]; };
#endif

#if defined(K_Q) && defined(V_Q)
uint q_sel = 0u;
#define QREAD(i) (q_sel == 0u ? uint(k[i]) : uint(v[i]))
#elif defined(K_Q)
#define QREAD(i) uint(k[i])
#elif defined(V_Q)
#define QREAD(i) uint(v[i])
#endif
#if defined(V_A_Q4_0) || defined(V_A_Q4_1) || defined(V_A_Q5_0) || defined(V_A_Q5_1) || defined(V_A_Q8_0) || \
    defined(V_A_IQ4_NL)
#define DEQUANT dequant_k
#include "quants.glsl"
const uint K_BLOCK_WORDS = BLOCK_WORDS, K_QK = QK;
#undef DEQUANT
#undef QK
#undef BLOCK_WORDS
#undef A_Q4_0
#undef A_Q4_1
#undef A_Q5_0
#undef A_Q5_1
#undef A_Q8_0
#undef A_IQ4_NL
#if defined(V_A_Q4_0)
#define A_Q4_0
#elif defined(V_A_Q4_1)
#define A_Q4_1
#elif defined(V_A_Q5_0)
#define A_Q5_0
#elif defined(V_A_Q5_1)
#define A_Q5_1
#elif defined(V_A_Q8_0)
#define A_Q8_0
#else
#define A_IQ4_NL
#endif
#define DEQUANT dequant_v
#include "quants.glsl"
const uint V_BLOCK_WORDS = BLOCK_WORDS, V_QK = QK;
#elif defined(K_Q) || defined(V_Q)
#include "quants.glsl"
#define dequant_k dequant
#define dequant_v dequant
const uint K_BLOCK_WORDS = BLOCK_WORDS, K_QK = QK, V_BLOCK_WORDS = BLOCK_WORDS, V_QK = QK;
#endif

// element c of the K / V row starting at `row` (elements, or words for quantized data)
float load_k(uint row, uint c) {
#if defined(K_Q)
#if defined(V_Q)
    q_sel = 0u;
#endif
    return dequant_k(row + (c / K_QK) * K_BLOCK_WORDS, c % K_QK);
#elif defined(K_BF16)
    return uintBitsToFloat(uint(k[row + c]) << 16);
#else
    return float(k[row + c]);
#endif
}
float load_v(uint row, uint c) {
#if defined(V_Q)
#if defined(K_Q)
    q_sel = 1u;
#endif
    return dequant_v(row + (c / V_QK) * V_BLOCK_WORDS, c % V_QK);
#elif defined(V_BF16)
    return uintBitsToFloat(uint(v[row + c]) << 16);
#else
    return float(v[row + c]);
#endif
}
