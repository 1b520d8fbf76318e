// The CUDA mat-vec path's integer block dot products (ggml/src/ggml-cuda/vecdotq.cuh), compiled here as
// plain C++ with an emulated __dp4a, against the CPU reference:
//  - the activation quantizer must write exactly the blocks of quantize_row_q8_1_ref;
//  - for every covered weight type, the sum of the per-thread shares over a row must equal the CPU's
//    scalar vec_dot (q4_0/q5_0/q8_0 against q8_0 activations, q4_1/q5_1 against q8_1) and the double
//    precision dot of the dequantized weights (dequantize_row_*) with the dequantized activations, to
//    float rounding.
// The device runs the same functions (a real __dp4a, 128-bit loads), so this proves the unpacking, the
// scales and the thread split of each type without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "ggml-cuda/vecdotq.cuh"

namespace {

using namespace ggml_cuda_vdq;

// Activations of several kinds (gaussian, wide dynamic range, a zero block, a block with exact ties).
std::vector<float> random_activations(int64_t n, uint32_t seed) {
    std::mt19937                    rng(seed);
    std::normal_distribution<float> g(0.0f, 1.0f);
    std::vector<float>              x(n);
    for (int64_t i = 0; i < n; i++) {
        const int64_t blk = i / 32;
        if (blk % 7 == 3) {
            x[i] = 0.0f;
        } else if (blk % 7 == 5) {
            x[i] = (float) ((int) (i % 9) - 4) * 0.5f;  // codes at x * 127 / 2: rounding ties
        } else {
            x[i] = g(rng) * std::exp2((float) (blk % 11) - 5.0f);
        }
    }
    return x;
}

void set_f16(ggml_fp16_t & h, std::mt19937 & rng) {
    std::uniform_real_distribution<float> e(-10.0f, 4.0f);
    h = ggml_fp32_to_fp16(std::exp2(e(rng)) * ((rng() & 1) ? -1.0f : 1.0f));
}

template <ggml_type T>
std::vector<typename vdq<T>::block> random_weights(int64_t nblocks, uint32_t seed) {
    using B = typename vdq<T>::block;
    std::mt19937   rng(seed);
    std::vector<B> v(nblocks);
    auto *         p = reinterpret_cast<uint8_t *>(v.data());
    for (size_t i = 0; i < v.size() * sizeof(B); i++) {
        p[i] = (uint8_t) (rng() & 0xFF);
    }
    for (auto & b : v) {
        set_f16(b.d, rng);
        if constexpr (T == GGML_TYPE_Q4_1 || T == GGML_TYPE_Q5_1) {
            set_f16(b.m, rng);
        } else if constexpr (T == GGML_TYPE_Q4_K || T == GGML_TYPE_Q5_K) {
            set_f16(b.dmin, rng);
        }
    }
    return v;
}

// Magnitude of the terms of a dot product that float rounding scales with: sum |w_e * y_e| plus, for the
// types with a min, sum |min_e * y_e| (the kernels subtract the min term as a whole, so it may cancel).
template <ggml_type T>
double min_term(const typename vdq<T>::block & b, int e) {
    if constexpr (T == GGML_TYPE_Q4_1 || T == GGML_TYPE_Q5_1) {
        return std::fabs(ggml_fp16_to_fp32(b.m));
    } else if constexpr (T == GGML_TYPE_Q4_K || T == GGML_TYPE_Q5_K) {
        uint8_t sc, m;
        ggml_get_scale_min_k4(e / 32, b.scales, &sc, &m);
        return std::fabs(ggml_fp16_to_fp32(b.dmin)) * m;
    } else {
        (void) b;
        (void) e;
        return 0.0;
    }
}

// The row dot product as the device computes it: every weight block, every thread's share.
template <ggml_type T>
float vdq_row(const typename vdq<T>::block * w, const block_q8_1 * y, int64_t nblocks) {
    float acc = 0.0f;
    for (int64_t kb = 0; kb < nblocks; kb++) {
        for (int i = 0; i < vdq<T>::tpb; i++) {
            acc += vdq<T>::dot(w[kb], y + kb * (vdq<T>::qk / QK8_1), i);
        }
    }
    return acc;
}

// CPU vec_dot of the same row (q8_1 activations recast to q8_0 where the CPU pairs the type with q8_0:
// the d and the codes are the same numbers); nullptr where the CPU pairs the type with q8_K.
template <ggml_type T>
bool cpu_vec_dot(const void * w, const std::vector<block_q8_1> & y, int n, float * s) {
    std::vector<block_q8_0> y0(y.size());
    for (size_t i = 0; i < y.size(); i++) {
        y0[i].d = y[i].d;
        std::memcpy(y0[i].qs, y[i].qs, QK8_0);
    }
    switch (T) {
        case GGML_TYPE_Q4_0:
            ggml_vec_dot_q4_0_q8_0_ref(n, s, w, y0.data());
            return true;
        case GGML_TYPE_Q5_0:
            ggml_vec_dot_q5_0_q8_0_ref(n, s, w, y0.data());
            return true;
        case GGML_TYPE_Q8_0:
            ggml_vec_dot_q8_0_q8_0_ref(n, s, w, y0.data());
            return true;
        case GGML_TYPE_Q4_1:
            ggml_vec_dot_q4_1_q8_1_ref(n, s, w, y.data());
            return true;
        case GGML_TYPE_Q5_1:
            ggml_vec_dot_q5_1_q8_1_ref(n, s, w, y.data());
            return true;
        default:
            return false;
    }
}

template <ggml_type T, typename DequantFn>
void check_type(DequantFn dequant_w, uint32_t seed) {
    using B                       = typename vdq<T>::block;
    constexpr int      qk         = vdq<T>::qk;
    const int64_t      row_blocks = 4096 / qk;  // one row of 4096 elements
    const int          nrows      = 48;
    std::vector<B>     w          = random_weights<T>(row_blocks * nrows, seed);
    std::vector<float> wf(w.size() * qk);
    dequant_w(w.data(), wf.data(), (int64_t) wf.size());

    int bad = 0, bad_cpu = 0;
    for (int r = 0; r < nrows; r++) {
        // single blocks for the first rows (no averaging of errors), whole rows after
        const int64_t           nb = r < 16 ? 1 : row_blocks;
        const int64_t           n  = nb * qk;
        std::vector<float>      x  = random_activations(n, seed * 131 + r);
        std::vector<block_q8_1> y(n / QK8_1);
        quantize_row_q8_1_ref(x.data(), y.data(), n);
        std::vector<float> yf(n);
        dequantize_row_q8_1(y.data(), yf.data(), n);

        const B *     wr  = w.data() + r * row_blocks;
        const float * wfr = wf.data() + r * row_blocks * qk;
        double        ref = 0.0, mag = 0.0;
        for (int64_t e = 0; e < n; e++) {
            ref += (double) wfr[e] * yf[e];
            mag += std::fabs((double) wfr[e] * yf[e]) + min_term<T>(wr[e / qk], (int) (e % qk)) * std::fabs(yf[e]);
        }
        const float got = vdq_row<T>(wr, y.data(), nb);
        // the q4_1 / q5_1 min term uses the fp16 s of the activations (as the CPU does), off by up to 2^-11
        const bool   fp16_s = T == GGML_TYPE_Q4_1 || T == GGML_TYPE_Q5_1;
        const double tol    = (fp16_s ? 1e-3 : 1e-5) * mag + 1e-30;
        if (!(std::fabs(got - ref) <= tol)) {
            if (bad++ < 3) {
                ADD_FAILURE() << ggml_type_name(T) << " row " << r << ": got " << got << ", double reference " << ref
                              << " (tolerance " << tol << ")";
            }
        }
        float cpu = 0.0f;
        if (cpu_vec_dot<T>(wr, y, (int) n, &cpu) && !(std::fabs(got - cpu) <= 1e-5 * mag + 1e-30)) {
            if (bad_cpu++ < 3) {
                ADD_FAILURE() << ggml_type_name(T) << " row " << r << ": got " << got << ", CPU vec_dot " << cpu;
            }
        }
    }
    EXPECT_EQ(bad, 0);
    EXPECT_EQ(bad_cpu, 0);
}

TEST(CudaVecDotQ, ActivationQuantizerMatchesQ8_1Reference) {
    const int64_t           n = 32 * 4096;
    std::vector<float>      x = random_activations(n, 99);
    std::vector<block_q8_1> want(n / 32), got(n / 32);
    quantize_row_q8_1_ref(x.data(), want.data(), n);
    for (int64_t b = 0; b < n / 32; b++) {
        q8_1_quantize_block(x.data() + 32 * b, &got[b]);
    }
    int64_t bad = 0, first = -1;
    for (int64_t b = 0; b < n / 32; b++) {
        if (std::memcmp(&want[b], &got[b], sizeof(block_q8_1)) != 0) {
            first = first < 0 ? b : first;
            bad++;
        }
    }
    EXPECT_EQ(bad, 0) << "first differing block " << first;
}

TEST(CudaVecDotQ, Dp4aEmulation) {
    // the emulation the whole test relies on: signed bytes, accumulated onto c
    EXPECT_EQ(dp4a(0x80FF7F01u, 0x7F80FF02u, 5), 5 + 1 * 2 + 127 * -1 + -1 * -128 + -128 * 127);
    EXPECT_EQ(spread_bit4(0xF), 0x10101010u);
    EXPECT_EQ(spread_bit4(0x5), 0x00100010u);
}

TEST(CudaVecDotQ, Q4_0) {
    check_type<GGML_TYPE_Q4_0>(dequantize_row_q4_0, 1);
}
TEST(CudaVecDotQ, Q4_1) {
    check_type<GGML_TYPE_Q4_1>(dequantize_row_q4_1, 2);
}
TEST(CudaVecDotQ, Q5_0) {
    check_type<GGML_TYPE_Q5_0>(dequantize_row_q5_0, 3);
}
TEST(CudaVecDotQ, Q5_1) {
    check_type<GGML_TYPE_Q5_1>(dequantize_row_q5_1, 4);
}
TEST(CudaVecDotQ, Q8_0) {
    check_type<GGML_TYPE_Q8_0>(dequantize_row_q8_0, 5);
}
TEST(CudaVecDotQ, Q4_K) {
    check_type<GGML_TYPE_Q4_K>(dequantize_row_q4_K, 6);
}
TEST(CudaVecDotQ, Q5_K) {
    check_type<GGML_TYPE_Q5_K>(dequantize_row_q5_K, 7);
}
TEST(CudaVecDotQ, Q6_K) {
    check_type<GGML_TYPE_Q6_K>(dequantize_row_q6_K, 8);
}

}  // namespace
