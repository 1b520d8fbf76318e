// FLASH_ATTN_EXT: softmax(scale * q k^T [softcapped] + slope * mask) v for each query row and head,
// K/V in F32/F16/BF16 or a quantized type. The entry point runs the tiled kernel (ops-attn-tiled.cpp)
// and keeps the plain scalar loop below as the oracle (GGML_CPU_SCALAR=1): one query row at a time,
// one key at a time, an online softmax (running max and sum).
#include <algorithm>
#include <cmath>

#include "ops-attn.h"

float ggml_cpu_alibi_slope(float max_bias, int64_t n_head, int64_t h);  // ops-softmax.cpp

namespace {
inline size_t per_thread_floats(const ggml_tensor * dst) {
    // q row, accumulator, and a dequantized K row and V row (quantized caches)
    return (size_t) (2 * dst->src[0]->ne[0] + 2 * dst->src[2]->ne[0]) + 32;
}
}  // namespace

size_t ggml_cpu_flash_attn_ref_work_size(const ggml_tensor * dst, int nth) {
    return (size_t) nth * per_thread_floats(dst) * sizeof(float);
}

// Sized for both paths: the scalar switch may change between planning and computing.
size_t ggml_cpu_flash_attn_work_size(const ggml_tensor * dst, int nth) {
    size_t n = ggml_cpu_flash_attn_ref_work_size(dst, nth);
    if (ggml_cpu_flash_attn_tiled_supported(dst))
        n = std::max(n, ggml_cpu_flash_attn_tiled_work_size(dst, nth));
    return n;
}

void ggml_cpu_op_flash_attn(const ggml_cpu_params * p, ggml_tensor * dst) {
    if (!ggml_cpu_use_scalar() && ggml_cpu_flash_attn_tiled_supported(dst)) {
        ggml_cpu_flash_attn_tiled(p, dst);
    } else {
        ggml_cpu_flash_attn_ref(p, dst);
    }
}

void ggml_cpu_flash_attn_ref(const ggml_cpu_params * p, ggml_tensor * dst) {
    const ggml_tensor * q        = dst->src[0];
    const ggml_tensor * k        = dst->src[1];
    const ggml_tensor * v        = dst->src[2];
    const ggml_tensor * mask     = dst->src[3];
    const float         scale    = ggml_get_op_params_f32(dst, 0);
    const float         max_bias = ggml_get_op_params_f32(dst, 1);
    const float         softcap  = ggml_get_op_params_f32(dst, 2);

    const int64_t D = q->ne[0], Dv = v->ne[0], n_q = q->ne[1], n_head = q->ne[2], n_kv = k->ne[1];
    const int64_t group = n_head / k->ne[2];  // query heads per K/V head

    float *    qf      = (float *) p->wdata + (size_t) p->ith * per_thread_floats(dst);
    float *    acc     = qf + D;
    float *    kq      = acc + Dv;  // dequantized K row
    float *    vq      = kq + D;    // dequantized V row
    const bool k_quant = ggml_is_quantized(k->type), v_quant = ggml_is_quantized(v->type);

    int64_t r0, r1;
    cpu_split(n_q * n_head * q->ne[3], p->ith, p->nth, r0, r1);
    for (int64_t r = r0; r < r1; ++r) {
        const int64_t iq = r % n_q;
        const int64_t h  = (r / n_q) % n_head;
        const int64_t i3 = r / (n_q * n_head);
        const int64_t hk = h / group;

        const char * qrow = cpu_ptr(q, 0, iq, h, i3);
        for (int64_t d = 0; d < D; ++d)
            qf[d] = cpu_load_f(q->type, qrow + d * q->nb[0]);
        for (int64_t d = 0; d < Dv; ++d)
            acc[d] = 0.0f;

        const float  slope = ggml_cpu_alibi_slope(max_bias, n_head, h);
        const char * mrow  = mask ? cpu_ptr(mask, 0, iq, h % mask->ne[2], i3 % mask->ne[3]) : nullptr;

        float  M = -INFINITY;
        double S = 0.0;
        for (int64_t j = 0; j < n_kv; ++j) {
            float mv = 0.0f;
            if (mrow) {
                mv = cpu_load_f(mask->type, mrow + j * mask->nb[0]);
                if (mv == -INFINITY)
                    continue;
                mv *= slope;
            }
            const char * krow = cpu_ptr(k, 0, j, hk, i3 % k->ne[3]);
            float        s    = 0.0f;
            if (k_quant || (k->type == GGML_TYPE_F32 && k->nb[0] == 4)) {
                const float * kf = (const float *) krow;
                if (k_quant) {
                    ggml_cpu_to_float_row(k->type, krow, kq, D);
                    kf = kq;
                }
                for (int64_t d = 0; d < D; ++d)
                    s += qf[d] * kf[d];
            } else {
                for (int64_t d = 0; d < D; ++d)
                    s += qf[d] * cpu_load_f(k->type, krow + d * k->nb[0]);
            }
            s *= scale;
            if (softcap > 0.0f) {
                s = softcap * std::tanh(s / softcap);
            }
            s += mv;

            float vs = 1.0f;
            if (s > M) {
                const float ms = M == -INFINITY ? 0.0f : std::exp(M - s);
                M              = s;
                for (int64_t d = 0; d < Dv; ++d)
                    acc[d] *= ms;
                S *= ms;
            } else {
                vs = std::exp(s - M);
            }
            const char * vrow = cpu_ptr(v, 0, j, hk, i3 % v->ne[3]);
            if (v_quant || (v->type == GGML_TYPE_F32 && v->nb[0] == 4)) {
                const float * vf = (const float *) vrow;
                if (v_quant) {
                    ggml_cpu_to_float_row(v->type, vrow, vq, Dv);
                    vf = vq;
                }
                for (int64_t d = 0; d < Dv; ++d)
                    acc[d] += vs * vf[d];
            } else {
                for (int64_t d = 0; d < Dv; ++d)
                    acc[d] += vs * cpu_load_f(v->type, vrow + d * v->nb[0]);
            }
            S += vs;
        }
        const float inv = S > 0.0 ? (float) (1.0 / S) : 0.0f;
        float *     out = (float *) cpu_ptr(dst, 0, h, iq, i3);
        for (int64_t d = 0; d < Dv; ++d)
            out[d] = acc[d] * inv;
    }
}
