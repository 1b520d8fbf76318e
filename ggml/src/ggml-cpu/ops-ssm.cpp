// The recurrent-layer ops: SSM_CONV (Mamba's causal conv1d, LFM2's short conv), SSM_SCAN (the Mamba /
// Mamba-2 selective scan) and GATED_DELTA_NET (the gated delta rule of Qwen3-Next). Shapes and output
// layouts are upstream ggml's (ggml.h). Each is split over independent channels or (sequence, head)
// pairs: a recurrence runs along the tokens inside one work item, so results do not depend on the
// thread count. The inner row loops live in ops-ssm-rows.h, compiled once per instruction set.
#include "ggml-cpu-impl.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstring>

#define GGML_CPU_SSM_ROWS_DEFINE
#include "ops-ssm-rows.h"  // after the define: the baseline build of the row loops

const ggml_cpu_ssm_rows * ggml_cpu_ssm_rows_base() {
    return &k_ssm_rows;
}

namespace {

// The row loops of the level the kernels run at (GGML_CPU_SCALAR / GGML_CPU_ISA / ggml_cpu_set_mm_isa
// select the baseline build, the oracle).
const ggml_cpu_ssm_rows * active_rows() {
#if defined(GGML_CPU_ARCH_X86_64)
    switch (ggml_cpu_mm_isa_active()) {
        case GGML_CPU_ISA_AVX512:
            return ggml_cpu_ssm_rows_avx512();
        case GGML_CPU_ISA_AVX2:
            return ggml_cpu_ssm_rows_avx2();
        default:
            break;
    }
#endif
    return ggml_cpu_ssm_rows_base();
}

// Mamba's softplus (as upstream: linear above 20, where log1p(exp(x)) == x in float)
inline float softplus(float x) {
    return x > 20.0f ? x : std::log1p(std::exp(x));
}

}  // namespace

void ggml_cpu_op_ssm_conv(const ggml_cpu_params * p, ggml_tensor * dst) {
    const ggml_tensor * sx      = dst->src[0];  // [d_conv - 1 + n_t, d_inner, n_s]
    const ggml_tensor * c       = dst->src[1];  // [d_conv, d_inner]
    const int64_t       d_conv  = c->ne[0];
    const int64_t       d_inner = dst->ne[0];
    const int64_t       n_t     = dst->ne[1];
    const int64_t       n_s     = dst->ne[2];
    // items: (sequence, channel); one channel's window slides along its own row of sx
    int64_t r0, r1;
    cpu_split(n_s * d_inner, p->ith, p->nth, r0, r1);
    for (int64_t r = r0; r < r1; ++r) {
        const int64_t is = r / d_inner, ic = r % d_inner;
        const float * row = (const float *) cpu_ptr(sx, 0, ic, is, 0);
        const float * w   = (const float *) cpu_ptr(c, 0, ic, 0, 0);
        for (int64_t t = 0; t < n_t; ++t) {
            float sum = 0.0f;
            for (int64_t k = 0; k < d_conv; ++k)
                sum += row[t + k] * w[k];
            *(float *) cpu_ptr(dst, ic, t, is, 0) = sum;
        }
    }
}

void ggml_cpu_op_ssm_scan(const ggml_cpu_params * p, ggml_tensor * dst) {
    const ggml_tensor *       s   = dst->src[0];  // [d_state, head_dim, n_head, n_rs]
    const ggml_tensor *       x   = dst->src[1];  // [head_dim, n_head, n_t, n_seqs]
    const ggml_tensor *       dt  = dst->src[2];  // [n_head, n_t, n_seqs]
    const ggml_tensor *       A   = dst->src[3];  // [1 or d_state, n_head]
    const ggml_tensor *       B   = dst->src[4];  // [d_state, n_group, n_t, n_seqs]
    const ggml_tensor *       C   = dst->src[5];  // same as B
    const ggml_tensor *       ids = dst->src[6];  // [n_seqs] I32
    const int64_t             ds = s->ne[0], hd = x->ne[0], nh = x->ne[1], nt = x->ne[2], ns = x->ne[3];
    const int64_t             ng = B->ne[1], n_rs = s->ne[3];
    const int64_t             K           = ggml_get_op_params_i32(dst, 0);
    const ggml_cpu_ssm_rows * rows        = active_rows();
    const bool                per_state_a = A->ne[0] != 1;  // Mamba-1
    const int64_t             head_state  = ds * hd;        // floats of one head's state
    // dst: y (laid out as a contiguous x), then K blocks of all states [ds, hd, nh, ns], slot-major
    float * const y_base     = (float *) dst->data;
    float * const state_base = y_base + ggml_nelements(x);
    const auto    slot_head  = [&](int64_t slot, int64_t is, int64_t h) {
        return state_base + ((slot * ns + is) * nh + h) * head_state;
    };

    // items: (sequence, head); the head's state is carried across the tokens inside one item
    int64_t r0, r1;
    cpu_split(ns * nh, p->ith, p->nth, r0, r1);
    for (int64_t r = r0; r < r1; ++r) {
        const int64_t is = r / nh, h = r % nh;
        const int32_t id = *(const int32_t *) cpu_ptr(ids, is, 0, 0, 0);
        if (id < 0 || id >= n_rs) {
            ggml_cpu_fail(p, "[ssm_scan] %s: state id %" PRId32 " out of range [0, %" PRId64 ")", dst->name, id, n_rs);
            return;
        }
        const int64_t g = h / (nh / ng);  // groups repeat interleaved: heads [g * nh/ng, (g+1) * nh/ng)
        const float * a = (const float *) cpu_ptr(A, 0, h, 0, 0);
        // the working state is slot 0 of the result, which ends as the final state (nothing is
        // written without tokens, as upstream)
        float * st = slot_head(0, is, h);
        if (nt > 0)
            std::memcpy(st, cpu_ptr(s, 0, 0, h, id), (size_t) head_state * sizeof(float));
        for (int64_t t = 0; t < nt; ++t) {
            const float   dts = softplus(*(const float *) cpu_ptr(dt, h, t, is, 0));
            const float   dA  = std::exp(dts * a[0]);
            const float * xr  = (const float *) cpu_ptr(x, 0, h, t, is);
            const float * b   = (const float *) cpu_ptr(B, 0, g, t, is);
            const float * cc  = (const float *) cpu_ptr(C, 0, g, t, is);
            float *       y   = y_base + ((is * nt + t) * nh + h) * hd;
            for (int64_t i = 0; i < hd; ++i) {
                const float xdt = xr[i] * dts;
                float *     row = st + i * ds;
                if (per_state_a) {  // an exp per element: Mamba-1's d_state is 16, not worth a vector exp
                    for (int64_t j = 0; j < ds; ++j)
                        row[j] = row[j] * std::exp(dts * a[j]) + b[j] * xdt;
                    y[i] = rows->dot(row, cc, ds);
                } else {
                    y[i] = rows->scan(row, dA, b, xdt, cc, ds);
                }
            }
            const int64_t slot = nt - 1 - t;
            if (slot > 0 && slot < K)
                std::memcpy(slot_head(slot, is, h), st, (size_t) head_state * sizeof(float));
        }
    }
}

namespace {

// Prefill takes the chunked form (gdn_chunk) from this many tokens on; fewer run the token loop (at
// S = 128 the two break even near 5 tokens with AVX2 and AVX-512).
constexpr int64_t k_gdn_chunk_min = 6;
// Tokens per chunk: the state products cost the same per token at any size, the C x C parts grow with
// it; 16 measured fastest at S = 128 (docs/benchmarks.md), 24 to 128 slower.
constexpr int64_t k_gdn_chunk = 16;

// The per-channel gate's chunked form scales k and q by e^{G_t} and k by e^{-G_t} (G_t the cumulative log
// decay of a channel inside the chunk); a chunk whose decay reaches e^{-60} in some channel (or, for a gate
// above 0, whose growth reaches e^{60}) runs token by token instead, so that neither factor leaves the
// float range.
constexpr double k_gdn_ch_max_decay = 60.0;

// Per-thread scratch in floats: exp(g) row; and for the chunked form the transposed state, the chunk's K
// (as rows and transposed) and D rows, the two C x C coefficient tables, e^{G_t} and the cumulative log
// decays G_t (doubles); the per-channel gate's decayed q/k rows (3 C x S) and per-channel G_t (C x S doubles).
int64_t gdn_scratch_floats(int64_t S, int64_t nt) {
    const int64_t C = std::min(nt, k_gdn_chunk);
    return S + (C > 0 ? S * S : 0) + 3 * C * S + 2 * C * C + 3 * C + 16 + 5 * C * S;
}

bool gdn_chunked(const ggml_tensor * dst) {
    return dst->src[2]->ne[2] >= k_gdn_chunk_min;
}

}  // namespace

size_t ggml_cpu_gated_delta_net_work_size(const ggml_tensor * dst, int nth) {
    const int64_t S = dst->src[2]->ne[0], nt = dst->src[2]->ne[2];
    return (size_t) nth * ((size_t) gdn_scratch_floats(S, nt) * sizeof(float) + 64);
}

namespace {

struct gdn_chunk_args {
    const float * k[k_gdn_chunk];  // the chunk's rows of k, q, v, the beta and the gate
    const float * q[k_gdn_chunk];
    const float * v[k_gdn_chunk];
    float *       o[k_gdn_chunk];  // its output rows
    float         beta[k_gdn_chunk];
    float         g[k_gdn_chunk];
    const float * gv[k_gdn_chunk];  // the per-channel gate's rows (KDA)
};

// dst[j][i] = src[i][j] for an r x c src, in 16 x 16 tiles: a plain column walk with a power-of-two
// row stride keeps hitting the same few cache sets
void gdn_transpose(float * dst, const float * src, int64_t r, int64_t c) {
    constexpr int64_t b = 16;
    for (int64_t i0 = 0; i0 < r; i0 += b)
        for (int64_t j0 = 0; j0 < c; j0 += b)
            for (int64_t i = i0; i < std::min(r, i0 + b); ++i)
                for (int64_t j = j0; j < std::min(c, j0 + b); ++j)
                    dst[j * r + i] = src[i * c + j];
}

// The chunk's unit lower-triangular system by forward substitution (D holds the right-hand sides on entry,
// the d_t, scaled by beta_t, on return; cA its strictly lower part), then the outputs o_t += cQ[t, <= t] D.
// Shared by the scalar-gate and the per-channel-gate (KDA) chunk forms.
void gdn_solve_chunk(const ggml_cpu_ssm_rows * rows, const float * cA, const float * cQ, float * D, int64_t S,
                     int64_t C, const gdn_chunk_args & a) {
    for (int64_t t = 0; t < C; ++t) {
        float * dt = D + t * S;
        rows->axpys(dt, cA + t * C, D, S, t, S);
        for (int64_t i = 0; i < S; ++i)
            dt[i] *= a.beta[t];
    }
    for (int64_t t = 0; t < C; ++t)
        rows->axpys(a.o[t], cQ + t * C, D, S, t + 1, S);
}

// The gated delta rule over one chunk of C tokens with a scalar gate, in the WY form (Yang et al., "Gated
// Delta Networks", 2024). With G_t the cumulative log decay inside the chunk and M0 the state before it,
//   d_t = beta_t (v_t - e^{G_t} M0 k_t - sum_{s<t} e^{G_t - G_s} (k_t . k_s) d_s)   (forward substitution)
//   o_t = (e^{G_t} M0 q_t + sum_{s<=t} e^{G_t - G_s} (q_t . k_s) d_s) / sqrt(S)
//   M   = e^{G_C} M0 + sum_s e^{G_C - G_s} d_s k_s^T
// so the state is read twice and written once per chunk instead of twice per token. MT is the state
// transposed (MT[i][j] = M[j][i]): M0 k_t is then a sum of MT's rows and the update adds to them, both
// in the row kernels' axpy form. Decay ratios are formed as exp(G_t - G_s) with t >= s from double sums:
// a strong decay underflows to 0, never overflows.
void gdn_chunk(const ggml_cpu_ssm_rows * rows, float * MT, int64_t S, int64_t C, const gdn_chunk_args & a, float * w) {
    float *     Kc    = w;            // [C][S]
    float *     KcT   = Kc + C * S;   // [S][C]
    float *     D     = KcT + C * S;  // [C][S]: M0 k_t, then d_t
    float *     cA    = D + C * S;    // [C][C]: -e^{G_t - G_s} (k_t . k_s), s < t
    float *     cQ    = cA + C * C;   // [C][C]: e^{G_t - G_s} (q_t . k_s) / sqrt(S), s <= t
    float *     eG    = cQ + C * C;   // [C]: e^{G_t}
    double *    G     = (double *) (((uintptr_t) (eG + C) + 7) & ~(uintptr_t) 7);
    const float scale = 1.0f / std::sqrt((float) S);
    double      acc   = 0.0;
    for (int64_t t = 0; t < C; ++t) {
        std::memcpy(Kc + t * S, a.k[t], (size_t) S * sizeof(float));
        // exp(-1000) is 0 in double as exp(-inf) or exp(-1e30) is: the clamp keeps G finite and its later
        // differences exact, where -inf - -inf or -1e30 + g would lose them
        G[t]  = acc += std::max((double) a.g[t], -1000.0);
        eG[t] = (float) std::exp(G[t]);
    }
    gdn_transpose(KcT, Kc, C, S);
    // u_t = v_t - e^{G_t} M0 k_t and the state's share of o_t
    for (int64_t t = 0; t < C; ++t) {
        float * dt = D + t * S;
        float * ot = a.o[t];
        std::memset(dt, 0, (size_t) S * sizeof(float));
        std::memset(ot, 0, (size_t) S * sizeof(float));
        rows->axpys2(dt, ot, a.k[t], a.q[t], MT, S, S, S);
        for (int64_t j = 0; j < S; ++j) {
            dt[j] = a.v[t][j] - eG[t] * dt[j];
            ot[j] *= eG[t] * scale;
        }
    }
    // the decayed k_s . k_t and k_s . q_t tables
    float r8[8];
    for (int64_t t = 0; t < C; ++t) {
        int64_t s = 0;
        for (; s + 4 <= t + 1; s += 4) {
            rows->dot4x2(Kc + s * S, S, a.k[t], a.q[t], S, r8);
            for (int m = 0; m < 4; ++m) {
                const float e     = std::exp((float) (G[t] - G[s + m]));
                cA[t * C + s + m] = -e * r8[m];
                cQ[t * C + s + m] = e * r8[4 + m] * scale;
            }
        }
        for (; s <= t; ++s) {
            const float e = std::exp((float) (G[t] - G[s]));
            cA[t * C + s] = -e * rows->dot(Kc + s * S, a.k[t], S);
            cQ[t * C + s] = e * rows->dot(Kc + s * S, a.q[t], S) * scale;
        }
    }
    // forward substitution for the d_t (the unit lower-triangular system), then the outputs
    gdn_solve_chunk(rows, cA, cQ, D, S, C, a);
    // the state after the chunk: MT[i] = e^{G_C} MT[i] + sum_s k_s[i] e^{G_C - G_s} d_s
    for (int64_t t = 0; t < C; ++t) {
        const float e = std::exp((float) (G[C - 1] - G[t]));
        for (int64_t j = 0; j < S; ++j)
            D[t * S + j] *= e;
    }
    for (int64_t i = 0; i < S; ++i) {
        float * row = MT + i * S;
        for (int64_t j = 0; j < S; ++j)
            row[j] *= eG[C - 1];
        rows->axpys(row, KcT + i * C, D, S, C, S);
    }
}

// The gated delta rule over one chunk of C tokens with a per-channel gate (KDA), the WY form of gdn_chunk
// with the decay per key channel i: with G_t[i] the cumulative log decay,
//   d_t = beta_t (v_t - M0 (e^{G_t} k_t) - sum_{s<t} ((e^{G_t} k_t) . (e^{-G_s} k_s)) d_s)
//   o_t = (M0 (e^{G_t} q_t) + sum_{s<=t} ((e^{G_t} q_t) . (e^{-G_s} k_s)) d_s) / sqrt(S)
//   M   = M0 diag(e^{G_C}) + sum_s d_s (e^{G_C - G_s} k_s)^T
// (products taken elementwise). False, with nothing changed, when some channel's |G_t| passes
// k_gdn_ch_max_decay inside the chunk: the caller then runs its tokens one by one.
bool gdn_chunk_ch(const ggml_cpu_ssm_rows * rows, float * MT, int64_t S, int64_t C, const gdn_chunk_args & a,
                  float * w) {
    float *     Kp    = w;            // [C][S]: e^{G_t} k_t
    float *     Qp    = Kp + C * S;   // [C][S]: e^{G_t} q_t
    float *     Kn    = Qp + C * S;   // [C][S]: e^{-G_t} k_t
    float *     KcT   = Kn + C * S;   // [S][C]: e^{G_C - G_t} k_t, transposed
    float *     D     = KcT + C * S;  // [C][S]: M0 (e^{G_t} k_t), then d_t
    float *     cA    = D + C * S;    // [C][C]
    float *     cQ    = cA + C * C;   // [C][C]
    double *    G     = (double *) (((uintptr_t) (cQ + C * C) + 7) & ~(uintptr_t) 7);  // [C][S]
    const float scale = 1.0f / std::sqrt((float) S);
    // a gate is a log decay (<= 0 in KDA); one above 0 grows the state, which the same bound covers
    double worst = 0.0;
    for (int64_t t = 0; t < C; ++t)
        for (int64_t i = 0; i < S; ++i) {
            G[t * S + i] = (t > 0 ? G[(t - 1) * S + i] : 0.0) + std::max((double) a.gv[t][i], -1000.0);
            worst        = std::max(worst, std::fabs(G[t * S + i]));
        }
    if (!(worst <= k_gdn_ch_max_decay))  // NaN gates too: the token loop gives what it gives
        return false;
    for (int64_t t = 0; t < C; ++t)
        for (int64_t i = 0; i < S; ++i) {
            const float e  = (float) std::exp(G[t * S + i]);
            Kp[t * S + i]  = a.k[t][i] * e;
            Qp[t * S + i]  = a.q[t][i] * e;
            Kn[t * S + i]  = a.k[t][i] / e;
            KcT[i * C + t] = a.k[t][i] * (float) std::exp(G[(C - 1) * S + i] - G[t * S + i]);
        }
    for (int64_t t = 0; t < C; ++t) {
        float * dt = D + t * S;
        float * ot = a.o[t];
        std::memset(dt, 0, (size_t) S * sizeof(float));
        std::memset(ot, 0, (size_t) S * sizeof(float));
        rows->axpys2(dt, ot, Kp + t * S, Qp + t * S, MT, S, S, S);
        for (int64_t j = 0; j < S; ++j) {
            dt[j] = a.v[t][j] - dt[j];
            ot[j] *= scale;
        }
    }
    float r8[8];
    for (int64_t t = 0; t < C; ++t) {
        int64_t s = 0;
        for (; s + 4 <= t + 1; s += 4) {
            rows->dot4x2(Kn + s * S, S, Kp + t * S, Qp + t * S, S, r8);
            for (int m = 0; m < 4; ++m) {
                cA[t * C + s + m] = -r8[m];
                cQ[t * C + s + m] = r8[4 + m] * scale;
            }
        }
        for (; s <= t; ++s) {
            cA[t * C + s] = -rows->dot(Kn + s * S, Kp + t * S, S);
            cQ[t * C + s] = rows->dot(Kn + s * S, Qp + t * S, S) * scale;
        }
    }
    gdn_solve_chunk(rows, cA, cQ, D, S, C, a);
    for (int64_t i = 0; i < S; ++i) {
        float *     row = MT + i * S;
        const float e   = (float) std::exp(G[(C - 1) * S + i]);
        for (int64_t j = 0; j < S; ++j)
            row[j] *= e;
        rows->axpys(row, KcT + i * C, D, S, C, S);
    }
    return true;
}

// The chunk's tokens one by one on the transposed state (a per-channel chunk with too strong a decay).
void gdn_tokens_ch(const ggml_cpu_ssm_rows * rows, float * MT, int64_t S, int64_t C, const gdn_chunk_args & a,
                   float * w) {
    const float scale = 1.0f / std::sqrt((float) S);
    float *     d     = w;  // [S]
    for (int64_t t = 0; t < C; ++t) {
        for (int64_t i = 0; i < S; ++i) {
            const float e   = std::exp(a.gv[t][i]);
            float *     row = MT + i * S;
            for (int64_t j = 0; j < S; ++j)
                row[j] *= e;
        }
        std::memset(d, 0, (size_t) S * sizeof(float));
        rows->axpys(d, a.k[t], MT, S, S, S);  // M k
        for (int64_t j = 0; j < S; ++j)
            d[j] = (a.v[t][j] - d[j]) * a.beta[t];
        for (int64_t i = 0; i < S; ++i) {
            float *     row = MT + i * S;
            const float ki  = a.k[t][i];
            for (int64_t j = 0; j < S; ++j)
                row[j] += ki * d[j];
        }
        std::memset(a.o[t], 0, (size_t) S * sizeof(float));
        rows->axpys(a.o[t], a.q[t], MT, S, S, S);
        for (int64_t j = 0; j < S; ++j)
            a.o[t][j] *= scale;
    }
}

}  // namespace

void ggml_cpu_op_gated_delta_net(const ggml_cpu_params * p, ggml_tensor * dst) {
    const ggml_tensor *       q    = dst->src[0];  // [S, H_k, n_t, n_seqs_k]
    const ggml_tensor *       k    = dst->src[1];  // [S, H_k, n_t, n_seqs_k]
    const ggml_tensor *       v    = dst->src[2];  // [S, H, n_t, n_seqs]
    const ggml_tensor *       g    = dst->src[3];  // [1 or S, H, n_t, n_seqs]
    const ggml_tensor *       beta = dst->src[4];  // [1, H, n_t, n_seqs]
    const ggml_tensor *       s_in = dst->src[5];  // [S, S, H, n_seqs]: element (i, j) is M[j][i]
    const int64_t             S = v->ne[0], H = v->ne[1], nt = v->ne[2], ns = v->ne[3];
    const int64_t             K      = ggml_get_op_params_i32(dst, 0);
    const ggml_cpu_ssm_rows * rows   = active_rows();
    const bool                per_ch = g->ne[0] == S;  // KDA: a decay per channel i
    const float               scale  = 1.0f / std::sqrt((float) S);
    const int64_t             rq3 = ns / q->ne[3], rk3 = ns / k->ne[3];
    const int64_t             mat      = S * S;
    float * const             out      = (float *) dst->data;
    float * const             states   = out + S * H * nt * ns;
    const int64_t             per_snap = mat * H * ns;
    float *                   eg =
        (float *) ((char *) p->wdata + (size_t) p->ith * ((size_t) gdn_scratch_floats(S, nt) * sizeof(float) + 64));
    const bool chunked = gdn_chunked(dst);

    // items: (sequence, head); M lives in slot 0 of the result while the tokens run
    int64_t r0, r1;
    cpu_split(ns * H, p->ith, p->nth, r0, r1);
    for (int64_t r = r0; r < r1; ++r) {
        const int64_t is = r / H, h = r % H;
        const int64_t hq = h % q->ne[1], hk = h % k->ne[1];  // q/k heads repeat tiled over v's
        float *       M  = states + (is * H + h) * mat;
        const float * M0 = (const float *) cpu_ptr(s_in, 0, 0, h, is);
        // as upstream: without tokens only K == 1 writes slot 0 (the state unchanged); with tokens the
        // first one (chunked or not) reads the state from s_in
        if (nt == 0 && K == 1)
            std::memcpy(M, M0, (size_t) mat * sizeof(float));
        // Chunks up to the first token whose state is a snapshot (K > 1), the token loop from there.
        const int64_t n_chunked = chunked && nt - (K - 1) >= k_gdn_chunk_min ? nt - (K - 1) : 0;
        float * const MT        = eg + S;
        if (n_chunked > 0)
            gdn_transpose(MT, M0, S, S);
        for (int64_t t0 = 0; t0 < n_chunked; t0 += k_gdn_chunk) {
            const int64_t  C = std::min(k_gdn_chunk, n_chunked - t0);
            gdn_chunk_args a;
            for (int64_t c = 0; c < C; ++c) {
                const int64_t t = t0 + c;
                a.q[c]          = (const float *) cpu_ptr(q, 0, hq, t, is / rq3);
                a.k[c]          = (const float *) cpu_ptr(k, 0, hk, t, is / rk3);
                a.v[c]          = (const float *) cpu_ptr(v, 0, h, t, is);
                a.o[c]          = out + ((is * nt + t) * H + h) * S;
                a.g[c]          = *(const float *) cpu_ptr(g, 0, h, t, is);
                a.gv[c]         = (const float *) cpu_ptr(g, 0, h, t, is);
                a.beta[c]       = *(const float *) cpu_ptr(beta, 0, h, t, is);
            }
            if (!per_ch)
                gdn_chunk(rows, MT, S, C, a, MT + mat);
            else if (!gdn_chunk_ch(rows, MT, S, C, a, MT + mat))
                gdn_tokens_ch(rows, MT, S, C, a, MT + mat);
        }
        if (n_chunked > 0) {
            gdn_transpose(M, MT, S, S);
            const int64_t slot = nt - n_chunked;
            if (slot > 0 && slot < K)
                std::memcpy(states + slot * per_snap + (is * H + h) * mat, M, (size_t) mat * sizeof(float));
        }
        for (int64_t t = n_chunked; t < nt; ++t) {
            const float * qt = (const float *) cpu_ptr(q, 0, hq, t, is / rq3);
            const float * kt = (const float *) cpu_ptr(k, 0, hk, t, is / rk3);
            const float * vt = (const float *) cpu_ptr(v, 0, h, t, is);
            const float * gt = (const float *) cpu_ptr(g, 0, h, t, is);
            const float   bt = *(const float *) cpu_ptr(beta, 0, h, t, is);
            // Row j of M is all that output j and d[j] need, so one pass over the rows does the whole
            // token (M stays in L1 row by row instead of being streamed four times).
            const float e = std::exp(gt[0]);
            if (per_ch)
                for (int64_t i = 0; i < S; ++i)
                    eg[i] = std::exp(gt[i]);
            float *       o    = out + ((is * nt + t) * H + h) * S;
            const float * prev = t == 0 ? M0 : M;
            for (int64_t j = 0; j < S; ++j) {
                float * row = M + j * S;
                // decay, M[j][i] *= exp(g) (or exp(g[i])), and M[j] . k
                const float kd = per_ch ? rows->decay_dot(row, prev + j * S, eg, kt, S)
                                        : rows->scale_dot(row, prev + j * S, e, kt, S);
                // delta rule: M[j] += (v[j] - M[j] . k) * beta * k; out[j] = M[j] . q / sqrt(S)
                o[j] = rows->axpy_dot(row, (vt[j] - kd) * bt, kt, qt, S) * scale;
            }
            const int64_t slot = nt - 1 - t;
            if (slot > 0 && slot < K)
                std::memcpy(states + slot * per_snap + (is * H + h) * mat, M, (size_t) mat * sizeof(float));
        }
    }
}
