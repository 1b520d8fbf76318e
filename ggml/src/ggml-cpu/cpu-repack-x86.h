// Shared by the x86 CPU_REPACK kernel files (cpu-repack.avx2.cpp, .avxvnni.cpp, .avx512.cpp, each
// compiled for its own instruction set): the prefetch distances and the loop that hands the group
// kernels their rows. Everything here has internal linkage, so no TU's copy (compiled with another
// ISA's flags) can stand in for another's.
#pragma once

#include <immintrin.h>

#include <type_traits>

#include "cpu-repack.h"

namespace {

// Quant bytes prefetched ahead of the block being read (one stream per thread). Decode (NC == 1) reads
// the weights once per token: non-temporal, so they do not evict the activations and the KV cache;
// prefill re-reads a group for several activation rows and keeps it (T0, PF_DIST ahead). Distances from
// bench-quants RepackGemv on the Zen 5 VM (huge-page weights, 1-2 threads streaming 512 MB); the DRAM
// latency of one core's stream sets them, not the ISA.
constexpr int PF_DIST = 2048;
// Q4_0 / Q8_0 decode: one core has ~100+ ns of DRAM latency to cover at ~30 GB/s; at 2 KiB the stream ran
// at 60-65% of a plain read, at 16 KiB (Q4_0) / 8 KiB (Q8_0) at 85-90% (docs/benchmarks.md).
constexpr int PF_DIST_Q4_0 = 16384;
constexpr int PF_DIST_Q8_0 = 8192;
// The K-quants prefetch every line of their super-blocks (scales included) in address order, PF_Q4K
// bytes (2.7 Q4_K super-blocks) and PF_Q6K bytes (2 Q6_K super-blocks) ahead, and a decode call first
// prefetches that much of its slice (the in-loop stream starts that far ahead); 2048 bytes, which also
// skipped 4 lines per super-block, read 10-20% slower.
constexpr int PF_Q4K = 6144;
constexpr int PF_Q6K = 2 * 3360;

inline void prefetch_head(const uint8_t * w, size_t bytes, size_t dist) {
    for (size_t o = 0; o < dist && o < bytes; o += 64)
        _mm_prefetch((const char *) w + o, _MM_HINT_NTA);
}

// Q6_K: lines `line` and `line + 1` of the super-block PF_Q6K bytes ahead of sb (a Q6_K super-block
// of 16 rows is 3360 bytes: lines past its end are left to the next super-block's own steps),
// non-temporal at decode, T0 when the group is re-read for several activation rows.
inline void prefetch_q6k_lines(const uint8_t * sb, int line, bool decode) {
    for (int l = line; l < line + 2; ++l) {
        if (l * 64 >= 3360)
            break;
        if (decode)
            _mm_prefetch((const char *) sb + PF_Q6K + l * 64, _MM_HINT_NTA);
        else
            _mm_prefetch((const char *) sb + PF_Q6K + l * 64, _MM_HINT_T0);
    }
}

// f(std::integral_constant<int, n>, g, c0) with n = the runtime count (N..NC_MAX), so each count is its
// own instantiation of the group kernel.
template <int N, int NC_MAX, typename F>
inline void repack_call_nc(int n, F & f, int64_t g, int c0) {
    if constexpr (N < NC_MAX) {
        if (n != N) {
            repack_call_nc<N + 1, NC_MAX>(n, f, g, c0);
            return;
        }
    }
    f(std::integral_constant<int, N>{}, g, c0);
}

// Every group g of 16 weight rows, and within it the activation rows c0, c0 + NC_MAX, ... in runs of up
// to NC_MAX (the rows whose sums the group kernel keeps in registers at once).
template <int NC_MAX, typename F>
inline void repack_run_groups(int64_t ng, int ncols, F && f) {
    for (int64_t g = 0; g < ng; ++g)
        for (int c0 = 0; c0 < ncols; c0 += NC_MAX)
            repack_call_nc<1, NC_MAX>(ncols - c0 < NC_MAX ? ncols - c0 : NC_MAX, f, g, c0);
}

}  // namespace

// A ggml_repack_kernel_t named NAME over the file's group kernel template GROUP<NC>(nb, group, y, out,
// row0), NC = 1..NC_MAX; a decode call (one activation row) first prefetches PF_HEAD bytes (0: none).
#define GGML_REPACK_X86_KERNEL(NAME, GROUP, PF_HEAD)                                                   \
    void NAME(int64_t nb, int64_t ng, const uint8_t * w, size_t gb, int nc, const ggml_repack_act * y, \
              float * const * out) {                                                                   \
        if ((PF_HEAD) > 0 && nc == 1)                                                                  \
            prefetch_head(w, (size_t) ng * gb, (PF_HEAD));                                             \
        repack_run_groups<NC_MAX>(ng, nc, [&](auto n, int64_t g, int c0) {                             \
            GROUP<decltype(n)::value>(nb, w + g * gb, y + c0, out + c0, g * GGML_REPACK_ROWS);         \
        });                                                                                            \
    }
