// AVX2 build of the lane-parallel scale searches (ggml-quants-lanes.h): 8 candidates per vector.
// Called only after CPUID says so (ggml_qsearch_kernels_get).
#if defined(__x86_64__) || defined(__i386__)
#    include <immintrin.h>

namespace {

typedef __m256 V;
constexpr int  W = 8;

inline V vset(float a) {
    return _mm256_set1_ps(a);
}
inline V vzero() {
    return _mm256_setzero_ps();
}
inline V vload(const float * p) {
    return _mm256_loadu_ps(p);
}
inline void vstore(float * p, V v) {
    _mm256_storeu_ps(p, v);
}
inline void vstore_i32(int * p, V v) {
    _mm256_storeu_si256((__m256i *) p, _mm256_cvtps_epi32(v));  // v holds integers: exact
}
inline V vadd(V a, V b) {
    return _mm256_add_ps(a, b);
}
inline V vsub(V a, V b) {
    return _mm256_sub_ps(a, b);
}
inline V vmul(V a, V b) {
    return _mm256_mul_ps(a, b);
}
inline V vdiv(V a, V b) {
    return _mm256_div_ps(a, b);
}
// round to nearest even (as lrintf in the default mode), exact
inline V vround(V v) {
    return _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
// a * b + c where a * b is exact (squares of small integers): equal to the unfused sum
inline V vfma_exact(V a, V b, V c) {
    return _mm256_fmadd_ps(a, b, c);
}
inline float vhmax(V v) {
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m        = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m        = _mm_max_ss(m, _mm_shuffle_ps(m, m, 1));
    return _mm_cvtss_f32(m);
}
inline unsigned veq_mask(V v, float s) {
    return (unsigned) _mm256_movemask_ps(_mm256_cmp_ps(v, _mm256_set1_ps(s), _CMP_EQ_OQ));
}
typedef __m256 M;
inline M       mgt(V a, V b) {
          return _mm256_cmp_ps(a, b, _CMP_GT_OQ);
}
inline M mnle(V a, V b) {
    return _mm256_cmp_ps(a, b, _CMP_NLE_UQ);
}
inline M mnlt(V a, V b) {
    return _mm256_cmp_ps(a, b, _CMP_NLT_UQ);
}
inline M mne(V a, V b) {
    return _mm256_cmp_ps(a, b, _CMP_NEQ_UQ);
}
inline M mand(M a, M b) {
    return _mm256_and_ps(a, b);
}
inline V msel(M m, V t, V f) {
    return _mm256_blendv_ps(f, t, m);
}
inline unsigned mbits(M m) {
    return (unsigned) _mm256_movemask_ps(m);
}
inline M mfrom_bits(unsigned b) {
    const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    return _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int) b), bit), bit));
}
// a NaN in a yields b (a NaN element lands on the lowest level)
inline V vmax(V a, V b) {
    return _mm256_max_ps(a, b);
}
inline V vmin(V a, V b) {
    return _mm256_min_ps(a, b);
}

}  // namespace

#    include "ggml-quants-lanes.h"

extern "C" const ggml_qsearch_kernels * ggml_qsearch_kernels_avx2(void) {
    static const ggml_qsearch_kernels k = {
        "avx2",           lanes_sym,           lanes_affine, lanes_err_sym_multi, lanes_err_affine_multi,
        lanes_assign_sym, lanes_assign_affine,
    };
    return &k;
}
#endif
