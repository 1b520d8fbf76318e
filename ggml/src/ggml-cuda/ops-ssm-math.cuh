// ops-ssm-math.cuh — the recurrent ops' work items (SSM_CONV, SSM_SCAN, GATED_DELTA_NET), testable on the host.
//
// Every function is GGML_CUDA_HD (ops-math.cuh): the kernels in ops-ssm.cu call them once per work item, and
// tests/unit/test-cuda-host-ssm.cpp runs the same functions over every item on the host and compares the
// result with the CPU op (the oracle). The shapes and layouts are ggml.h's; the parameter blocks hold raw
// F32 pointers and strides in elements (the op table makes every stride a multiple of 4 bytes).
//
// The scan and the delta rule split one state row over `n_lanes` lanes: lane l owns elements l, l + n_lanes,
// ..., reads and writes only those, and lane_sum adds the lanes' partial sums. On the device the lanes are
// the 32 threads of a warp (a shuffle reduction); on the host one lane owns the whole row and the sum is
// the value itself.
#pragma once

#include "ggml-impl.h"
#include "ops-math.cuh"

namespace ggml_cuda_math {

// The sum of v over the 32 lanes of the warp on the device (every lane gets it); v itself on the host,
// where the caller runs one lane.
GGML_CUDA_HD float ssm_lane_sum(float v) {
#if defined(__CUDA_ARCH__)
    for (int o = 16; o > 0; o >>= 1) {
        v += __shfl_xor_sync(0xffffffffu, v, o);
    }
#endif
    return v;
}

constexpr int SSM_WARP_LANES = 32;  // lanes per row on the device

// Mamba's softplus (as ggml-cpu/ops-ssm.cpp: linear above 20, where log1p(exp(x)) == x in float)
GGML_CUDA_HD float ssm_softplus(float x) {
    return x > 20.0f ? x : log1pf(expf(x));
}

// ---- SSM_CONV: res[r, t, s] = sum_k sx[t + k, r, s] * c[k, r] -----------------------------------------
struct ssm_conv_params {
    const float * sx;   // [d_conv - 1 + n_t, d_inner, n_s], rows contiguous
    const float * c;    // [d_conv, d_inner], rows contiguous
    float *       dst;  // [d_inner, n_t, n_s] contiguous
    int64_t       d_conv, d_inner, nt, ns;
    int64_t       sx_s1, sx_s2, c_s1;  // strides in floats
};

// Output element e of dst (flat, channel fastest).
GGML_CUDA_HD void ssm_conv_elem(const ssm_conv_params & p, int64_t e) {
    const int64_t ic = e % p.d_inner, t = (e / p.d_inner) % p.nt, is = e / (p.d_inner * p.nt);
    const float * row = p.sx + ic * p.sx_s1 + is * p.sx_s2 + t;
    const float * w   = p.c + ic * p.c_s1;
    float         sum = 0.0f;
    for (int64_t k = 0; k < p.d_conv; ++k) {
        sum += row[k] * w[k];
    }
    p.dst[e] = sum;
}

// ---- SSM_SCAN: per token, state = state * exp(dt' * A) + B * (x * dt'), y = state . C -------------------
struct ssm_scan_params {
    const float *   s;    // [d_state, head_dim, n_head, n_rs] contiguous
    const float *   x;    // [head_dim, n_head, n_t, n_seqs], dims 0 and 1 contiguous
    const float *   dt;   // [n_head, n_t, n_seqs] contiguous
    const float *   A;    // [1 or d_state, n_head] contiguous
    const float *   B;    // [d_state, n_group, n_t, n_seqs], dims 0 and 1 contiguous
    const float *   C;    // as B
    const int32_t * ids;  // [n_seqs]
    float *         dst;  // y laid out as a contiguous x, then K state slots [d_state, head_dim, n_head, n_seqs]
    int64_t         ds, hd, nh, nt, ns, ng, n_rs, K;
    int64_t         x_s2, x_s3, B_s2, B_s3, C_s2, C_s3, ids_s0;  // strides in floats / ints
    bool            per_state_a;                                 // A [d_state, n_head] (Mamba-1)
};

// Row i of head h of sequence is, over all tokens, as `lane` of `n_lanes`. The working state is slot 0 of the
// result (the final state at the end), slot j the state j tokens before the end; nothing is written without
// tokens (as the CPU). A state id outside [0, n_rs) starts from zeros: the CPU fails the compute there, but
// the ids live in device memory and the host never sees them.
GGML_CUDA_HD void ssm_scan_row(const ssm_scan_params & p, int64_t is, int64_t h, int64_t i, int lane, int n_lanes) {
    if (p.nt == 0) {
        return;
    }
    const int32_t id         = p.ids[is * p.ids_s0];
    const bool    id_ok      = id >= 0 && id < p.n_rs;
    const int64_t g          = h / (p.nh / p.ng);  // groups repeat interleaved over the heads
    const int64_t head_state = p.ds * p.hd;
    const int64_t slot_size  = head_state * p.nh * p.ns;
    float *       y_base     = p.dst;
    float *       st         = p.dst + p.hd * p.nh * p.nt * p.ns + (is * p.nh + h) * head_state + i * p.ds;
    const float * src        = p.s + ((id_ok ? id : 0) * p.nh + h) * head_state + i * p.ds;
    const float * a          = p.A + h * (p.per_state_a ? p.ds : 1);
    for (int64_t t = 0; t < p.nt; ++t) {
        const float   dts  = ssm_softplus(p.dt[(is * p.nt + t) * p.nh + h]);
        const float   dA   = expf(dts * a[0]);
        const float   xdt  = p.x[i + h * p.hd + t * p.x_s2 + is * p.x_s3] * dts;
        const float * b    = p.B + g * p.ds + t * p.B_s2 + is * p.B_s3;
        const float * c    = p.C + g * p.ds + t * p.C_s2 + is * p.C_s3;
        const int64_t slot = p.nt - 1 - t;
        float         y    = 0.0f;
        for (int64_t j = lane; j < p.ds; j += n_lanes) {
            const float prev = t > 0 ? st[j] : (id_ok ? src[j] : 0.0f);
            const float v    = prev * (p.per_state_a ? expf(dts * a[j]) : dA) + b[j] * xdt;
            st[j]            = v;
            y += v * c[j];
            if (slot > 0 && slot < p.K) {
                st[slot * slot_size + j] = v;
            }
        }
        y = ssm_lane_sum(y);
        if (lane == 0) {
            y_base[((is * p.nt + t) * p.nh + h) * p.hd + i] = y;
        }
    }
}

// Row r of the flat (sequence, head, row) order the kernel walks, row fastest.
GGML_CUDA_HD void ssm_scan_item(const ssm_scan_params & p, int64_t r, int lane, int n_lanes) {
    ssm_scan_row(p, r / (p.hd * p.nh), (r / p.hd) % p.nh, r % p.hd, lane, n_lanes);
}

// ---- GATED_DELTA_NET: per token, M[j][i] *= exp(g) (exp(g[i])); d[j] = (v[j] - M[j] . k) * beta;
// M[j][i] += d[j] * k[i]; out[j] = M[j] . q / sqrt(S) ------------------------------------------------------
struct gdn_params {
    const float * q;     // [S, H_k, n_t, n_seqs_k], rows contiguous
    const float * k;     // as q
    const float * v;     // [S, H, n_t, n_seqs], rows contiguous
    const float * g;     // [1 or S, H, n_t, n_seqs], rows contiguous
    const float * beta;  // [1, H, n_t, n_seqs]
    const float * s_in;  // [S, S, H, n_seqs] contiguous: element (i, j) is M[j][i]
    float *       dst;   // out [S, H, n_t, n_seqs], then K state slots [S, S, H, n_seqs]
    int64_t       S, H, nt, ns, K;
    int64_t       hq, hk, rq3, rk3;  // q / k heads; sequences per q / k sequence
    int64_t       q_s1, q_s2, q_s3, k_s1, k_s2, k_s3, v_s1, v_s2, v_s3;
    int64_t       g_s1, g_s2, g_s3, b_s1, b_s2, b_s3;  // strides in floats
    bool          per_ch;                              // g [S, H, n_t, n_seqs] (Kimi's KDA)
    float         scale;                               // 1 / sqrt(S)
};

// Row j of M of head h of sequence is, over all tokens, as `lane` of `n_lanes`: row j is all that out[j]
// needs, so the rows are independent. M lives in slot 0 of the result (as on the CPU); without tokens only
// K == 1 writes it (the state unchanged).
GGML_CUDA_HD void gdn_row(const gdn_params & p, int64_t is, int64_t h, int64_t j, int lane, int n_lanes) {
    const int64_t mat      = p.S * p.S;
    const int64_t per_snap = mat * p.H * p.ns;
    float *       row      = p.dst + p.S * p.H * p.nt * p.ns + (is * p.H + h) * mat + j * p.S;
    const float * row0     = p.s_in + (is * p.H + h) * mat + j * p.S;
    if (p.nt == 0 && p.K == 1) {
        for (int64_t i = lane; i < p.S; i += n_lanes) {
            row[i] = row0[i];
        }
    }
    const float * q0 = p.q + (h % p.hq) * p.q_s1 + (is / p.rq3) * p.q_s3;
    const float * k0 = p.k + (h % p.hk) * p.k_s1 + (is / p.rk3) * p.k_s3;
    for (int64_t t = 0; t < p.nt; ++t) {
        const float * qt   = q0 + t * p.q_s2;
        const float * kt   = k0 + t * p.k_s2;
        const float * gt   = p.g + h * p.g_s1 + t * p.g_s2 + is * p.g_s3;
        const float   bt   = p.beta[h * p.b_s1 + t * p.b_s2 + is * p.b_s3];
        const float   vj   = p.v[j + h * p.v_s1 + t * p.v_s2 + is * p.v_s3];
        const float * prev = t == 0 ? row0 : row;
        const float   e    = expf(gt[0]);
        float         kd   = 0.0f;
        for (int64_t i = lane; i < p.S; i += n_lanes) {
            const float m = prev[i] * (p.per_ch ? expf(gt[i]) : e);
            row[i]        = m;
            kd += m * kt[i];
        }
        const float   a    = (vj - ssm_lane_sum(kd)) * bt;
        const int64_t slot = p.nt - 1 - t;
        float         o    = 0.0f;
        for (int64_t i = lane; i < p.S; i += n_lanes) {
            const float m = row[i] + a * kt[i];
            row[i]        = m;
            o += m * qt[i];
            if (slot > 0 && slot < p.K) {
                row[slot * per_snap + i] = m;
            }
        }
        o = ssm_lane_sum(o);
        if (lane == 0) {
            p.dst[((is * p.nt + t) * p.H + h) * p.S + j] = o * p.scale;
        }
    }
}

// Row r of the flat (sequence, head, row j) order the kernel walks, j fastest.
GGML_CUDA_HD void gdn_item(const gdn_params & p, int64_t r, int lane, int n_lanes) {
    gdn_row(p, r / (p.S * p.H), (r / p.S) % p.H, r % p.S, lane, n_lanes);
}

// ---- the parameter blocks of a node (host code: the kernels' launchers and the host test) ------------
// The node must be one the op table accepts (ggml-ssm-nodes.h); data pointers are the tensors' own (device
// memory on the device, host memory in the test).
inline int64_t ssm_stride(const ggml_tensor * t, int d) {
    return (int64_t) (t->nb[d] / ggml_type_size(t->type));
}

inline ssm_conv_params ssm_conv_params_of(const ggml_tensor * dst) {
    const ggml_tensor *sx = dst->src[0], *c = dst->src[1];
    ssm_conv_params    p;
    p.sx      = (const float *) sx->data;
    p.c       = (const float *) c->data;
    p.dst     = (float *) dst->data;
    p.d_conv  = c->ne[0];
    p.d_inner = dst->ne[0];
    p.nt      = dst->ne[1];
    p.ns      = dst->ne[2];
    p.sx_s1   = ssm_stride(sx, 1);
    p.sx_s2   = ssm_stride(sx, 2);
    p.c_s1    = ssm_stride(c, 1);
    return p;
}

inline ssm_scan_params ssm_scan_params_of(const ggml_tensor * dst) {
    const ggml_tensor *s = dst->src[0], *x = dst->src[1], *A = dst->src[3], *B = dst->src[4], *C = dst->src[5],
                      *ids = dst->src[6];
    ssm_scan_params p;
    p.s           = (const float *) s->data;
    p.x           = (const float *) x->data;
    p.dt          = (const float *) dst->src[2]->data;
    p.A           = (const float *) A->data;
    p.B           = (const float *) B->data;
    p.C           = (const float *) C->data;
    p.ids         = (const int32_t *) ids->data;
    p.dst         = (float *) dst->data;
    p.ds          = s->ne[0];
    p.hd          = x->ne[0];
    p.nh          = x->ne[1];
    p.nt          = x->ne[2];
    p.ns          = x->ne[3];
    p.ng          = B->ne[1];
    p.n_rs        = s->ne[3];
    p.K           = ggml_get_op_params_i32(dst, 0);
    p.x_s2        = ssm_stride(x, 2);
    p.x_s3        = ssm_stride(x, 3);
    p.B_s2        = ssm_stride(B, 2);
    p.B_s3        = ssm_stride(B, 3);
    p.C_s2        = ssm_stride(C, 2);
    p.C_s3        = ssm_stride(C, 3);
    p.ids_s0      = ssm_stride(ids, 0);
    p.per_state_a = A->ne[0] != 1;
    return p;
}

inline gdn_params gdn_params_of(const ggml_tensor * dst) {
    const ggml_tensor *q = dst->src[0], *k = dst->src[1], *v = dst->src[2], *g = dst->src[3], *beta = dst->src[4];
    gdn_params         p;
    p.q      = (const float *) q->data;
    p.k      = (const float *) k->data;
    p.v      = (const float *) v->data;
    p.g      = (const float *) g->data;
    p.beta   = (const float *) beta->data;
    p.s_in   = (const float *) dst->src[5]->data;
    p.dst    = (float *) dst->data;
    p.S      = v->ne[0];
    p.H      = v->ne[1];
    p.nt     = v->ne[2];
    p.ns     = v->ne[3];
    p.K      = ggml_get_op_params_i32(dst, 0);
    p.hq     = q->ne[1];
    p.hk     = k->ne[1];
    p.rq3    = p.ns / q->ne[3];
    p.rk3    = p.ns / k->ne[3];
    p.q_s1   = ssm_stride(q, 1);
    p.q_s2   = ssm_stride(q, 2);
    p.q_s3   = ssm_stride(q, 3);
    p.k_s1   = ssm_stride(k, 1);
    p.k_s2   = ssm_stride(k, 2);
    p.k_s3   = ssm_stride(k, 3);
    p.v_s1   = ssm_stride(v, 1);
    p.v_s2   = ssm_stride(v, 2);
    p.v_s3   = ssm_stride(v, 3);
    p.g_s1   = ssm_stride(g, 1);
    p.g_s2   = ssm_stride(g, 2);
    p.g_s3   = ssm_stride(g, 3);
    p.b_s1   = ssm_stride(beta, 1);
    p.b_s2   = ssm_stride(beta, 2);
    p.b_s3   = ssm_stride(beta, 3);
    p.per_ch = g->ne[0] == p.S;
    p.scale  = 1.0f / sqrtf((float) p.S);
    return p;
}

}  // namespace ggml_cuda_math
