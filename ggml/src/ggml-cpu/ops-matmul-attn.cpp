// MUL_MAT with short rows (K <= 256) at prefill sizes, F16/F32 weights (the K cache view) and F32
// activations: the KQ product of the plain attention. See matmul-attn.h for the scheme. Work items
// are fixed by the shapes (weight slice x block of BKI keys, for all rows of the query heads sharing
// the slice), handed round-robin to the threads; no barrier. Widening and transposing a key block
// is paid once per item and shared by many rows, so the path is taken only from RMIN rows per
// weight slice; decode stays on the dot-product kernels.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "ggml-backend.h"
#include "ggml-cpu-impl.h"
#include "matmul-attn.h"

namespace {

constexpr int64_t KMAX = 256;  // KQ: longest rows (the head size)
constexpr int64_t RMIN = 16;   // activation rows per weight slice below which the dot kernels win
constexpr int64_t BJK  = 64;   // KQ: keys per packed sub-block (kt: K x BJK floats, in L1 up to K = 128)
constexpr int64_t BKI  = 256;  // KQ: keys per item (the rows are read once per item)
constexpr int64_t CALL = 48;   // rows per kernel call (a multiple of both kernels' row blocks)

inline size_t align64(size_t n) {
    return (n + 63) / 64 * 64;
}

const ggml_cpu_attn_mm_isa * attn_isa() {
    // GGML_CPU_ATTN_MM=0: the dot-product kernels instead (A/B benchmarks in one build)
    static const bool off = [] {
        const char * e = std::getenv("GGML_CPU_ATTN_MM");
        return e && std::strcmp(e, "0") == 0;
    }();
    if (off)
        return nullptr;
    switch (ggml_cpu_mm_isa_active()) {
#if defined(GGML_CPU_ARCH_X86_64)
        case GGML_CPU_ISA_AVX512:
            return ggml_cpu_attn_mm_avx512();
        case GGML_CPU_ISA_AVX2:
            return ggml_cpu_attn_mm_avx2();
#endif
#if defined(GGML_CPU_ARCH_ARM64)
        case GGML_CPU_ISA_I8MM:
        case GGML_CPU_ISA_DOTPROD:
        case GGML_CPU_ISA_NEON:
            return ggml_cpu_attn_mm_neon();
#endif
        default:
            break;
    }
    return nullptr;
}

struct plan {
    const ggml_cpu_attn_mm_isa * isa = nullptr;
    int64_t                      K = 0, M = 0, N = 0, r2 = 1, r3 = 1;
    int64_t                      rows     = 0;  // activation rows per weight slice: N * r2 * r3
    int64_t                      n_slices = 0, n_blk = 0, n_items = 0;
    size_t                       per_thread = 0;
};

plan make_plan(const ggml_tensor * dst) {
    const ggml_tensor *          a = dst->src[0];
    const ggml_tensor *          b = dst->src[1];
    plan                         P;
    const ggml_cpu_attn_mm_isa * isa = attn_isa();
    if (!isa || (a->type != GGML_TYPE_F16 && a->type != GGML_TYPE_F32) || a->nb[0] != ggml_type_size(a->type) ||
        b->type != GGML_TYPE_F32 || b->nb[0] != 4 || dst->type != GGML_TYPE_F32 || dst->nb[0] != 4)
        return P;
    // weights keep the dot kernels: their GEMV and GEMM sum in one order, so a prompt decoded in one
    // batch or token by token gives the same bits (tiny models have rows this short)
    const ggml_tensor * owner = a->view_src ? a->view_src : a;
    if (owner->buffer && ggml_backend_buffer_get_usage(owner->buffer) == GGML_BACKEND_BUFFER_USAGE_WEIGHTS)
        return P;
    P.K    = a->ne[0];
    P.M    = a->ne[1];
    P.N    = b->ne[1];
    P.r2   = b->ne[2] / a->ne[2];
    P.r3   = b->ne[3] / a->ne[3];
    P.rows = P.N * P.r2 * P.r3;
    if (P.rows < RMIN || P.M == 0 || P.K > KMAX)
        return P;
    P.n_slices   = a->ne[2] * a->ne[3];
    P.n_blk      = (P.M + BKI - 1) / BKI;
    P.per_thread = align64((size_t) (P.K * BKI) * 4);
    P.isa        = isa;
    P.n_items    = P.n_slices * P.n_blk;
    return P;
}

void run_kq(const plan & P, const ggml_tensor * dst, char * ws, int64_t s, int64_t blk) {
    const ggml_tensor * a   = dst->src[0];
    const ggml_tensor * b   = dst->src[1];
    const int64_t       i2a = s % a->ne[2], i3a = s / a->ne[2];
    const int64_t       m0 = blk * BKI, nkey = std::min(BKI, P.M - m0);
    const int64_t       nsub = (nkey + BJK - 1) / BJK;
    const size_t        sub  = (size_t) (P.K * BJK);  // floats of one packed sub-block
    for (int64_t u = 0; u < nsub; ++u) {
        float *       kt = (float *) ws + u * sub;
        const int64_t j0 = m0 + u * BJK, nk = std::min(BJK, P.M - j0);
        if (nk < BJK)
            for (int64_t d = 0; d < P.K; ++d)
                std::memset(kt + d * BJK + nk, 0, (size_t) (BJK - nk) * 4);
        if (a->type == GGML_TYPE_F16 && a->nb[1] % 2 == 0) {
            P.isa->transpose_f16((int) nk, (int) P.K, (const uint16_t *) cpu_ptr(a, 0, j0, i2a, i3a), a->nb[1] / 2, kt,
                                 (int) BJK);
        } else {
            for (int64_t j = 0; j < nk; ++j)
                for (int64_t d = 0; d < P.K; ++d)
                    kt[d * BJK + j] = cpu_load_f(a->type, cpu_ptr(a, d, j0 + j, i2a, i3a));
        }
    }

    // the rows sharing the slice, position-major (the query heads of one position are neighbours in
    // a permuted Q); each chunk of rows meets every sub-block while it is in L1
    const float * q[CALL];
    float *       out[CALL];
    float *       outu[CALL];
    int           nr    = 0;
    auto          flush = [&]() {
        for (int64_t u = 0; u < nsub; ++u) {
            const int64_t nk = std::min(BJK, P.M - m0 - u * BJK);
            for (int c = 0; c < nr; ++c)
                outu[c] = out[c] + u * BJK;
            P.isa->kq(nr, (int) nk, (int) P.K, q, (const float *) ws + u * sub, (int) BJK, outu);
        }
        nr = 0;
    };
    for (int64_t i3 = i3a * P.r3; i3 < (i3a + 1) * P.r3; ++i3)
        for (int64_t n = 0; n < P.N; ++n)
            for (int64_t i2 = i2a * P.r2; i2 < (i2a + 1) * P.r2; ++i2) {
                q[nr]     = (const float *) cpu_ptr(b, 0, n, i2, i3);
                out[nr++] = (float *) cpu_ptr(dst, m0, n, i2, i3);
                if (nr == CALL)
                    flush();
            }
    if (nr > 0)
        flush();
}

}  // namespace

const ggml_cpu_attn_mm_isa * ggml_cpu_attn_mm_active() {
    return attn_isa();
}

bool ggml_cpu_mm_attn_applies(const ggml_tensor * dst) {
    return make_plan(dst).isa != nullptr;
}

size_t ggml_cpu_mm_attn_work_size(const ggml_tensor * dst, int nth) {
    const plan P = make_plan(dst);
    return (size_t) nth * P.per_thread + 64;
}

void ggml_cpu_mm_attn(const ggml_cpu_params * p, ggml_tensor * dst) {
    const plan P    = make_plan(dst);
    char *     base = (char *) (((uintptr_t) p->wdata + 63) / 64 * 64);
    char *     ws   = base + (size_t) p->ith * P.per_thread;
    // claimed unless the product is a single row (which may share a barrier-free stretch)
    const ggml_cpu_items items{p, cpu_nrows(dst->src[1]) > 1};
    for (int64_t it = items.first(); it < P.n_items; it = items.next(it)) {
        const int64_t s = it / P.n_blk, blk = it % P.n_blk;
        run_kq(P, dst, ws, s, blk);
    }
}
