// The scale-search kernel tables (ggml-quants-search.h): every SIMD table must give the scalar
// reference's results bit for bit (scales, codes, errors), on random and degenerate blocks, so that a
// model quantizes to the same bytes on every machine; and the quantizers built on them must keep
// their error bounds (the known-answer/error-bound tests live in test-quants.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

extern "C" {
#include "ggml-quants-search.h"
#include "ggml-quants.h"
}

namespace {

// Blocks of many shapes: normal, uniform, heavy outliers, one-signed, tiny, constant, zero, sparse.
std::vector<std::vector<float>> test_blocks(int n, uint32_t seed) {
    std::mt19937                          rng(seed);
    std::normal_distribution<float>       nd(0.0f, 1.0f);
    std::uniform_real_distribution<float> ud(-1.0f, 1.0f);
    std::vector<std::vector<float>>       out;
    for (int r = 0; r < 400; r++) {
        std::vector<float> x(n);
        const int          kind = r % 8;
        for (int i = 0; i < n; i++) {
            switch (kind) {
                case 0:
                    x[i] = nd(rng) * 0.02f;
                    break;
                case 1:
                    x[i] = ud(rng);
                    break;
                case 2:
                    x[i] = nd(rng) * (i == (r % n) ? 40.0f : 1.0f);
                    break;
                case 3:
                    x[i] = std::fabs(nd(rng)) + 0.5f;
                    break;
                case 4:
                    x[i] = -std::fabs(nd(rng)) * 3.0f;
                    break;
                case 5:
                    x[i] = nd(rng) * 1e-20f;
                    break;
                case 6:
                    x[i] = (r & 16) ? 0.75f : 0.0f;
                    break;
                default:
                    x[i] = (i % 7 == 0) ? nd(rng) : 0.0f;
                    break;
            }
        }
        out.push_back(x);
    }
    return out;
}

std::vector<ggml_qsearch_isa> simd_isas() {
    return {GGML_QSEARCH_ISA_AVX2, GGML_QSEARCH_ISA_AVX512};
}

const ggml_qsearch_kernels * ref() {
    return ggml_qsearch_kernels_get(GGML_QSEARCH_ISA_SCALAR);
}

uint32_t bits(float v) {
    uint32_t u;
    memcpy(&u, &v, 4);
    return u;
}

TEST(QuantsSearch, BestTableIsUsable) {
    const ggml_qsearch_kernels * k = ggml_qsearch_best();
    ASSERT_NE(k, nullptr);
    ASSERT_NE(ref(), nullptr);
    printf("  best search kernels: %s\n", k->name);
}

TEST(QuantsSearch, SymMatchesReferenceBitForBit) {
    const int ranges[][2] = {{-8, 7}, {-16, 15}, {-4, 3}, {-32, 31}};
    for (ggml_qsearch_isa isa : simd_isas()) {
        const ggml_qsearch_kernels * k = ggml_qsearch_kernels_get(isa);
        if (!k) {
            continue;  // not built in or not on this CPU
        }
        SCOPED_TRACE(k->name);
        for (int n : {16, 32}) {
            for (const auto & r : ranges) {
                for (const auto & x : test_blocks(n, (uint32_t) (n * 100 + r[1]))) {
                    int         q0[32] = {}, q1[32] = {};
                    const float d0 = ref()->sym(n, x.data(), r[0], r[1], q0);
                    const float d1 = k->sym(n, x.data(), r[0], r[1], q1);
                    ASSERT_EQ(bits(d0), bits(d1)) << "n " << n << " range " << r[1];
                    ASSERT_EQ(0, memcmp(q0, q1, n * sizeof(int)));
                    ref()->assign_sym(n, x.data(), d0 * 1.01f, r[0], r[1], q0);
                    k->assign_sym(n, x.data(), d0 * 1.01f, r[0], r[1], q1);
                    ASSERT_EQ(0, memcmp(q0, q1, n * sizeof(int)));
                    // the +-1 step candidates of the K-quants, and a zero scale
                    const float cand[4] = {d0 * 0.9f, d0, d0 * 1.1f, 0.0f};
                    float       e0[4], e1[4];
                    ref()->err_sym_multi(n, x.data(), 4, cand, r[0], r[1], e0);
                    k->err_sym_multi(n, x.data(), 4, cand, r[0], r[1], e1);
                    for (int c = 0; c < 4; c++) {
                        ASSERT_EQ(bits(e0[c]), bits(e1[c])) << c;
                    }
                }
            }
        }
    }
}

TEST(QuantsSearch, AffineMatchesReferenceBitForBit) {
    for (ggml_qsearch_isa isa : simd_isas()) {
        const ggml_qsearch_kernels * k = ggml_qsearch_kernels_get(isa);
        if (!k) {
            continue;
        }
        SCOPED_TRACE(k->name);
        for (int n : {16, 32}) {
            for (int nmax : {3, 15, 31}) {
                for (bool nonpos : {false, true}) {
                    for (const auto & x : test_blocks(n, (uint32_t) (n * 1000 + nmax * 2 + nonpos))) {
                        int   q0[32] = {}, q1[32] = {};
                        float a0, b0, a1, b1;
                        ref()->affine(n, x.data(), nmax, nonpos, &a0, &b0, q0);
                        k->affine(n, x.data(), nmax, nonpos, &a1, &b1, q1);
                        ASSERT_EQ(bits(a0), bits(a1)) << "n " << n << " nmax " << nmax;
                        ASSERT_EQ(bits(b0), bits(b1));
                        ASSERT_EQ(0, memcmp(q0, q1, n * sizeof(int)));
                        ref()->assign_affine(n, x.data(), a0 * 0.97f, b0, nmax, q0);
                        k->assign_affine(n, x.data(), a0 * 0.97f, b0, nmax, q1);
                        ASSERT_EQ(0, memcmp(q0, q1, n * sizeof(int)));
                        float ca[9], cb[9], e0[9], e1[9];
                        for (int c = 0; c < 9; c++) {
                            ca[c] = a0 * (0.9f + 0.025f * (float) c);
                            cb[c] = b0 - 0.01f * (float) (c % 3);
                        }
                        ca[8] = 0.0f;
                        ref()->err_affine_multi(n, x.data(), 9, ca, cb, nmax, e0);
                        k->err_affine_multi(n, x.data(), 9, ca, cb, nmax, e1);
                        for (int c = 0; c < 9; c++) {
                            ASSERT_EQ(bits(e0[c]), bits(e1[c])) << c;
                        }
                    }
                }
            }
        }
    }
}

// The search finds a scale at least as good as plain max-abs scaling (what simpler quantizers use).
TEST(QuantsSearch, SymBeatsMaxAbsScaling) {
    const ggml_qsearch_kernels * k        = ggml_qsearch_best();
    double                       e_search = 0, e_maxabs = 0;
    for (const auto & x : test_blocks(32, 7)) {
        int   q[32];
        float amax = 0, xm = 0;
        for (float v : x) {
            if (std::fabs(v) > amax) {
                amax = std::fabs(v);
                xm   = v;
            }
        }
        const float d    = k->sym(32, x.data(), -8, 7, q);
        const float dmax = xm / -8.0f;
        float       e[2];
        const float cand[2] = {d, dmax};
        k->err_sym_multi(32, x.data(), 2, cand, -8, 7, e);
        EXPECT_LE(e[0], e[1] * (1.0f + 1e-6f) + 1e-30f);
        e_search += e[0];
        e_maxabs += e[1];
    }
    EXPECT_LT(e_search, e_maxabs);
}

}  // namespace
