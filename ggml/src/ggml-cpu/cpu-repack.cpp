// The CPU_REPACK layout (see cpu-repack.h): conversion from and to GGUF blocks, the scalar reference
// kernel, the kernel selection, and mul_mat for a packed weight (activation preparation + the split
// of the work across threads).
#include "cpu-repack.h"

#include <algorithm>
#include <cmath>
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

bool cpu_has_vnni() {
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_cpu_supports("avx512vnni");
#else
    return false;
#endif
}

}  // namespace

const ggml_repack_kernels * ggml_repack_kernels_scalar() {
    static const ggml_repack_kernels k = {scalar_q4_0, scalar_q8_0};
    return &k;
}

const ggml_repack_kernels * ggml_repack_kernels_active() {
    const int level = ggml_cpu_mm_isa_level();
#if defined(__x86_64__) || defined(__i386__)
    static const bool vnni = cpu_has_vnni();
    if (level >= 2 && vnni)
        return ggml_repack_kernels_avx512();
    if (level >= 1)
        return ggml_repack_kernels_avx2();
#endif
    (void) level;
    return ggml_repack_kernels_scalar();
}

bool ggml_repack_supports_tensor(const ggml_tensor * t) {
    if (t->type != GGML_TYPE_Q4_0 && t->type != GGML_TYPE_Q8_0)
        return false;
    return t->ne[2] == 1 && t->ne[3] == 1 && t->ne[1] % R == 0 && t->ne[0] % 32 == 0 && t->ne[0] > 0 &&
           ggml_is_contiguous(t);
}

void ggml_repack_pack(ggml_type type, int64_t K, int64_t nrows, const void * src, void * dst) {
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
    int64_t K, nb;
    size_t  row;    // one prepared activation row
    size_t  stage;  // per thread: F32 row + Q8_0 row
};

act_sizes sizes_of(const ggml_tensor * a) {
    act_sizes s;
    s.K     = a->ne[0];
    s.nb    = s.K / 32;
    s.row   = align64((size_t) s.nb * 32) + 2 * align64((size_t) s.nb * 4);
    s.stage = align64((size_t) s.K * 4) + align64((size_t) s.nb * sizeof(block_q8_0));
    return s;
}

ggml_repack_act act_at(char * base, const act_sizes & s) {
    ggml_repack_act a;
    a.qs   = (const int8_t *) base;
    a.d    = (const float *) (base + align64((size_t) s.nb * 32));
    a.corr = (const int32_t *) (base + align64((size_t) s.nb * 32) + align64((size_t) s.nb * 4));
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
    block_q8_0 * q = (block_q8_0 *) (stage + align64((size_t) s.K * 4));
    ggml_cpu_get_type_traits(a->type)->from_float(x, q, s.K);
    const ggml_repack_act out = act_at(dst, s);
    const int32_t         off = act_offset(a->type);
    for (int64_t i = 0; i < s.nb; ++i) {
        std::memcpy((int8_t *) out.qs + i * 32, q[i].qs, 32);
        ((float *) out.d)[i] = cpu_f16_to_f32(q[i].d);
        int32_t sum          = 0;
        for (int j = 0; j < 32; ++j)
            sum += q[i].qs[j];
        ((int32_t *) out.corr)[i] = off * sum;
    }
}

}  // namespace

size_t ggml_repack_mul_mat_work_size(const ggml_tensor * dst, int nth) {
    const act_sizes s = sizes_of(dst->src[0]);
    return (size_t) cpu_nrows(dst->src[1]) * s.row + (size_t) nth * (s.stage + s.row) + 64;
}

void ggml_repack_mul_mat(const ggml_cpu_params * p, ggml_tensor * dst) {
    const ggml_tensor *        a  = dst->src[0];
    const ggml_tensor *        b  = dst->src[1];
    const act_sizes            s  = sizes_of(a);
    const int64_t              N  = cpu_nrows(b);
    const int64_t              ng = a->ne[1] / R;
    const size_t               gb = group_bytes(a->type, s.nb);
    const ggml_repack_kernel_t kern =
        a->type == GGML_TYPE_Q4_0 ? ggml_repack_kernels_active()->q4_0 : ggml_repack_kernels_active()->q8_0;
    const uint8_t * w    = (const uint8_t *) a->data;
    char *          base = (char *) p->wdata;
    char *          mine = base + (size_t) N * s.row + (size_t) p->ith * (s.stage + s.row);  // this thread's slot

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

    const int64_t   nt = (N + TILE_COLS - 1) / TILE_COLS;
    ggml_repack_act ys[TILE_COLS];
    float *         outs[TILE_COLS];
    for (int64_t t = p->ith; t < ng * nt; t += p->nth) {
        const int64_t g = t / nt, c0 = (t % nt) * TILE_COLS, nc = std::min(TILE_COLS, N - c0);
        for (int64_t c = 0; c < nc; ++c) {
            int64_t i1, i2, i3;
            cpu_row_index(b, c0 + c, i1, i2, i3);
            ys[c]   = act_at(base + (size_t) (c0 + c) * s.row, s);
            outs[c] = (float *) cpu_ptr(dst, 0, i1, i2, i3) + g * R;
        }
        kern(s.nb, 1, w + g * gb, gb, (int) nc, ys, outs);
    }
}
