// The part of matmul-kernels.<isa>.cpp that is the same for every instruction set: the tables of
// (RM, RN) kernel instances, their lookup and the decode GEMV built on them. Each ISA file defines,
// inside its unnamed namespace and before including this header,
//     template <int T, int RM, int RN, bool PF = false>
//     void kernel(int64_t K, const char * a, size_t lda, const float * const * b, float * const * out);
//     constexpr int RM, RN, RM1;  // its register blocking (ggml_cpu_mm_isa)
// and gets `k_isa`, the ggml_cpu_mm_isa to return. Only the kernel body is per instruction set.
// (Included inside that namespace: the standard headers it needs come through matmul-kernels.h.)
#pragma once

template <int T, int RN_, int... R>
constexpr std::array<ggml_cpu_mm_kernel, sizeof...(R)> mm_kernel_row(std::integer_sequence<int, R...>) {
    return {{kernel<T, R + 1, RN_>...}};
}
template <int T, int... C>
constexpr std::array<std::array<ggml_cpu_mm_kernel, RM>, sizeof...(C)> mm_kernel_rows(
    std::integer_sequence<int, C...>) {
    return {{mm_kernel_row<T, C + 2>(std::make_integer_sequence<int, RM>{})...}};
}

// one[rm - 1]: rm x 1 (decode, up to RM1 rows); many[rn - 2][rm - 1]: rm x rn for rn in [2, RN]
template <int T>
struct mm_tables {
    static constexpr auto one  = mm_kernel_row<T, 1>(std::make_integer_sequence<int, RM1>{});
    static constexpr auto many = mm_kernel_rows<T>(std::make_integer_sequence<int, RN - 1>{});
};

template <int T>
ggml_cpu_mm_kernel mm_pick(int rm, int rn) {
    if (rn == 1)
        return rm >= 1 && rm <= RM1 ? mm_tables<T>::one[rm - 1] : nullptr;
    return rm >= 1 && rm <= RM && rn >= 2 && rn <= RN ? mm_tables<T>::many[rn - 2][rm - 1] : nullptr;
}

ggml_cpu_mm_kernel mm_get(ggml_type t, int rm, int rn) {
    switch (t) {
        case GGML_TYPE_F32:
            return mm_pick<GGML_TYPE_F32>(rm, rn);
        case GGML_TYPE_F16:
            return mm_pick<GGML_TYPE_F16>(rm, rn);
        case GGML_TYPE_BF16:
            return mm_pick<GGML_TYPE_BF16>(rm, rn);
        default:
            return nullptr;
    }
}

// Decode: M weight rows against one activation row, RM1 rows per pass, each pass prefetching the
// next; the same kernels (and so the same sums) as the tiled path.
template <int T>
void mm_gemv_t(int64_t K, const char * a, size_t lda, int64_t M, const float * b, float * out) {
    int64_t r = 0;
    for (; r + 2 * RM1 <= M; r += RM1) {
        float * o = out + r;
        kernel<T, RM1, 1, true>(K, a + r * lda, lda, &b, &o);
    }
    for (; r < M;) {
        const int rm = (int) (M - r < RM1 ? M - r : RM1);
        float *   o  = out + r;
        mm_tables<T>::one[rm - 1](K, a + r * lda, lda, &b, &o);
        r += rm;
    }
}

void mm_gemv(ggml_type t, int64_t K, const char * a, size_t lda, int64_t M, const float * b, float * out) {
    switch (t) {
        case GGML_TYPE_F32:
            mm_gemv_t<GGML_TYPE_F32>(K, a, lda, M, b, out);
            break;
        case GGML_TYPE_F16:
            mm_gemv_t<GGML_TYPE_F16>(K, a, lda, M, b, out);
            break;
        default:
            mm_gemv_t<GGML_TYPE_BF16>(K, a, lda, M, b, out);
            break;
    }
}

const ggml_cpu_mm_isa k_isa = {RM, RN, RM1, mm_get, mm_gemv};
