// Importance-weighted scale searches (declared in ggml-quants-search.h): the same candidate sweeps
// as the plain reference searches of ggml-quants-search.c, scored by sum w*(x - q)^2. w comes from
// an importance matrix (the mean squared activation of each input column), so the error minimized
// is what a matrix-vector product with typical activations would see. Scalar only: quantizing
// with an imatrix is a one-off conversion and the plain (SIMD) path stays bit-identical.
#include "ggml-quants-search.h"

#include "ggml-quants.h"

#include <math.h>
#include <string.h>

static inline int clampi(int v, int lo, int hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

static inline float level_value(int q, const int8_t * levels) {
    return levels ? (float) levels[q] : (float) q;
}

// ggml_qsearch_nearest, inlined (the hot loop of every candidate); a table (sorted ascending) by
// bisection, ties to the lower index as there
static inline int nearest(float v, int qmin, int qmax, const int8_t * levels, int nlev) {
    if (!levels) {
        return clampi((int) lrintf(v), qmin, qmax);
    }
    int lo = 0, hi = nlev - 1;
    if (!(v > (float) levels[lo])) {
        return lo;
    }
    if (!(v < (float) levels[hi])) {
        return hi;
    }
    while (hi - lo > 1) {  // levels[lo] < v < levels[hi]
        const int mid = (lo + hi) / 2;
        if ((float) levels[mid] < v) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return fabsf(v - (float) levels[lo]) <= fabsf(v - (float) levels[hi]) ? lo : hi;
}

float ggml_qsearch_werr_sym(int n, const float * x, const float * w, float d, int qmin, int qmax, const int8_t * levels,
                            int nlev, int * q) {
    const float id  = d != 0.0f ? 1.0f / d : 0.0f;
    float       err = 0.0f;
    for (int i = 0; i < n; i++) {
        // the nearest level is optimal for any positive weight: elements do not interact for a fixed d
        q[i]          = nearest(x[i] * id, qmin, qmax, levels, nlev);
        const float e = x[i] - d * level_value(q[i], levels);
        err += w[i] * e * e;
    }
    return err;
}

float ggml_qsearch_wsym(int n, const float * x, const float * w, int qmin, int qmax, const int8_t * levels, int nlev,
                        int * q) {
    // the anchor is the element of largest weighted magnitude: it is the one that must land on a level
    float amax = 0.0f, xm = 0.0f, wmax = -1.0f;
    for (int i = 0; i < n; i++) {
        amax          = fmaxf(amax, fabsf(x[i]));
        const float v = w[i] * x[i] * x[i];
        if (x[i] != 0.0f && v > wmax) {
            wmax = v;
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
    float xa = xm;  // also anchor on the largest magnitude (the plain search's choice)
    for (int i = 0; i < n; i++) {
        if (fabsf(x[i]) == amax) {
            xa = x[i];
            break;
        }
    }
    const float lo = levels ? levels[0] : (float) qmin;
    const float hi = levels ? levels[nlev - 1] : (float) qmax;
    int         tmp[QK_K];
    float       best_score = -1.0f, best_d = 0.0f;
    for (int anchor = 0; anchor < 2; anchor++) {
        const float xr = anchor == 0 ? xa : xm;
        if (anchor == 1 && xm == xa) {
            break;
        }
        for (int side = 0; side < 2; side++) {
            const float t = side == 0 ? lo : hi;
            if (t == 0.0f) {
                continue;
            }
            const float step = levels ? fabsf(t) / 16.0f : 1.0f;
            for (int k = -14; k <= 8; k++) {
                const float tt     = t + (t > 0 ? 1.0f : -1.0f) * 0.1f * (float) k * step;
                const float iscale = tt / xr;
                float       sxq = 0.0f, sqq = 0.0f;
                for (int i = 0; i < n; i++) {
                    tmp[i]        = nearest(iscale * x[i], qmin, qmax, levels, nlev);
                    const float l = level_value(tmp[i], levels);
                    sxq += w[i] * x[i] * l;
                    sqq += w[i] * l * l;
                }
                // weighted least squares: error = sxx - sxq^2/sqq at d = sxq/sqq
                if (sqq > 0.0f && sxq * sxq / sqq > best_score) {
                    best_score = sxq * sxq / sqq;
                    best_d     = sxq / sqq;
                    memcpy(q, tmp, (size_t) n * sizeof(int));
                }
            }
        }
    }
    if (best_score < 0.0f) {
        // every weight zero: nothing to prefer, fall back to the plain search
        return ggml_qsearch_sym(n, x, qmin, qmax, levels, nlev, q);
    }
    return best_d;
}

float ggml_qsearch_werr_affine(int n, const float * x, const float * w, float a, float b, int nmax, int * q) {
    const float ia  = a != 0.0f ? 1.0f / a : 0.0f;
    float       err = 0.0f;
    for (int i = 0; i < n; i++) {
        q[i]          = clampi((int) lrintf((x[i] - b) * ia), 0, nmax);
        const float e = x[i] - (a * (float) q[i] + b);
        err += w[i] * e * e;
    }
    return err;
}

// weighted least-squares (a, b) for fixed q; false when the fit is undetermined or a < 0
static bool wfit_affine(int n, const float * x, const float * w, const int * q, bool b_nonpos, float * a, float * b) {
    float sw = 0, sq = 0, sqq = 0, sx = 0, sxq = 0;
    for (int i = 0; i < n; i++) {
        const float fq = (float) q[i];
        sw += w[i];
        sq += w[i] * fq;
        sqq += w[i] * fq * fq;
        sx += w[i] * x[i];
        sxq += w[i] * x[i] * fq;
    }
    const float det = sw * sqq - sq * sq;
    if (!(det > 0.0f)) {
        return false;
    }
    *a = (sw * sxq - sq * sx) / det;
    *b = (sqq * sx - sq * sxq) / det;
    if (b_nonpos && *b > 0.0f) {
        *b = 0.0f;
        *a = sqq > 0 ? sxq / sqq : 0.0f;
    }
    return !(*a < 0.0f);
}

void ggml_qsearch_waffine(int n, const float * x, const float * w, int nmax, bool b_nonpos, float * a, float * b,
                          int * q) {
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
    float best_a = (mx - mn) / (float) nmax, best_b = mn;
    float best_err = ggml_qsearch_werr_affine(n, x, w, best_a, best_b, nmax, q);
    // the plain search's result is a candidate too, so the weighted error can only go down
    {
        float pa, pb;
        ggml_qsearch_best()->affine(n, x, nmax, b_nonpos, &pa, &pb, tmp);  // = ggml_qsearch_affine, faster
        const float err = ggml_qsearch_werr_affine(n, x, w, pa, pb, nmax, tmp);
        if (err < best_err) {
            best_err = err;
            best_a   = pa;
            best_b   = pb;
        }
    }
    for (int k = -12; k <= 12; k++) {
        const float iscale = ((float) nmax + 0.1f * (float) k) / (mx - mn);
        for (int i = 0; i < n; i++) {
            tmp[i] = clampi((int) lrintf(iscale * (x[i] - mn)), 0, nmax);
        }
        float ca, cb;
        if (!wfit_affine(n, x, w, tmp, b_nonpos, &ca, &cb)) {
            continue;
        }
        for (int it = 0; it < 3; it++) {
            const float err = ggml_qsearch_werr_affine(n, x, w, ca, cb, nmax, tmp);
            if (err < best_err) {
                best_err = err;
                best_a   = ca;
                best_b   = cb;
            }
            if (!wfit_affine(n, x, w, tmp, b_nonpos, &ca, &cb)) {
                break;
            }
        }
    }
    *a = best_a;
    *b = best_b;
    ggml_qsearch_werr_affine(n, x, w, best_a, best_b, nmax, q);
}

void ggml_qsearch_row_weights(int64_t n, const float * imatrix, float * w) {
    // a small floor keeps columns that were never activated (weight 0) from being ignored entirely
    double sum = 0.0;
    for (int64_t i = 0; i < n; i++) {
        sum += imatrix[i] > 0.0f && isfinite(imatrix[i]) ? imatrix[i] : 0.0f;
    }
    const float floor_w = n > 0 && sum > 0.0 ? (float) (sum / (double) n) * 1e-4f : 1.0f;
    for (int64_t i = 0; i < n; i++) {
        const float v = imatrix[i] > 0.0f && isfinite(imatrix[i]) ? imatrix[i] : 0.0f;
        w[i]          = v + floor_w;
    }
}
