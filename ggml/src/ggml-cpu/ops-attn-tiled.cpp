// Tiled FLASH_ATTN_EXT. The query rows that share a K/V head (the GQA group x the positions, ordered
// position-major so neighbours share a mask row) are cut into tiles of BQ rows; each tile walks the
// keys BK at a time:
//   S = Q K^T     with the F32/F16/BF16 mul_mat kernels (a quantized K tile is widened to F32 once
//                 for all rows, so Q stays F32 and the scores are as exact as the reference's)
//   scale, soft-cap, ALiBi-scaled mask; online softmax per row (running max M and sum L; the
//   accumulator is rescaled when the max grows)
//   acc += P V    with a SIMD kernel (V rows widened to F32 once per key tile, shared by all rows)
// Key tiles whose mask is -inf for every row of the query tile are skipped (the causal upper
// triangle), and a tile is trimmed after its last unmasked key.
// Threads take work items (batch, K/V head, query tile, key chunk) round-robin. A single query tile
// over a long KV (decode) is also cut into fixed chunks of CHUNK keys whose partial (M, L, acc) are
// merged in chunk order after a barrier. The grid depends only on the shapes, never on the thread
// count, so results are identical for any number of threads.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "matmul-attn.h"
#include "ops-attn.h"

float ggml_cpu_alibi_slope(float max_bias, int64_t n_head, int64_t h);  // ops-softmax.cpp

namespace {

constexpr int     BQ          = 32;   // query rows per tile
constexpr int     BK          = 128;  // keys per tile
constexpr int64_t CHUNK       = 512;  // keys per work item when one query tile covers all rows (decode)
constexpr int     KT_MIN_ROWS = 16;   // fewer rows (decode, one GQA group): the dot kernels, as
                                      // transposing the K tile costs about what it saves

size_t align64(size_t n) {
    return (n + 63) / 64 * 64;
}

// ---- portable kernels (no SIMD level, e.g. GGML_CPU_ISA=scalar or a non-x86 build) -------------

void pv_portable(int nq, int nk, int dv, const float * p, int ldp, const float * v, int ldv, float * acc, int ldacc) {
    for (int q = 0; q < nq; ++q)
        for (int j = 0; j < nk; ++j) {
            const float pj = p[q * ldp + j];
            if (pj == 0.0f)
                continue;  // a masked key adds nothing, even when its V row holds NaN/Inf
            const float * vr = v + (size_t) j * ldv;
            float *       a  = acc + q * ldacc;
            for (int d = 0; d < dv; ++d)
                a[d] += pj * vr[d];
        }
}

float scale_mask_max_portable(float * s, int n, float scale, const float * mask, float slope) {
    float mx = -INFINITY;
    for (int j = 0; j < n; ++j) {
        float x = s[j] * scale;
        if (mask) {
            const float mv = mask[j];
            x              = mv == -INFINITY ? -INFINITY : x + slope * mv;
        }
        s[j] = x;
        mx   = std::max(mx, x);
    }
    return mx;
}

float exp_sum_portable(float * s, int n, float m) {
    float sum = 0.0f;
    for (int i = 0; i < n; ++i) {
        s[i] = std::exp(s[i] - m);
        sum += s[i];
    }
    return sum;
}

void f16_to_f32_portable(const uint16_t * x, float * y, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
        y[i] = cpu_f16_to_f32(x[i]);
}

void q8_0_to_f32_portable(const void * x, float * y, int64_t n) {
    ggml_cpu_to_float_row(GGML_TYPE_Q8_0, x, y, n);
}

const ggml_cpu_fa_kernels k_portable = {pv_portable, scale_mask_max_portable, exp_sum_portable, f16_to_f32_portable,
                                        q8_0_to_f32_portable};

const ggml_cpu_fa_kernels * active_kernels() {
    switch (ggml_cpu_mm_isa_active()) {
#if defined(GGML_CPU_ARCH_X86_64)
        case GGML_CPU_ISA_AVX512:
            return ggml_cpu_fa_kernels_avx512();
        case GGML_CPU_ISA_AVX2:
            return ggml_cpu_fa_kernels_avx2();
#endif
#if defined(GGML_CPU_ARCH_ARM64)
        case GGML_CPU_ISA_I8MM:
        case GGML_CPU_ISA_DOTPROD:
        case GGML_CPU_ISA_NEON:
            return ggml_cpu_fa_kernels_neon();
#endif
        default:
            break;
    }
    return &k_portable;
}

// ---- the work grid and the scratch layout, from the shapes alone --------------------------------

struct plan {
    int64_t D, Dv, n_q, n_head, n_head_kv, group, n_kv, ne3;
    int64_t rows;  // query rows per (batch, K/V head): group * n_q
    int64_t n_qt;  // query tiles per (batch, K/V head)
    int64_t n_ch;  // key chunks per query tile
    int64_t n_items;
    // per-thread scratch, byte offsets: gathered Q rows (strided Q only) at 0, scores, mask rows, a
    // widened K tile (quantized K only), a widened V tile, then the running state
    size_t off_s, off_mask, off_k, off_kt, off_v, off_acc, off_m, off_l, per_thread;
    bool   kt_path;      // S = Q K^T by the short-row kernel over a transposed F16 K tile (matmul-attn.h)
    size_t part_floats;  // floats of one item's partial result (chunked plans)
};

plan make_plan(const ggml_tensor * dst) {
    const ggml_tensor * q = dst->src[0];
    const ggml_tensor * k = dst->src[1];
    const ggml_tensor * v = dst->src[2];
    plan                P{};
    P.D         = q->ne[0];
    P.Dv        = v->ne[0];
    P.n_q       = q->ne[1];
    P.n_head    = q->ne[2];
    P.n_head_kv = k->ne[2];
    P.group     = P.n_head / P.n_head_kv;
    P.n_kv      = k->ne[1];
    P.ne3       = q->ne[3];
    P.rows      = P.group * P.n_q;
    P.n_qt      = (P.rows + BQ - 1) / BQ;
    P.n_ch      = P.n_qt == 1 && P.n_kv > CHUNK ? (P.n_kv + CHUNK - 1) / CHUNK : 1;
    P.n_items   = P.ne3 * P.n_head_kv * P.n_qt * P.n_ch;

    size_t o = align64((size_t) BQ * P.D * 4);
    P.off_s  = o;
    o += align64((size_t) BQ * BK * 4);
    P.off_mask = o;
    o += align64((size_t) BQ * BK * 4);
    P.off_k = o;
    o += ggml_is_quantized(k->type) ? align64((size_t) BK * P.D * 4) : 0;
    P.kt_path = k->type == GGML_TYPE_F16 && k->nb[1] % 2 == 0 && P.D <= 256 && ggml_cpu_attn_mm_active() != nullptr;
    P.off_kt  = o;
    o += P.kt_path ? align64((size_t) BK * P.D * 4) : 0;
    P.off_v = o;
    o += align64((size_t) BK * P.Dv * 4);
    P.off_acc = o;
    o += align64((size_t) BQ * P.Dv * 4);
    P.off_m = o;
    o += align64((size_t) BQ * 4);
    P.off_l = o;
    o += align64((size_t) BQ * 4);
    P.per_thread  = o;
    P.part_floats = (size_t) BQ * (P.Dv + 2);
    return P;
}

size_t shared_bytes(const plan & P) {
    return P.n_ch > 1 ? align64((size_t) P.n_items * P.part_floats * 4) : 0;
}

// Reads n consecutive elements of a float-like or quantized row into floats.
void load_row(const ggml_cpu_fa_kernels * kk, const ggml_tensor * t, const char * row, float * y, int64_t n) {
    if (t->type == GGML_TYPE_F16 && t->nb[0] == 2) {
        kk->f16_to_f32((const uint16_t *) row, y, n);
    } else if (t->type == GGML_TYPE_Q8_0) {
        kk->q8_0_to_f32(row, y, n);
    } else if (ggml_is_quantized(t->type) || t->nb[0] == (size_t) ggml_type_size(t->type)) {
        ggml_cpu_to_float_row(t->type, row, y, n);
    } else {
        for (int64_t i = 0; i < n; ++i)
            y[i] = cpu_load_f(t->type, row + i * t->nb[0]);
    }
}

struct tile_state {
    float * m;    // running max per row
    float * l;    // running sum per row
    float * acc;  // [BQ][Dv]
};

// One work item: query tile qt of K/V head hk in batch i3, keys [j0, j1).
void run_item(const ggml_cpu_fa_kernels * kk, const plan & P, const ggml_tensor * dst, char * ws, int64_t i3,
              int64_t hk, int64_t qt, int64_t j0, int64_t j1, tile_state & st) {
    const ggml_tensor * q        = dst->src[0];
    const ggml_tensor * k        = dst->src[1];
    const ggml_tensor * v        = dst->src[2];
    const ggml_tensor * mask     = dst->src[3];
    const float         scale    = ggml_get_op_params_f32(dst, 0);
    const float         max_bias = ggml_get_op_params_f32(dst, 1);
    const float         softcap  = ggml_get_op_params_f32(dst, 2);

    const int64_t t0 = qt * BQ;
    const int     nr = (int) std::min<int64_t>(BQ, P.rows - t0);
    const int     dv = (int) P.Dv;

    float * qbuf = (float *) ws;
    float * S    = (float *) (ws + P.off_s);
    float * mbuf = (float *) (ws + P.off_mask);
    float * kbuf = (float *) (ws + P.off_k);
    float * vbuf = (float *) (ws + P.off_v);

    const char *  qrows[BQ];
    float *       srows[BQ];
    const float * mrows[BQ];
    float         slope[BQ];
    int64_t       r_iq[BQ], r_h[BQ];

    for (int c = 0; c < nr; ++c) {
        const int64_t t = t0 + c;
        r_iq[c]         = t / P.group;
        r_h[c]          = hk * P.group + t % P.group;
        slope[c]        = ggml_cpu_alibi_slope(max_bias, P.n_head, r_h[c]);
        srows[c]        = S + (size_t) c * BK;
        const char * qr = cpu_ptr(q, 0, r_iq[c], r_h[c], i3);
        if (q->nb[0] == 4) {
            qrows[c] = qr;  // F32 rows are read in place
            continue;
        }
        float * x = qbuf + (size_t) c * P.D;
        for (int64_t d = 0; d < P.D; ++d)
            x[d] = cpu_load_f(q->type, qr + d * q->nb[0]);
        qrows[c] = (const char *) x;
    }

    const char * kbase    = cpu_ptr(k, 0, 0, hk, i3 % k->ne[3]);
    const char * vbase    = cpu_ptr(v, 0, 0, hk, i3 % v->ne[3]);
    const bool   v_direct = v->type == GGML_TYPE_F32 && v->nb[0] == 4 && v->nb[1] % 4 == 0;

    for (int64_t kt = j0; kt < j1; kt += BK) {
        int nk = (int) std::min<int64_t>(BK, j1 - kt);
        if (mask) {
            // one converted mask row per distinct (position, mask head); find the last unmasked key
            int last = -1;
            for (int c = 0; c < nr; ++c) {
                const int64_t hm   = r_h[c] % mask->ne[2];
                const bool    same = c > 0 && r_iq[c] == r_iq[c - 1] && hm == r_h[c - 1] % mask->ne[2];
                if (same) {
                    mrows[c] = mrows[c - 1];
                    continue;
                }
                float * mr = mbuf + (size_t) c * BK;
                load_row(kk, mask, cpu_ptr(mask, kt, r_iq[c], hm, i3 % mask->ne[3]), mr, nk);
                mrows[c] = mr;
                for (int j = nk - 1; j > last; --j)
                    if (mr[j] != -INFINITY) {
                        last = j;
                        break;
                    }
            }
            if (last < 0)
                continue;  // every row masks every key of this tile
            nk = last + 1;
        }

        if (P.kt_path && nr >= KT_MIN_ROWS) {
            // K tile widened and transposed once (kt[d][j], zero past nk), then one FMA chain over d
            // per score, 16 keys per register: no horizontal sums
            float * ktr = (float *) (ws + P.off_kt);
            if (nk < BK)
                for (int64_t d = 0; d < P.D; ++d)
                    std::memset(ktr + d * BK + nk, 0, (size_t) (BK - nk) * 4);
            const ggml_cpu_attn_mm_isa * am = ggml_cpu_attn_mm_active();
            am->transpose_f16(nk, (int) P.D, (const uint16_t *) (kbase + kt * k->nb[1]), k->nb[1] / 2, ktr, BK);
            const float * qf[BQ];
            for (int c = 0; c < nr; ++c)
                qf[c] = (const float *) qrows[c];
            am->kq(nr, nk, (int) P.D, qf, ktr, BK, srows);
        } else if (ggml_is_quantized(k->type)) {
            for (int j = 0; j < nk; ++j)
                load_row(kk, k, kbase + (kt + j) * k->nb[1], kbuf + (size_t) j * P.D, P.D);
            ggml_cpu_mm_block(GGML_TYPE_F32, P.D, (const char *) kbuf, (size_t) P.D * 4, nk, qrows, nr, srows);
        } else {
            ggml_cpu_mm_block(k->type, P.D, kbase + kt * k->nb[1], k->nb[1], nk, qrows, nr, srows);
        }

        for (int c = 0; c < nr; ++c) {
            float * s  = srows[c];
            float   mx = -INFINITY;
            if (softcap > 0.0f) {
                for (int j = 0; j < nk; ++j) {
                    float x = softcap * std::tanh(s[j] * scale / softcap);
                    if (mask) {
                        const float mv = mrows[c][j];
                        x              = mv == -INFINITY ? -INFINITY : x + slope[c] * mv;
                    }
                    s[j] = x;
                    mx   = std::max(mx, x);
                }
            } else {
                mx = kk->scale_mask_max(s, nk, scale, mask ? mrows[c] : nullptr, slope[c]);
            }
            const float m_new = std::max(st.m[c], mx);
            if (m_new == -INFINITY) {
                std::memset(s, 0, (size_t) nk * 4);  // nothing visible yet: contributes nothing
                continue;
            }
            const float sum = kk->exp_sum(s, nk, m_new);
            if (m_new > st.m[c]) {
                const float ms = st.m[c] == -INFINITY ? 0.0f : std::exp(st.m[c] - m_new);
                float *     a  = st.acc + (size_t) c * dv;
                for (int d = 0; d < dv; ++d)
                    a[d] *= ms;
                st.l[c] *= ms;
                st.m[c] = m_new;
            }
            st.l[c] += sum;
        }

        const float * vrows = vbuf;
        int           ldv   = dv;
        if (v_direct) {
            vrows = (const float *) (vbase + kt * v->nb[1]);
            ldv   = (int) (v->nb[1] / 4);
        } else {
            for (int j = 0; j < nk; ++j)
                load_row(kk, v, vbase + (kt + j) * v->nb[1], vbuf + (size_t) j * dv, dv);
        }
        kk->pv(nr, nk, dv, S, BK, vrows, ldv, st.acc, dv);
    }
}

void write_rows(const plan & P, ggml_tensor * dst, int64_t i3, int64_t hk, int64_t qt, int nr, const float * l,
                const float * acc) {
    for (int c = 0; c < nr; ++c) {
        const int64_t t   = qt * BQ + c;
        const int64_t iq  = t / P.group;
        const int64_t h   = hk * P.group + t % P.group;
        const float   inv = l[c] > 0.0f ? 1.0f / l[c] : 0.0f;
        float *       out = (float *) cpu_ptr(dst, 0, h, iq, i3);
        for (int64_t d = 0; d < P.Dv; ++d)
            out[d] = acc[(size_t) c * P.Dv + d] * inv;
    }
}

}  // namespace

bool ggml_cpu_flash_attn_tiled_supported(const ggml_tensor * dst) {
    const ggml_tensor * k = dst->src[1];
    const ggml_tensor * v = dst->src[2];
    if (k->nb[0] != (size_t) ggml_type_size(k->type) || dst->nb[0] != 4)
        return false;  // the mul_mat kernels read whole contiguous K rows
    for (const ggml_tensor * t : {k, v}) {
        const bool quant_ok = ggml_is_quantized(t->type) && ggml_cpu_can_to_float(t->type) &&
                              t->nb[0] == (size_t) ggml_type_size(t->type);
        if (!cpu_is_float_type(t->type) && !quant_ok)
            return false;
    }
    return v->ne[0] <= (int64_t) 1 << 20;  // P.V indexes a row with int
}

size_t ggml_cpu_flash_attn_tiled_work_size(const ggml_tensor * dst, int nth) {
    const plan P = make_plan(dst);
    return shared_bytes(P) + (size_t) nth * P.per_thread + 64;
}

void ggml_cpu_flash_attn_tiled(const ggml_cpu_params * p, ggml_tensor * dst) {
    const plan                  P    = make_plan(dst);
    const ggml_cpu_fa_kernels * kk   = active_kernels();
    char *                      base = (char *) (((uintptr_t) p->wdata + 63) / 64 * 64);
    float *                     part = (float *) base;
    char *                      ws   = base + shared_bytes(P) + (size_t) p->ith * P.per_thread;
    tile_state                  st{(float *) (ws + P.off_m), (float *) (ws + P.off_l), (float *) (ws + P.off_acc)};

    for (int64_t it = ggml_cpu_claim(p); it < P.n_items; it = ggml_cpu_claim(p)) {
        int64_t       rest = it;
        const int64_t ch   = rest % P.n_ch;
        rest /= P.n_ch;
        const int64_t qt = rest % P.n_qt;
        rest /= P.n_qt;
        const int64_t hk = rest % P.n_head_kv;
        const int64_t i3 = rest / P.n_head_kv;
        const int     nr = (int) std::min<int64_t>(BQ, P.rows - qt * BQ);

        for (int c = 0; c < nr; ++c) {
            st.m[c] = -INFINITY;
            st.l[c] = 0.0f;
        }
        std::memset(st.acc, 0, (size_t) nr * P.Dv * 4);
        const int64_t j0 = ch * CHUNK;
        const int64_t j1 = P.n_ch > 1 ? std::min(P.n_kv, j0 + CHUNK) : P.n_kv;
        run_item(kk, P, dst, ws, i3, hk, qt, j0, j1, st);

        if (P.n_ch == 1) {
            write_rows(P, dst, i3, hk, qt, nr, st.l, st.acc);
        } else {
            float * pr = part + (size_t) it * P.part_floats;  // [m: BQ][l: BQ][acc: BQ x Dv]
            std::memcpy(pr, st.m, (size_t) nr * 4);
            std::memcpy(pr + BQ, st.l, (size_t) nr * 4);
            std::memcpy(pr + 2 * BQ, st.acc, (size_t) nr * P.Dv * 4);
        }
    }
    if (P.n_ch == 1)
        return;

    // merge the chunks of each (batch, K/V head, query tile), in chunk order
    ggml_cpu_barrier(p);
    const int64_t n_groups = P.n_items / P.n_ch;
    int64_t       g0, g1;
    cpu_split(n_groups, p->ith, p->nth, g0, g1);
    for (int64_t g = g0; g < g1; ++g) {
        const int64_t qt = g % P.n_qt;
        const int64_t hk = (g / P.n_qt) % P.n_head_kv;
        const int64_t i3 = g / (P.n_qt * P.n_head_kv);
        const int     nr = (int) std::min<int64_t>(BQ, P.rows - qt * BQ);
        for (int c = 0; c < nr; ++c) {
            float m = -INFINITY;
            for (int64_t ch = 0; ch < P.n_ch; ++ch)
                m = std::max(m, part[(size_t) (g * P.n_ch + ch) * P.part_floats + c]);
            float * a = st.acc + (size_t) c * P.Dv;
            std::memset(a, 0, (size_t) P.Dv * 4);
            float l = 0.0f;
            if (m != -INFINITY) {
                for (int64_t ch = 0; ch < P.n_ch; ++ch) {
                    const float * pr = part + (size_t) (g * P.n_ch + ch) * P.part_floats;
                    if (pr[c] == -INFINITY)
                        continue;
                    const float   w  = std::exp(pr[c] - m);
                    const float * pa = pr + 2 * BQ + (size_t) c * P.Dv;
                    l += w * pr[BQ + c];
                    for (int64_t d = 0; d < P.Dv; ++d)
                        a[d] += w * pa[d];
                }
            }
            st.l[c] = l;
        }
        write_rows(P, dst, i3, hk, qt, nr, st.l, st.acc);
    }
}
