// Scale searches (the reference, ggml-quants-search.h) and the choice of the kernel table that the
// quantizers call: the SIMD tables (ggml-quants-lanes.h) give the same bytes, faster.
#include "ggml-quants-search.h"

#include "ggml-quants.h"
#include "ggml-x86-cpuid.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

static inline int clampi(int v, int lo, int hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

int ggml_qsearch_nearest(float v, int qmin, int qmax, const int8_t * levels, int nlev) {
    if (!levels) {
        return clampi((int) lrintf(v), qmin, qmax);
    }
    int   best  = 0;
    float bestd = fabsf(v - levels[0]);
    for (int i = 1; i < nlev; i++) {
        const float dd = fabsf(v - levels[i]);
        if (dd < bestd) {
            bestd = dd;
            best  = i;
        }
    }
    return best;
}

static inline float level_value(int q, const int8_t * levels) {
    return levels ? (float) levels[q] : (float) q;
}

float ggml_qsearch_err_sym(int n, const float * x, float d, int qmin, int qmax, const int8_t * levels, int nlev,
                           int * q) {
    const float id  = d != 0.0f ? 1.0f / d : 0.0f;
    float       err = 0.0f;
    for (int i = 0; i < n; i++) {
        q[i]          = ggml_qsearch_nearest(x[i] * id, qmin, qmax, levels, nlev);
        const float e = x[i] - d * level_value(q[i], levels);
        err += e * e;
    }
    return err;
}

float ggml_qsearch_sym(int n, const float * x, int qmin, int qmax, const int8_t * levels, int nlev, int * q) {
    float amax = 0.0f, xm = 0.0f;
    for (int i = 0; i < n; i++) {
        if (fabsf(x[i]) > amax) {
            amax = fabsf(x[i]);
            xm   = x[i];
        }
    }
    const int zero_q = levels ? ggml_qsearch_nearest(0.0f, 0, 0, levels, nlev) : 0;
    if (amax < 1e-30f) {
        for (int i = 0; i < n; i++) {
            q[i] = zero_q;
        }
        return 0.0f;
    }
    const float lo = levels ? levels[0] : (float) qmin;
    const float hi = levels ? levels[nlev - 1] : (float) qmax;
    int         tmp[QK_K];
    float       best_score = -1.0f, best_d = 0.0f;
    // the extreme element lands on either end level; sweep the mapping from 1 level short to half a level beyond
    for (int side = 0; side < 2; side++) {
        const float t = side == 0 ? lo : hi;
        if (t == 0.0f) {
            continue;
        }
        const float step = levels ? fabsf(t) / 16.0f : 1.0f;
        for (int k = -10; k <= 5; k++) {
            const float tt     = t + (t > 0 ? 1.0f : -1.0f) * 0.1f * (float) k * step;
            const float iscale = tt / xm;
            float       sxq = 0.0f, sqq = 0.0f;
            for (int i = 0; i < n; i++) {
                tmp[i]        = ggml_qsearch_nearest(iscale * x[i], qmin, qmax, levels, nlev);
                const float l = level_value(tmp[i], levels);
                sxq += x[i] * l;
                sqq += l * l;
            }
            // with the optimal d = sxq/sqq the error is sxx - sxq^2/sqq: maximize the second term
            if (sqq > 0.0f && sxq * sxq / sqq > best_score) {
                best_score = sxq * sxq / sqq;
                best_d     = sxq / sqq;
                memcpy(q, tmp, (size_t) n * sizeof(int));
            }
        }
    }
    return best_d;
}

float ggml_qsearch_err_affine(int n, const float * x, float a, float b, int nmax, int * q) {
    const float ia  = a != 0.0f ? 1.0f / a : 0.0f;
    float       err = 0.0f;
    for (int i = 0; i < n; i++) {
        q[i]          = clampi((int) lrintf((x[i] - b) * ia), 0, nmax);
        const float e = x[i] - (a * (float) q[i] + b);
        err += e * e;
    }
    return err;
}

// least-squares (a, b) for fixed q; false when q is constant (a is then undetermined)
static bool fit_affine(int n, const float * x, const int * q, bool b_nonpos, float * a, float * b) {
    float sq = 0, sqq = 0, sx = 0, sxq = 0;
    for (int i = 0; i < n; i++) {
        sq += (float) q[i];
        sqq += (float) (q[i] * q[i]);
        sx += x[i];
        sxq += x[i] * (float) q[i];
    }
    return ggml_qsearch_fit_affine(n, sq, sqq, sx, sxq, b_nonpos, a, b);
}

void ggml_qsearch_affine(int n, const float * x, int nmax, bool b_nonpos, float * a, float * b, int * q) {
    float mn = x[0], mx = x[0];
    for (int i = 1; i < n; i++) {
        mn = fminf(mn, x[i]);
        mx = fmaxf(mx, x[i]);
    }
    if (b_nonpos && mn > 0.0f) {
        mn = 0.0f;
    }
    if (mx - mn < 1e-30f) {
        *a = 0.0f;
        *b = mn;
        for (int i = 0; i < n; i++) {
            q[i] = 0;
        }
        return;
    }
    int   tmp[QK_K];
    float best_err = ggml_qsearch_err_affine(n, x, (mx - mn) / (float) nmax, mn, nmax, q);
    float best_a = (mx - mn) / (float) nmax, best_b = mn;
    for (int k = -10; k <= 10; k++) {
        const float iscale = ((float) nmax + 0.1f * (float) k) / (mx - mn);
        for (int i = 0; i < n; i++) {
            tmp[i] = clampi((int) lrintf(iscale * (x[i] - mn)), 0, nmax);
        }
        float ca, cb;
        if (!fit_affine(n, x, tmp, b_nonpos, &ca, &cb)) {
            continue;
        }
        // refine: reassign to the fitted grid and refit once more
        for (int it = 0; it < 2; it++) {
            const float err = ggml_qsearch_err_affine(n, x, ca, cb, nmax, tmp);
            if (err < best_err) {
                best_err = err;
                best_a   = ca;
                best_b   = cb;
            }
            if (!fit_affine(n, x, tmp, b_nonpos, &ca, &cb)) {
                break;
            }
        }
    }
    *a = best_a;
    *b = best_b;
    ggml_qsearch_err_affine(n, x, best_a, best_b, nmax, q);
}

// =============================================================================================
// the scalar table: the reference functions above behind the table's signatures
static float scalar_sym(int n, const float * x, int qmin, int qmax, int * q) {
    int tmp[32];
    return ggml_qsearch_sym(n, x, qmin, qmax, NULL, 0, q ? q : tmp);
}

static void scalar_err_sym_multi(int n, const float * x, int nc, const float * d, int qmin, int qmax, float * err) {
    int tmp[32];
    for (int c = 0; c < nc; c++) {
        err[c] = ggml_qsearch_err_sym(n, x, d[c], qmin, qmax, NULL, 0, tmp);
    }
}

static void scalar_err_affine_multi(int n, const float * x, int nc, const float * a, const float * b, int nmax,
                                    float * err) {
    int tmp[32];
    for (int c = 0; c < nc; c++) {
        err[c] = ggml_qsearch_err_affine(n, x, a[c], b[c], nmax, tmp);
    }
}

static void scalar_assign_sym(int n, const float * x, float d, int qmin, int qmax, int * q) {
    (void) ggml_qsearch_err_sym(n, x, d, qmin, qmax, NULL, 0, q);
}

static void scalar_assign_affine(int n, const float * x, float a, float b, int nmax, int * q) {
    (void) ggml_qsearch_err_affine(n, x, a, b, nmax, q);
}

static const ggml_qsearch_kernels k_scalar = {
    "scalar",          scalar_sym,           ggml_qsearch_affine, scalar_err_sym_multi, scalar_err_affine_multi,
    scalar_assign_sym, scalar_assign_affine,
};

const ggml_qsearch_kernels * ggml_qsearch_kernels_get(enum ggml_qsearch_isa isa) {
    switch (isa) {
        case GGML_QSEARCH_ISA_SCALAR:
            return &k_scalar;
#if defined(GGML_CPU_ARCH_X86_64)
        // the flags each .avx2/.avx512 file is compiled with (ggml/CMakeLists.txt)
        case GGML_QSEARCH_ISA_AVX2:
            return ggml_x86_has(GGML_X86_AVX2) && ggml_x86_has(GGML_X86_FMA) && ggml_x86_has(GGML_X86_F16C) &&
                           ggml_x86_has(GGML_X86_BMI2)
                       ? ggml_qsearch_kernels_avx2()
                       : NULL;
        case GGML_QSEARCH_ISA_AVX512:
            return ggml_qsearch_kernels_get(GGML_QSEARCH_ISA_AVX2) && ggml_x86_has(GGML_X86_AVX512F) &&
                           ggml_x86_has(GGML_X86_AVX512BW) && ggml_x86_has(GGML_X86_AVX512VL) &&
                           ggml_x86_has(GGML_X86_AVX512DQ) && ggml_x86_has(GGML_X86_AVX512VNNI)
                       ? ggml_qsearch_kernels_avx512()
                       : NULL;
#endif
        default:
            return NULL;
    }
}

const ggml_qsearch_kernels * ggml_qsearch_best(void) {
    // resolved per call: a few loads of the CPU model bits, negligible beside a block search
    const ggml_qsearch_kernels * k = ggml_qsearch_kernels_get(GGML_QSEARCH_ISA_AVX512);
    if (!k) {
        k = ggml_qsearch_kernels_get(GGML_QSEARCH_ISA_AVX2);
    }
    return k ? k : &k_scalar;
}
