// Elementwise ops: UNARY activations, SQR, SQRT, SCALE, CLAMP, and the gated GLU family.
// Any strides, F32/F16/BF16; threads split rows of the result.
#include "ggml-cpu-impl.h"

#include <algorithm>
#include <cmath>

namespace {

constexpr float k_sqrt_2_over_pi = 0.79788456080286535588f;
constexpr float k_gelu_coef      = 0.044715f;
constexpr float k_sqrt1_2        = 0.70710678118654752440f;

inline float gelu_tanh(float x) {
    return 0.5f * x * (1.0f + std::tanh(k_sqrt_2_over_pi * x * (1.0f + k_gelu_coef * x * x)));
}
inline float gelu_erf(float x) {
    return 0.5f * x * (1.0f + std::erf(x * k_sqrt1_2));
}
inline float silu(float x) {
    return x / (1.0f + std::exp(-x));
}

// This thread's rows [r0, r1) and columns [c0, c1) of dst: a share of the rows, or with by_cols every
// row and a share of the columns (whole cache lines per thread).
void split_work(const ggml_cpu_params * p, const ggml_tensor * dst, bool by_cols, int64_t & r0, int64_t & r1,
                int64_t & c0, int64_t & c1) {
    const int64_t n = dst->ne[0];
    c0              = 0;
    c1              = n;
    if (!by_cols) {
        cpu_split(cpu_nrows(dst), p->ith, p->nth, r0, r1);
        return;
    }
    r0                = 0;
    r1                = cpu_nrows(dst);
    const int64_t per = (n / p->nth + 15) / 16 * 16;
    c0                = std::min(n, per * p->ith);
    c1                = p->ith == p->nth - 1 ? n : std::min(n, c0 + per);
}

struct unary_fn {
    int   op;      // ggml_op
    int   uop;     // ggml_unary_op when op == UNARY
    float p0, p1;  // scale/bias or lo/hi

    float operator()(float x) const {
        switch (op) {
            case GGML_OP_SQR:
                return x * x;
            case GGML_OP_SQRT:
                return std::sqrt(x);
            case GGML_OP_SCALE:
                return x * p0 + p1;
            case GGML_OP_CLAMP:
                return x < p0 ? p0 : (x > p1 ? p1 : x);
            default:
                break;
        }
        switch (uop) {
            case GGML_UNARY_OP_RELU:
                return x > 0.0f ? x : 0.0f;
            case GGML_UNARY_OP_TANH:
                return std::tanh(x);
            case GGML_UNARY_OP_SIGMOID:
                return 1.0f / (1.0f + std::exp(-x));
            case GGML_UNARY_OP_SILU:
                return silu(x);
            case GGML_UNARY_OP_GELU:
                return gelu_tanh(x);
            case GGML_UNARY_OP_GELU_ERF:
                return gelu_erf(x);
            case GGML_UNARY_OP_NEG:
                return -x;
            case GGML_UNARY_OP_EXP:
                return std::exp(x);
            case GGML_UNARY_OP_SOFTPLUS:  // the cut-off keeps exp from overflowing (and is upstream's)
                return x > 20.0f ? x : std::log(1.0f + std::exp(x));
            default:
                return x;
        }
    }
};

inline float glu_act(int gop, float x) {
    switch (gop) {
        case GGML_GLU_OP_SWIGLU:
            return silu(x);
        case GGML_GLU_OP_GEGLU:
            return gelu_tanh(x);
        default:
            return gelu_erf(x);
    }
}

}  // namespace

void ggml_cpu_op_unary(const ggml_cpu_params * p, ggml_tensor * dst) {
    const ggml_tensor * a = dst->src[0];
    unary_fn            f{dst->op, 0, 0.0f, 0.0f};
    if (dst->op == GGML_OP_UNARY) {
        f.uop = ggml_get_unary_op(dst);
    } else if (dst->op == GGML_OP_SCALE || dst->op == GGML_OP_CLAMP) {
        f.p0 = ggml_get_op_params_f32(dst, 0);
        f.p1 = ggml_get_op_params_f32(dst, 1);
    }
    const int64_t n    = dst->ne[0];
    const bool    fast = !ggml_cpu_use_scalar() && a->type == GGML_TYPE_F32 && dst->type == GGML_TYPE_F32 &&
                      a->nb[0] == 4 && dst->nb[0] == 4;
    // fewer rows than threads: split the columns (as GLU below)
    const bool by_cols = fast && cpu_nrows(dst) < p->nth;
    int64_t    r0, r1, c0, c1;
    split_work(p, dst, by_cols, r0, r1, c0, c1);
    for (int64_t r = r0; r < r1; ++r) {
        int64_t i1, i2, i3;
        cpu_row_index(dst, r, i1, i2, i3);
        char *       d = cpu_ptr(dst, 0, i1, i2, i3);
        const char * x = cpu_ptr(a, 0, i1, i2, i3);
        if (fast) {
            float *       df = (float *) d;
            const float * xf = (const float *) x;
            for (int64_t i = c0; i < c1; ++i)
                df[i] = f(xf[i]);
            continue;
        }
        for (int64_t i = 0; i < n; ++i) {
            cpu_store_f(dst->type, d + i * dst->nb[0], f(cpu_load_f(a->type, x + i * a->nb[0])));
        }
    }
}

void ggml_cpu_op_glu(const ggml_cpu_params * p, ggml_tensor * dst) {
    const ggml_tensor * a       = dst->src[0];
    const ggml_tensor * b       = dst->src[1];
    const int           gop     = ggml_get_op_params_i32(dst, 0);
    const bool          swapped = ggml_get_op_params_i32(dst, 1) != 0;
    const int64_t       n       = dst->ne[0];
    // unit-stride F32: the same float expressions as the loop below without its per-element type
    // dispatch; SwiGLU with AVX-512 takes the polynomial exp of vec-exp.avx512.h (within a few ulp of
    // std::exp; at prefill the scalar exp was ~5% of the graph). GEGLU keeps the scalar tanh.
    const bool fast = !ggml_cpu_use_scalar() && a->type == GGML_TYPE_F32 && a->nb[0] == 4 &&
                      dst->type == GGML_TYPE_F32 && dst->nb[0] == 4 &&
                      (!b || (b->type == GGML_TYPE_F32 && b->nb[0] == 4));
    const ggml_cpu_vec_exp * vec_exp = fast ? ggml_cpu_vec_exp_active() : nullptr;
    // Fewer rows than threads (decode: one row of n_ff): the threads split the columns instead, so
    // the others do not idle at the next barrier while one computes n_ff exponentials. Each element
    // is computed by the same expression either way.
    const bool by_cols = fast && cpu_nrows(dst) < p->nth;
    int64_t    r0, r1, c0, c1;
    split_work(p, dst, by_cols, r0, r1, c0, c1);
    for (int64_t r = r0; r < r1; ++r) {
        int64_t i1, i2, i3;
        cpu_row_index(dst, r, i1, i2, i3);
        char *       d = cpu_ptr(dst, 0, i1, i2, i3);
        const char * x = cpu_ptr(a, 0, i1, i2, i3);
        const char * g;  // the gate (not activated) half
        ggml_type    gt;
        size_t       gs;
        if (b) {
            g  = cpu_ptr(b, 0, i1, i2, i3);
            gt = b->type;
            gs = b->nb[0];
        } else {
            // fused: [x | g] in one row, or [g | x] when swapped
            g  = x + (swapped ? 0 : n * a->nb[0]);
            x  = x + (swapped ? n * a->nb[0] : 0);
            gt = a->type;
            gs = a->nb[0];
        }
        if (fast) {
            const float * xf = (const float *) x;
            const float * gf = (const float *) g;
            float *       df = (float *) d;
            switch (gop) {
                case GGML_GLU_OP_SWIGLU:
                    if (vec_exp) {
                        vec_exp->swiglu(xf + c0, gf + c0, df + c0, c1 - c0);
                        break;
                    }
                    for (int64_t i = c0; i < c1; ++i)
                        df[i] = silu(xf[i]) * gf[i];
                    break;
                case GGML_GLU_OP_GEGLU:
                    for (int64_t i = c0; i < c1; ++i)
                        df[i] = gelu_tanh(xf[i]) * gf[i];
                    break;
                default:
                    for (int64_t i = c0; i < c1; ++i)
                        df[i] = gelu_erf(xf[i]) * gf[i];
                    break;
            }
            continue;
        }
        for (int64_t i = 0; i < n; ++i) {
            const float xv = cpu_load_f(a->type, x + i * a->nb[0]);
            const float gv = cpu_load_f(gt, g + i * gs);
            cpu_store_f(dst->type, d + i * dst->nb[0], glu_act(gop, xv) * gv);
        }
    }
}
