// NORM ((x - mean) / sqrt(var + eps)), RMS_NORM (x / sqrt(mean(x^2) + eps)) and L2_NORM
// (x / max(sqrt(sum(x^2)), eps)) per row, sums in double.
// RMS_NORM followed by a MUL with a weight row is fused by the graph loop: one pass writes both
// results, with the same float operations as the two nodes (identical bits), and one barrier less.
// An ADD feeding that RMS_NORM (the residual sum before each norm of a decoder layer) joins the pass:
// at decode all three are one row, so three barriers (and two idle waits of the other threads) become
// one.
#include "ggml-cpu-impl.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>

namespace {

// 1 / sqrt(mean(x^2) + eps) of a unit-stride F32 row
float rms_scale(const float * xf, int64_t n, float eps) {
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
    return (float) (1.0 / std::sqrt(ss / (double) n + eps));
}

bool f32_rows(const ggml_tensor * t) {
    return t->type == GGML_TYPE_F32 && t->nb[0] == 4;
}

// True when the memory of x and y intersects but is not the very same tensor memory (an in-place
// node: the fused pass reads and writes each element at one index, in one thread, as the node did).
bool bad_overlap(const ggml_tensor * x, const ggml_tensor * y) {
    if (!x->data || !y->data)
        return false;
    const char * a = (const char *) x->data;
    const char * b = (const char *) y->data;
    if (a == b && ggml_are_same_shape(x, y) && x->nb[1] == y->nb[1] && x->nb[2] == y->nb[2] && x->nb[3] == y->nb[3])
        return false;
    return a < b + ggml_nbytes(y) && b < a + ggml_nbytes(x);
}

}  // namespace

bool ggml_cpu_rms_norm_mul_fusable(const ggml_tensor * norm, const ggml_tensor * mul) {
    if (norm->op != GGML_OP_RMS_NORM || mul->op != GGML_OP_MUL || ggml_cpu_use_scalar())
        return false;
    const ggml_tensor * w = mul->src[0] == norm ? mul->src[1] : mul->src[1] == norm ? mul->src[0] : nullptr;
    if (!w || w == norm || !f32_rows(norm->src[0]) || !f32_rows(norm) || !f32_rows(mul) || !f32_rows(w))
        return false;
    for (int d = 0; d < 4; ++d)
        if (mul->ne[d] != norm->ne[d] || (d > 0 && w->ne[d] != 1))
            return false;
    // The nodes ran one after the other, so the allocator may have put the MUL's result where the
    // norm's input was (dead after the norm): fused, a thread would overwrite rows another still reads.
    const ggml_tensor * a = norm->src[0];
    if (bad_overlap(mul, a) || bad_overlap(norm, a) || bad_overlap(mul, norm) || bad_overlap(mul, w))
        return false;
    return w->ne[0] == norm->ne[0];
}

bool ggml_cpu_add_rms_norm_mul_fusable(const ggml_tensor * add, const ggml_tensor * norm, const ggml_tensor * mul) {
    if (add->op != GGML_OP_ADD || norm->src[0] != add || !ggml_cpu_rms_norm_mul_fusable(norm, mul))
        return false;
    for (const ggml_tensor * t : {add->src[0], add->src[1]})
        if (!f32_rows(t) || !ggml_are_same_shape(t, add) || bad_overlap(norm, t) || bad_overlap(mul, t) ||
            bad_overlap(add, t))
            return false;  // no broadcast (the sum is one plain row loop); no result over an input
    return f32_rows(add);
}

namespace {

// Rows [r0, r1) of RMS_NORM (+ MUL), and first of the ADD that feeds it when `add` is given.
void add_norm_mul_rows(const ggml_cpu_params * p, const ggml_tensor * add, ggml_tensor * norm, ggml_tensor * mul) {
    const ggml_tensor * a   = norm->src[0];
    const float *       w   = (const float *) (mul->src[0] == norm ? mul->src[1] : mul->src[0])->data;
    const float         eps = ggml_get_op_params_f32(norm, 0);
    const int64_t       n   = a->ne[0];
    int64_t             r0, r1;
    cpu_split(cpu_nrows(norm), p->ith, p->nth, r0, r1);
    for (int64_t r = r0; r < r1; ++r) {
        int64_t i1, i2, i3;
        cpu_row_index(norm, r, i1, i2, i3);
        const float * xf = (const float *) cpu_ptr(a, 0, i1, i2, i3);
        if (add) {
            // the ADD row as its node stores it (possibly in place over one of its inputs)
            const float * u   = (const float *) cpu_ptr(add->src[0], 0, i1, i2, i3);
            const float * v   = (const float *) cpu_ptr(add->src[1], 0, i1, i2, i3);
            float *       sum = (float *) cpu_ptr(add, 0, i1, i2, i3);
            for (int64_t i = 0; i < n; ++i)
                sum[i] = u[i] + v[i];
        }
        float *     df = (float *) cpu_ptr(norm, 0, i1, i2, i3);
        float *     mf = (float *) cpu_ptr(mul, 0, i1, i2, i3);
        const float s  = rms_scale(xf, n, eps);
        for (int64_t i = 0; i < n; ++i) {
            const float v = xf[i] * s;  // the RMS_NORM result, as its node stores it
            df[i]         = v;
            mf[i]         = v * w[i];
        }
    }
}

}  // namespace

void ggml_cpu_op_rms_norm_mul(const ggml_cpu_params * p, ggml_tensor * norm, ggml_tensor * mul) {
    add_norm_mul_rows(p, nullptr, norm, mul);
}

void ggml_cpu_op_add_rms_norm_mul(const ggml_cpu_params * p, ggml_tensor * add, ggml_tensor * norm, ggml_tensor * mul) {
    add_norm_mul_rows(p, add, norm, mul);
}

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
                const float s = rms_scale(xf, n, eps);
                for (int64_t i = 0; i < n; ++i)
                    df[i] = xf[i] * s;
            } else if (dst->op == GGML_OP_L2_NORM) {
                double ss = 0.0;
                for (int64_t i = 0; i < n; ++i)
                    ss += (double) xf[i] * xf[i];
                const float s = (float) (1.0 / std::max(std::sqrt(ss), (double) eps));
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
        // L2_NORM: unit rows, the norm floored at eps (not eps added, as the other two do)
        const double s =
            dst->op == GGML_OP_L2_NORM ? 1.0 / std::max(std::sqrt(ss), (double) eps) : 1.0 / std::sqrt(var + eps);
        for (int64_t i = 0; i < n; ++i) {
            const double v = cpu_load_f(a->type, x + i * a->nb[0]);
            cpu_store_f(dst->type, d + i * dst->nb[0], (float) ((v - mean) * s));
        }
    }
}
