// CPU_REPACK kernels for AVX2 + AVX-VNNI (vpdpbusd / vpdpwssd on ymm: Intel Alder Lake and later, AMD
// Zen 5; see cpu-repack.h for the layout). The AVX-512 VNNI kernels' scheme on two ymm per 64-byte
// quant vector (rows 0-7, rows 8-15): one pass per block / super-block with both halves in flight,
// vpdpbusd against 4 broadcast activation bytes, so a block needs no int16 stage and no horizontal
// reduction; the high nibbles are masked in place (16 x the value) and the exact sum shifted back.
// Compiled with -mavxvnni: call only after ggml_repack_kernels_avxvnni() said the CPU has it.
#include <immintrin.h>

#include "cpu-features.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "cpu-repack-x86-ymm.h"

namespace {

constexpr int NC_MAX = 2;  // 16 ymm registers: two activation rows x two halves keep the sums in registers
// An empty asm that GCC must assume changes v: the 32 quant bytes are loaded once, not folded into both
// the low- and the high-nibble vpand (two loads of each line).
inline void one_load(__m256i & v) {
    __asm__("" : "+x"(v));
}

inline __m256i dpbusd(__m256i acc, __m256i u8, __m256i s8) {
    return _mm256_dpbusd_avx_epi32(acc, u8, s8);
}

struct AvxVnni {
    static __m256i dot_i16(__m256i acc, __m256i a, __m256i b) { return _mm256_dpwssd_avx_epi32(acc, a, b); }
};

template <int NC>
void q4_0_group(int64_t nb, const uint8_t * grp, const ggml_repack_act * y, float * const * out, int64_t row0) {
    const uint16_t * scales = (const uint16_t *) grp;
    const uint8_t *  quants = grp + nb * GGML_REPACK_ROWS * 2;
    const __m256i    m4     = _mm256_set1_epi8(0x0F);
    const __m256i    mh     = _mm256_set1_epi8((char) 0xF0);
    ymm_acc<NC>      acc;
    for (int64_t b = 0; b < nb; ++b) {
        const uint8_t * q = quants + b * 256;
        prefetch_block<NC>(q, 4, PF_DIST_Q4_0);
        __m256i s0[NC][2], s1[NC][2];
        for (int c = 0; c < NC; ++c)
            s0[c][0] = s0[c][1] = s1[c][0] = s1[c][1] = _mm256_setzero_si256();
        for (int j = 0; j < 4; ++j) {
            __m256i lo[2], hi[2];
            for (int h = 0; h < 2; ++h) {
                __m256i v = _mm256_loadu_si256((const __m256i *) (q + 64 * j + 32 * h));
                one_load(v);
                lo[h] = _mm256_and_si256(v, m4);
                hi[h] = _mm256_and_si256(v, mh);  // 16 x the high nibble: no shift per vector
            }
            for (int c = 0; c < NC; ++c) {
                const int32_t * yq = (const int32_t *) (y[c].qs + b * 32);
                const __m256i   yl = _mm256_set1_epi32(yq[j]), yh = _mm256_set1_epi32(yq[4 + j]);
                for (int h = 0; h < 2; ++h) {
                    s0[c][h] = dpbusd(s0[c][h], lo[h], yl);
                    s1[c][h] = dpbusd(s1[c][h], hi[h], yh);
                }
            }
        }
        __m256 dw[2];
        load_scales16(scales + b * 16, dw);
        for (int c = 0; c < NC; ++c) {
            const __m256i corr = _mm256_set1_epi32(y[c].corr[b]);
            const __m256  dy   = _mm256_set1_ps(y[c].d[b]);
            for (int h = 0; h < 2; ++h) {
                // s1 is a multiple of 16: the shift is exact
                const __m256i s = _mm256_sub_epi32(_mm256_add_epi32(s0[c][h], _mm256_srai_epi32(s1[c][h], 4)), corr);
                acc.v[c][h]     = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_mul_ps(dw[h], dy), acc.v[c][h]);
            }
        }
    }
    acc.store(out, row0);
}

template <int NC>
void q8_0_group(int64_t nb, const uint8_t * grp, const ggml_repack_act * y, float * const * out, int64_t row0) {
    const uint16_t * scales = (const uint16_t *) grp;
    const uint8_t *  quants = grp + nb * GGML_REPACK_ROWS * 2;
    ymm_acc<NC>      acc;
    for (int64_t b = 0; b < nb; ++b) {
        const uint8_t * q = quants + b * 512;
        prefetch_block<NC>(q, 8, PF_DIST_Q8_0);
        // two chains per half (even / odd loads): the vpdpbusd latency, not the ports, bounds one chain
        __m256i s[NC][2][2];
        for (int c = 0; c < NC; ++c)
            s[c][0][0] = s[c][0][1] = s[c][1][0] = s[c][1][1] = _mm256_setzero_si256();
        for (int j = 0; j < 8; ++j) {
            const __m256i v0 = _mm256_loadu_si256((const __m256i *) (q + 64 * j));
            const __m256i v1 = _mm256_loadu_si256((const __m256i *) (q + 64 * j + 32));
            for (int c = 0; c < NC; ++c) {
                const __m256i yj = _mm256_set1_epi32(((const int32_t *) (y[c].qs + b * 32))[j]);
                s[c][0][j % 2]   = dpbusd(s[c][0][j % 2], v0, yj);
                s[c][1][j % 2]   = dpbusd(s[c][1][j % 2], v1, yj);
            }
        }
        __m256 dw[2];
        load_scales16(scales + b * 16, dw);
        for (int c = 0; c < NC; ++c) {
            const __m256i corr = _mm256_set1_epi32(y[c].corr[b]);  // 128 * sum(y): the weights' offset
            const __m256  dy   = _mm256_set1_ps(y[c].d[b]);
            for (int h = 0; h < 2; ++h) {
                const __m256i t = _mm256_sub_epi32(_mm256_add_epi32(s[c][h][0], s[c][h][1]), corr);
                acc.v[c][h]     = _mm256_fmadd_ps(_mm256_cvtepi32_ps(t), _mm256_mul_ps(dw[h], dy), acc.v[c][h]);
            }
        }
    }
    acc.store(out, row0);
}

// Q4_K: the 16 rows' scales and mins are unpacked once per super-block (vector shifts), each sub-block's
// dot is 8 vpdpbusd per half, scaled by vpmulld; the mins term is 4 vpdpwssd per half against the
// activation's sub-block sum pairs.
template <int NC>
void q4_K_group(int64_t nb, const uint8_t * grp, const ggml_repack_act * y, float * const * out, int64_t row0) {
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    const __m256i mh = _mm256_set1_epi8((char) 0xF0);
    const __m256i mb = _mm256_set1_epi32(0xff);
    ymm_acc<NC>   acc;
    for (int64_t b = 0; b < nb; ++b) {
        const uint8_t * sb = grp + b * 2304;
        const uint8_t * q  = sb + 256;
        // per half: the scales (bytes 0-3: sub-blocks 0-3, 4-7) and the mins as int16 pairs
        __m256i S03[2], S47[2], MP[2][4];
        for (int h = 0; h < 2; ++h)
            q4k_scales_mins(sb, h, S03[h], S47[h], MP[h]);
        __m256i isum[NC][2];
        for (int c = 0; c < NC; ++c)
            isum[c][0] = isum[c][1] = _mm256_setzero_si256();
        for (int k = 0; k < 4; ++k) {
            __m256i dl[NC][2], dh[NC][2];
            for (int c = 0; c < NC; ++c)
                dl[c][0] = dl[c][1] = dh[c][0] = dh[c][1] = _mm256_setzero_si256();
            for (int jj = 0; jj < 8; ++jj) {
                q4k_prefetch<NC>(sb, k, jj);
                const uint8_t * qj = q + (8 * k + jj) * 64;
                __m256i         lo[2], hi[2];
                for (int h = 0; h < 2; ++h) {
                    const __m256i v = _mm256_loadu_si256((const __m256i *) (qj + 32 * h));
                    lo[h]           = _mm256_and_si256(v, m4);
                    hi[h]           = _mm256_and_si256(v, mh);  // 16 x the value, shifted back per sub-block
                }
                for (int c = 0; c < NC; ++c) {
                    const int32_t * yq = (const int32_t *) (y[c].qs + b * 256 + 64 * k);
                    const __m256i   yl = _mm256_set1_epi32(yq[jj]), yh = _mm256_set1_epi32(yq[8 + jj]);
                    for (int h = 0; h < 2; ++h) {
                        dl[c][h] = dpbusd(dl[c][h], lo[h], yl);
                        dh[c][h] = dpbusd(dh[c][h], hi[h], yh);
                    }
                }
            }
            for (int h = 0; h < 2; ++h) {
                const __m256i S  = k < 2 ? S03[h] : S47[h];
                const __m256i sl = _mm256_and_si256(_mm256_srli_epi32(S, 16 * (k % 2)), mb);
                const __m256i sh = _mm256_and_si256(_mm256_srli_epi32(S, 16 * (k % 2) + 8), mb);
                for (int c = 0; c < NC; ++c)
                    isum[c][h] = _mm256_add_epi32(
                        isum[c][h], _mm256_add_epi32(_mm256_mullo_epi32(dl[c][h], sl),
                                                     _mm256_mullo_epi32(_mm256_srai_epi32(dh[c][h], 4), sh)));
            }
        }
        q4k_finish<AvxVnni, NC>(sb, b, MP, isum, y, acc);
    }
    acc.store(out, row0);
}

// Q6_K: one ql and one qh load per half give the 6-bit values (0..63) of two 4-value groups; vpdpbusd
// per 4 values, vpmulld by the sign-extended sub-block scale, the -32 offset as one vpdpwssd per scale
// pair against the activation's 16-value sums.
template <int NC>
void q6_K_group(int64_t nb, const uint8_t * grp, const ggml_repack_act * y, float * const * out, int64_t row0) {
    ymm_acc<NC> acc;
    for (int64_t b = 0; b < nb; ++b) {
        const uint8_t * sb = grp + b * 3360;
        const uint8_t * ql = sb + 288;
        const uint8_t * qh = sb + 2336;
        __m256i         isum[NC][2];
        for (int c = 0; c < NC; ++c)
            isum[c][0] = isum[c][1] = _mm256_setzero_si256();
        for (int n = 0; n < 2; ++n) {
            for (int h = 0; h < 2; ++h) {
#pragma GCC unroll 2
                for (int sub = 0; sub < 2; ++sub) {
                    __m256i dl[NC][2], dh[NC][2];
                    for (int c = 0; c < NC; ++c)
                        dl[c][0] = dl[c][1] = dh[c][0] = dh[c][1] = _mm256_setzero_si256();
#pragma GCC unroll 4
                    for (int m = 4 * sub; m < 4 * sub + 4; ++m) {
                        // super-block b + 2 (53 lines), 2 lines per step: one stream in address order
                        const int line = 2 * (16 * n + 8 * h + m);
                        prefetch_q6k_lines(sb, line, NC == 1);
                        __m256i vl[2], vh[2];
                        q6k_values(ql, qh, n, h, m, vl, vh);
                        for (int c = 0; c < NC; ++c) {
                            const int32_t * yq = (const int32_t *) (y[c].qs + b * 256 + 128 * n + 32 * h) + m;
                            const __m256i   yl = _mm256_set1_epi32(yq[0]), yh = _mm256_set1_epi32(yq[16]);
                            for (int hf = 0; hf < 2; ++hf) {
                                dl[c][hf] = dpbusd(dl[c][hf], vl[hf], yl);
                                dh[c][hf] = dpbusd(dh[c][hf], vh[hf], yh);
                            }
                        }
                    }
                    for (int hf = 0; hf < 2; ++hf) {
                        // scale pairs p = 4n + h (low values) and 4n + h + 2 (high values), int16 per row
                        const __m256i pl2 = q6k_scale_pair(sb, 4 * n + h, hf);
                        const __m256i ph2 = q6k_scale_pair(sb, 4 * n + h + 2, hf);
                        const __m256i sl =
                            sub == 0 ? _mm256_srai_epi32(_mm256_slli_epi32(pl2, 16), 16) : _mm256_srai_epi32(pl2, 16);
                        const __m256i sh =
                            sub == 0 ? _mm256_srai_epi32(_mm256_slli_epi32(ph2, 16), 16) : _mm256_srai_epi32(ph2, 16);
                        for (int c = 0; c < NC; ++c)
                            isum[c][hf] = _mm256_add_epi32(
                                isum[c][hf],
                                _mm256_add_epi32(_mm256_mullo_epi32(dl[c][hf], sl), _mm256_mullo_epi32(dh[c][hf], sh)));
                    }
                }
            }
        }
        q6k_finish<AvxVnni, NC>(sb, b, isum, y, acc);
    }
    acc.store(out, row0);
}

GGML_REPACK_X86_KERNEL(k_q4_0, q4_0_group, 0)
GGML_REPACK_X86_KERNEL(k_q8_0, q8_0_group, 0)
GGML_REPACK_X86_KERNEL(k_q4_K, q4_K_group, PF_Q4K)
GGML_REPACK_X86_KERNEL(k_q6_K, q6_K_group, PF_Q6K)

// Off by GGML_CPU_REPACK_AVXVNNI=0 (benchmarks of the plain AVX2 kernels) or ggml_cpu_repack_set_avxvnni.
std::atomic<int> g_enabled{-1};  // -1: not yet read from the environment

}  // namespace

extern "C" void ggml_cpu_repack_set_avxvnni(int enable) {
    g_enabled.store(enable ? 1 : 0, std::memory_order_relaxed);
}

const ggml_repack_kernels * ggml_repack_kernels_avxvnni() {
    static const bool has = ggml_cpu_x86_has_avxvnni();
    int               en  = g_enabled.load(std::memory_order_relaxed);
    if (en < 0) {
        const char * e = std::getenv("GGML_CPU_REPACK_AVXVNNI");
        en             = e && std::strcmp(e, "0") == 0 ? 0 : 1;
        g_enabled.store(en, std::memory_order_relaxed);
    }
    static const ggml_repack_kernels k = {k_q4_0, k_q8_0, k_q4_K, k_q6_K};
    return has && en ? &k : nullptr;
}
