// GET_ROWS (gather rows by id, dequantizing) and SET_ROWS (the KV-cache write: scatter rows by id,
// converting to the destination type). Every id is bounds-checked: a bad id fails the compute.
#include "ggml-cpu-impl.h"

#include <cinttypes>

namespace {

inline int64_t read_id(const ggml_tensor * ids, int64_t i0, int64_t i1, int64_t i2) {
    const char * ptr = cpu_ptr(ids, i0, i1, i2, 0);
    if (ids->type == GGML_TYPE_I64) {
        int64_t v;
        std::memcpy(&v, ptr, 8);
        return v;
    }
    int32_t v;
    std::memcpy(&v, ptr, 4);
    return v;
}

inline size_t row_scratch_stride(int64_t n) {
    return (size_t) n * sizeof(float) + 64;
}

}  // namespace

size_t ggml_cpu_get_rows_work_size(const ggml_tensor * dst, int nth) {
    return ggml_is_quantized(dst->src[0]->type) ? (size_t) nth * row_scratch_stride(dst->ne[0]) : 0;
}

size_t ggml_cpu_set_rows_work_size(const ggml_tensor * dst, int nth) {
    return (size_t) nth * row_scratch_stride(dst->ne[0]);
}

void ggml_cpu_op_get_rows(const ggml_cpu_params * p, ggml_tensor * dst) {
    const ggml_tensor * a   = dst->src[0];
    const ggml_tensor * ids = dst->src[1];
    const int64_t       K   = dst->ne[0];
    float * buf = p->wdata ? (float *) ((char *) p->wdata + (size_t) p->ith * row_scratch_stride(K)) : nullptr;
    int64_t r0, r1;
    cpu_split(cpu_nrows(dst), p->ith, p->nth, r0, r1);
    for (int64_t r = r0; r < r1; ++r) {
        int64_t i, j1, j2;
        cpu_row_index(dst, r, i, j1, j2);
        const int64_t id = read_id(ids, i, j1, j2);
        if (id < 0 || id >= a->ne[1]) {
            ggml_cpu_fail(p, "[get_rows] %s: row id %" PRId64 " out of range [0, %" PRId64 ")", dst->name, id,
                          a->ne[1]);
            return;
        }
        const char * x = cpu_ptr(a, 0, id, j1 % a->ne[2], j2 % a->ne[3]);
        char *       d = cpu_ptr(dst, 0, i, j1, j2);
        if (ggml_is_quantized(a->type)) {
            ggml_cpu_to_float_row(a->type, x, buf, K);
            for (int64_t k = 0; k < K; ++k)
                cpu_store_f(dst->type, d + k * dst->nb[0], buf[k]);
        } else if (a->type == dst->type) {
            const size_t es = ggml_type_size(a->type);
            if (a->nb[0] == es && dst->nb[0] == es) {
                std::memcpy(d, x, (size_t) K * es);
            } else {
                for (int64_t k = 0; k < K; ++k)
                    std::memcpy(d + k * dst->nb[0], x + k * a->nb[0], es);
            }
        } else {
            for (int64_t k = 0; k < K; ++k) {
                cpu_store_f(dst->type, d + k * dst->nb[0], cpu_load_f(a->type, x + k * a->nb[0]));
            }
        }
    }
}

void ggml_cpu_op_set_rows(const ggml_cpu_params * p, ggml_tensor * dst) {
    const ggml_tensor * src = dst->src[0];
    const ggml_tensor * ids = dst->src[1];
    const int64_t       K   = dst->ne[0];
    float *             buf = (float *) ((char *) p->wdata + (size_t) p->ith * row_scratch_stride(K));
    int64_t             r0, r1;
    cpu_split(cpu_nrows(src), p->ith, p->nth, r0, r1);
    if (K == 1 && src->ne[2] == 1 && src->ne[3] == 1 && dst->ne[2] == 1 && dst->ne[3] == 1 &&
        !ggml_is_quantized(dst->type)) {
        // the transposed V cache write: one element per row, one row per (token, channel); the
        // general loop's index arithmetic and row-conversion call cost more than the element
        for (int64_t r = r0; r < r1; ++r) {
            const int64_t id = read_id(ids, r, 0, 0);
            if (id < 0 || id >= dst->ne[1]) {
                ggml_cpu_fail(p, "[set_rows] %s: row id %" PRId64 " out of range [0, %" PRId64 ")", dst->name, id,
                              dst->ne[1]);
                return;
            }
            cpu_store_f(dst->type, cpu_ptr(dst, 0, id, 0, 0), cpu_load_f(src->type, cpu_ptr(src, 0, r, 0, 0)));
        }
        return;
    }
    for (int64_t r = r0; r < r1; ++r) {
        int64_t i, s2, s3;
        cpu_row_index(src, r, i, s2, s3);
        const int64_t id = read_id(ids, i, s2 % ids->ne[1], s3 % ids->ne[2]);
        if (id < 0 || id >= dst->ne[1]) {
            ggml_cpu_fail(p, "[set_rows] %s: row id %" PRId64 " out of range [0, %" PRId64 ")", dst->name, id,
                          dst->ne[1]);
            return;
        }
        const char * x = cpu_ptr(src, 0, i, s2, s3);
        char *       d = cpu_ptr(dst, 0, id, s2 % dst->ne[2], s3 % dst->ne[3]);
        if (!ggml_is_quantized(dst->type)) {
            if (src->type == GGML_TYPE_F32 && src->nb[0] == 4 && dst->nb[0] == ggml_type_size(dst->type)) {
                ggml_cpu_from_float_row(dst->type, (const float *) x, d, K);
            } else {
                for (int64_t k = 0; k < K; ++k) {
                    cpu_store_f(dst->type, d + k * dst->nb[0], cpu_load_f(src->type, x + k * src->nb[0]));
                }
            }
            continue;
        }
        for (int64_t k = 0; k < K; ++k)
            buf[k] = cpu_load_f(src->type, x + k * src->nb[0]);
        ggml_cpu_from_float_row(dst->type, buf, d, K);
    }
}
