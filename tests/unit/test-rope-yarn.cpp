// The CPU rope op against a scalar definition of rotary embeddings with YaRN, written here from the
// definition (per pair k of a head: base frequency base^(-2k/n_dims), divided by a frequency factor;
// YaRN blends the interpolated angle s*theta with the extrapolated theta by a ramp over the pairs
// whose wavelength completes between beta_fast and beta_slow turns in the original context, and
// scales the result by attn_factor * (1 + 0.1 ln(1/s))). Both the scalar and the SIMD paths of the
// op are checked, in NORMAL and NEOX modes, with partial rotation, frequency factors and F16 input.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml.h"

extern "C" void ggml_cpu_set_scalar(bool scalar);  // internal switch (ggml-cpu.cpp)

namespace {

struct rope_case {
    int   mode;  // GGML_ROPE_TYPE_NORMAL or GGML_ROPE_TYPE_NEOX
    int   n_dims;
    float freq_scale;
    float ext_factor;
    float attn_factor;
    bool  freq_factors;
    bool  f16;
};

constexpr int   k_head_dim   = 64;
constexpr int   k_n_head     = 3;
constexpr int   k_n_tok      = 5;
constexpr int   k_n_ctx_orig = 4096;
constexpr float k_base       = 10000.0f;
constexpr float k_beta_fast  = 32.0f;
constexpr float k_beta_slow  = 1.0f;

// Pair index at which a rotation completes `turns` full turns over the original context: the pair's
// wavelength 2*pi*base^(2k/n_dims) equals n_ctx_orig / turns.
double pair_of_turns(int n_dims, double turns) {
    return n_dims * std::log(k_n_ctx_orig / (2.0 * M_PI * turns)) / (2.0 * std::log((double) k_base));
}

// The angle and the magnitude of pair k at position p, from the definition.
void reference_angle(const rope_case & c, const std::vector<float> & ff, int k, int p, double & theta, double & mag) {
    const double extrap = p * std::pow((double) k_base, -2.0 * k / c.n_dims) / (c.freq_factors ? ff[k] : 1.0);
    const double interp = c.freq_scale * extrap;
    theta               = interp;
    mag                 = c.attn_factor;
    if (c.ext_factor != 0.0f) {
        // pairs below `lo` rotate fast enough to keep their trained angle (extrapolate), pairs above
        // `hi` are interpolated, a linear ramp in between (boundaries rounded outwards to whole pairs)
        const double lo   = std::max(0.0, std::floor(pair_of_turns(c.n_dims, k_beta_fast)));
        const double hi   = std::min(c.n_dims - 1.0, std::ceil(pair_of_turns(c.n_dims, k_beta_slow)));
        const double t    = std::min(1.0, std::max(0.0, (k - lo) / std::max(0.001, hi - lo)));
        const double keep = (1.0 - t) * c.ext_factor;
        theta             = interp * (1.0 - keep) + extrap * keep;
        mag *= 1.0 + 0.1 * std::log(1.0 / c.freq_scale);
    }
}

class RopeYarn : public testing::TestWithParam<rope_case> {};

TEST_P(RopeYarn, MatchesDefinition) {
    const rope_case c = GetParam();
    for (bool scalar : {true, false}) {
        SCOPED_TRACE(scalar ? "scalar" : "simd");
        ggml_cpu_set_scalar(scalar);
        ggml_init_params ip{64 * 1024 * 1024, nullptr, false};
        ggml_context *   ctx = ggml_init(ip);
        ASSERT_NE(ctx, nullptr);
        const ggml_type t   = c.f16 ? GGML_TYPE_F16 : GGML_TYPE_F32;
        ggml_tensor *   x   = ggml_new_tensor_3d(ctx, t, k_head_dim, k_n_head, k_n_tok);
        ggml_tensor *   pos = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, k_n_tok);
        ggml_tensor *   ff  = c.freq_factors ? ggml_new_tensor_1d(ctx, GGML_TYPE_F32, c.n_dims / 2) : nullptr;

        std::mt19937                          rng(7);
        std::uniform_real_distribution<float> u(-1.0f, 1.0f);
        std::vector<float>                    xin((size_t) ggml_nelements(x));
        for (float & v : xin) {
            v = c.f16 ? ggml_fp16_to_fp32(ggml_fp32_to_fp16(u(rng))) : u(rng);
        }
        for (size_t i = 0; i < xin.size(); i++) {
            if (c.f16) {
                ((ggml_fp16_t *) x->data)[i] = ggml_fp32_to_fp16(xin[i]);
            } else {
                ((float *) x->data)[i] = xin[i];
            }
        }
        const int positions[k_n_tok] = {0, 1, 17, 1000, 20011};
        for (int i = 0; i < k_n_tok; i++) {
            ((int32_t *) pos->data)[i] = positions[i];
        }
        std::vector<float> ffv(c.n_dims / 2, 1.0f);
        for (int k = 0; k < c.n_dims / 2; k++) {
            ffv[k] = 1.0f + 7.0f * k / c.n_dims;  // 1 .. 4.5, like LongRoPE's long factors
            if (ff) {
                ((float *) ff->data)[k] = ffv[k];
            }
        }

        ggml_tensor * out = ggml_rope_ext(ctx, x, pos, ff, c.n_dims, c.mode, k_n_ctx_orig, k_base, c.freq_scale,
                                          c.ext_factor, c.attn_factor, k_beta_fast, k_beta_slow);
        ASSERT_NE(out, nullptr);
        ggml_cgraph * gf = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, out);
        ggml_backend_t be = ggml_backend_cpu_init();
        ASSERT_NE(be, nullptr);
        ggml_backend_cpu_set_n_threads(be, 2);
        ASSERT_EQ(ggml_backend_graph_compute(be, gf), GGML_STATUS_SUCCESS);
        ggml_backend_free(be);

        const bool neox    = c.mode == GGML_ROPE_TYPE_NEOX;
        double     max_err = 0.0;
        for (int tk = 0; tk < k_n_tok; tk++) {
            for (int h = 0; h < k_n_head; h++) {
                const size_t        row = ((size_t) tk * k_n_head + h) * k_head_dim;
                std::vector<double> want(xin.begin() + row, xin.begin() + row + k_head_dim);  // unrotated tail
                for (int k = 0; k < c.n_dims / 2; k++) {
                    double theta, mag;
                    reference_angle(c, ffv, k, positions[tk], theta, mag);
                    const int    j0 = neox ? k : 2 * k, j1 = neox ? k + c.n_dims / 2 : 2 * k + 1;
                    const double a = xin[row + j0], b = xin[row + j1];
                    want[j0] = (a * std::cos(theta) - b * std::sin(theta)) * mag;
                    want[j1] = (a * std::sin(theta) + b * std::cos(theta)) * mag;
                }
                for (int j = 0; j < k_head_dim; j++) {
                    const double got = c.f16 ? ggml_fp16_to_fp32(((ggml_fp16_t *) out->data)[row + j])
                                             : ((float *) out->data)[row + j];
                    max_err          = std::max(max_err, std::fabs(got - want[j]));
                }
            }
        }
        // F32: float cos/sin tables and float products; F16: one half-precision rounding of |x| <= ~2
        EXPECT_LT(max_err, c.f16 ? 2e-3 : 2e-5);
        ggml_free(ctx);
    }
    ggml_cpu_set_scalar(false);
}

INSTANTIATE_TEST_SUITE_P(Cpu, RopeYarn,
                         testing::Values(rope_case{GGML_ROPE_TYPE_NORMAL, 64, 1.0f, 0.0f, 1.0f, false, false},
                                         rope_case{GGML_ROPE_TYPE_NEOX, 64, 0.25f, 0.0f, 1.0f, false, false},
                                         rope_case{GGML_ROPE_TYPE_NEOX, 64, 0.25f, 1.0f, 1.0f, false, false},
                                         rope_case{GGML_ROPE_TYPE_NORMAL, 64, 0.125f, 1.0f, 0.9f, false, false},
                                         rope_case{GGML_ROPE_TYPE_NEOX, 48, 0.25f, 0.5f, 0.8f, true, false},
                                         rope_case{GGML_ROPE_TYPE_NEOX, 32, 1.0f, 0.0f, 1.3f, true, false},
                                         rope_case{GGML_ROPE_TYPE_NEOX, 64, 0.0625f, 1.0f, 1.0f, true, true}),
                         [](const testing::TestParamInfo<rope_case> & i) {
                             const rope_case & c = i.param;
                             return std::string(c.mode == GGML_ROPE_TYPE_NEOX ? "neox" : "normal") + "_d" +
                                    std::to_string(c.n_dims) + "_s" + std::to_string((int) (1.0f / c.freq_scale)) +
                                    "_ext" + std::to_string((int) (c.ext_factor * 10)) + (c.freq_factors ? "_ff" : "") +
                                    (c.f16 ? "_f16" : "");
                         });

// The YaRN blend itself, independent of the op: with ext_factor 1 the fastest pairs keep their
// trained angle and the slowest are fully interpolated, so the definition above is not vacuous.
TEST(RopeYarnDefinition, RampEnds) {
    const rope_case    c{GGML_ROPE_TYPE_NEOX, 64, 0.25f, 1.0f, 1.0f, false, false};
    std::vector<float> ff(32, 1.0f);
    double             theta, mag;
    reference_angle(c, ff, 0, 100, theta, mag);
    EXPECT_NEAR(theta, 100.0, 1e-9);  // pair 0: frequency 1, extrapolated
    reference_angle(c, ff, 31, 100, theta, mag);
    EXPECT_NEAR(theta, 0.25 * 100.0 * std::pow(10000.0, -62.0 / 64), 1e-12);  // interpolated
    EXPECT_NEAR(mag, 1.0 + 0.1 * std::log(4.0), 1e-12);
}

}  // namespace
