// AVX-512 build of the lane-parallel scale searches (ggml-quants-lanes.h): 16 candidates per vector.
// Called only after CPUID says so (ggml_qsearch_kernels_get).
// GCC 12's AVX-512 headers build results from _mm512_undefined_*() and warn about it (false positive).
#if defined(__GNUC__) && !defined(__clang__)
#    pragma GCC diagnostic ignored "-Wuninitialized"
#    pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#if defined(__x86_64__) || defined(__i386__)
#    include <immintrin.h>

namespace {

typedef __m512 V;
constexpr int  W = 16;

inline V vset(float a) {
    return _mm512_set1_ps(a);
}
inline V vzero() {
    return _mm512_setzero_ps();
}
inline V vload(const float * p) {
    return _mm512_loadu_ps(p);
}
inline void vstore(float * p, V v) {
    _mm512_storeu_ps(p, v);
}
inline void vstore_i32(int * p, V v) {
    _mm512_storeu_si512(p, _mm512_cvtps_epi32(v));  // v holds integers: exact
}
inline V vadd(V a, V b) {
    return _mm512_add_ps(a, b);
}
inline V vsub(V a, V b) {
    return _mm512_sub_ps(a, b);
}
inline V vmul(V a, V b) {
    return _mm512_mul_ps(a, b);
}
inline V vdiv(V a, V b) {
    return _mm512_div_ps(a, b);
}
// round to nearest even (as lrintf in the default mode), exact
inline V vround(V v) {
    return _mm512_roundscale_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
// a * b + c where a * b is exact (squares of small integers): equal to the unfused sum
inline V vfma_exact(V a, V b, V c) {
    return _mm512_fmadd_ps(a, b, c);
}
inline float vhmax(V v) {
    return _mm512_reduce_max_ps(v);
}
inline unsigned veq_mask(V v, float s) {
    return (unsigned) _mm512_cmp_ps_mask(v, _mm512_set1_ps(s), _CMP_EQ_OQ);
}
typedef __mmask16 M;
inline M          mgt(V a, V b) {
             return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ);
}
inline M mnle(V a, V b) {
    return _mm512_cmp_ps_mask(a, b, _CMP_NLE_UQ);
}
inline M mnlt(V a, V b) {
    return _mm512_cmp_ps_mask(a, b, _CMP_NLT_UQ);
}
inline M mne(V a, V b) {
    return _mm512_cmp_ps_mask(a, b, _CMP_NEQ_UQ);
}
inline M mand(M a, M b) {
    return (M) (a & b);
}
inline V msel(M m, V t, V f) {
    return _mm512_mask_blend_ps(m, f, t);
}
inline unsigned mbits(M m) {
    return (unsigned) m;
}
inline M mfrom_bits(unsigned b) {
    return (M) b;
}
// a NaN in a yields b (a NaN element lands on the lowest level)
inline V vmax(V a, V b) {
    return _mm512_max_ps(a, b);
}
inline V vmin(V a, V b) {
    return _mm512_min_ps(a, b);
}

}  // namespace

#    include "ggml-quants-lanes.h"

extern "C" const ggml_qsearch_kernels * ggml_qsearch_kernels_avx512(void) {
    static const ggml_qsearch_kernels k = {
        "avx512",         lanes_sym,           lanes_affine, lanes_err_sym_multi, lanes_err_affine_multi,
        lanes_assign_sym, lanes_assign_affine,
    };
    return &k;
}
#endif
