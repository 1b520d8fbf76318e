// ARGSORT: stable per-row sort indices, ascending or descending (TOP_K is a view of a descending one).
#include "ggml-cpu-impl.h"

#include <algorithm>
#include <vector>

void ggml_cpu_op_argsort(const ggml_cpu_params * p, ggml_tensor * dst) {
    const ggml_tensor *             a    = dst->src[0];
    const bool                      desc = ggml_get_op_params_i32(dst, 0) == GGML_SORT_ORDER_DESC;
    const int64_t                   n    = a->ne[0];
    thread_local std::vector<float> vals;  // reused across graphs
    vals.resize((size_t) n);
    int64_t r0, r1;
    cpu_split(cpu_nrows(a), p->ith, p->nth, r0, r1);
    for (int64_t r = r0; r < r1; ++r) {
        int64_t i1, i2, i3;
        cpu_row_index(a, r, i1, i2, i3);
        const char * x   = cpu_ptr(a, 0, i1, i2, i3);
        int32_t *    idx = (int32_t *) cpu_ptr(dst, 0, i1, i2, i3);
        for (int64_t i = 0; i < n; ++i) {
            vals[(size_t) i] = cpu_load_f(a->type, x + i * a->nb[0]);
            idx[i]           = (int32_t) i;
        }
        if (desc) {
            std::stable_sort(idx, idx + n, [&](int32_t l, int32_t r_) { return vals[(size_t) l] > vals[(size_t) r_]; });
        } else {
            std::stable_sort(idx, idx + n, [&](int32_t l, int32_t r_) { return vals[(size_t) l] < vals[(size_t) r_]; });
        }
    }
}
