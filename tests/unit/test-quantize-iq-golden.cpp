// The i-quant searches must keep giving the same bytes when they are made faster: the FNV-1a hash of
// each type's output on fixed pseudo-random rows (own generator, no libstdc++ distribution), with a
// random importance matrix and without one, as the straightforward searches of 2026-12-01 (commit
// 6171a99) produced them. A faster search that changes any byte fails here; a deliberate change of the
// search (new output) must regenerate the table (LLAMA_TEST_PRINT_HASHES=1 prints it). And the SSE2
// lanes of the iq1 / iq2 searches against their plain loops: the same sources built without SSE2 are
// linked in as *_scalar (tests/extra-tests.cmake (j)) and must give the same bytes on random rows.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ggml.h"

#if LLAMA_TEST_IQ_SCALAR_BUILD
extern "C" {
bool ggml_quantize_row_iq1_s_scalar(const float * x, void * y, int64_t n, const float * qw);
bool ggml_quantize_row_iq1_m_scalar(const float * x, void * y, int64_t n, const float * qw);
bool ggml_quantize_row_iq2_xxs_scalar(const float * x, void * y, int64_t n, const float * qw);
bool ggml_quantize_row_iq2_xs_scalar(const float * x, void * y, int64_t n, const float * qw);
bool ggml_quantize_row_iq2_s_scalar(const float * x, void * y, int64_t n, const float * qw);
}
#endif

namespace {

uint64_t splitmix64(uint64_t & s) {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z          = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z          = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// Box-Muller in double, rounded to float once: the same values on every libm that rounds correctly
// enough for a float (the hash checks the search, not the generator).
float gaussian(uint64_t & s) {
    const double u1 = ((splitmix64(s) >> 11) + 1.0) * (1.0 / 9007199254740993.0);
    const double u2 = (splitmix64(s) >> 11) * (1.0 / 9007199254740992.0);
    return (float) (std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
}

constexpr int64_t k_n_per_row = 512;
constexpr int64_t k_rows      = 48;

// Rows of different character: Gaussian, heavy-tailed (cubed), mostly small with outliers, and a row
// scale that varies over six orders of magnitude.
std::vector<float> rows() {
    std::vector<float> x((size_t) (k_n_per_row * k_rows));
    uint64_t           s = 20261201;
    for (int64_t r = 0; r < k_rows; r++) {
        const float scale = std::pow(10.0f, (float) (r % 7) - 3.0f);
        for (int64_t i = 0; i < k_n_per_row; i++) {
            float v = gaussian(s);
            if (r % 3 == 1) {
                v = v * v * v;
            } else if (r % 3 == 2) {
                v = (splitmix64(s) % 50 == 0) ? 8.0f * v : 0.1f * v;
            }
            x[(size_t) (r * k_n_per_row + i)] = scale * v;
        }
    }
    return x;
}

std::vector<float> importance() {
    std::vector<float> w(k_n_per_row);
    uint64_t           s = 77;
    for (float & v : w) {
        v = std::exp(1.5f * gaussian(s));
    }
    return w;
}

uint64_t fnv1a(const std::vector<uint8_t> & b) {
    uint64_t h = 1469598103934665603ull;
    for (uint8_t c : b) {
        h = (h ^ c) * 1099511628211ull;
    }
    return h;
}

struct golden {
    ggml_type type;
    uint64_t  with_imatrix;
    uint64_t  without;  // 0: not checked (ggml_quantize_requires_imatrix)
};

const golden k_golden[] = {
    {GGML_TYPE_IQ2_XXS, 0x47b3b71b5ac4b243ull, 0x0000000000000000ull},
    {GGML_TYPE_IQ2_XS, 0xc01f5290fc5bff97ull, 0x0000000000000000ull},
    {GGML_TYPE_IQ2_S, 0x79d1e4ef745c1ee5ull, 0xb3069de164301614ull},
    {GGML_TYPE_IQ3_XXS, 0x35015473b8b23191ull, 0x26c341f6062a207aull},
    {GGML_TYPE_IQ3_S, 0x81378b1af21f5fbfull, 0x164cf93340488115ull},
    {GGML_TYPE_IQ1_S, 0xb90eb83a8cce0decull, 0x0000000000000000ull},
    {GGML_TYPE_IQ1_M, 0xfc42bdd3b3d59761ull, 0x14b0f4ddf1dbb62dull},
};

uint64_t quantize_hash(ggml_type t, const std::vector<float> & x, const float * imatrix) {
    std::vector<uint8_t> q(ggml_row_size(t, k_n_per_row) * (size_t) k_rows, 0xAA);
    const size_t         n = ggml_quantize_chunk(t, x.data(), q.data(), 0, k_rows, k_n_per_row, imatrix);
    EXPECT_EQ(n, q.size()) << ggml_type_name(t);
    return fnv1a(q);
}

}  // namespace

TEST(QuantizeIqGolden, SearchesGiveTheRecordedBytes) {
    const std::vector<float> x     = rows();
    const std::vector<float> w     = importance();
    const bool               print = getenv("LLAMA_TEST_PRINT_HASHES") != nullptr;
    for (const golden & g : k_golden) {
        const uint64_t hw = quantize_hash(g.type, x, w.data());
        const uint64_t hn = ggml_quantize_requires_imatrix(g.type) ? 0 : quantize_hash(g.type, x, nullptr);
        if (print) {
            std::string name = ggml_type_name(g.type);
            for (char & c : name) {
                c = (char) toupper((unsigned char) c);
            }
            printf("    {GGML_TYPE_%s, 0x%016llxull, 0x%016llxull},\n", name.c_str(), (unsigned long long) hw,
                   (unsigned long long) hn);
        }
        EXPECT_EQ(hw, g.with_imatrix) << ggml_type_name(g.type) << " with an imatrix";
        EXPECT_EQ(hn, g.without) << ggml_type_name(g.type) << " without";
    }
}

#if LLAMA_TEST_IQ_SCALAR_BUILD
// Random rows (other seeds than the golden table's, some with ties and zeros), with and without a
// random imatrix: the library's search and its scalar build give the same bytes.
TEST(QuantizeIqGolden, Sse2LanesMatchTheScalarBuild) {
    typedef bool (*row_fn)(const float *, void *, int64_t, const float *);
    const struct {
        ggml_type t;
        row_fn    scalar;
    } k_types[] = {
        {GGML_TYPE_IQ1_S, ggml_quantize_row_iq1_s_scalar},     {GGML_TYPE_IQ1_M, ggml_quantize_row_iq1_m_scalar},
        {GGML_TYPE_IQ2_XXS, ggml_quantize_row_iq2_xxs_scalar}, {GGML_TYPE_IQ2_XS, ggml_quantize_row_iq2_xs_scalar},
        {GGML_TYPE_IQ2_S, ggml_quantize_row_iq2_s_scalar},
    };
    constexpr int64_t n = 1024, rows = 24;
    for (uint64_t seed : {1u, 2u, 3u}) {
        uint64_t           s = seed * 7919;
        std::vector<float> x((size_t) (n * rows)), w(n);
        for (size_t i = 0; i < x.size(); i++) {
            const float g = gaussian(s);
            // every 5th row rounded to a coarse grid: many equal values (the sort's ties)
            x[i] = (i / n) % 5 == 4 ? std::round(4.0f * g) * 0.25f : (i % 11 == 0 ? 0.0f : g);
        }
        for (float & v : w) {
            v = std::exp(2.0f * gaussian(s));
        }
        for (const auto & k : k_types) {
            const size_t         rs = ggml_row_size(k.t, n);
            std::vector<uint8_t> a(rs * rows, 0xAA), b(rs * rows, 0x55);
            for (const float * im : {(const float *) w.data(), (const float *) nullptr}) {
                if (!im && ggml_quantize_requires_imatrix(k.t)) {
                    continue;
                }
                ASSERT_EQ(ggml_quantize_chunk(k.t, x.data(), a.data(), 0, rows, n, im), a.size());
                for (int64_t r = 0; r < rows; r++) {
                    ASSERT_TRUE(k.scalar(x.data() + r * n, b.data() + r * rs, n, im));
                }
                EXPECT_TRUE(a == b) << ggml_type_name(k.t) << (im ? " with" : " without") << " an imatrix, seed "
                                    << seed;
            }
        }
    }
}
#endif
