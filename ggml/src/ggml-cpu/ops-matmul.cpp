// MUL_MAT and MUL_MAT_ID. Activations (b) are converted once per node into the shared scratch when
// the kernels need another layout (non-contiguous rows, or the vec_dot type of a quantized weight);
// then the result is cut into fixed tiles (BM weight rows x BN activation rows) handed round-robin
// to the threads. The tile grid does not depend on the thread count and every kernel variant sums a
// dot product in the same order, so results are identical for any number of threads. Decode (one F32
// activation row, quantized weights) converts the row in every thread instead (no barrier) and splits
// the weight rows into one contiguous slice per thread.
#include "ggml-cpu-impl.h"
#include "matmul-attn.h"
#include "matmul-gemm.h"
#include "matmul-kernels.h"

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdlib>
#include <cstring>

#include "cpu-repack.h"
#include "cpu-type-traits.h"

namespace {

constexpr int64_t BM = 32;  // weight rows per tile
constexpr int64_t BN = 32;  // activation rows per tile

inline size_t align64(size_t n) {
    return (n + 63) / 64 * 64;
}

// ---- instruction set selection ----------------------------------------------------------------

std::atomic<int> g_isa_override{-1};  // -1: auto; else a cap on the level's rank (cpu-features.h)

// The level the kernels run at now: the CPU's best (after GGML_CPU_ISA), capped by ggml_cpu_set_mm_isa,
// scalar under GGML_CPU_SCALAR.
ggml_cpu_isa active_level() {
    if (ggml_cpu_use_scalar())
        return GGML_CPU_ISA_SCALAR;
    const ggml_cpu_isa best = ggml_cpu_isa_best();
    const int          cap  = g_isa_override.load(std::memory_order_relaxed);
    if (cap < 0 || cap >= ggml_cpu_isa_rank(best))
        return best;
    return ggml_cpu_isa_of_rank(cap);
}

const ggml_cpu_mm_isa * active_isa() {
    switch (active_level()) {
#if defined(GGML_CPU_ARCH_X86_64)
        case GGML_CPU_ISA_AVX512:
            return ggml_cpu_mm_isa_avx512();
        case GGML_CPU_ISA_AVX2:
            return ggml_cpu_mm_isa_avx2();
#endif
#if defined(GGML_CPU_ARCH_ARM64)
        // the float kernels need nothing beyond ARMv8.0: the higher levels reuse them
        case GGML_CPU_ISA_I8MM:
        case GGML_CPU_ISA_DOTPROD:
        case GGML_CPU_ISA_NEON:
            return ggml_cpu_mm_isa_neon();
#endif
        default:
            return nullptr;
    }
}

// The oracle: one plain float accumulation per dot product.
template <typename LoadA>
void scalar_block(int64_t K, const char * a, size_t lda, int rm, const float * const * b, int rn, float * const * out,
                  LoadA load) {
    for (int c = 0; c < rn; ++c) {
        for (int r = 0; r < rm; ++r) {
            const char * ar  = a + r * lda;
            float        sum = 0.0f;
            for (int64_t k = 0; k < K; ++k)
                sum += load(ar, k) * b[c][k];
            out[c][r] = sum;
        }
    }
}

void scalar_kernel(ggml_type t, int64_t K, const char * a, size_t lda, int rm, const float * const * b, int rn,
                   float * const * out) {
    switch (t) {
        case GGML_TYPE_F32:
            scalar_block(K, a, lda, rm, b, rn, out, [](const char * r, int64_t k) { return ((const float *) r)[k]; });
            break;
        case GGML_TYPE_F16:
            scalar_block(K, a, lda, rm, b, rn, out,
                         [](const char * r, int64_t k) { return cpu_f16_to_f32(((const uint16_t *) r)[k]); });
            break;
        default:
            scalar_block(K, a, lda, rm, b, rn, out,
                         [](const char * r, int64_t k) { return cpu_bf16_to_f32(((const uint16_t *) r)[k]); });
            break;
    }
}

// How activations reach the kernels: as they are, or converted into the scratch.
struct act_layout {
    const ggml_tensor * b;
    const char *        conv;  // converted rows (contiguous, row_bytes apart), or NULL
    size_t              row_bytes;
    ggml_type           type;  // element type of the rows the dot products read

    const char * row(int64_t n, int64_t i2, int64_t i3) const {
        if (!conv)
            return cpu_ptr(b, 0, n, i2, i3);
        return conv + (size_t) ((i3 * b->ne[2] + i2) * b->ne[1] + n) * row_bytes;
    }
};

ggml_type vec_dot_type_of(ggml_type wt) {
    if (ggml_is_quantized(wt)) {
        const ggml_cpu_type_traits * tr = ggml_cpu_get_type_traits(wt);
        return tr ? tr->vec_dot_type : GGML_TYPE_COUNT;
    }
    return GGML_TYPE_F32;
}

// The activation quantizer of a quantized weight type (F32 -> its vec_dot_type).
ggml_from_float_t act_from_float(ggml_type wt) {
    const ggml_cpu_type_traits * tr = ggml_cpu_get_type_traits(wt);
    return tr ? tr->from_float : nullptr;
}

size_t act_conv_bytes(const ggml_tensor * a, const ggml_tensor * b, int nth) {
    const ggml_type vdt = vec_dot_type_of(a->type);
    if (vdt == GGML_TYPE_F32 && b->type == GGML_TYPE_F32 && b->nb[0] == 4)
        return 0;
    const size_t rows = (size_t) cpu_nrows(b);
    return align64(ggml_row_size(vdt, b->ne[0]) * rows) + (size_t) nth * align64((size_t) b->ne[0] * 4);
}

// Phase 1, all threads: convert the rows of b the kernels cannot read directly. Ends with a barrier
// when anything was converted.
act_layout prepare_activations(const ggml_cpu_params * p, const ggml_tensor * a, const ggml_tensor * b) {
    act_layout      L{b, nullptr, 0, GGML_TYPE_F32};
    const ggml_type vdt = vec_dot_type_of(a->type);
    if (vdt == GGML_TYPE_F32 && b->type == GGML_TYPE_F32 && b->nb[0] == 4)
        return L;
    const int64_t K   = b->ne[0];
    L.type            = vdt;
    L.row_bytes       = ggml_row_size(vdt, K);
    L.conv            = (const char *) p->wdata;
    const size_t rows = (size_t) cpu_nrows(b);
    float *      tmp =
        (float *) ((char *) p->wdata + align64(L.row_bytes * rows) + (size_t) p->ith * align64((size_t) K * 4));
    int64_t r0, r1;
    cpu_split((int64_t) rows, p->ith, p->nth, r0, r1);
    for (int64_t r = r0; r < r1; ++r) {
        int64_t i1, i2, i3;
        cpu_row_index(b, r, i1, i2, i3);
        const char *  src = cpu_ptr(b, 0, i1, i2, i3);
        const float * x   = (const float *) src;
        if (b->type != GGML_TYPE_F32 || b->nb[0] != 4) {
            for (int64_t k = 0; k < K; ++k)
                tmp[k] = cpu_load_f(b->type, src + k * b->nb[0]);
            x = tmp;
        }
        char * y = (char *) p->wdata + (size_t) r * L.row_bytes;
        if (vdt == GGML_TYPE_F32) {
            std::memcpy(y, x, (size_t) K * 4);
        } else {
            act_from_float(a->type)(x, y, K);
        }
    }
    ggml_cpu_barrier(p);
    return L;
}

// Computes out[c][r] for weight rows a + r*lda (r < rm) against activation rows brows[c] (c < rn).
struct block_runner {
    ggml_type                    wt;
    int64_t                      K;
    const ggml_cpu_mm_isa *      isa;
    const ggml_cpu_type_traits * tr = nullptr;

    int rm_max(int rn) const {
        if (ggml_is_quantized(wt))
            return (int) BM;  // the GEMM kernel blocks rows and columns itself
        if (!isa)
            return 4;
        return rn == 1 ? isa->RM1 : isa->RM;
    }
    int rn_max() const {
        if (ggml_is_quantized(wt))
            return (int) BN;  // whole tile: activations are repacked once per tile
        return isa ? isa->RN : 4;
    }

    void run(const char * a, size_t lda, int rm, const char * const * brows, int rn, float * const * out) const {
        if (ggml_is_quantized(wt)) {
            ggml_cpu_gemm(wt, K, rm, a, lda, rn, (const void * const *) brows, out);
            return;
        }
        const float * const * b = (const float * const *) brows;
        if (isa) {
            ggml_cpu_mm_kernel kern = isa->get(wt, rm, rn);
            if (kern) {
                kern(K, a, lda, b, out);
                return;
            }
        }
        scalar_kernel(wt, K, a, lda, rm, b, rn, out);
    }
};

block_runner make_runner(ggml_type wt, int64_t K) {
    block_runner R{wt, K, active_isa()};
    if (ggml_is_quantized(wt))
        R.tr = ggml_cpu_get_type_traits(wt);
    return R;
}

// One tile: weight rows [m0, m1) of slice `a_slice`, activation rows given by row(n) for n in [n0, n1).
template <typename RowFn, typename OutFn>
void run_tile(const block_runner & R, const char * a_slice, size_t lda, int64_t m0, int64_t m1, int64_t n0, int64_t n1,
              RowFn row, OutFn outp) {
    const char * brows[BN];
    float *      outs[BN];
    for (int64_t n = n0; n < n1;) {
        const int rn = (int) std::min<int64_t>(R.rn_max(), n1 - n);
        for (int c = 0; c < rn; ++c)
            brows[c] = row(n + c);
        const int rmx = R.rm_max(rn);
        for (int64_t m = m0; m < m1;) {
            const int rm = (int) std::min<int64_t>(rmx, m1 - m);
            for (int c = 0; c < rn; ++c)
                outs[c] = outp(m, n + c);
            R.run(a_slice + m * lda, lda, rm, brows, rn, outs);
            m += rm;
        }
        n += rn;
    }
}

}  // namespace

extern "C" void ggml_cpu_set_mm_isa(int isa) {
    g_isa_override.store(isa, std::memory_order_relaxed);
}

int ggml_cpu_mm_isa_level() {
    return ggml_cpu_isa_rank(active_level());
}

ggml_cpu_isa ggml_cpu_mm_isa_active() {
    return active_level();
}

void ggml_cpu_mm_block(ggml_type wt, int64_t K, const char * a, size_t lda, int64_t m, const char * const * brows,
                       int64_t n, float * const * out) {
    const block_runner R = make_runner(wt, K);
    run_tile(
        R, a, lda, 0, m, 0, n, [&](int64_t c) { return brows[c]; }, [&](int64_t r, int64_t c) { return out[c] + r; });
}

bool ggml_cpu_mul_mat_supported(const ggml_tensor * a) {
    if (cpu_is_float_type(a->type))
        return true;
    if (ggml_is_quantized(a->type)) {
        const ggml_cpu_type_traits * tr = ggml_cpu_get_type_traits(a->type);
        return tr && tr->vec_dot && ggml_cpu_can_from_float(tr->vec_dot_type) &&
               a->ne[0] % ggml_blck_size(a->type) == 0 && a->ne[0] % ggml_blck_size(tr->vec_dot_type) == 0;
    }
    return false;
}

size_t ggml_cpu_mul_mat_work_size(const ggml_tensor * dst, int nth) {
    if (ggml_repack_is_packed(dst->src[0]))
        return ggml_repack_mul_mat_work_size(dst, nth);
    if (ggml_cpu_mm_gemm_applies(dst))
        return ggml_cpu_mm_gemm_work_size(dst, nth);
    if (ggml_cpu_mm_attn_applies(dst))
        return ggml_cpu_mm_attn_work_size(dst, nth);
    return act_conv_bytes(dst->src[0], dst->src[1], nth);
}

namespace {

// Decode with one contiguous F32 activation row: every thread quantizes the row into its own slot of
// the scratch (a few microseconds of duplicated work) instead of splitting the conversion and waiting
// at a barrier: at one token per graph that barrier is paid by every matrix product of the model.
bool private_activation(const ggml_cpu_params * p, const ggml_tensor * a, const ggml_tensor * b, act_layout & L) {
    if (p->nth < 2 || cpu_nrows(b) != 1 || !ggml_is_quantized(a->type) || b->type != GGML_TYPE_F32 || b->nb[0] != 4)
        return false;
    const ggml_type vdt = vec_dot_type_of(a->type);
    const int64_t   K   = b->ne[0];
    L.type              = vdt;
    L.row_bytes         = ggml_row_size(vdt, K);
    // the per-thread F32 staging slot (K * 4 bytes) holds the converted row (fewer bytes)
    char * y = (char *) p->wdata + align64(L.row_bytes) + (size_t) p->ith * align64((size_t) K * 4);
    act_from_float(a->type)((const float *) cpu_ptr(b, 0, 0, 0, 0), y, K);
    L.conv = y;
    return true;
}

}  // namespace

void ggml_cpu_op_mul_mat(const ggml_cpu_params * p, ggml_tensor * dst) {
    const ggml_tensor * a = dst->src[0];
    const ggml_tensor * b = dst->src[1];
    if (ggml_repack_is_packed(a)) {
        ggml_repack_mul_mat(p, dst);  // interleaved weight: its own kernels (cpu-repack.h)
        return;
    }
    if (ggml_cpu_mm_gemm_applies(dst)) {
        ggml_cpu_mm_gemm(p, dst);  // float-like weights at prefill sizes (ops-matmul-gemm.cpp)
        return;
    }
    if (ggml_cpu_mm_attn_applies(dst)) {
        ggml_cpu_mm_attn(p, dst);  // KQ / KQV of the plain attention at prefill (ops-matmul-attn.cpp)
        return;
    }
    act_layout L{b, nullptr, 0, GGML_TYPE_F32};
    if (!private_activation(p, a, b, L))
        L = prepare_activations(p, a, b);
    const block_runner R = make_runner(a->type, a->ne[0]);

    const int64_t M = a->ne[1], N = b->ne[1], B2 = b->ne[2], B3 = b->ne[3];
    const int64_t r2 = B2 / a->ne[2], r3 = B3 / a->ne[3];  // broadcast ratios over dims 2, 3
    if (N == 1 && ggml_is_quantized(a->type) && dst->nb[0] == sizeof(float)) {
        // decode: each thread streams one contiguous slice of weight rows (multiple of 4 rows, the
        // GEMV's row group) through the multi-row GEMV. A row's result does not depend on the slice.
        const int64_t per = (M / p->nth + 3) / 4 * 4;
        const int64_t m0 = std::min(M, per * p->ith), m1 = p->ith == p->nth - 1 ? M : std::min(M, m0 + per);
        if (m0 >= m1)
            return;
        for (int64_t i3 = 0; i3 < B3; ++i3) {
            for (int64_t i2 = 0; i2 < B2; ++i2) {
                const char * as = cpu_ptr(a, 0, m0, i2 / r2, i3 / r3);
                ggml_cpu_gemv(a->type, a->ne[0], m1 - m0, as, a->nb[1], L.row(0, i2, i3),
                              (float *) cpu_ptr(dst, m0, 0, i2, i3));
            }
        }
        return;
    }
    if (N == 1 && B2 == 1 && B3 == 1 && !ggml_is_quantized(a->type) && R.isa && R.isa->gemv &&
        L.type == GGML_TYPE_F32 && dst->nb[0] == sizeof(float)) {
        // float-like weight matrix at decode: one contiguous slice of whole row groups per thread, as
        // above (the tiles handed round-robin made every thread hop between 32-row pieces). Batched
        // products (attention heads) keep the tiles, which spread the heads over the threads.
        const int64_t g   = R.isa->RM1;
        const int64_t per = (M / p->nth + g - 1) / g * g;
        const int64_t m0 = std::min(M, per * p->ith), m1 = p->ith == p->nth - 1 ? M : std::min(M, m0 + per);
        if (m0 < m1)
            R.isa->gemv(a->type, a->ne[0], cpu_ptr(a, 0, m0, 0, 0), a->nb[1], m1 - m0, (const float *) L.row(0, 0, 0),
                        (float *) cpu_ptr(dst, m0, 0, 0, 0));
        return;
    }
    const int64_t mb = (M + BM - 1) / BM, nb = (N + BN - 1) / BN;
    const int64_t n_tiles = mb * nb * B2 * B3;
    // claimed unless the product is a single row (which may share a barrier-free stretch) or the tiles
    // are too small to pay for a contended atomic each (decode attention heads: ~2K multiply-adds)
    const bool           big_tiles = std::min(BM, M) * std::min(BN, N) * a->ne[0] >= (int64_t) 1 << 16;
    const ggml_cpu_items items{p, cpu_nrows(b) > 1 && big_tiles};
    for (int64_t t = items.first(); t < n_tiles; t = items.next(t)) {
        const int64_t in = t % nb;
        const int64_t im = (t / nb) % mb;
        const int64_t i2 = (t / (nb * mb)) % B2;
        const int64_t i3 = t / (nb * mb * B2);
        const char *  as = cpu_ptr(a, 0, 0, i2 / r2, i3 / r3);
        run_tile(
            R, as, a->nb[1], im * BM, std::min(M, (im + 1) * BM), in * BN, std::min(N, (in + 1) * BN),
            [&](int64_t n) { return L.row(n, i2, i3); },
            [&](int64_t m, int64_t n) { return (float *) cpu_ptr(dst, m, n, i2, i3); });
    }
}

// ---- MUL_MAT_ID --------------------------------------------------------------------------------
// Scratch: [converted activations][expert offsets: n_expert + 1][pairs grouped by expert]

size_t ggml_cpu_mul_mat_id_work_size(const ggml_tensor * dst, int nth) {
    const ggml_tensor * as  = dst->src[0];
    const ggml_tensor * ids = dst->src[2];
    return act_conv_bytes(as, dst->src[1], nth) + 2 * align64((size_t) (as->ne[2] + 1) * 4) +
           align64((size_t) (ids->ne[0] * ids->ne[1]) * 4) + 64;
}

void ggml_cpu_op_mul_mat_id(const ggml_cpu_params * p, ggml_tensor * dst) {
    const ggml_tensor * as       = dst->src[0];
    const ggml_tensor * b        = dst->src[1];
    const ggml_tensor * ids      = dst->src[2];
    const int64_t       n_expert = as->ne[2], n_used = ids->ne[0], n_tok = ids->ne[1], M = as->ne[1];

    // the id tables follow the converted activations in the scratch
    const size_t conv = act_conv_bytes(as, b, p->nth);
    int32_t *    offs = (int32_t *) ((char *) p->wdata + conv);
    int32_t *    list = (int32_t *) ((char *) offs + align64((size_t) (n_expert + 1) * 4));

    if (p->ith == 0) {
        // counting sort of the (slot, token) pairs by expert; reject bad ids before anyone reads
        for (int64_t x = 0; x <= n_expert; ++x)
            offs[x] = 0;
        bool ok = true;
        for (int64_t t = 0; t < n_tok && ok; ++t) {
            for (int64_t e = 0; e < n_used; ++e) {
                const int32_t id = *(const int32_t *) cpu_ptr(ids, e, t, 0, 0);
                if (id < 0 || id >= n_expert) {
                    ggml_cpu_fail(p, "[mul_mat_id] %s: expert id %d out of range [0, %" PRId64 ")", dst->name, id,
                                  n_expert);
                    ok = false;
                    break;
                }
                offs[id + 1]++;
            }
        }
        if (ok) {
            for (int64_t x = 0; x < n_expert; ++x)
                offs[x + 1] += offs[x];
            int32_t * cur = list + align64((size_t) (n_used * n_tok) * 4) / 4;  // running cursor per expert
            std::memcpy(cur, offs, (size_t) n_expert * 4);
            for (int64_t t = 0; t < n_tok; ++t)
                for (int64_t e = 0; e < n_used; ++e) {
                    const int32_t id = *(const int32_t *) cpu_ptr(ids, e, t, 0, 0);
                    list[cur[id]++]  = (int32_t) (t * n_used + e);
                }
        }
    }
    const act_layout L = prepare_activations(p, as, b);
    if (L.conv == nullptr)
        ggml_cpu_barrier(p);  // publish the id tables
    if (p->failed->load(std::memory_order_relaxed))
        return;

    const block_runner R    = make_runner(as->type, as->ne[0]);
    const int64_t      mb   = (M + BM - 1) / BM;
    int64_t            t    = 0;                  // global tile index over the experts, in order
    int64_t            want = ggml_cpu_claim(p);  // the next tile this thread computes (claims only grow)
    for (int64_t x = 0; x < n_expert; ++x) {
        const int64_t cnt = offs[x + 1] - offs[x];
        if (cnt == 0)
            continue;
        const int64_t   nbk   = (cnt + BN - 1) / BN;
        const char *    ax    = cpu_ptr(as, 0, 0, x, 0);
        const int32_t * pairs = list + offs[x];
        for (int64_t im = 0; im < mb; ++im) {
            for (int64_t in = 0; in < nbk; ++in, ++t) {
                if (t != want)
                    continue;
                want = ggml_cpu_claim(p);
                run_tile(
                    R, ax, as->nb[1], im * BM, std::min(M, (im + 1) * BM), in * BN, std::min(cnt, (in + 1) * BN),
                    [&](int64_t j) {
                        const int64_t e = pairs[j] % n_used, tk = pairs[j] / n_used;
                        return L.row(e % b->ne[1], tk, 0);
                    },
                    [&](int64_t m, int64_t j) {
                        const int64_t e = pairs[j] % n_used, tk = pairs[j] / n_used;
                        return (float *) cpu_ptr(dst, m, e, tk, 0);
                    });
            }
        }
    }
}
