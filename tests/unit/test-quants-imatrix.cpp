// Importance-weighted quantization (ggml_quantize_chunk with an imatrix, ggml-quants-weighted.c):
// on rows with skewed column weights the weighted error sum w*(x - q)^2 must drop clearly below
// that of the plain search, the block format must stay the same (the plain dequantizer reads it),
// and a NULL imatrix must keep the plain reference's bytes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "ggml.h"

namespace {

struct weighted_case {
    ggml_type type;
    double    min_gain;  // required: weighted error without imatrix / with imatrix (measured 3.1-6.9)
};

// Types with a weighted search; q8_0 has none (as llama.cpp: 8 bits leave little to gain).
const weighted_case k_cases[] = {
    {GGML_TYPE_Q4_0, 2.00},   {GGML_TYPE_Q4_1, 2.00}, {GGML_TYPE_Q5_0, 2.00},   {GGML_TYPE_Q5_1, 2.00},
    {GGML_TYPE_IQ4_NL, 2.00}, {GGML_TYPE_Q2_K, 2.00}, {GGML_TYPE_Q3_K, 2.00},   {GGML_TYPE_Q4_K, 2.00},
    {GGML_TYPE_Q5_K, 2.00},   {GGML_TYPE_Q6_K, 2.00}, {GGML_TYPE_IQ4_XS, 2.00},
};

constexpr int64_t k_cols = 512;
constexpr int64_t k_rows = 16;

// A standard normal value by Box-Muller. std::normal_distribution's algorithm differs between
// libstdc++ and libc++; std::mt19937's output does not, so the data (and the gains) are the same with both.
float normal(std::mt19937 & rng) {
    const double u1 = (rng() + 1.0) / 4294967297.0;  // (0, 1]
    const double u2 = rng() / 4294967296.0;          // [0, 1)
    return (float) (std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
}

// Random weights (normal) and a skewed importance vector: log-normal, a few columns 100x hotter.
void make_data(std::vector<float> & x, std::vector<float> & imat, uint32_t seed) {
    std::mt19937 rng(seed);
    x.resize(k_cols * k_rows);
    for (auto & v : x) {
        v = 0.02f * normal(rng);
    }
    imat.resize(k_cols);
    for (int64_t i = 0; i < k_cols; i++) {
        imat[i] = std::exp(1.5f * normal(rng)) * (i % 37 == 0 ? 100.0f : 1.0f);
    }
}

double weighted_error(ggml_type type, const std::vector<float> & x, const std::vector<float> & imat,
                      const std::vector<uint8_t> & q) {
    std::vector<float> y(k_cols);
    const size_t       rs  = ggml_row_size(type, k_cols);
    double             err = 0.0;
    for (int64_t r = 0; r < k_rows; r++) {
        EXPECT_TRUE(ggml_dequantize_row(type, q.data() + r * rs, y.data(), k_cols));
        for (int64_t i = 0; i < k_cols; i++) {
            const double e = (double) x[r * k_cols + i] - y[i];
            err += imat[i] * e * e;
        }
    }
    return err;
}

std::vector<uint8_t> quantize(ggml_type type, const std::vector<float> & x, const float * imat) {
    std::vector<uint8_t> q(ggml_row_size(type, k_cols) * k_rows);
    EXPECT_EQ(ggml_quantize_chunk(type, x.data(), q.data(), 0, k_rows, k_cols, imat), q.size());
    return q;
}

}  // namespace

TEST(QuantsImatrix, WeightedErrorLowerThanPlain) {
    std::vector<float> x, imat;
    make_data(x, imat, 1234);
    for (const auto & c : k_cases) {
        SCOPED_TRACE(ggml_type_name(c.type));
        const double e_plain = weighted_error(c.type, x, imat, quantize(c.type, x, nullptr));
        const double e_w     = weighted_error(c.type, x, imat, quantize(c.type, x, imat.data()));
        printf("%-8s weighted error plain %.4g, with imatrix %.4g (%.2fx lower)\n", ggml_type_name(c.type), e_plain,
               e_w, e_plain / e_w);
        EXPECT_GT(e_plain / e_w, c.min_gain);
    }
}

TEST(QuantsImatrix, UniformImatrixKeepsPlainQuality) {
    // equal weights make the weighted objective the plain one: the result may differ in ties but
    // must not be worse by more than a hair
    std::vector<float> x, imat;
    make_data(x, imat, 99);
    std::vector<float> ones(k_cols, 1.0f);
    for (const auto & c : k_cases) {
        SCOPED_TRACE(ggml_type_name(c.type));
        const double e_plain = weighted_error(c.type, x, ones, quantize(c.type, x, nullptr));
        const double e_w     = weighted_error(c.type, x, ones, quantize(c.type, x, ones.data()));
        EXPECT_LT(e_w, e_plain * 1.02);
    }
}

TEST(QuantsImatrix, OnlyWeightedTypesUseTheImatrix) {
    std::vector<float> x, imat;
    make_data(x, imat, 7);
    // a type without a weighted search ignores the imatrix
    EXPECT_EQ(quantize(GGML_TYPE_Q8_0, x, imat.data()), quantize(GGML_TYPE_Q8_0, x, nullptr));
    // the weighted types really use it (NULL keeps the plain reference: test-quants, test-quants-kat)
    for (const auto & c : k_cases) {
        EXPECT_NE(quantize(c.type, x, imat.data()), quantize(c.type, x, nullptr)) << ggml_type_name(c.type);
    }
}

TEST(QuantsImatrix, ZeroAndNonFiniteImportanceIsSafe) {
    std::vector<float> x, imat;
    make_data(x, imat, 5);
    std::vector<float> bad(k_cols, 0.0f);
    bad[3] = NAN;
    bad[4] = INFINITY;
    bad[5] = -1.0f;
    for (const auto & c : k_cases) {
        SCOPED_TRACE(ggml_type_name(c.type));
        const auto         q = quantize(c.type, x, bad.data());
        std::vector<float> y(k_cols);
        ASSERT_TRUE(ggml_dequantize_row(c.type, q.data(), y.data(), k_cols));
        for (float v : y) {
            ASSERT_TRUE(std::isfinite(v));
        }
        // all-zero (after sanitizing) importance falls back to the plain error: compare unweighted
        std::vector<float> ones(k_cols, 1.0f);
        EXPECT_LT(weighted_error(c.type, x, ones, q),
                  1.5 * weighted_error(c.type, x, ones, quantize(c.type, x, nullptr)));
    }
}
