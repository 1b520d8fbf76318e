// i8mm build of the arm64 quant kernels: the dotprod level's table (inherited) plus SMMLA GEMMs for
// the K-quant matrices in the plain GGUF layout: Q2_K, Q3_K, Q5_K (the main types of Q2_K, Q3_K_M and
// Q5_K_M files) and the Q4_K / Q6_K matrices that CPU_REPACK does not take. SMMLA multiplies 2 weight rows x 8 bytes by
// 2 activation rows x 8 bytes into a 2 x 2 int32 block, 32 multiply-adds per instruction against SDOT's 16.
//
// Bits: per (row, column) and super-block the kernel forms the same exact integers as the vec_dot
// (sub-block dots times their scales, the mins against the bsums) and applies the same float update
// in the same block order, so the GEMM, the vec_dot and the GEMV agree bit for bit.
#include "quants-arm-kernels.h"

#if !defined(__ARM_FEATURE_MATMUL_INT8)
#    error "quants-arm.i8mm.cpp must be compiled with +i8mm (cmake/LlamaCpuArch.cmake)"
#endif

namespace {

// Activations are interleaved per column pair into SMMLA's operand order (16 bytes per 8 values:
// column a's 8, then column b's) in chunks of MM_CH super-blocks: 2 pairs x 16 x 512 bytes = 16 KiB
// on the stack whatever the row length, shared by every weight row pair of the chunk.
constexpr int MM_CH = 16;

inline void interleave_pair(const block_q8_K * a, const block_q8_K * b, int ib0, int nsb, int8_t * dst) {
    for (int i = 0; i < nsb; i++) {
        for (int k = 0; k < QK_K; k += 16) {
            const int64x2_t va = vreinterpretq_s64_s8(vld1q_s8(a[ib0 + i].qs + k));
            const int64x2_t vb = vreinterpretq_s64_s8(vld1q_s8(b[ib0 + i].qs + k));
            int8_t *        d  = dst + 2 * (i * QK_K + k);
            vst1q_s8(d, vreinterpretq_s8_s64(vzip1q_s64(va, vb)));
            vst1q_s8(d + 16, vreinterpretq_s8_s64(vzip2q_s64(va, vb)));
        }
    }
}

inline int8x16_t rows_lo(int8x16_t a, int8x16_t b) {  // bytes 0-7 of rows a and b: an SMMLA operand
    return vreinterpretq_s8_s64(vzip1q_s64(vreinterpretq_s64_s8(a), vreinterpretq_s64_s8(b)));
}
inline int8x16_t rows_hi(int8x16_t a, int8x16_t b) {  // bytes 8-15
    return vreinterpretq_s8_s64(vzip2q_s64(vreinterpretq_s64_s8(a), vreinterpretq_s64_s8(b)));
}

// sum over one sub-block of 32: 4 SMMLAs over the row pair's operands w[0..3] and the pair's activations
inline int32x4_t mm32(const int8x16_t * w, const int8_t * yp) {
    int32x4_t m = vmmlaq_s32(vdupq_n_s32(0), w[0], vld1q_s8(yp));
    m           = vmmlaq_s32(m, w[1], vld1q_s8(yp + 16));
    m           = vmmlaq_s32(m, w[2], vld1q_s8(yp + 32));
    return vmmlaq_s32(m, w[3], vld1q_s8(yp + 48));
}

// Weight rows x0, x1 against NCP column pairs over super-blocks [ib0, ib0 + nsb). sum[p][2r + c] is
// the running float sum of row r against column 2p + c (y[2p + c]); lanes of the int32 blocks are
// (r0 c0, r0 c1, r1 c0, r1 c1), the sub-block scales are laid out the same way (sc_r0, sc_r0, sc_r1, sc_r1).
template <class DEC, int NCP>
struct k4_mm {
    static void run(const typename DEC::block * x0, const typename DEC::block * x1, int ib0, int nsb,
                    const int8_t * const * yi, const block_q8_K * const * y, float (&sum)[NCP][4]) {
        DEC d0, d1;
        for (int i = 0; i < nsb; i++) {
            const int ib = ib0 + i;
            uint8_t   sc[2][8], mn[2][8];
            unpack_scales_mins_k4(x0[ib].scales, sc[0], mn[0]);
            unpack_scales_mins_k4(x1[ib].scales, sc[1], mn[1]);
            d0.start(x0[ib]);
            d1.start(x1[ib]);
            int32x4_t acc[NCP];
            for (auto & a : acc)
                a = vdupq_n_s32(0);
            for (int c = 0; c < 4; c++) {
                const k4_pair_w a = d0.next(x0[ib], c), b = d1.next(x1[ib], c);
                const int8x16_t wl[4] = {rows_lo(a.l0, b.l0), rows_hi(a.l0, b.l0), rows_lo(a.l1, b.l1),
                                         rows_hi(a.l1, b.l1)};
                const int8x16_t wh[4] = {rows_lo(a.h0, b.h0), rows_hi(a.h0, b.h0), rows_lo(a.h1, b.h1),
                                         rows_hi(a.h1, b.h1)};
                const int32x4_t sl    = vcombine_s32(vdup_n_s32(sc[0][2 * c]), vdup_n_s32(sc[1][2 * c]));
                const int32x4_t sh    = vcombine_s32(vdup_n_s32(sc[0][2 * c + 1]), vdup_n_s32(sc[1][2 * c + 1]));
                for (int p = 0; p < NCP; p++) {
                    const int8_t * yp = yi[p] + 2 * (i * QK_K + 64 * c);
                    acc[p]            = vmlaq_s32(vmlaq_s32(acc[p], mm32(wl, yp), sl), mm32(wh, yp + 64), sh);
                }
            }
            const float d[2]    = {fp16_to_f32(x0[ib].d), fp16_to_f32(x1[ib].d)};
            const float dmin[2] = {fp16_to_f32(x0[ib].dmin), fp16_to_f32(x1[ib].dmin)};
            for (int p = 0; p < NCP; p++) {
                int32_t si[4];
                vst1q_s32(si, acc[p]);
                for (int r = 0; r < 2; r++) {
                    for (int c = 0; c < 2; c++) {
                        const block_q8_K & yb   = y[2 * p + c][ib];
                        const int          summ = mins_dot_bsums(mn[r], yb.bsums);
                        sum[p][2 * r + c] += yb.d * (d[r] * (float) si[2 * r + c] - dmin[r] * (float) summ);
                    }
                }
            }
        }
    }
};

// The same for q2_K / q3_K, whose scales belong to sub-blocks of 16 (two SMMLAs each).
template <class DEC, int NCP>
struct k2_mm {
    static void run(const typename DEC::block * x0, const typename DEC::block * x1, int ib0, int nsb,
                    const int8_t * const * yi, const block_q8_K * const * y, float (&sum)[NCP][4]) {
        DEC d0, d1;
        for (int i = 0; i < nsb; i++) {
            const int ib = ib0 + i;
            d0.start(x0[ib]);
            d1.start(x1[ib]);
            int32x4_t acc[NCP];
            for (auto & a : acc)
                a = vdupq_n_s32(0);
            for (int g = 0; g < 8; g++) {
                const k2_group_w a = d0.next(x0[ib], g), b = d1.next(x1[ib], g);
                const int8x16_t  w0l = rows_lo(a.w0, b.w0), w0h = rows_hi(a.w0, b.w0);
                const int8x16_t  w1l = rows_lo(a.w1, b.w1), w1h = rows_hi(a.w1, b.w1);
                const int32x4_t  s0 = vcombine_s32(vdup_n_s32(a.s0), vdup_n_s32(b.s0));
                const int32x4_t  s1 = vcombine_s32(vdup_n_s32(a.s1), vdup_n_s32(b.s1));
                for (int p = 0; p < NCP; p++) {
                    const int8_t * yp = yi[p] + 2 * (i * QK_K + 32 * g);
                    int32x4_t      m0 = vmmlaq_s32(vdupq_n_s32(0), w0l, vld1q_s8(yp));
                    m0                = vmmlaq_s32(m0, w0h, vld1q_s8(yp + 16));
                    int32x4_t m1      = vmmlaq_s32(vdupq_n_s32(0), w1l, vld1q_s8(yp + 32));
                    m1                = vmmlaq_s32(m1, w1h, vld1q_s8(yp + 48));
                    acc[p]            = vmlaq_s32(vmlaq_s32(acc[p], m0, s0), m1, s1);
                }
            }
            for (int p = 0; p < NCP; p++) {
                int32_t si[4];
                vst1q_s32(si, acc[p]);
                for (int q = 0; q < 4; q++)
                    DEC::fold1(sum[p][q], q < 2 ? x0[ib] : x1[ib], y[2 * p + q % 2][ib], si[q]);
            }
        }
    }
};

// The GEMM: columns in groups of 4 (two pairs) or 2, weight rows in pairs, the row length in chunks of
// MM_CH super-blocks whose partial sums wait in out; an odd last row and an odd last column go through
// the one-row kernels of quants-arm-kernels.h (the same integers, so the same bits).
template <class DEC, template <class, int> class MM, template <int> class KQ>
void gemm_mm(int n, int nrows, const void * w, size_t w_row_stride, int ncols, const void * const * y,
             float * const * out) {
    typedef typename DEC::block block;
    const int                   nb = n / QK_K;
    alignas(16) int8_t          buf[2][MM_CH * QK_K * 2];
    const int8_t *              yi[2] = {buf[0], buf[1]};
    int                         c0    = 0;
    while (ncols - c0 >= 2) {
        const int          ncp = ncols - c0 >= 4 ? 2 : 1;
        const block_q8_K * yc[4];
        for (int j = 0; j < 2 * ncp; j++)
            yc[j] = (const block_q8_K *) y[c0 + j];
        for (int ib0 = 0; ib0 < nb; ib0 += MM_CH) {
            const int nsb = nb - ib0 < MM_CH ? nb - ib0 : MM_CH;
            for (int p = 0; p < ncp; p++)
                interleave_pair(yc[2 * p], yc[2 * p + 1], ib0, nsb, buf[p]);
            for (int r = 0; r + 2 <= nrows; r += 2) {
                const block * x0 = (const block *) ((const char *) w + (size_t) r * w_row_stride);
                const block * x1 = (const block *) ((const char *) w + (size_t) (r + 1) * w_row_stride);
                float         s[2][4];
                for (int p = 0; p < ncp; p++)
                    for (int q = 0; q < 4; q++)
                        s[p][q] = ib0 == 0 ? 0.0f : out[c0 + 2 * p + q % 2][r + q / 2];
                if (ncp == 2) {
                    MM<DEC, 2>::run(x0, x1, ib0, nsb, yi, yc, s);
                } else {
                    float s1[1][4] = {{s[0][0], s[0][1], s[0][2], s[0][3]}};
                    MM<DEC, 1>::run(x0, x1, ib0, nsb, yi, yc, s1);
                    for (int q = 0; q < 4; q++)
                        s[0][q] = s1[0][q];
                }
                for (int p = 0; p < ncp; p++)
                    for (int q = 0; q < 4; q++)
                        out[c0 + 2 * p + q % 2][r + q / 2] = s[p][q];
            }
        }
        if (nrows % 2) {
            const int    r = nrows - 1;
            float *      o[4];
            const void * x = (const char *) w + (size_t) r * w_row_stride;
            for (int j = 0; j < 2 * ncp; j++)
                o[j] = out[c0 + j] + r;
            if (ncp == 2)
                kq_rows<KQ, 4>(n, 1, x, w_row_stride, yc, o);
            else
                kq_rows<KQ, 2>(n, 1, x, w_row_stride, yc, o);
        }
        c0 += 2 * ncp;
    }
    if (c0 < ncols) {
        const block_q8_K * yc[1] = {(const block_q8_K *) y[c0]};
        kq_rows<KQ, 1>(n, nrows, w, w_row_stride, yc, out + c0);
    }
}

}  // namespace

void ggml_cpu_quants_fill_i8mm(ggml_cpu_type_traits * t) {
    t[GGML_TYPE_Q2_K].gemm = gemm_mm<q2_K_dec, k2_mm, kq_q2_K>;
    t[GGML_TYPE_Q3_K].gemm = gemm_mm<q3_K_dec, k2_mm, kq_q3_K>;
    t[GGML_TYPE_Q4_K].gemm = gemm_mm<q4_K_dec, k4_mm, kq_q4_K>;
    t[GGML_TYPE_Q5_K].gemm = gemm_mm<q5_K_dec, k4_mm, kq_q5_K>;
}
