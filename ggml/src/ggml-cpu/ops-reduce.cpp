// Row reductions: SUM_ROWS, MEAN (double accumulation) and ARGMAX (first index of the maximum).
#include "ggml-cpu-impl.h"

void ggml_cpu_op_reduce(const ggml_cpu_params * p, ggml_tensor * dst) {
    const ggml_tensor * a = dst->src[0];
    const int64_t       n = a->ne[0];
    int64_t             r0, r1;
    cpu_split(cpu_nrows(a), p->ith, p->nth, r0, r1);
    for (int64_t r = r0; r < r1; ++r) {
        int64_t i1, i2, i3;
        cpu_row_index(a, r, i1, i2, i3);
        const char * x = cpu_ptr(a, 0, i1, i2, i3);
        if (dst->op == GGML_OP_ARGMAX) {
            int32_t best = 0;
            float   vmax = cpu_load_f(a->type, x);
            for (int64_t i = 1; i < n; ++i) {
                const float v = cpu_load_f(a->type, x + i * a->nb[0]);
                if (v > vmax) {
                    vmax = v;
                    best = (int32_t) i;
                }
            }
            // ARGMAX result is [ne1] for a 2-D input: row r lands at element r
            *(int32_t *) ((char *) dst->data + r * dst->nb[0]) = best;
            continue;
        }
        double sum = 0.0;
        if (a->type == GGML_TYPE_F32 && a->nb[0] == 4) {
            const float * xf = (const float *) x;
            for (int64_t i = 0; i < n; ++i)
                sum += xf[i];
        } else {
            for (int64_t i = 0; i < n; ++i)
                sum += cpu_load_f(a->type, x + i * a->nb[0]);
        }
        if (dst->op == GGML_OP_MEAN) {
            sum /= (double) n;
        }
        cpu_store_f(dst->type, cpu_ptr(dst, 0, i1, i2, i3), (float) sum);
    }
}
