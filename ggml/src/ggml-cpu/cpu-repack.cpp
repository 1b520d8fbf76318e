// The CPU_REPACK layout (see cpu-repack.h): conversion from and to GGUF blocks, the scalar reference
// kernel, the kernel selection, and mul_mat for a packed weight (activation preparation + the split
// of the work across threads).
#include "cpu-repack.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "cpu-type-traits.h"
#include "ggml-cpu-impl.h"
#include "ggml-quants.h"

namespace {

constexpr int64_t R = GGML_REPACK_ROWS;

// bytes of one row's quants per block, and the unsigned offset the kernels subtract
int64_t qbytes(ggml_type t) {
    return t == GGML_TYPE_Q4_0 ? QK4_0 / 2 : QK8_0;
}
int32_t act_offset(ggml_type t) {
    return t == GGML_TYPE_Q4_0 ? 8 : 128;
}

size_t group_bytes(ggml_type t, int64_t nb) {
    return (size_t) (nb * R * (2 + qbytes(t)));
}

// Both block formats start with the fp16 scale followed by the quants.
struct block_view {
    const uint8_t * base;
    size_t          bsize;
    ggml_fp16_t     d(int64_t i) const {
            ggml_fp16_t h;
            std::memcpy(&h, base + i * bsize, 2);
            return h;
    }
    const uint8_t * qs(int64_t i) const { return base + i * bsize + 2; }
};

void scalar_kernel(ggml_type type, int64_t nb, int64_t ngroups, const uint8_t * w, size_t gb, int ncols,
                   const ggml_repack_act * y, float * const * out) {
    const int64_t qb = qbytes(type);
    for (int64_t g = 0; g < ngroups; ++g) {
        const uint8_t *     grp    = w + g * gb;
        const ggml_fp16_t * scales = (const ggml_fp16_t *) grp;
        const uint8_t *     quants = grp + nb * R * 2;
        for (int c = 0; c < ncols; ++c) {
            for (int64_t r = 0; r < R; ++r) {
                float acc = 0.0f;
                for (int64_t b = 0; b < nb; ++b) {
                    const uint8_t * q  = quants + b * R * qb;
                    const int8_t *  yq = y[c].qs + b * 32;
                    int32_t         s  = 0;
                    for (int64_t j = 0; j < qb / 4; ++j) {
                        for (int t = 0; t < 4; ++t) {
                            const uint8_t v = q[j * 64 + r * 4 + t];
                            if (type == GGML_TYPE_Q4_0) {
                                s += (int32_t) (v & 0x0F) * yq[4 * j + t] + (int32_t) (v >> 4) * yq[16 + 4 * j + t];
                            } else {
                                s += (int32_t) v * yq[4 * j + t];
                            }
                        }
                    }
                    s -= y[c].corr[b];
                    const float scale = cpu_f16_to_f32(scales[b * R + r]) * y[c].d[b];
                    acc               = std::fma((float) s, scale, acc);
                }
                out[c][g * R + r] = acc;
            }
        }
    }
}

void scalar_q4_0(int64_t nb, int64_t ng, const uint8_t * w, size_t gb, int nc, const ggml_repack_act * y,
                 float * const * out) {
    scalar_kernel(GGML_TYPE_Q4_0, nb, ng, w, gb, nc, y, out);
}
void scalar_q8_0(int64_t nb, int64_t ng, const uint8_t * w, size_t gb, int nc, const ggml_repack_act * y,
                 float * const * out) {
    scalar_kernel(GGML_TYPE_Q8_0, nb, ng, w, gb, nc, y, out);
}

// ---- Q4_K (layout in cpu-repack.h) ----

bool is_kq(ggml_type t) {
    return t == GGML_TYPE_Q4_K || t == GGML_TYPE_Q6_K;
}

constexpr int64_t QK_SB   = 256;   // values per super-block
constexpr size_t  K_SB    = 2304;  // group bytes per super-block: 16 x sizeof(block_q4_K)
constexpr size_t  K_SCL   = 64;    // offset of the scale words
constexpr size_t  K_QS    = 256;   // offset of the quants
constexpr size_t  K_BLOCK = 144;   // sizeof(block_q4_K): d, dmin, scales[12], qs[128]

// the 8 scales and mins of one row from its 3 packed words (as get_scale_min_k4)
void k4_unpack(const uint32_t u[3], int32_t sc[8], int32_t mn[8]) {
    const uint32_t s03 = u[0] & 0x3f3f3f3fu;
    const uint32_t m03 = u[1] & 0x3f3f3f3fu;
    const uint32_t s47 = (u[2] & 0x0f0f0f0fu) | (((u[0] >> 6) & 0x03030303u) << 4);
    const uint32_t m47 = ((u[2] >> 4) & 0x0f0f0f0fu) | (((u[1] >> 6) & 0x03030303u) << 4);
    for (int i = 0; i < 4; ++i) {
        sc[i]     = (int32_t) ((s03 >> (8 * i)) & 0xff);
        sc[4 + i] = (int32_t) ((s47 >> (8 * i)) & 0xff);
        mn[i]     = (int32_t) ((m03 >> (8 * i)) & 0xff);
        mn[4 + i] = (int32_t) ((m47 >> (8 * i)) & 0xff);
    }
}

// sub-block sum s of super-block b from the packed pairs (see ggml_repack_act)
int32_t k4_ysum(const int32_t * corr, int64_t b, int s) {
    static const int word[8] = {0, 1, 0, 1, 2, 3, 2, 3};
    const uint32_t   w       = (uint32_t) corr[b * 4 + word[s]];
    return (int32_t) (int16_t) (((s & 2) ? w >> 16 : w) & 0xffff);
}

void scalar_q4_K(int64_t nb, int64_t ng, const uint8_t * w, size_t gb, int ncols, const ggml_repack_act * y,
                 float * const * out) {
    for (int64_t g = 0; g < ng; ++g) {
        for (int c = 0; c < ncols; ++c) {
            for (int64_t r = 0; r < R; ++r) {
                float acc = 0.0f;
                for (int64_t b = 0; b < nb; ++b) {
                    const uint8_t * sb = w + g * gb + b * K_SB;
                    uint32_t        u[3];
                    for (int t = 0; t < 3; ++t)
                        std::memcpy(&u[t], sb + K_SCL + (t * R + r) * 4, 4);
                    int32_t sc[8], mn[8];
                    k4_unpack(u, sc, mn);
                    const int8_t * yq   = y[c].qs + b * QK_SB;
                    int32_t        isum = 0, msum = 0;
                    for (int s = 0; s < 8; ++s) {
                        const int k = s / 2, sh = 4 * (s % 2);
                        int32_t   dot = 0;
                        for (int jj = 0; jj < 8; ++jj)
                            for (int t = 0; t < 4; ++t) {
                                const uint8_t v = sb[K_QS + (8 * k + jj) * 64 + r * 4 + t];
                                dot += (int32_t) ((v >> sh) & 0x0F) * yq[64 * k + 32 * (s % 2) + 4 * jj + t];
                            }
                        isum += sc[s] * dot;
                        msum += mn[s] * k4_ysum(y[c].corr, b, s);
                    }
                    ggml_fp16_t hd, hm;
                    std::memcpy(&hd, sb + r * 2, 2);
                    std::memcpy(&hm, sb + 32 + r * 2, 2);
                    acc = std::fma((float) isum, cpu_f16_to_f32(hd) * y[c].d[b], acc);
                    acc = std::fma(-(float) msum, cpu_f16_to_f32(hm) * y[c].d[b], acc);
                }
                out[c][g * R + r] = acc;
            }
        }
    }
}

// GGUF block_q4_K rows <-> the layout (pack: to_layout true)
void q4_K_convert(int64_t K, int64_t nrows, uint8_t * gguf, uint8_t * packed, bool to_layout) {
    const int64_t nb = K / QK_SB;
    for (int64_t g = 0; g < nrows / R; ++g) {
        for (int64_t b = 0; b < nb; ++b) {
            uint8_t * sb = packed + (g * nb + b) * K_SB;
            for (int64_t r = 0; r < R; ++r) {
                uint8_t * blk = gguf + ((g * R + r) * nb + b) * K_BLOCK;
                uint8_t * d   = sb + r * 2;
                uint8_t * dm  = sb + 32 + r * 2;
                if (to_layout) {
                    std::memcpy(d, blk, 2);
                    std::memcpy(dm, blk + 2, 2);
                } else {
                    std::memcpy(blk, d, 2);
                    std::memcpy(blk + 2, dm, 2);
                }
                for (int t = 0; t < 3; ++t) {
                    uint8_t * word = sb + K_SCL + (t * R + r) * 4;
                    to_layout ? std::memcpy(word, blk + 4 + 4 * t, 4) : std::memcpy(blk + 4 + 4 * t, word, 4);
                }
                for (int j = 0; j < 32; ++j) {
                    uint8_t * q = sb + K_QS + j * 64 + r * 4;
                    to_layout ? std::memcpy(q, blk + 16 + 4 * j, 4) : std::memcpy(blk + 16 + 4 * j, q, 4);
                }
            }
        }
    }
}

// ---- Q6_K (layout in cpu-repack.h) ----

constexpr size_t Q6_SB    = 3360;  // group bytes per super-block: 16 x sizeof(block_q6_K)
constexpr size_t Q6_SCL   = 32;    // offset of the scale pairs
constexpr size_t Q6_QL    = 288;   // offset of ql
constexpr size_t Q6_QH    = 2336;  // offset of qh
constexpr size_t Q6_BLOCK = 210;   // sizeof(block_q6_K): ql[128], qh[64], scales[16], d

// byte i of row r's ql / qh in a packed super-block
inline uint8_t q6_ql(const uint8_t * sb, int64_t r, int i) {
    return sb[Q6_QL + (i / 4) * 64 + r * 4 + i % 4];
}
inline uint8_t q6_qh(const uint8_t * sb, int64_t r, int i) {
    return sb[Q6_QH + (i / 4) * 64 + r * 4 + i % 4];
}

// The reference reads each value through the GGUF definition (dequantize_row_q6_K's indexing).
void scalar_q6_K(int64_t nb, int64_t ng, const uint8_t * w, size_t gb, int ncols, const ggml_repack_act * y,
                 float * const * out) {
    for (int64_t g = 0; g < ng; ++g) {
        for (int c = 0; c < ncols; ++c) {
            for (int64_t r = 0; r < R; ++r) {
                float acc = 0.0f;
                for (int64_t b = 0; b < nb; ++b) {
                    const uint8_t * sb   = w + g * gb + b * Q6_SB;
                    const int8_t *  yq   = y[c].qs + b * QK_SB;
                    const int16_t * bs   = (const int16_t *) (y[c].corr + b * 8);
                    int32_t         isum = 0, csum = 0;
                    for (int s = 0; s < 16; ++s) {
                        const int8_t sc  = (int8_t) sb[Q6_SCL + (s / 2) * 32 + r * 2 + s % 2];
                        int32_t      dot = 0;
                        for (int v = 16 * s; v < 16 * s + 16; ++v) {
                            const int n = v / 128, a = (v % 128) / 32, l = v % 32;
                            const int ql = q6_ql(sb, r, 64 * n + 32 * (a % 2) + l) >> (4 * (a / 2)) & 0x0F;
                            const int qh = (q6_qh(sb, r, 32 * n + l) >> (2 * a)) & 3;
                            dot += (ql | qh << 4) * yq[v];
                        }
                        isum += sc * dot;
                        csum += sc * bs[s];
                    }
                    ggml_fp16_t hd;
                    std::memcpy(&hd, sb + r * 2, 2);
                    acc = std::fma((float) (isum - 32 * csum), cpu_f16_to_f32(hd) * y[c].d[b], acc);
                }
                out[c][g * R + r] = acc;
            }
        }
    }
}

void q6_K_convert(int64_t K, int64_t nrows, uint8_t * gguf, uint8_t * packed, bool to_layout) {
    const int64_t nb = K / QK_SB;
    for (int64_t g = 0; g < nrows / R; ++g) {
        for (int64_t b = 0; b < nb; ++b) {
            uint8_t * sb = packed + (g * nb + b) * Q6_SB;
            for (int64_t r = 0; r < R; ++r) {
                uint8_t * blk = gguf + ((g * R + r) * nb + b) * Q6_BLOCK;
                // block_q6_K: ql[128] at 0, qh[64] at 128, scales[16] at 192, d at 208
                auto move = [to_layout](uint8_t * layout, uint8_t * file, size_t n) {
                    to_layout ? std::memcpy(layout, file, n) : std::memcpy(file, layout, n);
                };
                move(sb + r * 2, blk + 208, 2);
                for (int p = 0; p < 8; ++p)
                    move(sb + Q6_SCL + p * 32 + r * 2, blk + 192 + 2 * p, 2);
                for (int j = 0; j < 32; ++j)
                    move(sb + Q6_QL + j * 64 + r * 4, blk + 4 * j, 4);
                for (int j = 0; j < 16; ++j)
                    move(sb + Q6_QH + j * 64 + r * 4, blk + 128 + 4 * j, 4);
            }
        }
    }
}

}  // namespace

const ggml_repack_kernels * ggml_repack_kernels_scalar() {
    static const ggml_repack_kernels k = {scalar_q4_0, scalar_q8_0, scalar_q4_K, scalar_q6_K};
    return &k;
}

const ggml_repack_kernels * ggml_repack_kernels_active() {
    switch (ggml_cpu_mm_isa_active()) {
#if defined(GGML_CPU_ARCH_X86_64)
        case GGML_CPU_ISA_AVX512:  // the level includes VNNI (cpu-features.h)
            return ggml_repack_kernels_avx512();
        case GGML_CPU_ISA_AVX2:
            return ggml_repack_kernels_avxvnni() ? ggml_repack_kernels_avxvnni() : ggml_repack_kernels_avx2();
#endif
#if defined(GGML_CPU_ARCH_ARM64)
        case GGML_CPU_ISA_I8MM:
            return ggml_repack_kernels_i8mm();
        case GGML_CPU_ISA_DOTPROD:
            return ggml_repack_kernels_dotprod();
        case GGML_CPU_ISA_NEON:
            return ggml_repack_kernels_neon();
#endif
        default:
            return ggml_repack_kernels_scalar();
    }
}

bool ggml_repack_offered() {
#if defined(GGML_CPU_ARCH_ARM64)
    if (ggml_cpu_mm_isa_active() == GGML_CPU_ISA_NEON) {
        static const bool forced = [] {
            const char * e = std::getenv("GGML_CPU_REPACK_NEON");
            return e && std::strcmp(e, "1") == 0;
        }();
        return forced;
    }
#endif
    return true;
}

bool ggml_repack_supports_tensor(const ggml_tensor * t) {
    if (t->type != GGML_TYPE_Q4_0 && t->type != GGML_TYPE_Q8_0 && t->type != GGML_TYPE_Q4_K &&
        t->type != GGML_TYPE_Q6_K)
        return false;
    const int64_t blk = is_kq(t->type) ? QK_SB : 32;
    return t->ne[2] == 1 && t->ne[3] == 1 && t->ne[1] % R == 0 && t->ne[0] % blk == 0 && t->ne[0] > 0 &&
           ggml_is_contiguous(t);
}

void ggml_repack_pack(ggml_type type, int64_t K, int64_t nrows, const void * src, void * dst) {
    if (is_kq(type)) {  // src is only read
        (type == GGML_TYPE_Q4_K ? q4_K_convert : q6_K_convert)(K, nrows, (uint8_t *) const_cast<void *>(src),
                                                               (uint8_t *) dst, true);
        return;
    }
    const int64_t nb = K / 32, qb = qbytes(type);
    const size_t  gb = group_bytes(type, nb);
    const uint8_t x  = type == GGML_TYPE_Q8_0 ? 0x80 : 0x00;
    const size_t  bs = (size_t) (2 + qb);
    for (int64_t g = 0; g < nrows / R; ++g) {
        uint8_t * grp    = (uint8_t *) dst + g * gb;
        uint8_t * quants = grp + nb * R * 2;
        for (int64_t r = 0; r < R; ++r) {
            const block_view row{(const uint8_t *) src + (size_t) (g * R + r) * nb * bs, bs};
            for (int64_t b = 0; b < nb; ++b) {
                const ggml_fp16_t d = row.d(b);
                std::memcpy(grp + (b * R + r) * 2, &d, 2);
                const uint8_t * q = row.qs(b);
                uint8_t *       o = quants + b * R * qb + r * 4;
                for (int64_t j = 0; j < qb / 4; ++j)
                    for (int t = 0; t < 4; ++t)
                        o[j * 64 + t] = q[4 * j + t] ^ x;
            }
        }
    }
}

void ggml_repack_unpack(ggml_type type, int64_t K, int64_t nrows, const void * src, void * dst) {
    if (is_kq(type)) {  // src is only read
        (type == GGML_TYPE_Q4_K ? q4_K_convert : q6_K_convert)(K, nrows, (uint8_t *) dst,
                                                               (uint8_t *) const_cast<void *>(src), false);
        return;
    }
    const int64_t nb = K / 32, qb = qbytes(type);
    const size_t  gb = group_bytes(type, nb);
    const uint8_t x  = type == GGML_TYPE_Q8_0 ? 0x80 : 0x00;
    const size_t  bs = (size_t) (2 + qb);
    for (int64_t g = 0; g < nrows / R; ++g) {
        const uint8_t * grp    = (const uint8_t *) src + g * gb;
        const uint8_t * quants = grp + nb * R * 2;
        for (int64_t r = 0; r < R; ++r) {
            uint8_t * row = (uint8_t *) dst + (size_t) (g * R + r) * nb * bs;
            for (int64_t b = 0; b < nb; ++b) {
                std::memcpy(row + b * bs, grp + (b * R + r) * 2, 2);
                uint8_t *       q = row + b * bs + 2;
                const uint8_t * i = quants + b * R * qb + r * 4;
                for (int64_t j = 0; j < qb / 4; ++j)
                    for (int t = 0; t < 4; ++t)
                        q[4 * j + t] = i[j * 64 + t] ^ x;
            }
        }
    }
}

// ---- mul_mat -----------------------------------------------------------------------------------

namespace {

inline size_t align64(size_t n) {
    return (n + 63) / 64 * 64;
}

constexpr int64_t TILE_COLS = 64;  // activation rows per prefill tile (one weight group each)

struct act_sizes {
    int64_t K, nb;  // nb: blocks (super-blocks for Q4_K) per row, the kernels' nb
    size_t  row;    // one prepared activation row
    size_t  stage;  // per thread: F32 row + quantized row
};

act_sizes sizes_of(const ggml_tensor * a) {
    act_sizes s;
    s.K                = a->ne[0];
    const bool    kq   = is_kq(a->type);
    const int64_t nb32 = s.K / 32;  // d and corr are sized for 32-value blocks (>= Q4_K's needs)
    s.nb               = kq ? s.K / QK_SB : nb32;
    s.row              = align64((size_t) s.K) + 2 * align64((size_t) nb32 * 4);
    s.stage            = align64((size_t) s.K * 4) +
              align64(kq ? (size_t) s.nb * sizeof(block_q8_K) : (size_t) nb32 * sizeof(block_q8_0));
    return s;
}

ggml_repack_act act_at(char * base, const act_sizes & s) {
    const size_t    dsz = align64((size_t) s.K / 32 * 4);
    ggml_repack_act a;
    a.qs   = (const int8_t *) base;
    a.d    = (const float *) (base + align64((size_t) s.K));
    a.corr = (const int32_t *) (base + align64((size_t) s.K) + dsz);
    return a;
}

// Activation row (i1, i2, i3) of b -> the kernels' format at dst, with the same quantizer as the
// plain mul_mat path (so both see identical int8 activations).
void prepare_row(const ggml_tensor * a, const ggml_tensor * b, int64_t i1, int64_t i2, int64_t i3, const act_sizes & s,
                 char * stage, char * dst) {
    const char *  src = cpu_ptr(b, 0, i1, i2, i3);
    const float * x   = (const float *) src;
    if (b->type != GGML_TYPE_F32 || b->nb[0] != 4) {
        float * tmp = (float *) stage;
        for (int64_t k = 0; k < s.K; ++k)
            tmp[k] = cpu_load_f(b->type, src + k * b->nb[0]);
        x = tmp;
    }
    void * qrow = stage + align64((size_t) s.K * 4);
    ggml_cpu_get_type_traits(a->type)->from_float(x, qrow, s.K);
    const ggml_repack_act out = act_at(dst, s);
    if (is_kq(a->type)) {
        const block_q8_K * q = (const block_q8_K *) qrow;
        for (int64_t i = 0; i < s.nb; ++i) {
            std::memcpy((int8_t *) out.qs + i * QK_SB, q[i].qs, QK_SB);
            ((float *) out.d)[i] = q[i].d;
            if (a->type == GGML_TYPE_Q6_K) {  // the 16 sums of 16 as they are (int16 pairs)
                std::memcpy((int32_t *) out.corr + i * 8, q[i].bsums, sizeof(q[i].bsums));
                continue;
            }
            int32_t ys[8];
            for (int j = 0; j < 8; ++j)
                ys[j] = q[i].bsums[2 * j] + q[i].bsums[2 * j + 1];
            static const int lo[4] = {0, 1, 4, 5};
            for (int p = 0; p < 4; ++p)
                ((int32_t *) out.corr)[i * 4 + p] =
                    (int32_t) (((uint32_t) (uint16_t) ys[lo[p]]) | ((uint32_t) (uint16_t) ys[lo[p] + 2] << 16));
        }
        return;
    }
    const block_q8_0 * q   = (const block_q8_0 *) qrow;
    const int32_t      off = act_offset(a->type);
    for (int64_t i = 0; i < s.nb; ++i) {
        std::memcpy((int8_t *) out.qs + i * 32, q[i].qs, 32);
        ((float *) out.d)[i] = cpu_f16_to_f32(q[i].d);
        int32_t sum          = 0;
        for (int j = 0; j < 32; ++j)
            sum += q[i].qs[j];
        ((int32_t *) out.corr)[i] = off * sum;
    }
}

ggml_repack_kernel_t kernel_for(ggml_type t) {
    const ggml_repack_kernels * k = ggml_repack_kernels_active();
    return t == GGML_TYPE_Q4_0 ? k->q4_0 : t == GGML_TYPE_Q8_0 ? k->q8_0 : t == GGML_TYPE_Q4_K ? k->q4_K : k->q6_K;
}

size_t gbytes(ggml_type t, const act_sizes & s) {
    return t == GGML_TYPE_Q4_K   ? (size_t) s.nb * K_SB
           : t == GGML_TYPE_Q6_K ? (size_t) s.nb * Q6_SB
                                 : group_bytes(t, s.nb);
}

}  // namespace

size_t ggml_repack_mul_mat_work_size(const ggml_tensor * dst, int nth) {
    const act_sizes s = sizes_of(dst->src[0]);
    return (size_t) cpu_nrows(dst->src[1]) * s.row + (size_t) nth * (s.stage + s.row) + 64;
}

void ggml_repack_mul_mat(const ggml_cpu_params * p, ggml_tensor * dst) {
    const ggml_tensor *        a    = dst->src[0];
    const ggml_tensor *        b    = dst->src[1];
    const act_sizes            s    = sizes_of(a);
    const int64_t              N    = cpu_nrows(b);
    const int64_t              ng   = a->ne[1] / R;
    const size_t               gb   = gbytes(a->type, s);
    const ggml_repack_kernel_t kern = kernel_for(a->type);
    const uint8_t *            w    = (const uint8_t *) a->data;
    char *                     base = (char *) p->wdata;
    char * mine = base + (size_t) N * s.row + (size_t) p->ith * (s.stage + s.row);  // this thread's slot

    if (N == 1) {
        // decode: every thread prepares the one row itself (no barrier) and streams one contiguous
        // slice of groups
        prepare_row(a, b, 0, 0, 0, s, mine, mine + s.stage);
        int64_t g0, g1;
        cpu_split(ng, p->ith, p->nth, g0, g1);
        if (g0 >= g1)
            return;
        const ggml_repack_act y   = act_at(mine + s.stage, s);
        float *               out = (float *) cpu_ptr(dst, 0, 0, 0, 0) + g0 * R;
        kern(s.nb, g1 - g0, w + g0 * gb, gb, 1, &y, &out);
        return;
    }

    int64_t r0, r1;
    cpu_split(N, p->ith, p->nth, r0, r1);
    for (int64_t r = r0; r < r1; ++r) {
        int64_t i1, i2, i3;
        cpu_row_index(b, r, i1, i2, i3);
        prepare_row(a, b, i1, i2, i3, s, mine, base + (size_t) r * s.row);
    }
    ggml_cpu_barrier(p);

    const int64_t   nt   = (N + TILE_COLS - 1) / TILE_COLS;
    const bool      flat = b->ne[2] == 1 && b->ne[3] == 1;
    ggml_repack_act ys[TILE_COLS];
    float *         outs[TILE_COLS];
    // tiles are claimed in runs of consecutive ones (one contended atomic per ~10 us tile showed in
    // profiles), short enough that the last run still balances the threads
    const int64_t n_tiles = ng * nt;
    const int64_t run     = std::max<int64_t>(1, std::min<int64_t>(8, n_tiles / (16 * p->nth)));
    for (int64_t t0 = ggml_cpu_claim(p) * run; t0 < n_tiles; t0 = ggml_cpu_claim(p) * run) {
        for (int64_t t = t0; t < std::min(n_tiles, t0 + run); ++t) {
            const int64_t g = t / nt, c0 = (t % nt) * TILE_COLS, nc = std::min(TILE_COLS, N - c0);
            for (int64_t c = 0; c < nc; ++c) {
                ys[c] = act_at(base + (size_t) (c0 + c) * s.row, s);
                if (flat) {  // a 2-D product (every weight matrix of a model): no index divisions per tile
                    outs[c] = (float *) ((char *) dst->data + (size_t) (c0 + c) * dst->nb[1]) + g * R;
                    continue;
                }
                int64_t i1, i2, i3;
                cpu_row_index(b, c0 + c, i1, i2, i3);
                outs[c] = (float *) cpu_ptr(dst, 0, i1, i2, i3) + g * R;
            }
            kern(s.nb, 1, w + g * gb, gb, (int) nc, ys, outs);
        }
    }
}
