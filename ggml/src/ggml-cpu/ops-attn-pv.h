// P.V of the tiled flash attention (ggml_cpu_fa_kernels::pv), written once over the F32 vector trait
// V of vec-f32.<isa>.h (reg, W lanes, zero/load/store, fma_n(acc, x, w) = acc + x * w fused).
// A block keeps up to 2 query rows x NB vectors of output columns in registers while it streams the
// V rows (NB: the instruction set's register budget). Included inside the unnamed namespace of
// ops-attn.<isa>.cpp (it needs <cmath>, included there first).
#pragma once

template <typename V, int NQ, int NV>
void pv_block(int nk, const float * p, int ldp, const float * v, int ldv, float * acc, int ldacc) {
    typename V::reg a[NQ][NV];
    for (int q = 0; q < NQ; ++q)
        for (int i = 0; i < NV; ++i)
            a[q][i] = V::load(acc + q * ldacc + V::W * i);
    for (int j = 0; j < nk; ++j) {
        const float *   vr = v + (size_t) j * ldv;
        typename V::reg x[NV];
        for (int i = 0; i < NV; ++i)
            x[i] = V::load(vr + V::W * i);
        for (int q = 0; q < NQ; ++q) {
            const float w = p[q * ldp + j];
            if (w == 0.0f)
                continue;  // a masked key adds nothing, even when its V row holds NaN/Inf
            for (int i = 0; i < NV; ++i)
                a[q][i] = V::fma_n(a[q][i], x[i], w);
        }
    }
    for (int q = 0; q < NQ; ++q)
        for (int i = 0; i < NV; ++i)
            V::store(acc + q * ldacc + V::W * i, a[q][i]);
}

template <typename V, int NB, int NQ>
void pv_rows(int nk, int dv, const float * p, int ldp, const float * v, int ldv, float * acc, int ldacc) {
    int d = 0;
    for (; d + V::W * NB <= dv; d += V::W * NB)
        pv_block<V, NQ, NB>(nk, p, ldp, v + d, ldv, acc + d, ldacc);
    for (; d + V::W <= dv; d += V::W)
        pv_block<V, NQ, 1>(nk, p, ldp, v + d, ldv, acc + d, ldacc);
    for (; d < dv; ++d)  // odd head sizes: same order of summation, one column at a time
        for (int q = 0; q < NQ; ++q) {
            float s = acc[q * ldacc + d];
            for (int j = 0; j < nk; ++j)
                if (p[q * ldp + j] != 0.0f)
                    s = std::fma(p[q * ldp + j], v[(size_t) j * ldv + d], s);
            acc[q * ldacc + d] = s;
        }
}

template <typename V, int NB>
void pv(int nq, int nk, int dv, const float * p, int ldp, const float * v, int ldv, float * acc, int ldacc) {
    int q = 0;
    for (; q + 2 <= nq; q += 2)
        pv_rows<V, NB, 2>(nk, dv, p + q * ldp, ldp, v, ldv, acc + q * ldacc, ldacc);
    if (q < nq)
        pv_rows<V, NB, 1>(nk, dv, p + q * ldp, ldp, v, ldv, acc + q * ldacc, ldacc);
}
