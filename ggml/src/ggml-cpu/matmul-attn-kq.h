// The KQ micro-kernel of matmul-attn.h (ggml_cpu_attn_mm_isa::kq), written once over the F32 vector
// trait V of vec-f32.<isa>.h: up to RK query rows x NV vectors of keys (16 keys) in registers, each
// output one FMA chain over d. Included inside the unnamed namespace of matmul-attn.<isa>.cpp, which
// defines RK (rows per call; divides the driver's 48).
#pragma once

// stores the first n (< V::W allowed) lanes of v
template <typename V>
inline void kq_store_n(float * d, typename V::reg v, int n) {
    if (n >= V::W) {
        V::store(d, v);
        return;
    }
    float t[V::W];
    V::store(t, v);
    for (int i = 0; i < n; ++i)
        d[i] = t[i];
}

template <typename V, int R>
void kq_rows(int nk, int D, const float * const * q, const float * kt, int ldk, float * const * s) {
    constexpr int NV = 16 / V::W;
    for (int j = 0; j < nk; j += 16) {
        typename V::reg acc[R][NV];
        for (int r = 0; r < R; ++r)
            for (int i = 0; i < NV; ++i)
                acc[r][i] = V::zero();
        const float * kp = kt + j;
        for (int d = 0; d < D; ++d) {
            const float *   kd = kp + (size_t) d * ldk;
            typename V::reg b[NV];
            for (int i = 0; i < NV; ++i)
                b[i] = V::load(kd + V::W * i);  // kt is readable up to ldk, a multiple of 32
            for (int r = 0; r < R; ++r) {
                const float a = q[r][d];
                for (int i = 0; i < NV; ++i)
                    acc[r][i] = V::fma_n(acc[r][i], b[i], a);
            }
        }
        for (int r = 0; r < R; ++r)
            for (int i = 0; i < NV && j + V::W * i < nk; ++i)
                kq_store_n<V>(s[r] + j + V::W * i, acc[r][i], nk - j - V::W * i);
    }
}

template <typename V>
void kq(int nr, int nk, int D, const float * const * q, const float * kt, int ldk, float * const * s) {
    static_assert(RK == 6, "one kq_rows instance per row count");
    using kq_fn                = void (*)(int, int, const float * const *, const float *, int, float * const *);
    constexpr kq_fn kq_tab[RK] = {kq_rows<V, 1>, kq_rows<V, 2>, kq_rows<V, 3>,
                                  kq_rows<V, 4>, kq_rows<V, 5>, kq_rows<V, 6>};
    for (int c = 0; c < nr; c += RK) {
        const int r = nr - c < RK ? nr - c : RK;
        kq_tab[r - 1](nk, D, q + c, kt, ldk, s + c);
    }
}
