// DUP / CONT / CPY (element order preserved between any two layouts; F32/F16/BF16 converted in any
// combination, same-type copies of any type, F32 -> quantized and quantized -> F32 through the type
// traits, by rows of whole blocks that may be a strided view) and CONCAT.
#include "ggml-cpu-impl.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace {

// Walks the elements of t in logical (row-major over ne) order starting from a flat index.
struct elem_walker {
    const ggml_tensor * t;
    int64_t             i0, i1, i2, i3;

    elem_walker(const ggml_tensor * t_, int64_t flat) : t(t_) {
        i0 = flat % t->ne[0];
        flat /= t->ne[0];
        i1 = flat % t->ne[1];
        flat /= t->ne[1];
        i2 = flat % t->ne[2];
        i3 = flat / t->ne[2];
    }
    const char * ptr() const { return cpu_ptr(t, i0, i1, i2, i3); }
    void         next() {
                if (++i0 < t->ne[0])
            return;
        i0 = 0;
                if (++i1 < t->ne[1])
            return;
        i1 = 0;
                if (++i2 < t->ne[2])
            return;
        i2 = 0;
                ++i3;
    }
};

bool same_shape(const ggml_tensor * a, const ggml_tensor * b) {
    return a->ne[0] == b->ne[0] && a->ne[1] == b->ne[1] && a->ne[2] == b->ne[2] && a->ne[3] == b->ne[3];
}

// dst rows [r0, r1) of a same-type copy whose source has unit stride along dim 1, by T x T tiles:
// the T source lines of a tile stay in cache while T destination lines are written from them (an
// element-by-element walk reads one element per source cache line).
template <typename E>
void copy_transposed(const ggml_tensor * src, ggml_tensor * dst, int64_t r0, int64_t r1) {
    constexpr int64_t T   = 32;
    const int64_t     ne0 = dst->ne[0];
    for (int64_t r = r0; r < r1;) {
        int64_t i1, i2, i3;
        cpu_row_index(dst, r, i1, i2, i3);
        const int64_t n1 = std::min<int64_t>(std::min<int64_t>(T, dst->ne[1] - i1), r1 - r);
        const char *  sb = cpu_ptr(src, 0, i1, i2, i3);
        char *        db = cpu_ptr(dst, 0, i1, i2, i3);
        for (int64_t i0 = 0; i0 < ne0; i0 += T) {
            const int64_t n0 = std::min<int64_t>(T, ne0 - i0);
            // one destination line at a time: T rows of a power-of-two stride written together
            // would share a cache set
            for (int64_t b = 0; b < n1; ++b) {
                E *          d = (E *) (db + b * dst->nb[1]);
                const char * x = sb + b * sizeof(E);
                for (int64_t a = i0; a < i0 + n0; ++a) {
                    d[a] = *(const E *) (x + a * src->nb[0]);
                }
            }
        }
        r += n1;
    }
}

// Quantized source (rows of whole blocks, any row strides: supports_copy) into F32. Fast path: the
// destination walks the source row by row with unit stride, so each source row is dequantized straight
// into its destination row. Reference (GGML_CPU_SCALAR, or another destination shape or layout):
// each source row dequantized into scratch, then scattered element by element in logical order.
void copy_from_quantized(const ggml_cpu_params * p, const ggml_tensor * src, ggml_tensor * dst) {
    if (!ggml_cpu_use_scalar() && same_shape(src, dst) && dst->nb[0] == sizeof(float)) {
        int64_t r0, r1;
        cpu_split(cpu_nrows(dst), p->ith, p->nth, r0, r1);
        for (int64_t r = r0; r < r1; ++r) {
            int64_t i1, i2, i3;
            cpu_row_index(dst, r, i1, i2, i3);
            ggml_cpu_to_float_row(src->type, cpu_ptr(src, 0, i1, i2, i3), (float *) cpu_ptr(dst, 0, i1, i2, i3),
                                  dst->ne[0]);
        }
        return;
    }
    const int64_t ne0 = src->ne[0];
    int64_t       r0, r1;
    cpu_split(cpu_nrows(src), p->ith, p->nth, r0, r1);
    if (r0 >= r1)
        return;
    float *     buf = (float *) ((char *) p->wdata + (size_t) p->ith * ((size_t) ne0 * sizeof(float) + 64));
    elem_walker w(dst, r0 * ne0);
    for (int64_t r = r0; r < r1; ++r) {
        int64_t i1, i2, i3;
        cpu_row_index(src, r, i1, i2, i3);
        ggml_cpu_to_float_row(src->type, cpu_ptr(src, 0, i1, i2, i3), buf, ne0);
        for (int64_t i = 0; i < ne0; ++i, w.next())
            cpu_store_f(dst->type, const_cast<char *>(w.ptr()), buf[i]);
    }
}

}  // namespace

size_t ggml_cpu_copy_work_size(const ggml_tensor * dst, int nth) {
    const ggml_tensor * src = dst->src[0];
    if (src->type == dst->type) {
        return 0;
    }
    // one row of floats per thread: a destination row gathered before quantizing, or a source row
    // dequantized before it is scattered
    if (ggml_is_quantized(dst->type)) {
        return (size_t) nth * ((size_t) dst->ne[0] * sizeof(float) + 64);
    }
    if (ggml_is_quantized(src->type)) {
        return (size_t) nth * ((size_t) src->ne[0] * sizeof(float) + 64);
    }
    return 0;
}

void ggml_cpu_op_dup(const ggml_cpu_params * p, ggml_tensor * dst) {
    const ggml_tensor * src = dst->src[0];
    const int64_t       ne0 = dst->ne[0];

    // same type, both contiguous: one memcpy split in byte ranges
    if (src->type == dst->type && ggml_is_contiguous(src) && ggml_is_contiguous(dst)) {
        const size_t total = ggml_row_size(dst->type, ne0) * (size_t) cpu_nrows(dst);
        int64_t      b0, b1;
        cpu_split((int64_t) total, p->ith, p->nth, b0, b1);
        if (b1 > b0)
            std::memcpy((char *) dst->data + b0, (const char *) src->data + b0, (size_t) (b1 - b0));
        return;
    }
    if (ggml_is_quantized(src->type)) {  // into F32 (supports_copy); split over the source's rows
        copy_from_quantized(p, src, dst);
        return;
    }

    int64_t r0, r1;
    cpu_split(cpu_nrows(dst), p->ith, p->nth, r0, r1);
    if (r0 >= r1)
        return;

    if (ggml_is_quantized(dst->type)) {
        // gather each destination row as floats, then quantize it in one call
        float *     buf = (float *) ((char *) p->wdata + (size_t) p->ith * ((size_t) ne0 * sizeof(float) + 64));
        elem_walker w(src, r0 * ne0);
        for (int64_t r = r0; r < r1; ++r) {
            for (int64_t i = 0; i < ne0; ++i, w.next())
                buf[i] = cpu_load_f(src->type, w.ptr());
            int64_t i1, i2, i3;
            cpu_row_index(dst, r, i1, i2, i3);
            ggml_cpu_from_float_row(dst->type, buf, cpu_ptr(dst, 0, i1, i2, i3), ne0);
        }
        return;
    }

    const bool   same  = src->type == dst->type;
    const size_t esize = ggml_type_size(dst->type);
    const bool   fast  = !ggml_cpu_use_scalar() && same_shape(src, dst) && src->nb[0] == ggml_type_size(src->type) &&
                      dst->nb[0] == esize;
    if (fast) {
        // row by row with unit strides (the common case: cont of a permute whose rows stay intact)
        for (int64_t r = r0; r < r1; ++r) {
            int64_t i1, i2, i3;
            cpu_row_index(dst, r, i1, i2, i3);
            const char * x = cpu_ptr(src, 0, i1, i2, i3);
            char *       d = cpu_ptr(dst, 0, i1, i2, i3);
            if (same) {
                std::memcpy(d, x, (size_t) ne0 * esize);
            } else if (src->type == GGML_TYPE_F32 && dst->type == GGML_TYPE_F16) {
                ggml_fp32_to_fp16_row((const float *) x, (ggml_fp16_t *) d, ne0);
            } else if (src->type == GGML_TYPE_F32 && dst->type == GGML_TYPE_BF16) {
                ggml_fp32_to_bf16_row((const float *) x, (ggml_bf16_t *) d, ne0);
            } else if (dst->type == GGML_TYPE_F32) {
                ggml_cpu_to_float_row(src->type, x, (float *) d, ne0);
            } else {
                for (int64_t i = 0; i < ne0; ++i) {
                    cpu_store_f(dst->type, d + i * dst->nb[0], cpu_load_f(src->type, x + i * src->nb[0]));
                }
            }
        }
        return;
    }

    if (!ggml_cpu_use_scalar() && same && (esize == 2 || esize == 4) && same_shape(src, dst) && src->nb[1] == esize &&
        src->nb[0] != esize && dst->nb[0] == esize) {
        // a transpose (dim 1 of the source has unit stride: the plain attention path's row-major V
        // made [n_kv, dv]): in tiles, reading along the source's unit stride
        if (esize == 2) {
            copy_transposed<uint16_t>(src, dst, r0, r1);
        } else {
            copy_transposed<uint32_t>(src, dst, r0, r1);
        }
        return;
    }

    elem_walker w(src, r0 * ne0);
    for (int64_t r = r0; r < r1; ++r) {
        int64_t i1, i2, i3;
        cpu_row_index(dst, r, i1, i2, i3);
        char * d = cpu_ptr(dst, 0, i1, i2, i3);
        for (int64_t i = 0; i < ne0; ++i, w.next()) {
            if (same) {
                std::memcpy(d + i * dst->nb[0], w.ptr(), esize);
            } else {
                cpu_store_f(dst->type, d + i * dst->nb[0], cpu_load_f(src->type, w.ptr()));
            }
        }
    }
}

namespace {

// n elements of a row of s starting at element (0, j1, j2, j3) to d (dst's stride dnb): one memcpy when
// both rows are contiguous (a conv layer's concat of its carried inputs and the batch's runs per
// channel: a copy per element was 5% of a delta-net model's decode), else element by element.
void concat_part(char * d, size_t dnb, const ggml_tensor * s, int64_t j1, int64_t j2, int64_t j3, int64_t n,
                 size_t esize) {
    const char * src = cpu_ptr(s, 0, j1, j2, j3);
    if (dnb == esize && (size_t) s->nb[0] == esize) {
        std::memcpy(d, src, (size_t) n * esize);
        return;
    }
    const size_t snb = (size_t) s->nb[0];
    if (esize == 4) {  // a fixed size: the copies inline (F32, I32)
        for (int64_t i = 0; i < n; ++i) {
            std::memcpy(d + i * dnb, src + i * snb, 4);
        }
        return;
    }
    for (int64_t i = 0; i < n; ++i) {
        std::memcpy(d + i * dnb, src + i * snb, esize);
    }
}

}  // namespace

void ggml_cpu_op_concat(const ggml_cpu_params * p, ggml_tensor * dst) {
    const ggml_tensor * a     = dst->src[0];
    const ggml_tensor * b     = dst->src[1];
    const int           dim   = ggml_get_op_params_i32(dst, 0);
    const size_t        esize = ggml_type_size(dst->type);
    const size_t        dnb   = (size_t) dst->nb[0];
    int64_t             r0, r1;
    cpu_split(cpu_nrows(dst), p->ith, p->nth, r0, r1);
    for (int64_t r = r0; r < r1; ++r) {
        int64_t idx[4] = {0, 0, 0, 0};
        cpu_row_index(dst, r, idx[1], idx[2], idx[3]);
        char * d = cpu_ptr(dst, 0, idx[1], idx[2], idx[3]);
        if (dim == 0) {
            // a's elements then b's, of the same row index
            concat_part(d, dnb, a, idx[1], idx[2], idx[3], a->ne[0], esize);
            concat_part(d + a->ne[0] * dnb, dnb, b, idx[1], idx[2], idx[3], b->ne[0], esize);
            continue;
        }
        // the whole row comes from one source (a and b may be the same tensor: decided by the index)
        const bool from_b = idx[dim] >= a->ne[dim];
        if (from_b) {
            idx[dim] -= a->ne[dim];
        }
        concat_part(d, dnb, from_b ? b : a, idx[1], idx[2], idx[3], dst->ne[0], esize);
    }
}
