// fa-ext.cu — FLASH_ATTN_EXT: out = softmax(scale * q k^T [soft-capped] + slope * mask) v, with the CPU's
// semantics (ggml-cpu/ops-attn.cpp): K/V F32 / F16 / BF16 / Q8_0 / Q4_0 / Q4_1 / Q5_0 / Q5_1 / IQ4_NL
// (any pair of them) with rows contiguous, GQA / MQA (query
// head h reads K/V head h / (n_head / n_head_kv)), K/V and mask broadcast over dim 3, mask F16 / F32
// broadcast over heads, ALiBi slopes from max_bias, soft-cap. A masked (-inf) key is skipped; a query
// row with every key masked produces zeros (as the CPU), never NaN. dst is [Dv, n_head, n_q, ne3].
//
// One block (4 warps) takes up to kRows query rows that share one K/V head: rows are the (head, query)
// pairs of one GQA group, so decode of a grouped model fills the block with the group's heads. The
// block walks K/V in tiles of kTile keys, dequantized into shared memory (K tile, then V tile in the
// same buffer); lane j of a warp scores key j of the tile for the warp's rows, an online softmax keeps
// a running max and sum per row, and lane l accumulates output dims l, l + 32, ... When the grid
// would leave most SMs idle (decode), the keys are split across blocks ("split-KV"): each block writes
// its unnormalised partial (acc, max, sum) to scratch and a second kernel combines them.
#include <algorithm>
#include <cmath>

#include "mm-common.cuh"

namespace {

constexpr int kWarps       = 4;
constexpr int kRowsPerWarp = 2;
constexpr int kRows        = kWarps * kRowsPerWarp;  // query rows per block
constexpr int kTile        = 32;                     // keys per tile (one per lane)
constexpr int kMaxD        = 256;                    // largest K / V head size
constexpr int kMaxSplits   = 32;

struct fa_args {
    const char * q;
    size_t       nbq0, nbq1, nbq2, nbq3;
    const char * k;
    size_t       nbk1, nbk2, nbk3;
    const char * v;
    size_t       nbv1, nbv2, nbv3;
    int64_t      kv_ne3;
    const char * mask;  // nullptr when absent
    bool         mask_f16;
    size_t       nbm0, nbm1, nbm2, nbm3;
    int64_t      mne2, mne3;
    char *       dst;
    size_t       nbd0, nbd1, nbd2, nbd3;
    float *      partial;  // split-KV: [row][split][Dv + 2], else nullptr
    int          D, Dv, ld;
    int64_t      n_q, n_head, group, n_kv;
    int          n_splits;
    int64_t      kv_per_split;
    float        scale, softcap;
    float        max_bias;
    double       m0, m1;  // ALiBi bases (as the CPU: pow in double)
    int64_t      n_head_log2;
};

__device__ float alibi_slope(const fa_args & a, int64_t h) {
    if (a.max_bias <= 0.0f) {
        return 1.0f;
    }
    return (float) (h < a.n_head_log2 ? pow(a.m0, (double) (h + 1))
                                      : pow(a.m1, (double) (2 * (h - a.n_head_log2) + 1)));
}

template <ggml_type TK, ggml_type TV>
__global__ void __launch_bounds__(kWarps * 32) fa_kernel(const fa_args a) {
    extern __shared__ float smem[];
    float *                 Qs  = smem;                // [kRows][D]
    float *                 KVs = Qs + kRows * a.D;    // [kTile][ld]
    float *                 Ps  = KVs + kTile * a.ld;  // [kRows][kTile]

    const int     tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int64_t hk     = blockIdx.y;
    const int64_t i3     = blockIdx.z / a.n_splits;
    const int     split  = (int) (blockIdx.z % a.n_splits);
    const int64_t n_rows = a.n_q * a.group;
    const int64_t r0     = (int64_t) blockIdx.x * kRows;

    const char * kbase = a.k + hk * a.nbk2 + (i3 % a.kv_ne3) * a.nbk3;
    const char * vbase = a.v + hk * a.nbv2 + (i3 % a.kv_ne3) * a.nbv3;

    // query rows into shared memory (zeros for rows past the end)
    for (int idx = tid; idx < kRows * a.D; idx += blockDim.x) {
        const int     rr = idx / a.D, d = idx % a.D;
        const int64_t r = r0 + rr;
        float         x = 0.0f;
        if (r < n_rows) {
            const int64_t h = hk * a.group + r / a.n_q, iq = r % a.n_q;
            x = *(const float *) (a.q + d * a.nbq0 + iq * a.nbq1 + h * a.nbq2 + i3 * a.nbq3);
        }
        Qs[idx] = x;
    }

    // per-row state of this warp's rows
    float        M[kRowsPerWarp], S[kRowsPerWarp], slope[kRowsPerWarp];
    float        acc[kRowsPerWarp][kMaxD / 32];
    const char * mrow[kRowsPerWarp];
#pragma unroll
    for (int i = 0; i < kRowsPerWarp; ++i) {
        M[i]            = -INFINITY;
        S[i]            = 0.0f;
        const int64_t r = r0 + warp * kRowsPerWarp + i;
        const int64_t h = hk * a.group + r / a.n_q, iq = r % a.n_q;
        slope[i] = r < n_rows ? alibi_slope(a, h) : 1.0f;
        mrow[i] =
            (a.mask && r < n_rows) ? a.mask + iq * a.nbm1 + (h % a.mne2) * a.nbm2 + (i3 % a.mne3) * a.nbm3 : nullptr;
#pragma unroll
        for (int c = 0; c < kMaxD / 32; ++c) {
            acc[i][c] = 0.0f;
        }
    }

    const int64_t kv_begin = (int64_t) split * a.kv_per_split;
    const int64_t kv_end   = min(a.n_kv, kv_begin + a.kv_per_split);
    for (int64_t kv0 = kv_begin; kv0 < kv_end; kv0 += kTile) {
        const int nk = (int) min((int64_t) kTile, kv_end - kv0);
        __syncthreads();  // previous V tile fully read (and Qs written, first time)
        for (int idx = tid; idx < nk * a.D; idx += blockDim.x) {
            const int j = idx / a.D, d = idx % a.D;
            KVs[j * a.ld + d] = ggml_cuda_dq::row_get<TK>(kbase + (kv0 + j) * a.nbk1, d);
        }
        __syncthreads();
#pragma unroll
        for (int i = 0; i < kRowsPerWarp; ++i) {
            const int rr = warp * kRowsPerWarp + i;
            if (r0 + rr >= n_rows) {
                continue;  // uniform across the warp
            }
            float s = -INFINITY;
            if (lane < nk) {
                float mv = 0.0f;
                if (mrow[i]) {
                    const char * mp = mrow[i] + (kv0 + lane) * a.nbm0;
                    mv              = a.mask_f16 ? ggml_cuda_dq::f16(*(const uint16_t *) mp) : *(const float *) mp;
                }
                if (mv != -INFINITY) {
                    const float * qr  = Qs + rr * a.D;
                    const float * kr  = KVs + lane * a.ld;
                    float         dot = 0.0f;
                    for (int d = 0; d < a.D; ++d) {
                        dot += qr[d] * kr[d];
                    }
                    s = dot * a.scale;
                    if (a.softcap > 0.0f) {
                        s = a.softcap * tanhf(s / a.softcap);
                    }
                    s += mv * slope[i];
                }
            }
            const float m_new = fmaxf(M[i], ggml_cuda_warp_max(s));
            float       p = 0.0f, ms = 1.0f;
            if (m_new != -INFINITY) {  // else every key so far is masked: nothing to add
                p  = s == -INFINITY ? 0.0f : expf(s - m_new);
                ms = M[i] == -INFINITY ? 0.0f : expf(M[i] - m_new);
            }
            S[i] = S[i] * ms + ggml_cuda_warp_sum(p);
            M[i] = m_new;
#pragma unroll
            for (int c = 0; c < kMaxD / 32; ++c) {
                acc[i][c] *= ms;
            }
            Ps[rr * kTile + lane] = p;
        }
        __syncthreads();  // K tile read, Ps written
        for (int idx = tid; idx < nk * a.Dv; idx += blockDim.x) {
            const int j = idx / a.Dv, d = idx % a.Dv;
            KVs[j * a.ld + d] = ggml_cuda_dq::row_get<TV>(vbase + (kv0 + j) * a.nbv1, d);
        }
        __syncthreads();
#pragma unroll
        for (int i = 0; i < kRowsPerWarp; ++i) {
            const int rr = warp * kRowsPerWarp + i;
            if (r0 + rr >= n_rows) {
                continue;
            }
            const float * pr = Ps + rr * kTile;
#pragma unroll
            for (int c = 0; c < kMaxD / 32; ++c) {
                const int d = lane + 32 * c;
                if (d < a.Dv) {
                    float x = acc[i][c];
                    for (int j = 0; j < nk; ++j) {
                        x += pr[j] * KVs[j * a.ld + d];
                    }
                    acc[i][c] = x;
                }
            }
        }
    }

#pragma unroll
    for (int i = 0; i < kRowsPerWarp; ++i) {
        const int64_t r = r0 + warp * kRowsPerWarp + i;
        if (r >= n_rows) {
            continue;
        }
        const int64_t h = hk * a.group + r / a.n_q, iq = r % a.n_q;
        if (a.partial) {
            const int64_t row = (i3 * a.n_head + h) * a.n_q + iq;
            float *       pp  = a.partial + (row * a.n_splits + split) * (a.Dv + 2);
#pragma unroll
            for (int c = 0; c < kMaxD / 32; ++c) {
                const int d = lane + 32 * c;
                if (d < a.Dv) {
                    pp[d] = acc[i][c];
                }
            }
            if (lane == 0) {
                pp[a.Dv]     = M[i];
                pp[a.Dv + 1] = S[i];
            }
            continue;
        }
        const float inv = S[i] > 0.0f ? 1.0f / S[i] : 0.0f;
        char *      out = a.dst + h * a.nbd1 + iq * a.nbd2 + i3 * a.nbd3;
#pragma unroll
        for (int c = 0; c < kMaxD / 32; ++c) {
            const int d = lane + 32 * c;
            if (d < a.Dv) {
                *(float *) (out + d * a.nbd0) = acc[i][c] * inv;
            }
        }
    }
}

// One block per output row: rescales the splits' partials to their common max and normalises.
__global__ void fa_combine_kernel(const fa_args a) {
    const int64_t row = blockIdx.x;  // (i3 * n_head + h) * n_q + iq
    const int64_t iq = row % a.n_q, h = (row / a.n_q) % a.n_head, i3 = row / (a.n_q * a.n_head);
    const float * pp = a.partial + row * a.n_splits * (a.Dv + 2);
    float         m  = -INFINITY;
    for (int s = 0; s < a.n_splits; ++s) {
        m = fmaxf(m, pp[s * (a.Dv + 2) + a.Dv]);
    }
    float sum = 0.0f;
    if (m != -INFINITY) {
        for (int s = 0; s < a.n_splits; ++s) {
            const float ms = pp[s * (a.Dv + 2) + a.Dv];
            if (ms != -INFINITY) {
                sum += pp[s * (a.Dv + 2) + a.Dv + 1] * expf(ms - m);
            }
        }
    }
    const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
    char *      out = a.dst + h * a.nbd1 + iq * a.nbd2 + i3 * a.nbd3;
    for (int d = threadIdx.x; d < a.Dv; d += blockDim.x) {
        float x = 0.0f;
        if (inv > 0.0f) {
            for (int s = 0; s < a.n_splits; ++s) {
                const float ms = pp[s * (a.Dv + 2) + a.Dv];
                if (ms != -INFINITY) {
                    x += pp[s * (a.Dv + 2) + d] * expf(ms - m);
                }
            }
        }
        *(float *) (out + d * a.nbd0) = x * inv;
    }
}

// every pair of cache types (-ctk q8_0 -ctv q4_0 and the like): each side's tiles are dequantized by its
// own loader, so a pair is one more instantiation: 81 in all, which doubles this file's nvcc time for
// sm_90 (26 s -> 51 s on 2 cores) against the 51 pairs of one type or with a float side
bool kv_pair_ok(ggml_type tk, ggml_type tv) {
    return ggml_type_is_kv_cache(tk) && ggml_type_is_kv_cache(tv);
}

template <ggml_type TK, ggml_type TV>
bool launch_pair(dim3 grid, size_t smem, cudaStream_t st, const fa_args & a) {
    fa_kernel<TK, TV><<<grid, kWarps * 32, smem, st>>>(a);
    return true;
}

template <ggml_type TK>
bool launch_v(ggml_type tv, dim3 grid, size_t smem, cudaStream_t st, const fa_args & a) {
    switch (tv) {
        case GGML_TYPE_F32:
            return launch_pair<TK, GGML_TYPE_F32>(grid, smem, st, a);
        case GGML_TYPE_F16:
            return launch_pair<TK, GGML_TYPE_F16>(grid, smem, st, a);
        case GGML_TYPE_BF16:
            return launch_pair<TK, GGML_TYPE_BF16>(grid, smem, st, a);
        case GGML_TYPE_Q8_0:
            return launch_pair<TK, GGML_TYPE_Q8_0>(grid, smem, st, a);
        case GGML_TYPE_Q4_0:
            return launch_pair<TK, GGML_TYPE_Q4_0>(grid, smem, st, a);
        case GGML_TYPE_Q4_1:
            return launch_pair<TK, GGML_TYPE_Q4_1>(grid, smem, st, a);
        case GGML_TYPE_Q5_0:
            return launch_pair<TK, GGML_TYPE_Q5_0>(grid, smem, st, a);
        case GGML_TYPE_Q5_1:
            return launch_pair<TK, GGML_TYPE_Q5_1>(grid, smem, st, a);
        case GGML_TYPE_IQ4_NL:
            return launch_pair<TK, GGML_TYPE_IQ4_NL>(grid, smem, st, a);
        default:
            return false;
    }
}

}  // namespace

bool ggml_cuda_flash_attn_supported(const ggml_cuda_device_info & info, const ggml_tensor * op) {
    (void) info;
    const ggml_tensor * q = op->src[0];
    const ggml_tensor * k = op->src[1];
    const ggml_tensor * v = op->src[2];
    const ggml_tensor * m = op->src[3];
    if (q->type != GGML_TYPE_F32 || !kv_pair_ok(k->type, v->type) || op->type != GGML_TYPE_F32) {
        return false;
    }
    if (q->ne[0] > kMaxD || v->ne[0] > kMaxD || q->ne[0] < 1 || v->ne[0] < 1) {
        return false;
    }
    if (k->nb[0] != ggml_type_size(k->type) || v->nb[0] != ggml_type_size(v->type)) {
        return false;  // quantized rows are contiguous by construction; strided F16/F32 rows are not read here
    }
    if (m && m->type != GGML_TYPE_F16 && m->type != GGML_TYPE_F32) {
        return false;
    }
    // grid: y = K/V heads, z = dim 3 (times the KV splits, which fall back to 1 when they would not fit)
    return k->ne[2] > 0 && q->ne[2] % k->ne[2] == 0 && k->ne[3] > 0 && k->ne[2] <= 65535 && q->ne[3] <= 65535;
}

bool ggml_cuda_flash_attn(ggml_cuda_op_ctx & ctx, ggml_tensor * dst) {
    const ggml_tensor * q    = dst->src[0];
    const ggml_tensor * k    = dst->src[1];
    const ggml_tensor * v    = dst->src[2];
    const ggml_tensor * mask = dst->src[3];

    fa_args a{};
    a.q      = (const char *) q->data;
    a.nbq0   = q->nb[0];
    a.nbq1   = q->nb[1];
    a.nbq2   = q->nb[2];
    a.nbq3   = q->nb[3];
    a.k      = (const char *) k->data;
    a.nbk1   = k->nb[1];
    a.nbk2   = k->nb[2];
    a.nbk3   = k->nb[3];
    a.v      = (const char *) v->data;
    a.nbv1   = v->nb[1];
    a.nbv2   = v->nb[2];
    a.nbv3   = v->nb[3];
    a.kv_ne3 = k->ne[3];
    a.mask   = mask ? (const char *) mask->data : nullptr;
    if (mask) {
        a.mask_f16 = mask->type == GGML_TYPE_F16;
        a.nbm0     = mask->nb[0];
        a.nbm1     = mask->nb[1];
        a.nbm2     = mask->nb[2];
        a.nbm3     = mask->nb[3];
        a.mne2     = mask->ne[2];
        a.mne3     = mask->ne[3];
    }
    a.dst          = (char *) dst->data;
    a.nbd0         = dst->nb[0];
    a.nbd1         = dst->nb[1];
    a.nbd2         = dst->nb[2];
    a.nbd3         = dst->nb[3];
    a.D            = (int) q->ne[0];
    a.Dv           = (int) v->ne[0];
    const int dmax = a.D > a.Dv ? a.D : a.Dv;
    a.ld           = dmax % 2 == 0 ? dmax + 1 : dmax;  // odd stride: lane j's key row starts in its own bank
    a.n_q          = q->ne[1];
    a.n_head       = q->ne[2];
    a.group        = q->ne[2] / k->ne[2];
    a.n_kv         = k->ne[1];
    a.scale        = ggml_get_op_params_f32(dst, 0);
    a.max_bias     = ggml_get_op_params_f32(dst, 1);
    a.softcap      = ggml_get_op_params_f32(dst, 2);
    {
        int64_t l2 = 1;
        while (l2 * 2 <= a.n_head) {
            l2 *= 2;
        }
        a.n_head_log2 = l2;  // 1 << floor(log2(n_head)), as the CPU
        a.m0          = std::pow(2.0, -(double) a.max_bias / (double) l2);
        a.m1          = std::pow(2.0, -(double) a.max_bias / 2.0 / (double) l2);
    }
    const int64_t n_rows = a.n_q * a.group;
    if (n_rows == 0 || q->ne[3] == 0 || a.Dv == 0) {
        return true;
    }

    // split-KV when the plain grid would leave most SMs idle and there are keys to share out
    const int64_t blocks = ggml_cuda_blocks(n_rows, kRows) * k->ne[2] * q->ne[3];
    const int64_t sms    = ctx.info && ctx.info->sm_count > 0 ? ctx.info->sm_count : 1;
    int64_t       splits = 1;
    if (blocks < sms && a.n_kv >= 2 * 256) {
        splits = std::min<int64_t>({(2 * sms + blocks - 1) / blocks, a.n_kv / 256, (int64_t) kMaxSplits});
        if (q->ne[3] * splits > 65535) {
            splits = 1;
        }
    }
    a.n_splits               = (int) splits;
    a.kv_per_split           = (a.n_kv + splits - 1) / splits;
    a.kv_per_split           = (a.kv_per_split + kTile - 1) / kTile * kTile;
    a.partial                = nullptr;
    const int64_t total_rows = a.n_q * a.n_head * q->ne[3];
    if (splits > 1) {
        const size_t bytes = (size_t) (total_rows * splits * (a.Dv + 2)) * sizeof(float);
        a.partial          = (float *) ctx.scratch(0, bytes);
        if (!a.partial) {
            GGML_LOG_ERROR("[flash_attn_ext] %s: no scratch for %zu bytes of split-KV partials\n", dst->name, bytes);
            return false;
        }
    }

    const size_t smem = (size_t) (kRows * a.D + kTile * a.ld + kRows * kTile) * sizeof(float);
    const dim3   grid(ggml_cuda_blocks(n_rows, kRows), (unsigned) k->ne[2], (unsigned) (q->ne[3] * splits));
    if (grid.x > 2147483647u || k->ne[2] > 65535 || q->ne[3] * splits > 65535) {
        GGML_LOG_ERROR("[flash_attn_ext] %s: grid too large\n", dst->name);
        return false;
    }
    bool ok = false;
    switch (k->type) {
        case GGML_TYPE_F32:
            ok = launch_v<GGML_TYPE_F32>(v->type, grid, smem, ctx.stream, a);
            break;
        case GGML_TYPE_F16:
            ok = launch_v<GGML_TYPE_F16>(v->type, grid, smem, ctx.stream, a);
            break;
        case GGML_TYPE_BF16:
            ok = launch_v<GGML_TYPE_BF16>(v->type, grid, smem, ctx.stream, a);
            break;
        case GGML_TYPE_Q8_0:
            ok = launch_v<GGML_TYPE_Q8_0>(v->type, grid, smem, ctx.stream, a);
            break;
        case GGML_TYPE_Q4_0:
            ok = launch_v<GGML_TYPE_Q4_0>(v->type, grid, smem, ctx.stream, a);
            break;
        case GGML_TYPE_Q4_1:
            ok = launch_v<GGML_TYPE_Q4_1>(v->type, grid, smem, ctx.stream, a);
            break;
        case GGML_TYPE_Q5_0:
            ok = launch_v<GGML_TYPE_Q5_0>(v->type, grid, smem, ctx.stream, a);
            break;
        case GGML_TYPE_Q5_1:
            ok = launch_v<GGML_TYPE_Q5_1>(v->type, grid, smem, ctx.stream, a);
            break;
        case GGML_TYPE_IQ4_NL:
            ok = launch_v<GGML_TYPE_IQ4_NL>(v->type, grid, smem, ctx.stream, a);
            break;
        default:
            break;
    }
    if (!ok) {
        GGML_LOG_ERROR("[flash_attn_ext] %s: K/V types %s/%s are not supported\n", dst->name, ggml_type_name(k->type),
                       ggml_type_name(v->type));
        return false;
    }
    if (CUDA_LAUNCH_FAILED()) {
        return false;
    }
    if (splits > 1) {
        fa_combine_kernel<<<(unsigned) total_rows, 128, 0, ctx.stream>>>(a);
        if (CUDA_LAUNCH_FAILED()) {
            return false;
        }
    }
    return true;
}
