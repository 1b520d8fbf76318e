// Quantizing into IQ2_XXS, IQ2_XS and IQ2_S (ggml-quantize-iq2.c) through the public ggml_quantize_chunk:
// thread-safe first use, round-trip error against bounds set from llama.cpp's quantizer on the same kind of
// data, importance weights that steer the error, signs that follow the input (parity rule), degenerate rows.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <thread>
#include <vector>

#include "ggml-quants.h"
#include "ggml.h"

namespace {

const ggml_type k_types[] = {GGML_TYPE_IQ2_XXS, GGML_TYPE_IQ2_XS, GGML_TYPE_IQ2_S};

std::vector<float> normal(size_t n, uint32_t seed) {
    std::mt19937                    rng(seed);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<float>              x(n);
    for (float & v : x) {
        v = nd(rng);
    }
    return x;
}

std::vector<uint8_t> quantize(ggml_type t, const std::vector<float> & x, int64_t n_per_row, const float * imatrix) {
    const int64_t        nrows = (int64_t) x.size() / n_per_row;
    std::vector<uint8_t> q(ggml_row_size(t, n_per_row) * (size_t) nrows, 0xAA);
    EXPECT_EQ(ggml_quantize_chunk(t, x.data(), q.data(), 0, nrows, n_per_row, imatrix), q.size()) << ggml_type_name(t);
    return q;
}

std::vector<float> dequantize(ggml_type t, const std::vector<uint8_t> & q, size_t n) {
    std::vector<float> y(n);
    EXPECT_TRUE(ggml_dequantize_row(t, q.data(), y.data(), (int64_t) n));
    return y;
}

// sqrt(sum w (x - y)^2 / sum w x^2), w[i % n_per_row] (w = NULL: all ones)
double rel_err(const std::vector<float> & x, const std::vector<float> & y, const float * w, size_t n_per_row) {
    double see = 0, sxx = 0;
    for (size_t i = 0; i < x.size(); i++) {
        const double wi = w ? w[i % n_per_row] : 1.0;
        see += wi * ((double) x[i] - y[i]) * ((double) x[i] - y[i]);
        sxx += wi * (double) x[i] * x[i];
    }
    return std::sqrt(see / sxx);
}

void quiet_log(ggml_log_level, const char *, void *) {}

}  // namespace

// First in the file, so the search tables are built here, by whichever thread comes first (TSan checks
// the lazy initialization in CI); every thread must get the bytes of a later single-threaded run.
TEST(QuantizeIq2, FirstUseFromManyThreadsGivesTheSameBytes) {
    const int64_t            n_per_row = 512;
    const std::vector<float> x         = normal(4 * n_per_row, 11);
    const std::vector<float> im(n_per_row, 1.0f);
    const int                n_threads = 6;

    std::vector<std::vector<uint8_t>> out(n_threads * 3);
    std::atomic<int>                  ready{0};
    std::vector<std::thread>          th;
    for (int i = 0; i < n_threads; i++) {
        th.emplace_back([&, i] {
            ready++;
            while (ready.load() < n_threads) {
                std::this_thread::yield();
            }
            for (int k = 0; k < 3; k++) {
                const ggml_type      t = k_types[(i + k) % 3];  // the threads start on different types
                std::vector<uint8_t> q(ggml_row_size(t, n_per_row) * 4);
                const size_t         n = ggml_quantize_chunk(t, x.data(), q.data(), 0, 4, n_per_row, im.data());
                q.resize(n);
                out[(size_t) i * 3 + (size_t) ((i + k) % 3)] = std::move(q);
            }
        });
    }
    for (auto & t : th) {
        t.join();
    }
    for (int k = 0; k < 3; k++) {
        const std::vector<uint8_t> ref = quantize(k_types[k], x, n_per_row, im.data());
        for (int i = 0; i < n_threads; i++) {
            EXPECT_EQ(out[(size_t) i * 3 + (size_t) k], ref) << ggml_type_name(k_types[k]) << " thread " << i;
        }
    }
}

// Bounds: llama.cpp's quantizer (libggml-base of /work/upstream, 4df29be4) on N(0,1) rows of 4096 with a
// uniform importance matrix gave 0.3414 (iq2_xxs), 0.2992 (iq2_xs), 0.2485 (iq2_s) and 0.2650 (iq2_s
// without imatrix); we require at most 5% above those. Ours measured (docs/quants.md): 0.333, 0.290,
// 0.242, 0.254.
TEST(QuantizeIq2, RoundTripErrorAtMostLlamaCppPlusFivePercent) {
    const int64_t            n_per_row = 4096;
    const std::vector<float> x         = normal(4 * n_per_row, 1234);
    const std::vector<float> ones(n_per_row, 1.0f);
    const struct {
        ggml_type type;
        bool      imatrix;
        double    llama_cpp;
    } cases[] = {
        {GGML_TYPE_IQ2_XXS, true, 0.3414},
        {GGML_TYPE_IQ2_XS, true, 0.2992},
        {GGML_TYPE_IQ2_S, true, 0.2485},
        {GGML_TYPE_IQ2_S, false, 0.2650},
    };
    for (const auto & c : cases) {
        const auto   q   = quantize(c.type, x, n_per_row, c.imatrix ? ones.data() : nullptr);
        const double rel = rel_err(x, dequantize(c.type, q, x.size()), nullptr, n_per_row);
        printf("  %-8s imatrix %d rel RMSE %.4f (llama.cpp %.4f)\n", ggml_type_name(c.type), c.imatrix, rel,
               c.llama_cpp);
        EXPECT_LT(rel, 1.05 * c.llama_cpp) << ggml_type_name(c.type);
        EXPECT_GT(rel, 0.15) << "two bits per weight cannot do this well on Gaussian data";
    }
}

// With skewed column weights the error in the columns that matter drops well below the unweighted search's.
TEST(QuantizeIq2, ImportanceWeightsLowerTheWeightedError) {
    const int64_t                   n_per_row = 1024;
    const std::vector<float>        x         = normal(8 * n_per_row, 5);
    std::vector<float>              skew(n_per_row);
    std::mt19937                    rng(9);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    for (float & w : skew) {
        w = std::exp(3.0f * nd(rng));  // log-normal: a few columns dominate, as in real activations
    }
    const std::vector<float> ones(n_per_row, 1.0f);
    for (ggml_type t : k_types) {
        const double plain =
            rel_err(x, dequantize(t, quantize(t, x, n_per_row, ones.data()), x.size()), skew.data(), n_per_row);
        const double weighted =
            rel_err(x, dequantize(t, quantize(t, x, n_per_row, skew.data()), x.size()), skew.data(), n_per_row);
        printf("  %-8s weighted rel error: uniform imatrix %.4f, skewed imatrix %.4f\n", ggml_type_name(t), plain,
               weighted);
        EXPECT_LT(weighted, 0.6 * plain) << ggml_type_name(t);
    }
}

// Every grid value is nonzero, so each output element has a sign: IQ2_S stores all of them; IQ2_XXS and
// IQ2_XS store 7 per group of 8 and imply the 8th by an even count, so at most one per group may differ.
TEST(QuantizeIq2, SignsFollowTheInputUpToTheParityRule) {
    const int64_t            n_per_row = 2048;
    const std::vector<float> x         = normal(2 * n_per_row, 77);
    const std::vector<float> ones(n_per_row, 1.0f);
    for (ggml_type t : k_types) {
        const auto y         = dequantize(t, quantize(t, x, n_per_row, ones.data()), x.size());
        int        max_wrong = 0;
        for (size_t g = 0; g < x.size() / 8; g++) {
            int wrong = 0;
            for (size_t k = 8 * g; k < 8 * g + 8; k++) {
                ASSERT_NE(y[k], 0.0f);
                wrong += (x[k] < 0) != (y[k] < 0);
            }
            max_wrong = std::max(max_wrong, wrong);
        }
        EXPECT_EQ(max_wrong, t == GGML_TYPE_IQ2_S ? 0 : 1) << ggml_type_name(t);
    }
}

TEST(QuantizeIq2, ImatrixRequiredForXxsAndXsOnly) {
    ggml_log_set(quiet_log, nullptr);
    const std::vector<float> x = normal(256, 3);
    std::vector<uint8_t>     q(1024);
    EXPECT_EQ(ggml_quantize_chunk(GGML_TYPE_IQ2_XXS, x.data(), q.data(), 0, 1, 256, nullptr), 0u);
    EXPECT_EQ(ggml_quantize_chunk(GGML_TYPE_IQ2_XS, x.data(), q.data(), 0, 1, 256, nullptr), 0u);
    EXPECT_EQ(ggml_quantize_chunk(GGML_TYPE_IQ2_S, x.data(), q.data(), 0, 1, 256, nullptr),
              ggml_row_size(GGML_TYPE_IQ2_S, 256));
    EXPECT_TRUE(ggml_quantize_requires_imatrix(GGML_TYPE_IQ2_XS));
    EXPECT_FALSE(ggml_quantize_requires_imatrix(GGML_TYPE_IQ2_S));
    const std::vector<float> im(256, 1.0f);
    EXPECT_EQ(ggml_quantize_chunk(GGML_TYPE_IQ2_XS, x.data(), q.data(), 0, 1, 200, im.data()), 0u);  // 200 % 256
    ggml_log_set(nullptr, nullptr);
}

// A row addressed by `start` lands at its own offset with the bytes it gets in a whole-tensor call.
TEST(QuantizeIq2, RowsAreIndependent) {
    const int64_t            n_per_row = 512;
    const std::vector<float> x         = normal(3 * n_per_row, 21);
    std::vector<float>       im(n_per_row);
    for (int64_t j = 0; j < n_per_row; j++) {
        im[(size_t) j] = 0.5f + (float) (j % 7);
    }
    for (ggml_type t : k_types) {
        const auto           all = quantize(t, x, n_per_row, im.data());
        const size_t         rs  = ggml_row_size(t, n_per_row);
        std::vector<uint8_t> one(3 * rs, 0);
        EXPECT_EQ(ggml_quantize_chunk(t, x.data(), one.data(), 2 * n_per_row, 1, n_per_row, im.data()), rs);
        EXPECT_TRUE(std::equal(one.begin() + 2 * (long) rs, one.end(), all.begin() + 2 * (long) rs))
            << ggml_type_name(t);
    }
}

TEST(QuantizeIq2, DegenerateRows) {
    const int64_t      n = 512;
    std::vector<float> im(n, 1.0f);
    for (ggml_type t : k_types) {
        // zeros stay zeros
        std::vector<float> z(n, 0.0f);
        for (float v : dequantize(t, quantize(t, z, n, im.data()), z.size())) {
            ASSERT_EQ(v, 0.0f) << ggml_type_name(t);
        }
        // one silent sub-block among loud ones: odd scales cannot reach zero, but it stays small
        std::vector<float> x = normal(n, 4);
        std::fill(x.begin() + 32, x.begin() + 64, 0.0f);
        auto y = dequantize(t, quantize(t, x, n, im.data()), x.size());
        for (int i = 32; i < 64; i++) {
            EXPECT_LT(std::fabs(y[(size_t) i]), 0.25f) << ggml_type_name(t) << " " << i;
        }
        EXPECT_LT(rel_err(x, y, nullptr, n), 0.45) << ggml_type_name(t);
        // tiny, huge and non-finite values and zero weights must not crash or index out of the codebook
        for (float v : {1e-30f, 1e30f, std::numeric_limits<float>::infinity(), std::nanf("")}) {
            std::vector<float> w = normal(n, 8);
            w[5]                 = v;
            w[300]               = -v;
            std::vector<float> zero_im(n, 0.0f);
            quantize(t, w, n, im.data());
            quantize(t, w, n, zero_im.data());
        }
        // scaled rows keep their relative error (the scales follow the data, within fp16's range for d)
        for (float scale : {1e-3f, 1e3f}) {
            std::vector<float> s = normal(n, 6);
            for (float & v : s) {
                v *= scale;
            }
            EXPECT_LT(rel_err(s, dequantize(t, quantize(t, s, n, im.data()), s.size()), nullptr, n), 0.40)
                << ggml_type_name(t) << " " << scale;
        }
    }
}
