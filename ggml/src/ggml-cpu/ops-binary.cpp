// ADD / SUB / MUL / DIV with b broadcast to a's shape (each dim of b divides a's), any strides,
// F32/F16/BF16 elements. Threads split the rows of the result.
#include "ggml-cpu-impl.h"

namespace {

template <int OP>
inline float apply(float x, float y) {
    if (OP == GGML_OP_ADD)
        return x + y;
    if (OP == GGML_OP_SUB)
        return x - y;
    if (OP == GGML_OP_MUL)
        return x * y;
    return x / y;
}

// all-F32 rows with unit element stride: a plain loop the compiler vectorizes
template <int OP>
void row_f32(float * d, const float * x, const float * y, int64_t n, int64_t nb) {
    if (nb == n) {
        for (int64_t i = 0; i < n; ++i)
            d[i] = apply<OP>(x[i], y[i]);
    } else if (nb == 1) {
        const float v = y[0];
        for (int64_t i = 0; i < n; ++i)
            d[i] = apply<OP>(x[i], v);
    } else {
        for (int64_t i = 0; i < n; ++i)
            d[i] = apply<OP>(x[i], y[i % nb]);
    }
}

template <int OP>
void binary(const ggml_cpu_params * p, ggml_tensor * dst) {
    const ggml_tensor * a    = dst->src[0];
    const ggml_tensor * b    = dst->src[1];
    const int64_t       n    = dst->ne[0];
    const bool          fast = !ggml_cpu_use_scalar() && a->type == GGML_TYPE_F32 && b->type == GGML_TYPE_F32 &&
                      dst->type == GGML_TYPE_F32 && a->nb[0] == 4 && b->nb[0] == 4 && dst->nb[0] == 4;
    int64_t r0, r1;
    cpu_split(cpu_nrows(dst), p->ith, p->nth, r0, r1);
    for (int64_t r = r0; r < r1; ++r) {
        int64_t i1, i2, i3;
        cpu_row_index(dst, r, i1, i2, i3);
        char *       d = cpu_ptr(dst, 0, i1, i2, i3);
        const char * x = cpu_ptr(a, 0, i1, i2, i3);
        const char * y = cpu_ptr(b, 0, i1 % b->ne[1], i2 % b->ne[2], i3 % b->ne[3]);
        if (fast) {
            row_f32<OP>((float *) d, (const float *) x, (const float *) y, n, b->ne[0]);
            continue;
        }
        for (int64_t i = 0; i < n; ++i) {
            const float xv = cpu_load_f(a->type, x + i * a->nb[0]);
            const float yv = cpu_load_f(b->type, y + (i % b->ne[0]) * b->nb[0]);
            cpu_store_f(dst->type, d + i * dst->nb[0], apply<OP>(xv, yv));
        }
    }
}

}  // namespace

template <ggml_op OP>
void ggml_cpu_op_binary(const ggml_cpu_params * p, ggml_tensor * dst) {
    binary<OP>(p, dst);
}
template void ggml_cpu_op_binary<GGML_OP_ADD>(const ggml_cpu_params *, ggml_tensor *);
template void ggml_cpu_op_binary<GGML_OP_SUB>(const ggml_cpu_params *, ggml_tensor *);
template void ggml_cpu_op_binary<GGML_OP_MUL>(const ggml_cpu_params *, ggml_tensor *);
template void ggml_cpu_op_binary<GGML_OP_DIV>(const ggml_cpu_params *, ggml_tensor *);
