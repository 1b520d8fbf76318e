// K and V of the flash-attention shaders (bindings 1 and 2) and their element loaders, each side of
// its own type: K_F16 / K_BF16 / K_Q (quantized, A_<type> of quants.glsl) / F32 when none, and the
// same with V_. Both quantized sides share the one A_<type> (the host compiles no pair of two
// quantized types; those run on the CPU). BF16 is the upper half of an F32, widened by a shift.
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
#if defined(K_Q) || defined(V_Q)
#include "quants.glsl"
#endif

// element c of the K / V row starting at `row` (elements, or words for quantized data)
float load_k(uint row, uint c) {
#if defined(K_Q)
#if defined(V_Q)
    q_sel = 0u;
#endif
    return dequant(row + (c / QK) * BLOCK_WORDS, c % QK);
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
    return dequant(row + (c / QK) * BLOCK_WORDS, c % QK);
#elif defined(V_BF16)
    return uintBitsToFloat(uint(v[row + c]) << 16);
#else
    return float(v[row + c]);
#endif
}
