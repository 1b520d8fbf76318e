// The scale searches of ggml-quants-search.c with one candidate per SIMD lane, written once and
// compiled per instruction set: included by ggml-quants-lanes.avx2.cpp and ggml-quants-lanes.avx512.cpp,
// which first define (in an anonymous namespace) the vector type V of W floats, its mask type M and:
//   vset vzero vload vstore vstore_i32 vadd vsub vmul vdiv vmin vmax vround (to nearest even)
//   vfma_exact (a*b + c, used only where a*b is exact: squares of small integers)
//   vhmax (max of the lanes, none NaN), veq_mask (bit j set where lane j equals a scalar)
//   lane masks M: mgt (a > b), mnle (!(a <= b)), mnlt (!(a < b)), mne (a != b, true for NaN), mand,
//   msel (m ? t : f per lane), mbits / mfrom_bits (to and from a bit per lane)
// Every lane performs exactly the float operations of the scalar reference, in the same order (the
// sums run over the elements one by one, as there), so the results are bit-identical to it:
// lrintf(v) clamped to [lo, hi] equals round-to-even of v clamped first. Internal linkage only: the two
// compilations must never be merged by the linker into a function the CPU cannot run.
#pragma once

#include <math.h>
#include <string.h>

#include <cmath>

#include "ggml-quants-search.h"

#if defined(_MSC_VER) && !defined(__clang__)
#    include <intrin.h>  // _BitScanForward
#endif

namespace {

// The index of the lowest set bit of a non-zero mask.
inline int lowest_set_bit(unsigned m) {
#if defined(_MSC_VER) && !defined(__clang__)
    unsigned long i = 0;
    _BitScanForward(&i, m);
    return (int) i;
#else
    return __builtin_ctz(m);
#endif
}

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
    // lanes 0-15 map the extreme element to qmin, lanes 16-31 to qmax: the reference's
    // tt = t + (t > 0 ? 1 : -1) * 0.1f * k * step for k = -10..5, then iscale = tt / xm
    alignas(64) static const float kk[16] = {-10, -9, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5};
    alignas(64) float              iscale[kSymLanes];
    constexpr int                  NV = kSymLanes / W;
    V                              is[NV], sxq[NV], sqq[NV];
    for (int v = 0; v < NV; v++) {
        const float t    = v * W < 16 ? (float) qmin : (float) qmax;
        const float step = 1.0f;
        const V     tt =
            vadd(vset(t), vmul(vmul(vmul(vset(t > 0 ? 1.0f : -1.0f), vset(0.1f)), vload(kk + v * W % 16)), vset(step)));
        is[v] = vdiv(tt, vset(xm));
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
    // The reference keeps the first candidate that beats all before it (strictly, from -1): the
    // first one holding the maximum score. A candidate whose codes are all zero has sqq = sxq = 0 and
    // a NaN score, which vmax (NaN in its first operand) and == never take, as the reference's
    // `sqq > 0 &&` test; max is exact, so the reduction order does not matter. No data-dependent
    // branches but the final scan (they mispredict, and cost more than the search here).
    V vs[NV], vmx = vset(-1.0f);
    for (int v = 0; v < NV; v++) {
        vs[v] = vdiv(vmul(sxq[v], sxq[v]), sqq[v]);  // the reference's sxq * sxq / sqq
        vmx   = vmax(vs[v], vmx);
    }
    const float mx   = vhmax(vmx);
    int         best = -1;
    if (mx > -1.0f) {
        for (int v = 0; v < NV; v++) {
            const unsigned hit = veq_mask(vs[v], mx);
            if (hit) {
                best = v * W + lowest_set_bit(hit);
                break;
            }
        }
    }
    float best_d = 0.0f;
    if (best >= 0) {
        alignas(64) float axq[kSymLanes], aqq[kSymLanes];
        for (int v = 0; v < NV; v++) {
            vstore(axq + v * W, sxq[v]);
            vstore(aqq + v * W, sqq[v]);
        }
        best_d = axq[best] / aqq[best];
    }
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

// ggml_qsearch_fit_affine on every lane, with its operations: from the sums sq, sqq, sxq (per lane)
// and sx, writes a, b (0 where the fit fails or ok_in is false), ia = a != 0 ? 1/a : 0, and ok.
template <int NV>
inline void fit_lanes(int n, const float * sq, const float * sqq, const float * sxq, float sx, bool b_nonpos,
                      const bool * ok_in, float * a, float * b, float * ia, bool * ok) {
    const V vn = vset((float) n), vsx = vset(sx), zero = vzero(), one = vset(1.0f);
    for (int v = 0; v < NV; v++) {
        const V s1 = vload(sq + v * W), s2 = vload(sqq + v * W), s3 = vload(sxq + v * W);
        const V det = vsub(vmul(vn, s2), vmul(s1, s1));
        V       va  = vdiv(vsub(vmul(vn, s3), vmul(s1, vsx)), det);
        V       vb  = vdiv(vsub(vmul(s2, vsx), vmul(s1, s3)), det);
        if (b_nonpos) {
            const M pos = mgt(vb, zero);
            va          = msel(pos, msel(mgt(s2, zero), vdiv(s3, s2), zero), va);
            vb          = msel(pos, zero, vb);
        }
        // the reference returns false for det <= 0 and for a < 0 (a NaN passes both tests)
        const M  good = mand(mnle(det, zero), mnlt(va, zero));
        unsigned bits = mbits(good);
        if (ok_in) {
            for (int j = 0; j < W; j++) {
                bits &= ~((unsigned) !ok_in[v * W + j] << j);
            }
        }
        const M keep = mfrom_bits(bits);
        va           = msel(keep, va, zero);
        vb           = msel(keep, vb, zero);
        vstore(a + v * W, va);
        vstore(b + v * W, vb);
        vstore(ia + v * W, msel(mne(va, zero), vdiv(one, va), zero));
        for (int j = 0; j < W; j++) {
            ok[v * W + j] = (bits >> j) & 1;
        }
    }
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
    alignas(64) float a1[NL], b1[NL], ia1[NL], err1[NL];
    alignas(64) float a2[NL], b2[NL], ia2[NL], err2[NL];
    bool              ok1[NL], ok2[NL];
    fit_lanes<NV>(n, s1, s2, s3, sx, b_nonpos, nullptr, a1, b1, ia1, ok1);
    a1[BASE]  = (mx - mn) / (float) nmax;
    b1[BASE]  = mn;
    ia1[BASE] = inverse_or_zero(a1[BASE]);
    affine_pass<NV>(n, x, a1, b1, ia1, (float) nmax, err1, s1, s2, s3);
    fit_lanes<NV>(n, s1, s2, s3, sx, b_nonpos, ok1, a2, b2, ia2, ok2);
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
