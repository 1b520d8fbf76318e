// ROPE (rotary position embedding): NORMAL (adjacent pairs) and NEOX (pairs half a rotation apart)
// modes, frequency base/scale, YaRN ramp between interpolated and extrapolated angles with its
// magnitude correction, per-pair frequency factors, rotating only the first n_dims of each head.
#include "ggml-cpu-impl.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace {

// dimension index at which the rotation frequency completes n_rot turns over n_ctx_orig positions
double yarn_corr_dim(int n_dims, int n_ctx_orig, double n_rot, double base) {
    return n_dims * std::log(n_ctx_orig / (n_rot * 2.0 * M_PI)) / (2.0 * std::log(base));
}

double yarn_ramp(double low, double high, int i0) {
    const double y = (i0 / 2 - low) / std::max(0.001, high - low);
    return 1.0 - std::min(1.0, std::max(0.0, y));
}

}  // namespace

void ggml_cpu_op_rope(const ggml_cpu_params * p, ggml_tensor * dst) {
    const ggml_tensor * a           = dst->src[0];
    const ggml_tensor * pos         = dst->src[1];
    const ggml_tensor * ff          = dst->src[2];
    const int           n_dims      = ggml_get_op_params_i32(dst, 1);
    const int           mode        = ggml_get_op_params_i32(dst, 2);
    const int           n_ctx_orig  = ggml_get_op_params_i32(dst, 4);
    const float         freq_base   = ggml_get_op_params_f32(dst, 5);
    const float         freq_scale  = ggml_get_op_params_f32(dst, 6);
    const float         ext_factor  = ggml_get_op_params_f32(dst, 7);
    const float         attn_factor = ggml_get_op_params_f32(dst, 8);
    const float         beta_fast   = ggml_get_op_params_f32(dst, 9);
    const float         beta_slow   = ggml_get_op_params_f32(dst, 10);
    const bool          neox        = (mode & GGML_ROPE_TYPE_NEOX) != 0;

    double corr0 = 0.0, corr1 = 0.0;
    if (ext_factor != 0.0f) {
        corr0 = std::max(0.0, std::floor(yarn_corr_dim(n_dims, n_ctx_orig, beta_fast, freq_base)));
        corr1 = std::min((double) n_dims - 1, std::ceil(yarn_corr_dim(n_dims, n_ctx_orig, beta_slow, freq_base)));
    }
    const double mscale_yarn = ext_factor != 0.0f ? 1.0 + 0.1 * std::log(1.0 / freq_scale) : 1.0;

    const int64_t ne0  = dst->ne[0];
    const int64_t half = n_dims / 2;
    // cos of pair k at cs[k], sin at cs[half + k], for the current token (reused across graphs);
    // base^(-2k/n_dims) once per op instead of once per token (the same double values)
    thread_local std::vector<float>  cs;
    thread_local std::vector<double> freq;
    cs.resize((size_t) n_dims + 2);
    freq.resize((size_t) half + 1);
    for (int64_t k = 0; k < half; ++k)
        freq[(size_t) k] = std::pow((double) freq_base, -2.0 * (double) k / n_dims);
    int64_t    cached_token = -1, cached_i3 = -1;
    const bool fast = !ggml_cpu_use_scalar() && a->type == GGML_TYPE_F32 && dst->type == GGML_TYPE_F32 &&
                      a->nb[0] == 4 && dst->nb[0] == 4;
    int64_t r0, r1;
    cpu_split(cpu_nrows(dst), p->ith, p->nth, r0, r1);
    for (int64_t r = r0; r < r1; ++r) {
        int64_t i1, i2, i3;
        cpu_row_index(dst, r, i1, i2, i3);
        if (i2 != cached_token || i3 != cached_i3) {
            const double ppos = (double) *(const int32_t *) cpu_ptr(pos, i2, 0, 0, 0);
            for (int64_t k = 0; k < half; ++k) {
                double theta_extrap = ppos * freq[(size_t) k];
                if (ff) {
                    theta_extrap /= (double) *(const float *) cpu_ptr(ff, k, 0, 0, 0);
                }
                const double theta_interp = freq_scale * theta_extrap;
                double       theta        = theta_interp;
                double       mscale       = attn_factor;
                if (ext_factor != 0.0f) {
                    const double mix = yarn_ramp(corr0, corr1, (int) (2 * k)) * ext_factor;
                    theta            = theta_interp * (1.0 - mix) + theta_extrap * mix;
                    mscale *= mscale_yarn;
                }
                cs[k]        = (float) (std::cos(theta) * mscale);
                cs[half + k] = (float) (std::sin(theta) * mscale);
            }
            cached_token = i2;
            cached_i3    = i3;
        }
        const char * x = cpu_ptr(a, 0, i1, i2, i3);
        char *       d = cpu_ptr(dst, 0, i1, i2, i3);
        if (fast) {
            // unit-stride F32: plain loops the compiler vectorizes, the same float expressions as
            // the reference loop below (in place is fine: each pair is read before it is written)
            const float * xf = (const float *) x;
            float *       df = (float *) d;
            const float * cv = cs.data();
            const float * sv = cs.data() + half;
            if (neox) {
                for (int64_t k = 0; k < half; ++k) {
                    const float x0 = xf[k], x1 = xf[k + half];
                    df[k]        = x0 * cv[k] - x1 * sv[k];
                    df[k + half] = x0 * sv[k] + x1 * cv[k];
                }
            } else {
                for (int64_t k = 0; k < half; ++k) {
                    const float x0 = xf[2 * k], x1 = xf[2 * k + 1];
                    df[2 * k]     = x0 * cv[k] - x1 * sv[k];
                    df[2 * k + 1] = x0 * sv[k] + x1 * cv[k];
                }
            }
            for (int64_t k = n_dims; k < ne0; ++k)
                df[k] = xf[k];
            continue;
        }
        for (int64_t k = 0; k < half; ++k) {
            const int64_t j0 = neox ? k : 2 * k;
            const int64_t j1 = neox ? k + half : 2 * k + 1;
            const float   x0 = cpu_load_f(a->type, x + j0 * a->nb[0]);
            const float   x1 = cpu_load_f(a->type, x + j1 * a->nb[0]);
            const float   c = cs[k], s = cs[half + k];
            cpu_store_f(dst->type, d + j0 * dst->nb[0], x0 * c - x1 * s);
            cpu_store_f(dst->type, d + j1 * dst->nb[0], x0 * s + x1 * c);
        }
        for (int64_t k = n_dims; k < ne0; ++k) {
            cpu_store_f(dst->type, d + k * dst->nb[0], cpu_load_f(a->type, x + k * a->nb[0]));
        }
    }
}
