// Quantization into IQ3_XXS, IQ3_S, IQ1_S and IQ1_M (ggml-quantize-iq3.c, ggml-quantize-iq1.c) through
// the public ggml_quantize_chunk and our dequantizers: round-trip error bounds (measured, in
// docs/quants.md next to llama.cpp's figures on the same data), the importance matrix lowering the
// error it weights, degenerate inputs, and the neighbour maps the searches rely on.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "ggml.h"

extern "C" {
#include "ggml-iq-grids.h"
#include "ggml-quantize-iq-nbr.h"
}

namespace {

const int n_per_row = 4096, n_rows = 4;  // 16384 values, as the other round-trip tables

// N(0, 1) values (the same generator and seed as the comparison probe described in docs/quants.md).
std::vector<float> gaussian_rows() {
    std::mt19937                    rng(1234);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<float>              x((size_t) n_per_row * n_rows);
    for (auto & v : x) {
        v = nd(rng);
    }
    return x;
}

// A skewed importance matrix: log-normal column weights (a few columns matter much more than most).
std::vector<float> skewed_imatrix() {
    std::mt19937                    rng(99);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<float>              w(n_per_row);
    for (auto & v : w) {
        v = std::exp(1.5f * nd(rng));
    }
    return w;
}

std::vector<float> round_trip(ggml_type t, const std::vector<float> & x, int64_t npr, const float * im) {
    const int64_t nr = (int64_t) x.size() / npr;
    // "no imatrix" for the types that refuse NULL (IQ1_S) is the uniform one, which their search treats alike
    const std::vector<float> ones(npr, 1.0f);
    if (!im && ggml_quantize_requires_imatrix(t)) {
        im = ones.data();
    }
    std::vector<uint8_t> q(ggml_row_size(t, npr) * nr);
    EXPECT_EQ(ggml_quantize_chunk(t, x.data(), q.data(), 0, nr, npr, im), q.size()) << ggml_type_name(t);
    std::vector<float> y(x.size());
    EXPECT_TRUE(ggml_dequantize_row(t, q.data(), y.data(), (int64_t) x.size()));
    return y;
}

// sqrt(sum w (x - y)^2 / sum w x^2), w per column (NULL: 1)
double rel_err(const std::vector<float> & x, const std::vector<float> & y, const float * w, int64_t npr) {
    double e = 0, r = 0;
    for (size_t i = 0; i < x.size(); i++) {
        const double wi = w ? w[i % (size_t) npr] : 1.0;
        e += wi * ((double) x[i] - y[i]) * ((double) x[i] - y[i]);
        r += wi * (double) x[i] * x[i];
    }
    return std::sqrt(e / r);
}

struct bounds {
    ggml_type t;
    double    rel;  // relative RMSE without an importance matrix
};

// Measured on this data (docs/quants.md, with llama.cpp's figures); bounds about 10% above.
const bounds k_bounds[] = {
    {GGML_TYPE_IQ3_XXS, 0.195},  // measured 0.1771
    {GGML_TYPE_IQ3_S, 0.145},    // 0.1308
    {GGML_TYPE_IQ1_S, 0.50},     // 0.4561
    {GGML_TYPE_IQ1_M, 0.47},     // 0.4272
};

TEST(QuantizeIq13, RoundTripErrorBounds) {
    const auto               x = gaussian_rows();
    const std::vector<float> ones(n_per_row, 1.0f);
    for (const auto & b : k_bounds) {
        const auto   y = round_trip(b.t, x, n_per_row, nullptr);
        const double e = rel_err(x, y, nullptr, n_per_row);
        printf("  %-8s rel. RMSE %.4f\n", ggml_type_name(b.t), e);
        EXPECT_LT(e, b.rel) << ggml_type_name(b.t);
        EXPECT_GT(e, 0.01) << ggml_type_name(b.t);  // a broken layout or grid gives an error near or above 1
        // no importance matrix means equal column weights
        EXPECT_EQ(round_trip(b.t, x, n_per_row, ones.data()), y) << ggml_type_name(b.t);
    }
}

TEST(QuantizeIq13, ImatrixLowersTheErrorItWeights) {
    const auto x  = gaussian_rows();
    const auto im = skewed_imatrix();
    for (const auto & b : k_bounds) {
        const double with    = rel_err(x, round_trip(b.t, x, n_per_row, im.data()), im.data(), n_per_row);
        const double without = rel_err(x, round_trip(b.t, x, n_per_row, nullptr), im.data(), n_per_row);
        printf("  %-8s skew-weighted rel. error: with the imatrix %.4f, without %.4f\n", ggml_type_name(b.t), with,
               without);
        EXPECT_LT(with, 0.9 * without) << ggml_type_name(b.t);
    }
}

// Rows quantized one chunk at a time equal the whole matrix quantized at once, and the result does
// not depend on anything but the input (no state carried between calls).
TEST(QuantizeIq13, ChunksAndRepeatsGiveTheSameBytes) {
    const auto x  = gaussian_rows();
    const auto im = skewed_imatrix();
    for (const auto & b : k_bounds) {
        const size_t         rs = ggml_row_size(b.t, n_per_row);
        std::vector<uint8_t> all(rs * n_rows), part(rs * n_rows);
        ASSERT_EQ(ggml_quantize_chunk(b.t, x.data(), all.data(), 0, n_rows, n_per_row, im.data()), all.size());
        for (int r = 0; r < n_rows; r++) {
            ASSERT_EQ(ggml_quantize_chunk(b.t, x.data(), part.data(), (int64_t) r * n_per_row, 1, n_per_row, im.data()),
                      rs);
        }
        EXPECT_EQ(all, part) << ggml_type_name(b.t);
    }
}

// Zero rows come back exactly zero; an all-zero sub-block inside a live block stays small; constant,
// huge, tiny and non-finite rows neither crash nor (when finite) give non-finite values.
TEST(QuantizeIq13, DegenerateRows) {
    const int64_t n = 512;
    std::mt19937  rng(7);
    for (const auto & b : k_bounds) {
        const std::vector<float> zero(n, 0.0f);
        for (float v : round_trip(b.t, zero, n, nullptr)) {
            ASSERT_EQ(v, 0.0f) << ggml_type_name(b.t);
        }
        std::normal_distribution<float> nd(0.0f, 1.0f);
        std::vector<float>              holey(n);
        for (int64_t i = 0; i < n; i++) {
            holey[i] = (i >= 32 && i < 64) ? 0.0f : nd(rng);
        }
        const auto y = round_trip(b.t, holey, n, nullptr);
        for (int64_t i = 32; i < 64; i++) {
            EXPECT_LT(std::fabs(y[i]), 0.5f) << ggml_type_name(b.t) << " " << i;
        }
        for (float c : {1.0f, -3.0f, 1e-30f, 6e4f}) {
            const std::vector<float> row(n, c);
            for (float v : round_trip(b.t, row, n, nullptr)) {
                ASSERT_TRUE(std::isfinite(v)) << ggml_type_name(b.t) << " " << c;
            }
        }
        std::vector<float> bad = holey;
        bad[3]                 = std::numeric_limits<float>::quiet_NaN();
        bad[300]               = std::numeric_limits<float>::infinity();
        std::vector<uint8_t>     q(ggml_row_size(b.t, n));
        const std::vector<float> ones(n, 1.0f);
        EXPECT_EQ(ggml_quantize_chunk(b.t, bad.data(), q.data(), 0, 1, n,
                                      ggml_quantize_requires_imatrix(b.t) ? ones.data() : nullptr),
                  q.size());
    }
}

// Every code maps to a grid point or to a non-empty list of grid points that contains its nearest ones.
TEST(QuantizeIq13, NeighbourMapsHoldTheNearestPoints) {
    for (int kind = 0; kind < GGML_IQ_NBR_COUNT; kind++) {
        const ggml_iq_nbr_map * m = ggml_iq_nbr_get((ggml_iq_nbr_kind) kind);
        ASSERT_NE(m, nullptr);
        int on_grid = 0;
        for (int code = 0; code < m->ncodes; code++) {
            int lev[8], c = code;
            for (int k = 0; k < m->dim; k++) {
                lev[k] = c % m->nlev;
                c /= m->nlev;
            }
            int dmin = 1 << 30;
            for (int g = 0; g < m->ngrid; g++) {
                int d = 0;
                for (int k = 0; k < m->dim; k++) {
                    d += (lev[k] - m->grid_l[g * m->dim + k]) * (lev[k] - m->grid_l[g * m->dim + k]);
                }
                dmin = d < dmin ? d : dmin;
            }
            uint16_t         one;
            int              n;
            const uint16_t * cand = ggml_iq_nbr_candidates(m, code, &one, &n);
            ASSERT_GE(n, 1);
            bool has_nearest = false;
            for (int i = 0; i < n; i++) {
                ASSERT_LT(cand[i], m->ngrid);
                int d = 0;
                for (int k = 0; k < m->dim; k++) {
                    d += (lev[k] - m->grid_l[cand[i] * m->dim + k]) * (lev[k] - m->grid_l[cand[i] * m->dim + k]);
                }
                has_nearest = has_nearest || d == dmin;
            }
            ASSERT_TRUE(has_nearest) << kind << " " << code;
            on_grid += m->map[code] >= 0;
        }
        EXPECT_EQ(on_grid, m->ngrid) << kind;
    }
    EXPECT_EQ(ggml_iq_nbr_get(GGML_IQ_NBR_COUNT), nullptr);
}

TEST(QuantizeIq13, RequiresImatrixAsLlamaCpp) {
    EXPECT_TRUE(ggml_quantize_requires_imatrix(GGML_TYPE_IQ1_S));
    EXPECT_FALSE(ggml_quantize_requires_imatrix(GGML_TYPE_IQ1_M));
    EXPECT_FALSE(ggml_quantize_requires_imatrix(GGML_TYPE_IQ3_XXS));
    EXPECT_FALSE(ggml_quantize_requires_imatrix(GGML_TYPE_IQ3_S));
}

}  // namespace
