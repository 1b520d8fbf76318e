// NORM ((x - mean) / sqrt(var + eps)) and RMS_NORM (x / sqrt(mean(x^2) + eps)) per row, sums in double.
#include "ggml-cpu-impl.h"

#include <cmath>

void ggml_cpu_op_norm(const ggml_cpu_params * p, ggml_tensor * dst) {
    const ggml_tensor * a   = dst->src[0];
    const float         eps = ggml_get_op_params_f32(dst, 0);
    const int64_t       n   = a->ne[0];
    const bool fast = a->type == GGML_TYPE_F32 && dst->type == GGML_TYPE_F32 && a->nb[0] == 4 && dst->nb[0] == 4;
    int64_t    r0, r1;
    cpu_split(cpu_nrows(dst), p->ith, p->nth, r0, r1);
    for (int64_t r = r0; r < r1; ++r) {
        int64_t i1, i2, i3;
        cpu_row_index(dst, r, i1, i2, i3);
        const char * x = cpu_ptr(a, 0, i1, i2, i3);
        char *       d = cpu_ptr(dst, 0, i1, i2, i3);
        if (fast) {
            const float * xf = (const float *) x;
            float *       df = (float *) d;
            if (dst->op == GGML_OP_RMS_NORM) {
                // 16 float lanes (vectorizable), then a double sum: accurate for any row length we meet
                float   part[16] = {0};
                int64_t i        = 0;
                for (; i + 16 <= n; i += 16)
                    for (int l = 0; l < 16; ++l)
                        part[l] += xf[i + l] * xf[i + l];
                double ss = 0.0;
                for (int l = 0; l < 16; ++l)
                    ss += part[l];
                for (; i < n; ++i)
                    ss += (double) xf[i] * xf[i];
                const float s = (float) (1.0 / std::sqrt(ss / (double) n + eps));
                for (int64_t i = 0; i < n; ++i)
                    df[i] = xf[i] * s;
            } else {
                double sum = 0.0;
                for (int64_t i = 0; i < n; ++i)
                    sum += xf[i];
                const float mean = (float) (sum / (double) n);
                double      var  = 0.0;
                for (int64_t i = 0; i < n; ++i) {
                    const float v = xf[i] - mean;
                    var += (double) v * v;
                }
                const float s = (float) (1.0 / std::sqrt(var / (double) n + eps));
                for (int64_t i = 0; i < n; ++i)
                    df[i] = (xf[i] - mean) * s;
            }
            continue;
        }
        double sum = 0.0, ss = 0.0;
        for (int64_t i = 0; i < n; ++i) {
            const double v = cpu_load_f(a->type, x + i * a->nb[0]);
            sum += v;
            ss += v * v;
        }
        double mean = 0.0, var = ss / (double) n;
        if (dst->op == GGML_OP_NORM) {
            mean = sum / (double) n;
            var  = 0.0;
            for (int64_t i = 0; i < n; ++i) {
                const double v = cpu_load_f(a->type, x + i * a->nb[0]) - mean;
                var += v * v;
            }
            var /= (double) n;
        }
        const double s = 1.0 / std::sqrt(var + eps);
        for (int64_t i = 0; i < n; ++i) {
            const double v = cpu_load_f(a->type, x + i * a->nb[0]);
            cpu_store_f(dst->type, d + i * dst->nb[0], (float) ((v - mean) * s));
        }
    }
}
