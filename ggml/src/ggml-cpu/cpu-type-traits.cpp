// CPU type-traits tables: the scalar table (reference code from ggml-quants.h) and the per-ISA tables
// built once from it, each level on top of its parent's (cpu-features.h picks the best one).
#include "cpu-type-traits.h"

extern "C" {
#include "ggml-quants.h"
}

#include <cstring>

namespace {

// ---- F32 / F16 / BF16 rows (activations stay F32) -----------------------------------------------
void from_float_copy(const float * x, void * y, int64_t n) {
    std::memcpy(y, x, (size_t) n * sizeof(float));
}
void to_float_copy(const void * x, float * y, int64_t n) {
    std::memcpy(y, x, (size_t) n * sizeof(float));
}
void from_float_f16(const float * x, void * y, int64_t n) {
    ggml_fp32_to_fp16_row(x, (ggml_fp16_t *) y, n);
}
void to_float_f16(const void * x, float * y, int64_t n) {
    ggml_fp16_to_fp32_row((const ggml_fp16_t *) x, y, n);
}
void from_float_bf16(const float * x, void * y, int64_t n) {
    ggml_fp32_to_bf16_row(x, (ggml_bf16_t *) y, n);
}
void to_float_bf16(const void * x, float * y, int64_t n) {
    ggml_bf16_to_fp32_row((const ggml_bf16_t *) x, y, n);
}

// float sums in double: the scalar oracle should be more accurate than the kernels it checks
void vec_dot_f32(int n, float * s, const void * vx, const void * vy) {
    const float * x   = (const float *) vx;
    const float * y   = (const float *) vy;
    double        sum = 0.0;
    for (int i = 0; i < n; i++) {
        sum += (double) x[i] * (double) y[i];
    }
    *s = (float) sum;
}
void vec_dot_f16_f32(int n, float * s, const void * vx, const void * vy) {
    const ggml_fp16_t * x   = (const ggml_fp16_t *) vx;
    const float *       y   = (const float *) vy;
    double              sum = 0.0;
    for (int i = 0; i < n; i++) {
        sum += (double) ggml_fp16_to_fp32(x[i]) * (double) y[i];
    }
    *s = (float) sum;
}
void vec_dot_bf16_f32(int n, float * s, const void * vx, const void * vy) {
    const ggml_bf16_t * x   = (const ggml_bf16_t *) vx;
    const float *       y   = (const float *) vy;
    double              sum = 0.0;
    for (int i = 0; i < n; i++) {
        sum += (double) ggml_bf16_to_fp32(x[i]) * (double) y[i];
    }
    *s = (float) sum;
}

// casts a typed row function to the type-erased signature of the table
template <typename B>
ggml_from_float_t ff(void (*f)(const float *, B *, int64_t)) {
    return (ggml_from_float_t) (void *) f;
}
template <typename B>
ggml_to_float_t tf(void (*f)(const B *, float *, int64_t)) {
    return (ggml_to_float_t) (void *) f;
}

struct tables {
    ggml_cpu_type_traits t[GGML_CPU_ISA_COUNT][GGML_TYPE_COUNT];
    bool                 has[GGML_CPU_ISA_COUNT];
    ggml_cpu_isa         best;
};

void fill_scalar(ggml_cpu_type_traits * t) {
    std::memset(t, 0, sizeof(ggml_cpu_type_traits) * GGML_TYPE_COUNT);
    t[GGML_TYPE_F32]  = {GGML_TYPE_F32, from_float_copy, vec_dot_f32, to_float_copy, from_float_copy, nullptr, nullptr};
    t[GGML_TYPE_F16]  = {GGML_TYPE_F32,  from_float_copy, vec_dot_f16_f32, to_float_f16,
                         from_float_f16, nullptr,         nullptr};
    t[GGML_TYPE_BF16] = {GGML_TYPE_F32,   from_float_copy, vec_dot_bf16_f32, to_float_bf16,
                         from_float_bf16, nullptr,         nullptr};

#define ROW(T, t_, VT, vt_, dot)                      \
    t[GGML_TYPE_##T] = {GGML_TYPE_##VT,               \
                        ff(quantize_row_##vt_##_ref), \
                        dot,                          \
                        tf(dequantize_row_##t_),      \
                        ff(quantize_row_##t_##_ref),  \
                        nullptr,                      \
                        nullptr}
    ROW(Q4_0, q4_0, Q8_0, q8_0, ggml_vec_dot_q4_0_q8_0_ref);
    ROW(Q4_1, q4_1, Q8_1, q8_1, ggml_vec_dot_q4_1_q8_1_ref);
    ROW(Q5_0, q5_0, Q8_0, q8_0, ggml_vec_dot_q5_0_q8_0_ref);
    ROW(Q5_1, q5_1, Q8_1, q8_1, ggml_vec_dot_q5_1_q8_1_ref);
    ROW(Q8_0, q8_0, Q8_0, q8_0, ggml_vec_dot_q8_0_q8_0_ref);
    ROW(Q8_1, q8_1, Q8_1, q8_1, ggml_vec_dot_q8_1_q8_1_ref);
    ROW(IQ4_NL, iq4_nl, Q8_0, q8_0, ggml_vec_dot_iq4_nl_q8_0_ref);
    ROW(Q2_K, q2_K, Q8_K, q8_K, ggml_vec_dot_q2_K_q8_K_ref);
    ROW(Q3_K, q3_K, Q8_K, q8_K, ggml_vec_dot_q3_K_q8_K_ref);
    ROW(Q4_K, q4_K, Q8_K, q8_K, ggml_vec_dot_q4_K_q8_K_ref);
    ROW(Q5_K, q5_K, Q8_K, q8_K, ggml_vec_dot_q5_K_q8_K_ref);
    ROW(Q6_K, q6_K, Q8_K, q8_K, ggml_vec_dot_q6_K_q8_K_ref);
    ROW(Q8_K, q8_K, Q8_K, q8_K, ggml_vec_dot_q8_K_q8_K_ref);
    ROW(IQ4_XS, iq4_xs, Q8_K, q8_K, ggml_vec_dot_iq4_xs_q8_K_ref);
    ROW(MXFP4, mxfp4, Q8_0, q8_0, ggml_vec_dot_mxfp4_q8_0_ref);
    ROW(TQ1_0, tq1_0, Q8_K, q8_K, ggml_vec_dot_tq1_0_q8_K_ref);
    ROW(TQ2_0, tq2_0, Q8_K, q8_K, ggml_vec_dot_tq2_0_q8_K_ref);
#undef ROW
    // i-quants: no reference quantizer yet (it needs an importance matrix), so no cpy/set_rows into them
#define IQROW(T, t_)                                  \
    t[GGML_TYPE_##T] = {GGML_TYPE_Q8_K,               \
                        ff(quantize_row_q8_K_ref),    \
                        ggml_vec_dot_##t_##_q8_K_ref, \
                        tf(dequantize_row_##t_),      \
                        nullptr,                      \
                        nullptr,                      \
                        nullptr}
    IQROW(IQ2_XXS, iq2_xxs);
    IQROW(IQ2_XS, iq2_xs);
    IQROW(IQ2_S, iq2_s);
    IQROW(IQ3_XXS, iq3_xxs);
    IQROW(IQ3_S, iq3_s);
    IQROW(IQ1_S, iq1_s);
    IQROW(IQ1_M, iq1_m);
#undef IQROW
}

// Overrides one level's entries on top of a copy of its parent's table.
void fill_level(ggml_cpu_isa isa, ggml_cpu_type_traits * t) {
    switch (isa) {
#if defined(GGML_CPU_ARCH_X86_64)
        case GGML_CPU_ISA_AVX2:
            ggml_cpu_quants_fill_avx2(t);
            ggml_cpu_kq_gemm_fill_avx2(t);
            break;
        case GGML_CPU_ISA_AVX512:
            ggml_cpu_quants_fill_avx512(t);
            ggml_cpu_kq_gemm_fill_avx512(t);
            break;
#endif
#if defined(GGML_CPU_ARCH_ARM64)
        case GGML_CPU_ISA_NEON:
            ggml_cpu_quants_fill_neon(t);
            break;
        case GGML_CPU_ISA_DOTPROD:
            ggml_cpu_quants_fill_dotprod(t);
            break;
        case GGML_CPU_ISA_I8MM:
            ggml_cpu_quants_fill_i8mm(t);
            break;
#endif
        default:
            break;
    }
}

const tables & get_tables() {
    static const tables tb = [] {
        tables r{};
        // a parent always has a lower enum value than its children, so one pass builds the chains
        for (int i = 0; i < GGML_CPU_ISA_COUNT; ++i) {
            const ggml_cpu_isa isa = (ggml_cpu_isa) i;
            r.has[i]               = ggml_cpu_isa_available(isa);
            if (isa == GGML_CPU_ISA_SCALAR) {
                fill_scalar(r.t[i]);
                continue;
            }
            std::memcpy(r.t[i], r.t[ggml_cpu_isa_parent(isa)], sizeof(r.t[0]));
            if (r.has[i]) {
                fill_level(isa, r.t[i]);
            }
        }
        r.best = ggml_cpu_isa_best();
        return r;
    }();
    return tb;
}

}  // namespace

extern "C" enum ggml_cpu_isa ggml_cpu_best_isa(void) {
    return get_tables().best;
}

extern "C" const struct ggml_cpu_type_traits * ggml_cpu_get_type_traits_isa(enum ggml_type    type,
                                                                            enum ggml_cpu_isa isa) {
    if ((int) type < 0 || type >= GGML_TYPE_COUNT || (int) isa < 0 || isa >= GGML_CPU_ISA_COUNT) {
        return nullptr;
    }
    const tables & tb = get_tables();
    if (!tb.has[isa] || !tb.t[isa][type].vec_dot) {
        return nullptr;
    }
    return &tb.t[isa][type];
}

extern "C" const struct ggml_cpu_type_traits * ggml_cpu_get_type_traits(enum ggml_type type) {
    return ggml_cpu_get_type_traits_isa(type, get_tables().best);
}

extern "C" void ggml_cpu_gemv_isa(enum ggml_type type, enum ggml_cpu_isa isa, int64_t n, int64_t nrows, const void * w,
                                  size_t w_row_stride, const void * y_q, float * out) {
    const ggml_cpu_type_traits * tr = ggml_cpu_get_type_traits_isa(type, isa);
    if (!tr) {
        return;
    }
    if (tr->gemv) {
        tr->gemv((int) n, (int) nrows, w, w_row_stride, y_q, out);
        return;
    }
    const char * row = (const char *) w;
    for (int64_t r = 0; r < nrows; r++, row += w_row_stride) {
        tr->vec_dot((int) n, &out[r], row, y_q);
    }
}

extern "C" void ggml_cpu_gemv(enum ggml_type type, int64_t n, int64_t nrows, const void * w, size_t w_row_stride,
                              const void * y_q, float * out) {
    ggml_cpu_gemv_isa(type, get_tables().best, n, nrows, w, w_row_stride, y_q, out);
}

extern "C" void ggml_cpu_gemm_isa(enum ggml_type type, enum ggml_cpu_isa isa, int64_t n, int64_t nrows, const void * w,
                                  size_t w_row_stride, int64_t ncols, const void * const * y_q, float * const * out) {
    const ggml_cpu_type_traits * tr = ggml_cpu_get_type_traits_isa(type, isa);
    if (!tr) {
        return;
    }
    if (tr->gemm) {
        tr->gemm((int) n, (int) nrows, w, w_row_stride, (int) ncols, y_q, out);
        return;
    }
    for (int64_t c = 0; c < ncols; c++) {
        ggml_cpu_gemv_isa(type, isa, n, nrows, w, w_row_stride, y_q[c], out[c]);
    }
}

extern "C" void ggml_cpu_gemm(enum ggml_type type, int64_t n, int64_t nrows, const void * w, size_t w_row_stride,
                              int64_t ncols, const void * const * y_q, float * const * out) {
    ggml_cpu_gemm_isa(type, get_tables().best, n, nrows, w, w_row_stride, ncols, y_q, out);
}
