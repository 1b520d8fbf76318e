// MUL_MAT with BF16 weights at prefill sizes on AVX-512 BF16 or arm64 i8mm: the panel GEMM
// (matmul-gemm.h). Phase 1, all threads: the activations are rounded to BF16 and packed once per
// matmul into panels of NP columns in the ISA's k groups, shared by the threads (one barrier).
// Phase 2: tiles of 4*MR weight rows x PG panels, round-robin over the threads; per KC-long block
// of k, each panel meets the tile's weight rows read in place. The grid depends only on the shapes
// and every result is one chain over k in order, so any thread count gives the same bits.
#include <algorithm>
#include <cstring>

#include "ggml-cpu-impl.h"
#include "matmul-gemm.h"

namespace {

constexpr int64_t KC   = 256;  // k per block (a multiple of every KG): a panel block stays in L1
constexpr int64_t PG   = 4;    // panels per tile: the weight block is reused by 4 panels from L1/L2
constexpr int64_t NMIN = 16;   // fewer activation rows: the dot-product kernels waste less

inline size_t align64(size_t n) {
    return (n + 63) / 64 * 64;
}

const ggml_cpu_gemm_isa * gemm_isa() {
#if defined(GGML_CPU_ARCH_X86_64)
    static const bool has_bf16 = ggml_cpu_x86_has_avx512_bf16();
    if (has_bf16 && ggml_cpu_mm_isa_active() == GGML_CPU_ISA_AVX512)
        return ggml_cpu_gemm_isa_avx512bf16();
#elif defined(GGML_CPU_ARCH_ARM64)
    // the i8mm level requires FEAT_BF16 as well (cpu-features.cpp): BFMMLA
    if (ggml_cpu_mm_isa_active() == GGML_CPU_ISA_I8MM)
        return ggml_cpu_gemm_isa_i8mm();
#endif
    return nullptr;
}

struct gemm_plan {
    const ggml_cpu_gemm_isa * isa = nullptr;
    int64_t                   K = 0, M = 0, N = 0, S = 0, n_pan = 0, BMF = 0;
    size_t                    pan_bytes = 0, packed = 0, per_thread = 0;
};

// F32 -> BF16, round to nearest even (NaN stays NaN), as ggml_fp32_to_bf16.
inline uint16_t to_bf16(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffff) > 0x7f800000)
        return (uint16_t) ((u >> 16) | 64);
    return (uint16_t) ((u + (0x7fff + ((u >> 16) & 1))) >> 16);
}

gemm_plan make_plan(const ggml_tensor * dst) {
    const ggml_tensor * a = dst->src[0];
    const ggml_tensor * b = dst->src[1];
    gemm_plan           P;
    P.isa = gemm_isa();
    if (!P.isa)
        return P;
    if (a->type != GGML_TYPE_BF16 || !cpu_is_float_type(b->type) || a->nb[0] != 2 || a->nb[1] % 2 != 0 ||
        b->ne[1] < NMIN || dst->type != GGML_TYPE_F32 || dst->nb[0] != 4) {
        P.isa = nullptr;
        return P;
    }
    P.K          = a->ne[0];
    P.M          = a->ne[1];
    P.N          = b->ne[1];
    P.S          = b->ne[2] * b->ne[3];
    P.n_pan      = (P.N + P.isa->NP - 1) / P.isa->NP;
    P.BMF        = 4 * (int64_t) P.isa->MR;
    P.pan_bytes  = align64((size_t) ((P.K + P.isa->KG - 1) / P.isa->KG * P.isa->KG * P.isa->NP) * 2);
    P.packed     = (size_t) (P.S * P.n_pan) * P.pan_bytes;
    P.per_thread = align64((size_t) (PG * P.BMF * P.isa->NP) * 4);
    return P;
}

// Panel pn of slice s: activation rows [pn*NP, pn*NP + NP) of b, k-group-major, zero past the last
// row and past K.
void pack_panel(const gemm_plan & P, const ggml_tensor * b, int64_t s, int64_t pn, char * dstp) {
    const int64_t NP = P.isa->NP, KG = P.isa->KG;
    const int64_t i2 = s % b->ne[2], i3 = s / b->ne[2];
    std::memset(dstp, 0, P.pan_bytes);
    uint16_t * ph = (uint16_t *) dstp;
    for (int64_t j = 0; j < NP && pn * NP + j < P.N; ++j) {
        const char *  src = cpu_ptr(b, 0, pn * NP + j, i2, i3);
        const bool    f32 = b->type == GGML_TYPE_F32 && b->nb[0] == 4;
        const float * x   = (const float *) src;
        uint16_t *    col = ph + KG * j;
        for (int64_t k0 = 0; k0 < P.K; k0 += KG, col += KG * NP)
            for (int64_t k = k0; k < std::min(P.K, k0 + KG); ++k)
                col[k - k0] = to_bf16(f32 ? x[k] : cpu_load_f(b->type, src + k * b->nb[0]));
    }
}

}  // namespace

bool ggml_cpu_mm_gemm_applies(const ggml_tensor * dst) {
    return make_plan(dst).isa != nullptr;
}

size_t ggml_cpu_mm_gemm_work_size(const ggml_tensor * dst, int nth) {
    const gemm_plan P = make_plan(dst);
    return P.packed + (size_t) nth * P.per_thread + 64;
}

void ggml_cpu_mm_gemm(const ggml_cpu_params * p, ggml_tensor * dst) {
    const gemm_plan     P  = make_plan(dst);
    const ggml_tensor * a  = dst->src[0];
    const ggml_tensor * b  = dst->src[1];
    const int64_t       NP = P.isa->NP, MR = P.isa->MR, KG = P.isa->KG;
    char *              base = (char *) (((uintptr_t) p->wdata + 63) / 64 * 64);

    int64_t q0, q1;
    cpu_split(P.S * P.n_pan, p->ith, p->nth, q0, q1);
    for (int64_t q = q0; q < q1; ++q)
        pack_panel(P, b, q / P.n_pan, q % P.n_pan, base + (size_t) q * P.pan_bytes);
    ggml_cpu_barrier(p);

    float *       C  = (float *) (base + P.packed + (size_t) p->ith * P.per_thread);
    const int64_t B2 = b->ne[2], r2 = B2 / a->ne[2], r3 = b->ne[3] / a->ne[3];
    const int64_t mb = (P.M + P.BMF - 1) / P.BMF, npg = (P.n_pan + PG - 1) / PG;
    const int64_t n_tiles = mb * npg * P.S;
    const size_t  lda     = a->nb[1] / 2;
    for (int64_t t = ggml_cpu_claim(p); t < n_tiles; t = ggml_cpu_claim(p)) {
        const int64_t    ip = t % npg, im = (t / npg) % mb, s = t / (npg * mb);
        const int64_t    i2 = s % B2, i3 = s / B2;
        const int64_t    m0 = im * P.BMF, rows = std::min(P.BMF, P.M - m0);
        const int64_t    pn0 = ip * PG, pn1 = std::min(P.n_pan, pn0 + PG);
        const uint16_t * arow0 = (const uint16_t *) cpu_ptr(a, 0, m0, i2 / r2, i3 / r3);
        for (int64_t kb = 0; kb < P.K; kb += KC) {
            // KC is a multiple of KG, so a block starts on a group; only the last can end inside one
            const int64_t kc = std::min(KC, P.K - kb);
            for (int64_t pn = pn0; pn < pn1; ++pn) {
                const uint16_t * pan = (const uint16_t *) (base + (size_t) (s * P.n_pan + pn) * P.pan_bytes) + kb * NP;
                for (int64_t r0 = 0; r0 < rows; r0 += MR) {
                    const int mr = (int) std::min(MR, rows - r0);
                    float *   c  = C + ((pn - pn0) * P.BMF + r0) * NP;
                    P.isa->bf16(mr, kc / KG, (int) (kc % KG), arow0 + r0 * lda + kb, lda, pan, c, kb == 0);
                }
            }
        }
        for (int64_t pn = pn0; pn < pn1; ++pn)
            for (int64_t j = 0; j < NP && pn * NP + j < P.N; ++j) {
                float *       out = (float *) cpu_ptr(dst, m0, pn * NP + j, i2, i3);
                const float * c   = C + (pn - pn0) * P.BMF * NP + j;
                for (int64_t r = 0; r < rows; ++r)
                    out[r] = c[r * NP];
            }
    }
}
