// CPU type-traits tables: the scalar table (the core type table's reference rows) and the per-ISA tables
// built once from it, each level on top of its parent's (cpu-features.h picks the best one).
#include "cpu-type-traits.h"

#include "ggml-type-table.h"

#include <cstring>

namespace {

struct tables {
    ggml_cpu_type_traits t[GGML_CPU_ISA_COUNT][GGML_TYPE_COUNT];
    bool                 has[GGML_CPU_ISA_COUNT];
    ggml_cpu_isa         best;
};

// The scalar level: each type's reference row of the core type table (ggml-type-table.h) — its
// activation format and quantizer, reference dot, dequantizer and own quantizer. Types without a dot
// product (integers, removed ids) stay empty.
void fill_scalar(ggml_cpu_type_traits * t) {
    std::memset(t, 0, sizeof(ggml_cpu_type_traits) * GGML_TYPE_COUNT);
    for (int i = 0; i < GGML_TYPE_COUNT; ++i) {
        const ggml_type_codec * c = ggml_get_type_codec((ggml_type) i);
        if (!c || !c->vec_dot_ref)
            continue;
        const ggml_type_codec * act = ggml_get_type_codec(c->vec_dot_type);
        // F32, F16, BF16 take F32 activations (a copy); quantized types their vec_dot_type's quantizer
        t[i] = {c->vec_dot_type, act->quantize, c->vec_dot_ref, c->dequantize, c->quantize, nullptr, nullptr};
    }
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
