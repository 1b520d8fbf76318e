// The scale searches of ggml-quants-search.c with one candidate per SIMD lane, written once and
// compiled per instruction set: included by ggml-quants-lanes.avx2.cpp and ggml-quants-lanes.avx512.cpp,
// which first define (in an anonymous namespace) the vector type V of W floats, its mask type M and:
//   vset vzero vload vstore vstore_i32 vadd vsub vmul vdiv vmin vmax vround (to nearest even)
//   vfma_exact (a*b + c, used only where a*b is exact: squares of small integers)
// Every lane performs exactly the float operations of the scalar reference, in the same order (the
// sums run over the elements one by one, as there), so the results are bit-identical to it:
// lrintf(v) clamped to [lo, hi] equals round-to-even of v clamped first. Internal linkage only: the two
// compilations must never be merged by the linker into a function the CPU cannot run.
#pragma once

#include <math.h>
#include <string.h>

#include <cmath>

#include "ggml-quants-search.h"

namespace {

// lanes in the candidate sweeps (ggml_qsearch_sym: 2 x 16; ggml_qsearch_affine: 21 + 1 base candidate)
constexpr int kSymLanes    = 32;
constexpr int kAffineLanes = (22 + W - 1) / W * W;
constexpr int kMultiLanes  = (GGML_QSEARCH_MAX_MULTI + W - 1) / W * W;

inline V vclamp(V v, V lo, V hi) {
    return vmin(vmax(v, lo), hi);
}

// q[i] = round(clamp(x[i] * s, lo, hi)): the codes of one (inverse) scale, n a multiple of W
inline void assign_codes(int n, const float * x, float s, float lo, float hi, int * q) {
    const V vs = vset(s), vlo = vset(lo), vhi = vset(hi);
    for (int i = 0; i < n; i += W) {
        vstore_i32(q + i, vround(vclamp(vmul(vload(x + i), vs), vlo, vhi)));
    }
}

// ---------------------------------------------------------------------------------------------
float lanes_sym(int n, const float * x, int qmin, int qmax, int * q) {
    // the first element of largest magnitude (the max of |x| is exact, so == finds it again); a NaN
    // is never the max, as in the reference
    V vm = vzero();
    for (int i = 0; i < n; i += W) {
        const V xi = vload(x + i);
        vm         = vmax(vmax(xi, vsub(vzero(), xi)), vm);
    }
    alignas(64) float m[W];
    vstore(m, vm);
    float amax = 0.0f, xm = 0.0f;
    for (int j = 0; j < W; j++) {
        amax = m[j] > amax ? m[j] : amax;
    }
    if (amax < 1e-30f) {
        if (q) {
            memset(q, 0, (size_t) n * sizeof(int));
        }
        return 0.0f;
    }
    for (int i = 0; i < n; i++) {
        if (fabsf(x[i]) == amax) {
            xm = x[i];
            break;
        }
    }
    alignas(64) float tt[kSymLanes], iscale[kSymLanes];
    int               c = 0;
    for (int side = 0; side < 2; side++) {
        const float t    = side == 0 ? (float) qmin : (float) qmax;
        const float step = 1.0f;
        for (int k = -10; k <= 5; k++) {
            tt[c++] = t + (t > 0 ? 1.0f : -1.0f) * 0.1f * (float) k * step;
        }
    }
    constexpr int NV = kSymLanes / W;
    V             is[NV], sxq[NV], sqq[NV];
    for (int v = 0; v < NV; v++) {
        is[v] = vdiv(vload(tt + v * W), vset(xm));  // iscale = tt / xm, one lane each
        vstore(iscale + v * W, is[v]);
        sxq[v] = vzero();
        sqq[v] = vzero();
    }
    const V lo = vset((float) qmin), hi = vset((float) qmax);
    for (int i = 0; i < n; i++) {
        const V xi = vset(x[i]);
        for (int v = 0; v < NV; v++) {
            const V l = vround(vclamp(vmul(is[v], xi), lo, hi));
            sxq[v]    = vadd(sxq[v], vmul(xi, l));
            sqq[v]    = vfma_exact(l, l, sqq[v]);
        }
    }
    alignas(64) float aqq[kSymLanes], score[kSymLanes], dopt[kSymLanes];
    for (int v = 0; v < NV; v++) {
        vstore(aqq + v * W, sqq[v]);
        vstore(score + v * W, vdiv(vmul(sxq[v], sxq[v]), sqq[v]));  // the reference's sxq * sxq / sqq
        vstore(dopt + v * W, vdiv(sxq[v], sqq[v]));
    }
    // The reference keeps the first candidate that beats all before it (strictly, from -1): that is
    // the first one holding the maximum. Found without data-dependent branches (they mispredict):
    // four partial maxima (max is exact, so any order gives the same value), then one scan.
    float mx4[4] = {-1.0f, -1.0f, -1.0f, -1.0f};
    for (c = 0; c < kSymLanes; c++) {
        const float sc = aqq[c] > 0.0f ? score[c] : -1.0f;
        mx4[c % 4]     = sc > mx4[c % 4] ? sc : mx4[c % 4];  // a NaN score is never taken
    }
    const float mx01 = mx4[0] > mx4[1] ? mx4[0] : mx4[1], mx23 = mx4[2] > mx4[3] ? mx4[2] : mx4[3];
    const float mx   = mx01 > mx23 ? mx01 : mx23;
    int         best = -1;
    if (mx > -1.0f) {
        for (c = 0; c < kSymLanes; c++) {
            if (aqq[c] > 0.0f && score[c] == mx) {
                best = c;
                break;
            }
        }
    }
    const float best_d = best >= 0 ? dopt[best] : 0.0f;
    if (best >= 0 && q) {
        assign_codes(n, x, iscale[best], (float) qmin, (float) qmax, q);
    }
    return best_d;
}

// ---------------------------------------------------------------------------------------------
// Per lane c: err[c] of x ~ a[c]*q + b[c] with q = clamp(round((x - b) * ia[c]), 0, nmax), and the
// sums sq, sqq, sxq of those codes (for the next least-squares fit). NV vectors of lanes.
template <int NV>
inline void affine_pass(int n, const float * x, const float * a, const float * b, const float * ia, float nmax,
                        float * err, float * sq, float * sqq, float * sxq) {
    V va[NV], vb[NV], via[NV], e2[NV], s1[NV], s2[NV], s3[NV];
    for (int v = 0; v < NV; v++) {
        va[v]  = vload(a + v * W);
        vb[v]  = vload(b + v * W);
        via[v] = vload(ia + v * W);
        e2[v] = s1[v] = s2[v] = s3[v] = vzero();
    }
    const V lo = vzero(), hi = vset(nmax);
    for (int i = 0; i < n; i++) {
        const V xi = vset(x[i]);
        for (int v = 0; v < NV; v++) {
            const V l = vround(vclamp(vmul(vsub(xi, vb[v]), via[v]), lo, hi));
            const V e = vsub(xi, vadd(vmul(va[v], l), vb[v]));
            e2[v]     = vadd(e2[v], vmul(e, e));
            s1[v]     = vadd(s1[v], l);
            s2[v]     = vfma_exact(l, l, s2[v]);
            s3[v]     = vadd(s3[v], vmul(xi, l));
        }
    }
    for (int v = 0; v < NV; v++) {
        vstore(err + v * W, e2[v]);
        if (sq) {
            vstore(sq + v * W, s1[v]);
            vstore(sqq + v * W, s2[v]);
            vstore(sxq + v * W, s3[v]);
        }
    }
}

inline float inverse_or_zero(float a) {
    return a != 0.0f ? 1.0f / a : 0.0f;
}

void lanes_affine(int n, const float * x, int nmax, bool b_nonpos, float * a, float * b, int * q) {
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
        memset(q, 0, (size_t) n * sizeof(int));
        return;
    }
    constexpr int NL = kAffineLanes, NV = kAffineLanes / W, NK = 21, BASE = 21;
    // lane c < 21: the sweep's inverse scale k = c - 10; lane 21: the plain min/max grid
    alignas(64) float iscale[NL] = {}, s1[NL], s2[NL], s3[NL];
    for (int c = 0; c < NK; c++) {
        iscale[c] = ((float) nmax + 0.1f * (float) (c - 10)) / (mx - mn);
    }
    float sx = 0.0f;
    for (int i = 0; i < n; i++) {
        sx += x[i];
    }
    // pass 0: codes of each inverse scale on the grid anchored at mn, and their sums
    {
        V is[NV], t1[NV], t2[NV], t3[NV];
        for (int v = 0; v < NV; v++) {
            is[v] = vload(iscale + v * W);
            t1[v] = t2[v] = t3[v] = vzero();
        }
        const V lo = vzero(), hi = vset((float) nmax);
        for (int i = 0; i < n; i++) {
            const V xi = vset(x[i]), dx = vset(x[i] - mn);
            for (int v = 0; v < NV; v++) {
                const V l = vround(vclamp(vmul(is[v], dx), lo, hi));
                t1[v]     = vadd(t1[v], l);
                t2[v]     = vfma_exact(l, l, t2[v]);
                t3[v]     = vadd(t3[v], vmul(xi, l));
            }
        }
        for (int v = 0; v < NV; v++) {
            vstore(s1 + v * W, t1[v]);
            vstore(s2 + v * W, t2[v]);
            vstore(s3 + v * W, t3[v]);
        }
    }
    // fit 1, then pass 1 (its error and the sums of its re-chosen codes), fit 2, pass 2 (its error)
    alignas(64) float a1[NL] = {}, b1[NL] = {}, ia1[NL] = {}, err1[NL];
    alignas(64) float a2[NL] = {}, b2[NL] = {}, ia2[NL] = {}, err2[NL];
    bool              ok1[NL] = {}, ok2[NL] = {};
    for (int c = 0; c < NK; c++) {
        ok1[c] = ggml_qsearch_fit_affine(n, s1[c], s2[c], sx, s3[c], b_nonpos, &a1[c], &b1[c]);
        if (!ok1[c]) {
            a1[c] = b1[c] = 0.0f;
        }
        ia1[c] = inverse_or_zero(a1[c]);
    }
    a1[BASE]  = (mx - mn) / (float) nmax;
    b1[BASE]  = mn;
    ia1[BASE] = inverse_or_zero(a1[BASE]);
    affine_pass<NV>(n, x, a1, b1, ia1, (float) nmax, err1, s1, s2, s3);
    for (int c = 0; c < NK; c++) {
        ok2[c] = ok1[c] && ggml_qsearch_fit_affine(n, s1[c], s2[c], sx, s3[c], b_nonpos, &a2[c], &b2[c]);
        if (!ok2[c]) {
            a2[c] = b2[c] = 0.0f;
        }
        ia2[c] = inverse_or_zero(a2[c]);
    }
    affine_pass<NV>(n, x, a2, b2, ia2, (float) nmax, err2, nullptr, nullptr, nullptr);

    // the reference's order of comparisons (base, then per candidate its first and second refit)
    // The reference walks base, then per candidate its first and second refit, keeping whatever is
    // strictly better than all before: the first entry holding the minimum. Found without
    // data-dependent branches (two partial minima, exact), then one scan. A NaN is never taken, and
    // a NaN base error keeps the base (nothing compares below it).
    float best_a = a1[BASE], best_b = b1[BASE];
    if (!std::isnan(err1[BASE])) {
        float m1 = err1[BASE], m2 = err1[BASE];
        for (int c = 0; c < NK; c++) {
            const float e1 = ok1[c] ? err1[c] : INFINITY, e2 = ok2[c] ? err2[c] : INFINITY;
            m1 = e1 < m1 ? e1 : m1;
            m2 = e2 < m2 ? e2 : m2;
        }
        const float m = m1 < m2 ? m1 : m2;
        if (!(err1[BASE] == m)) {
            for (int c = 0; c < NK; c++) {
                if (ok1[c] && err1[c] == m) {
                    best_a = a1[c], best_b = b1[c];
                    break;
                }
                if (ok2[c] && err2[c] == m) {
                    best_a = a2[c], best_b = b2[c];
                    break;
                }
            }
        }
    }
    *a             = best_a;
    *b             = best_b;
    const float ia = inverse_or_zero(best_a);
    const V     vb = vset(best_b), via = vset(ia), lo = vzero(), hi = vset((float) nmax);
    for (int i = 0; i < n; i += W) {
        vstore_i32(q + i, vround(vclamp(vmul(vsub(vload(x + i), vb), via), lo, hi)));
    }
}

// ---------------------------------------------------------------------------------------------
void lanes_err_sym_multi(int n, const float * x, int nc, const float * d, int qmin, int qmax, float * err) {
    constexpr int     NV              = kMultiLanes / W;
    alignas(64) float dd[kMultiLanes] = {}, id[kMultiLanes] = {}, out[kMultiLanes];
    for (int c = 0; c < nc; c++) {
        dd[c] = d[c];
        id[c] = d[c] != 0.0f ? 1.0f / d[c] : 0.0f;
    }
    V vd[NV], vid[NV], e2[NV];
    for (int v = 0; v < NV; v++) {
        vd[v]  = vload(dd + v * W);
        vid[v] = vload(id + v * W);
        e2[v]  = vzero();
    }
    const V lo = vset((float) qmin), hi = vset((float) qmax);
    for (int i = 0; i < n; i++) {
        const V xi = vset(x[i]);
        for (int v = 0; v < NV; v++) {
            const V l = vround(vclamp(vmul(xi, vid[v]), lo, hi));
            const V e = vsub(xi, vmul(vd[v], l));
            e2[v]     = vadd(e2[v], vmul(e, e));
        }
    }
    for (int v = 0; v < NV; v++) {
        vstore(out + v * W, e2[v]);
    }
    memcpy(err, out, (size_t) nc * sizeof(float));
}

void lanes_err_affine_multi(int n, const float * x, int nc, const float * a, const float * b, int nmax, float * err) {
    alignas(64) float aa[kMultiLanes] = {}, bb[kMultiLanes] = {}, ia[kMultiLanes] = {}, out[kMultiLanes];
    for (int c = 0; c < nc; c++) {
        aa[c] = a[c];
        bb[c] = b[c];
        ia[c] = inverse_or_zero(a[c]);
    }
    affine_pass<kMultiLanes / W>(n, x, aa, bb, ia, (float) nmax, out, nullptr, nullptr, nullptr);
    memcpy(err, out, (size_t) nc * sizeof(float));
}

void lanes_assign_sym(int n, const float * x, float d, int qmin, int qmax, int * q) {
    assign_codes(n, x, d != 0.0f ? 1.0f / d : 0.0f, (float) qmin, (float) qmax, q);
}

void lanes_assign_affine(int n, const float * x, float a, float b, int nmax, int * q) {
    const V vb = vset(b), via = vset(inverse_or_zero(a)), lo = vzero(), hi = vset((float) nmax);
    for (int i = 0; i < n; i += W) {
        vstore_i32(q + i, vround(vclamp(vmul(vsub(vload(x + i), vb), via), lo, hi)));
    }
}

}  // namespace
