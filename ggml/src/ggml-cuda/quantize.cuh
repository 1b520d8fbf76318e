// quantize.cuh — per-block quantizers for the KV-cache types (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL),
// host and device (GGML_CUDA_HD), the twins of the reference quantizers in ggml-quants.c and the scale
// searches of ggml-quants-search.c: the same float operations in the same order, each rounded on its
// own (fmul/fadd/... never fuse), so a block written by the GPU is the block the CPU writes, bit for
// bit. tests/unit/test-cuda-host-math.cpp checks that on the host against quantize_row_*_ref.
#pragma once

#include "ggml-quants.h"
#include "ops-math.cuh"

namespace ggml_cuda_math {

constexpr int QB = 32;  // elements per block of every type here

// ---- ggml_qsearch_sym / ggml_qsearch_err_sym ---------------------------------------------------------
// levels == nullptr: integer levels qmin..qmax; else a sorted table of nlev values (q = index).
GGML_CUDA_HD int q_nearest(float v, int qmin, int qmax, const int8_t * levels, int nlev) {
    if (!levels) {
        return clampi(rint_i(v), qmin, qmax);
    }
    int   best  = 0;
    float bestd = fabsf(fsub(v, (float) levels[0]));
    for (int i = 1; i < nlev; i++) {
        const float dd = fabsf(fsub(v, (float) levels[i]));
        if (dd < bestd) {
            bestd = dd;
            best  = i;
        }
    }
    return best;
}

GGML_CUDA_HD float q_level(int q, const int8_t * levels) {
    return levels ? (float) levels[q] : (float) q;
}

// the codes for a fixed scale d (the error is not needed by the callers)
GGML_CUDA_HD void q_assign_sym(const float * x, float d, int qmin, int qmax, const int8_t * levels, int nlev, int * q) {
    const float id = d != 0.0f ? fdiv(1.0f, d) : 0.0f;
    for (int i = 0; i < QB; i++) {
        q[i] = q_nearest(fmul(x[i], id), qmin, qmax, levels, nlev);
    }
}

GGML_CUDA_HD float q_search_sym(const float * x, int qmin, int qmax, const int8_t * levels, int nlev) {
    float amax = 0.0f, xm = 0.0f;
    for (int i = 0; i < QB; i++) {
        if (fabsf(x[i]) > amax) {
            amax = fabsf(x[i]);
            xm   = x[i];
        }
    }
    if (amax < 1e-30f) {
        return 0.0f;
    }
    const float lo         = levels ? (float) levels[0] : (float) qmin;
    const float hi         = levels ? (float) levels[nlev - 1] : (float) qmax;
    float       best_score = -1.0f, best_d = 0.0f;
    for (int side = 0; side < 2; side++) {
        const float t = side == 0 ? lo : hi;
        if (t == 0.0f) {
            continue;
        }
        const float step = levels ? fdiv(fabsf(t), 16.0f) : 1.0f;
        for (int k = -10; k <= 5; k++) {
            const float tt     = fadd(t, fmul(fmul(fmul(t > 0 ? 1.0f : -1.0f, 0.1f), (float) k), step));
            const float iscale = fdiv(tt, xm);
            float       sxq = 0.0f, sqq = 0.0f;
            for (int i = 0; i < QB; i++) {
                const float l = q_level(q_nearest(fmul(iscale, x[i]), qmin, qmax, levels, nlev), levels);
                sxq           = fadd(sxq, fmul(x[i], l));
                sqq           = fadd(sqq, fmul(l, l));
            }
            if (sqq > 0.0f) {
                const float score = fdiv(fmul(sxq, sxq), sqq);
                if (score > best_score) {
                    best_score = score;
                    best_d     = fdiv(sxq, sqq);
                }
            }
        }
    }
    return best_d;
}

// ---- ggml_qsearch_affine (b_nonpos = false: q4_1 / q5_1) ---------------------------------------------
GGML_CUDA_HD float q_err_affine(const float * x, float a, float b, int nmax, int * q) {
    const float ia  = a != 0.0f ? fdiv(1.0f, a) : 0.0f;
    float       err = 0.0f;
    for (int i = 0; i < QB; i++) {
        q[i]          = clampi(rint_i(fmul(fsub(x[i], b), ia)), 0, nmax);
        const float e = fsub(x[i], fadd(fmul(a, (float) q[i]), b));
        err           = fadd(err, fmul(e, e));
    }
    return err;
}

GGML_CUDA_HD bool q_fit_affine(const float * x, const int * q, float * a, float * b) {
    float sq = 0, sqq = 0, sx = 0, sxq = 0;
    for (int i = 0; i < QB; i++) {
        sq  = fadd(sq, (float) q[i]);
        sqq = fadd(sqq, (float) (q[i] * q[i]));
        sx  = fadd(sx, x[i]);
        sxq = fadd(sxq, fmul(x[i], (float) q[i]));
    }
    const float n   = (float) QB;
    const float det = fsub(fmul(n, sqq), fmul(sq, sq));
    if (det <= 0.0f) {
        return false;
    }
    *a = fdiv(fsub(fmul(n, sxq), fmul(sq, sx)), det);
    *b = fdiv(fsub(fmul(sqq, sx), fmul(sq, sxq)), det);
    return !(*a < 0.0f);
}

GGML_CUDA_HD void q_search_affine(const float * x, int nmax, float * a, float * b) {
    float mn = x[0], mx = x[0];
    for (int i = 1; i < QB; i++) {
        mn = fminf(mn, x[i]);
        mx = fmaxf(mx, x[i]);
    }
    if (fsub(mx, mn) < 1e-30f) {
        *a = 0.0f;
        *b = mn;
        return;
    }
    int         tmp[QB];
    const float a0       = fdiv(fsub(mx, mn), (float) nmax);
    float       best_err = q_err_affine(x, a0, mn, nmax, tmp);
    float       best_a = a0, best_b = mn;
    for (int k = -10; k <= 10; k++) {
        const float iscale = fdiv(fadd((float) nmax, fmul(0.1f, (float) k)), fsub(mx, mn));
        for (int i = 0; i < QB; i++) {
            tmp[i] = clampi(rint_i(fmul(iscale, fsub(x[i], mn))), 0, nmax);
        }
        float ca, cb;
        if (!q_fit_affine(x, tmp, &ca, &cb)) {
            continue;
        }
        for (int it = 0; it < 2; it++) {
            const float err = q_err_affine(x, ca, cb, nmax, tmp);
            if (err < best_err) {
                best_err = err;
                best_a   = ca;
                best_b   = cb;
            }
            if (!q_fit_affine(x, tmp, &ca, &cb)) {
                break;
            }
        }
    }
    *a = best_a;
    *b = best_b;
}

// ---- one block of each type (x: 32 floats) --------------------------------------------------------
GGML_CUDA_HD void quantize_block_q8_0(const float * x, block_q8_0 * y) {
    float amax = 0.0f;
    for (int j = 0; j < QB; j++) {
        amax = fmaxf(amax, fabsf(x[j]));
    }
    const float d  = fdiv(amax, 127.0f);
    const float id = d != 0.0f ? fdiv(1.0f, d) : 0.0f;
    y->d           = f32_to_fp16(d);
    for (int j = 0; j < QB; j++) {
        y->qs[j] = (int8_t) rint_i(fmul(x[j], id));
    }
}

// symmetric: scale from the search, codes re-chosen for the scale actually stored
GGML_CUDA_HD uint16_t quantize_sym(const float * x, int qmin, int qmax, const int8_t * levels, int nlev, int * q) {
    const uint16_t d = f32_to_fp16(q_search_sym(x, qmin, qmax, levels, nlev));
    q_assign_sym(x, fp16_to_f32(d), qmin, qmax, levels, nlev, q);
    return d;
}

GGML_CUDA_HD void quantize_block_q4_0(const float * x, block_q4_0 * y) {
    int q[QB];
    y->d = quantize_sym(x, -8, 7, nullptr, 0, q);
    for (int j = 0; j < 16; j++) {
        y->qs[j] = (uint8_t) ((q[j] + 8) | ((q[j + 16] + 8) << 4));
    }
}

GGML_CUDA_HD void quantize_block_q5_0(const float * x, block_q5_0 * y) {
    int q[QB];
    y->d        = quantize_sym(x, -16, 15, nullptr, 0, q);
    uint32_t qh = 0;
    for (int j = 0; j < 16; j++) {
        const int u0 = q[j] + 16, u1 = q[j + 16] + 16;
        y->qs[j] = (uint8_t) ((u0 & 0xF) | ((u1 & 0xF) << 4));
        qh |= (uint32_t) (u0 >> 4) << j;
        qh |= (uint32_t) (u1 >> 4) << (j + 16);
    }
    for (int b = 0; b < 4; b++) {
        y->qh[b] = (uint8_t) (qh >> (8 * b));  // little-endian, as memcpy on the CPU
    }
}

GGML_CUDA_HD void quantize_block_iq4_nl(const float * x, block_iq4_nl * y) {
    const int8_t levels[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
    int          q[QB];
    y->d = quantize_sym(x, 0, 15, levels, 16, q);
    for (int j = 0; j < 16; j++) {
        y->qs[j] = (uint8_t) (q[j] | (q[j + 16] << 4));
    }
}

// affine: codes re-chosen for the stored (fp16) scale and offset
GGML_CUDA_HD void quantize_affine(const float * x, int nmax, uint16_t * d, uint16_t * m, int * q) {
    float a, b;
    q_search_affine(x, nmax, &a, &b);
    *d = f32_to_fp16(a);
    *m = f32_to_fp16(b);
    q_err_affine(x, fp16_to_f32(*d), fp16_to_f32(*m), nmax, q);
}

GGML_CUDA_HD void quantize_block_q4_1(const float * x, block_q4_1 * y) {
    int q[QB];
    quantize_affine(x, 15, &y->d, &y->m, q);
    for (int j = 0; j < 16; j++) {
        y->qs[j] = (uint8_t) (q[j] | (q[j + 16] << 4));
    }
}

GGML_CUDA_HD void quantize_block_q5_1(const float * x, block_q5_1 * y) {
    int q[QB];
    quantize_affine(x, 31, &y->d, &y->m, q);
    uint32_t qh = 0;
    for (int j = 0; j < 16; j++) {
        y->qs[j] = (uint8_t) ((q[j] & 0xF) | ((q[j + 16] & 0xF) << 4));
        qh |= (uint32_t) (q[j] >> 4) << j;
        qh |= (uint32_t) (q[j + 16] >> 4) << (j + 16);
    }
    for (int b = 0; b < 4; b++) {
        y->qh[b] = (uint8_t) (qh >> (8 * b));
    }
}

// True for the destination types quantize_block handles.
GGML_CUDA_HD bool quantize_block_supported(int type) {
    return type == GGML_TYPE_Q8_0 || type == GGML_TYPE_Q4_0 || type == GGML_TYPE_Q4_1 || type == GGML_TYPE_Q5_0 ||
           type == GGML_TYPE_Q5_1 || type == GGML_TYPE_IQ4_NL;
}

// Writes one block of `type` (quantize_block_supported) at dst from 32 floats.
GGML_CUDA_HD void quantize_block(int type, const float * x, void * dst) {
    switch (type) {
        case GGML_TYPE_Q8_0:
            quantize_block_q8_0(x, (block_q8_0 *) dst);
            break;
        case GGML_TYPE_Q4_0:
            quantize_block_q4_0(x, (block_q4_0 *) dst);
            break;
        case GGML_TYPE_Q4_1:
            quantize_block_q4_1(x, (block_q4_1 *) dst);
            break;
        case GGML_TYPE_Q5_0:
            quantize_block_q5_0(x, (block_q5_0 *) dst);
            break;
        case GGML_TYPE_Q5_1:
            quantize_block_q5_1(x, (block_q5_1 *) dst);
            break;
        case GGML_TYPE_IQ4_NL:
            quantize_block_iq4_nl(x, (block_iq4_nl *) dst);
            break;
        default:
            break;
    }
}

}  // namespace ggml_cuda_math
