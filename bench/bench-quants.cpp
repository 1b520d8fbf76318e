// Quantized kernels against the machine's memory read bandwidth.
//   ReadBandwidth/threads:T   streaming sum over 512 MiB (the ceiling for weight streaming)
//   Gemv/<type>/<K>/<N>/<T>   N weight rows of K elements against one activation row, T threads;
//                             "GBps" counts the weight bytes read (compare with ReadBandwidth);
//                             "GBps_cpu" the same per CPU second of the calling thread (shared machines)
//   RepackGemv/<type>/<K>/<N>/<T>/<l2>  the same on the CPU_REPACK layout (16 rows interleaved);
//                             l2:1 = one L2-resident matrix (compute speed, compare with GemvL2);
//                             the copies live in a CPU_REPACK buffer (its huge-page advice included)
//   Gemm/<type>/<K>/<N>       512 activation rows (prompt processing), 1 thread, "GFLOPs" = 2*K*N*512 per run
//   RepackGemm/<type>/<K>/<N> the same on the CPU_REPACK layout ("GFLOPs_cpu" in both: per CPU second)
// The GEMV cycles through enough copies of the matrix (>= 256 MiB) that every run reads from DRAM,
// as decoding does with the weights of successive layers.
#include <benchmark/benchmark.h>

#include <immintrin.h>
#include <atomic>
#include <cstring>
#include <ctime>
#include <functional>
#include <random>
#include <thread>
#include <vector>

extern "C" {
#include "ggml-quants.h"
}
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml-cpu/cpu-repack.h"
#include "ggml-cpu/cpu-type-traits.h"

namespace {

// ---- a two-thread runner that stays alive between iterations (spawning costs more than a GEMV) ----
class pair_runner {
public:
    pair_runner() : worker_([this] { loop(); }) {}
    ~pair_runner() {
        stop_.store(true);
        gen_.fetch_add(1);
        worker_.join();
    }
    // runs f(0) here and f(1) on the worker, returns when both are done
    template <typename F>
    void run(F && f) {
        job_ = [&f](int i) { f(i); };
        done_.store(false, std::memory_order_relaxed);
        gen_.fetch_add(1, std::memory_order_release);
        f(0);
        while (!done_.load(std::memory_order_acquire)) {
            _mm_pause();
        }
    }

private:
    void loop() {
        unsigned seen = 0;
        for (;;) {
            while (gen_.load(std::memory_order_acquire) == seen) {
                _mm_pause();
            }
            seen++;
            if (stop_.load()) {
                return;
            }
            job_(1);
            done_.store(true, std::memory_order_release);
        }
    }
    std::function<void(int)> job_;
    std::atomic<unsigned>    gen_{0};
    std::atomic<bool>        done_{false};
    std::atomic<bool>        stop_{false};
    std::thread              worker_;
};

pair_runner & runner() {
    static pair_runner r;
    return r;
}

double thread_cpu_seconds() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

// ---- memory read bandwidth ----------------------------------------------------------------------
__attribute__((target("avx2"))) uint64_t sum_avx2(const uint8_t * p, size_t n) {
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
    for (size_t i = 0; i < n; i += 128) {
        a0 = _mm256_add_epi64(a0, _mm256_load_si256((const __m256i *) (p + i)));
        a1 = _mm256_add_epi64(a1, _mm256_load_si256((const __m256i *) (p + i + 32)));
        a2 = _mm256_add_epi64(a2, _mm256_load_si256((const __m256i *) (p + i + 64)));
        a3 = _mm256_add_epi64(a3, _mm256_load_si256((const __m256i *) (p + i + 96)));
    }
    a0 = _mm256_add_epi64(_mm256_add_epi64(a0, a1), _mm256_add_epi64(a2, a3));
    uint64_t r[4];
    _mm256_storeu_si256((__m256i *) r, a0);
    return r[0] + r[1] + r[2] + r[3];
}

uint64_t sum_scalar(const uint8_t * p, size_t n) {
    const uint64_t * q = (const uint64_t *) p;
    uint64_t         s = 0;
    for (size_t i = 0; i < n / 8; i++) {
        s += q[i];
    }
    return s;
}

uint64_t stream_sum(const uint8_t * p, size_t n) {
    static const bool avx2 = __builtin_cpu_supports("avx2");
    return avx2 ? sum_avx2(p, n) : sum_scalar(p, n);
}

void BM_ReadBandwidth(benchmark::State & state) {
    const size_t bytes = (size_t) 512 << 20;
    const int    nth   = (int) state.range(0);
    uint8_t *    buf   = (uint8_t *) aligned_alloc(64, bytes);
    memset(buf, 1, bytes);
    uint64_t     sink = 0;
    const double cpu0 = thread_cpu_seconds();
    for (auto _ : state) {
        if (nth == 1) {
            sink += stream_sum(buf, bytes);
        } else {
            uint64_t part[2];
            runner().run([&](int i) { part[i] = stream_sum(buf + i * bytes / 2, bytes / 2); });
            sink += part[0] + part[1];
        }
    }
    const double cpu = thread_cpu_seconds() - cpu0;
    benchmark::DoNotOptimize(sink);
    state.counters["GBps"]     = benchmark::Counter((double) bytes * state.iterations(), benchmark::Counter::kIsRate,
                                                    benchmark::Counter::kIs1000);
    state.counters["GBps_cpu"] = cpu > 0 ? (double) bytes * state.iterations() / cpu / 1e9 : 0.0;
    free(buf);
}
BENCHMARK(BM_ReadBandwidth)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// ---- weights ----------------------------------------------------------------------------------
// nrows rows of type t: 64 distinct quantized random rows, repeated (quantizing 65M values would
// dominate the run; the access pattern is what matters)
std::vector<uint8_t> make_weights(ggml_type t, int64_t k, int64_t nrows) {
    const ggml_cpu_type_traits *    tr = ggml_cpu_get_type_traits(t);
    const size_t                    rs = ggml_row_size(t, k);
    std::vector<uint8_t>            w(rs * nrows);
    std::mt19937                    rng(42);
    std::normal_distribution<float> nd(0.0f, 0.02f);
    std::vector<float>              row(k);
    const int64_t                   distinct = nrows < 64 ? nrows : 64;
    for (int64_t r = 0; r < distinct; r++) {
        for (auto & v : row) {
            v = nd(rng);
        }
        tr->from_float_ref(row.data(), w.data() + r * rs, k);
    }
    for (int64_t r = distinct; r < nrows; r++) {
        memcpy(w.data() + r * rs, w.data() + (r % distinct) * rs, rs);
    }
    return w;
}

std::vector<uint8_t> make_activation(ggml_type t, int64_t k, int seed) {
    const ggml_cpu_type_traits *    tr = ggml_cpu_get_type_traits(t);
    std::mt19937                    rng(seed);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<float>              a(k);
    for (auto & v : a) {
        v = nd(rng);
    }
    std::vector<uint8_t> q(ggml_row_size(tr->vec_dot_type, k));
    tr->from_float(a.data(), q.data(), k);
    return q;
}

void BM_Gemv(benchmark::State & state) {
    const ggml_type      t      = (ggml_type) state.range(0);
    const int64_t        k      = state.range(1);
    const int64_t        nrows  = state.range(2);
    const int            nth    = (int) state.range(3);
    const size_t         rs     = ggml_row_size(t, k);
    const size_t         mbytes = rs * nrows;
    const auto           one    = make_weights(t, k, nrows);
    const size_t         ncopy  = ((size_t) 256 << 20) / mbytes + 1;
    std::vector<uint8_t> w(mbytes * ncopy);
    for (size_t c = 0; c < ncopy; c++) {
        memcpy(w.data() + c * mbytes, one.data(), mbytes);
    }
    const auto         y = make_activation(t, k, 3);
    std::vector<float> out(nrows);
    size_t             c    = 0;
    const double       cpu0 = thread_cpu_seconds();
    for (auto _ : state) {
        const uint8_t * m = w.data() + (c++ % ncopy) * mbytes;
        if (nth == 1) {
            ggml_cpu_gemv(t, k, nrows, m, rs, y.data(), out.data());
        } else {
            const int64_t half = nrows / 2;
            runner().run([&](int i) {
                const int64_t r0 = i == 0 ? 0 : half, r1 = i == 0 ? half : nrows;
                ggml_cpu_gemv(t, k, r1 - r0, m + r0 * rs, rs, y.data(), out.data() + r0);
            });
        }
        benchmark::ClobberMemory();
    }
    const double cpu       = thread_cpu_seconds() - cpu0;
    state.counters["GBps"] = benchmark::Counter((double) mbytes * state.iterations(), benchmark::Counter::kIsRate,
                                                benchmark::Counter::kIs1000);
    // per CPU second of the calling thread: on a shared machine wall time also counts the time other
    // processes held the core; this counts memory stalls but not descheduled time
    state.counters["GBps_cpu"] = cpu > 0 ? (double) mbytes * state.iterations() / cpu / 1e9 : 0.0;
    state.SetLabel(std::string(ggml_type_name(t)) + " " + ggml_cpu_isa_name(ggml_cpu_best_isa()));
}

void BM_Gemm(benchmark::State & state) {
    const ggml_type              t     = (ggml_type) state.range(0);
    const int64_t                k     = state.range(1);
    const int64_t                nrows = state.range(2);
    const int64_t                m     = 512;
    const ggml_cpu_type_traits * tr    = ggml_cpu_get_type_traits(t);
    const size_t                 rs    = ggml_row_size(t, k);
    const size_t                 as    = ggml_row_size(tr->vec_dot_type, k);
    const auto                   w     = make_weights(t, k, nrows);
    std::vector<uint8_t>         a(as * m);
    for (int64_t j = 0; j < 8; j++) {
        const auto q = make_activation(t, k, (int) j);
        for (int64_t r = j; r < m; r += 8) {
            memcpy(a.data() + r * as, q.data(), as);
        }
    }
    std::vector<float> out((size_t) m * nrows);
    // tiles of 32 weight rows x 32 activation rows (as mul_mat cuts them): the weight tile stays in
    // L2 while its activation rows pass by; one thread (GFLOPs per core)
    const double cpu0 = thread_cpu_seconds();
    for (auto _ : state) {
        for (int64_t r0 = 0; r0 < nrows; r0 += 32) {
            const int64_t r1 = r0 + 32 < nrows ? r0 + 32 : nrows;
            for (int64_t j0 = 0; j0 < m; j0 += 32) {
                const void * ys[32];
                float *      os[32];
                for (int j = 0; j < 32; j++) {
                    ys[j] = a.data() + (j0 + j) * as;
                    os[j] = out.data() + (j0 + j) * nrows + r0;
                }
                ggml_cpu_gemm(t, k, r1 - r0, w.data() + r0 * rs, rs, 32, ys, os);
            }
        }
        benchmark::ClobberMemory();
    }
    const double cpu             = thread_cpu_seconds() - cpu0;
    state.counters["GFLOPs_cpu"] = cpu > 0 ? 2.0 * k * nrows * m * state.iterations() / cpu / 1e9 : 0.0;
    state.counters["GFLOPs"] = benchmark::Counter(2.0 * k * nrows * m * state.iterations(), benchmark::Counter::kIsRate,
                                                  benchmark::Counter::kIs1000);
    state.SetLabel(std::string(ggml_type_name(t)) + " " + ggml_cpu_isa_name(ggml_cpu_best_isa()));
}

const ggml_type k_bench_types[] = {GGML_TYPE_Q4_0, GGML_TYPE_Q8_0,   GGML_TYPE_Q4_K, GGML_TYPE_Q5_K, GGML_TYPE_Q6_K,
                                   GGML_TYPE_Q3_K, GGML_TYPE_IQ4_XS, GGML_TYPE_F16,  GGML_TYPE_BF16};

void gemv_args(benchmark::internal::Benchmark * b) {
    const int64_t shapes[][2] = {{2048, 2048}, {2048, 5632}, {5632, 2048}, {2048, 32000}};
    for (ggml_type t : k_bench_types) {
        for (const auto & s : shapes) {
            b->Args({(int64_t) t, s[0], s[1], 1});
        }
        b->Args({(int64_t) t, 2048, 5632, 2});
    }
    b->ArgNames({"type", "K", "N", "threads"});
}
BENCHMARK(BM_Gemv)->Apply(gemv_args)->Unit(benchmark::kMicrosecond)->UseRealTime();

// One activation row in the CPU_REPACK kernels' format (ggml_repack_act, cpu-repack.h) into qs (k
// bytes), d and corr (k / 32 entries each).
void repack_activation(ggml_type t, int64_t k, int seed, int8_t * qs, float * d, int32_t * corr) {
    const int64_t nb = k / 32;
    const bool    kq = t == GGML_TYPE_Q4_K || t == GGML_TYPE_Q6_K;
    const auto    yq = make_activation(t, k, seed);  // Q8_0 blocks (K-quants: Q8_K)
    for (int64_t i = 0; !kq && i < nb; i++) {
        const block_q8_0 * blk = (const block_q8_0 *) yq.data() + i;
        memcpy(&qs[i * 32], blk->qs, 32);
        d[i]      = ggml_fp16_to_fp32(blk->d);
        int32_t s = 0;
        for (int j = 0; j < 32; j++) {
            s += blk->qs[j];
        }
        corr[i] = (t == GGML_TYPE_Q4_0 ? 8 : 128) * s;
    }
    // K-quants: per super-block the values, d, and the sums in the kernels' pairs (cpu-repack.h)
    for (int64_t i = 0; kq && i < k / 256; i++) {
        const block_q8_K * blk = (const block_q8_K *) yq.data() + i;
        memcpy(&qs[i * 256], blk->qs, 256);
        d[i] = blk->d;
        if (t == GGML_TYPE_Q6_K) {
            memcpy(corr + i * 8, blk->bsums, 32);
            continue;
        }
        int32_t ys[8];
        for (int j = 0; j < 8; j++) {
            ys[j] = blk->bsums[2 * j] + blk->bsums[2 * j + 1];
        }
        const int lo[4] = {0, 1, 4, 5};
        for (int q = 0; q < 4; q++) {
            corr[i * 4 + q] = (int32_t) ((uint32_t) (uint16_t) ys[lo[q]] | (uint32_t) (uint16_t) ys[lo[q] + 2] << 16);
        }
    }
}

ggml_repack_kernel_t repack_kernel(ggml_type t) {
    const ggml_repack_kernels * ka = ggml_repack_kernels_active();
    return t == GGML_TYPE_Q4_0 ? ka->q4_0 : t == GGML_TYPE_Q8_0 ? ka->q8_0 : t == GGML_TYPE_Q4_K ? ka->q4_K : ka->q6_K;
}

// The same GEMV on the CPU_REPACK layout (cpu-repack.h): rows interleaved 16 at a time, one
// contiguous slice of groups per thread, as mul_mat runs it for a weight in a CPU_REPACK buffer.
void BM_RepackGemv(benchmark::State & state) {
    const ggml_type t = (ggml_type) state.range(0);
    const int64_t   k = state.range(1), nrows = state.range(2), nb = k / 32;
    const int       nth    = (int) state.range(3);
    const size_t    mbytes = ggml_row_size(t, k) * nrows;
    const auto      one    = make_weights(t, k, nrows);
    const bool      l2     = state.range(4) != 0;  // one small copy: compute speed without DRAM
    const size_t    ncopy  = l2 ? 1 : ((size_t) 256 << 20) / mbytes + 1;
    // the engine's own buffer type (2 MiB aligned, huge-page advice), so the stream sees its pages
    ggml_backend_buffer_t wbuf = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_repack_buffer_type(), mbytes * ncopy);
    if (!wbuf) {
        state.SkipWithError("allocation failed");
        return;
    }
    uint8_t * wbase = (uint8_t *) ggml_backend_buffer_get_base(wbuf);
    for (size_t c = 0; c < ncopy; c++) {
        ggml_repack_pack(t, k, nrows, one.data(), wbase + c * mbytes);
    }
    const bool           kq = t == GGML_TYPE_Q4_K || t == GGML_TYPE_Q6_K;
    std::vector<int8_t>  qs(nb * 32);
    std::vector<float>   d(nb);
    std::vector<int32_t> corr(nb);
    repack_activation(t, k, 3, qs.data(), d.data(), corr.data());
    const int64_t              nbk  = kq ? k / 256 : nb;
    const ggml_repack_act      y    = {qs.data(), d.data(), corr.data()};
    const ggml_repack_kernel_t kern = repack_kernel(t);
    const size_t               gb   = mbytes / (size_t) (nrows / GGML_REPACK_ROWS);
    std::vector<float>         out(nrows);
    size_t                     c    = 0;
    const double               cpu0 = thread_cpu_seconds();
    for (auto _ : state) {
        const uint8_t * m = wbase + (c++ % ncopy) * mbytes;
        if (nth == 1) {
            float * o = out.data();
            kern(nbk, nrows / GGML_REPACK_ROWS, m, gb, 1, &y, &o);
        } else {
            const int64_t ng = nrows / GGML_REPACK_ROWS, half = ng / 2;
            runner().run([&](int i) {
                const int64_t g0 = i == 0 ? 0 : half, g1 = i == 0 ? half : ng;
                float *       o = out.data() + g0 * GGML_REPACK_ROWS;
                kern(nbk, g1 - g0, m + g0 * gb, gb, 1, &y, &o);
            });
        }
        benchmark::ClobberMemory();
    }
    const double cpu           = thread_cpu_seconds() - cpu0;
    state.counters["GBps"]     = benchmark::Counter((double) mbytes * state.iterations(), benchmark::Counter::kIsRate,
                                                    benchmark::Counter::kIs1000);
    state.counters["GBps_cpu"] = cpu > 0 ? (double) mbytes * state.iterations() / cpu / 1e9 : 0.0;
    const ggml_repack_kernels * ks = ggml_repack_kernels_active();
    state.SetLabel(std::string(ggml_type_name(t)) + " repack " +
                   (ks == ggml_repack_kernels_avx512()    ? "avx512"
                    : ks == ggml_repack_kernels_avxvnni() ? "avxvnni"
                    : ks == ggml_repack_kernels_avx2()    ? "avx2"
                                                          : "scalar"));
    ggml_backend_buffer_free(wbuf);
}

void repack_args(benchmark::internal::Benchmark * b) {
    for (ggml_type t : {GGML_TYPE_Q4_0, GGML_TYPE_Q8_0, GGML_TYPE_Q4_K, GGML_TYPE_Q6_K}) {
        b->Args({(int64_t) t, 2048, 5632, 1, 0});
        b->Args({(int64_t) t, 2048, 32000, 1, 0});
        b->Args({(int64_t) t, 2048, 5632, 2, 0});
        b->Args({(int64_t) t, 2048, 256, 1, 1});
    }
    b->ArgNames({"type", "K", "N", "threads", "l2"});
}
BENCHMARK(BM_RepackGemv)->Apply(repack_args)->Unit(benchmark::kMicrosecond)->UseRealTime();

// Prefill on the CPU_REPACK layout as mul_mat cuts it: one group of 16 weight rows x 64 activation
// rows per tile; one thread, GFLOPs per CPU second (compare with BM_Gemm's plain-layout GEMM).
void BM_RepackGemm(benchmark::State & state) {
    const ggml_type      t = (ggml_type) state.range(0);
    const int64_t        k = state.range(1), nrows = state.range(2), nb = k / 32, m = 512;
    const bool           kq     = t == GGML_TYPE_Q4_K || t == GGML_TYPE_Q6_K;
    const size_t         mbytes = ggml_row_size(t, k) * nrows, gb = mbytes / (size_t) (nrows / GGML_REPACK_ROWS);
    const auto           one = make_weights(t, k, nrows);
    std::vector<uint8_t> w(mbytes);
    ggml_repack_pack(t, k, nrows, one.data(), w.data());
    std::vector<int8_t>  qs(8 * nb * 32);  // 8 distinct activation rows, reused
    std::vector<float>   d(8 * nb);
    std::vector<int32_t> corr(8 * nb);
    for (int j = 0; j < 8; j++) {
        repack_activation(t, k, j, &qs[j * nb * 32], &d[j * nb], &corr[j * nb]);
    }
    std::vector<ggml_repack_act> ys(m);
    for (int64_t j = 0; j < m; j++) {
        ys[j] = {&qs[(j % 8) * nb * 32], &d[(j % 8) * nb], &corr[(j % 8) * nb]};
    }
    const ggml_repack_kernel_t kern = repack_kernel(t);
    std::vector<float>         out((size_t) m * nrows);
    const double               cpu0 = thread_cpu_seconds();
    for (auto _ : state) {
        for (int64_t g = 0; g < nrows / GGML_REPACK_ROWS; g++) {
            for (int64_t c0 = 0; c0 < m; c0 += 64) {
                float * os[64];
                for (int c = 0; c < 64; c++) {
                    os[c] = out.data() + (c0 + c) * nrows;
                }
                kern(kq ? k / 256 : nb, 1, w.data() + g * gb, gb, 64, ys.data() + c0, os);
            }
        }
        benchmark::ClobberMemory();
    }
    const double cpu             = thread_cpu_seconds() - cpu0;
    state.counters["GFLOPs_cpu"] = cpu > 0 ? 2.0 * k * nrows * m * state.iterations() / cpu / 1e9 : 0.0;
    state.SetLabel(std::string(ggml_type_name(t)) + " repack");
}
BENCHMARK(BM_RepackGemm)
    ->ArgsProduct({{GGML_TYPE_Q4_0, GGML_TYPE_Q8_0, GGML_TYPE_Q4_K, GGML_TYPE_Q6_K}, {2048}, {2048}})
    ->ArgNames({"type", "K", "N"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Compute speed without DRAM: 256 rows that stay in L2, GEMV entry vs a plain loop over vec_dot
// (mode 0: vec_dot loop, 1: ggml_cpu_gemv). CPU time, so the rate is per busy core.
void BM_GemvL2(benchmark::State & state) {
    const ggml_type              t     = (ggml_type) state.range(0);
    const int                    mode  = (int) state.range(1);
    const int64_t                k     = 2048;
    const int64_t                nrows = 256;
    const ggml_cpu_type_traits * tr    = ggml_cpu_get_type_traits(t);
    const size_t                 rs    = ggml_row_size(t, k);
    const auto                   w     = make_weights(t, k, nrows);
    const auto                   y     = make_activation(t, k, 3);
    std::vector<float>           out(nrows);
    for (auto _ : state) {
        if (mode == 1) {
            ggml_cpu_gemv(t, k, nrows, w.data(), rs, y.data(), out.data());
        } else {
            for (int64_t r = 0; r < nrows; r++) {
                tr->vec_dot((int) k, &out[r], w.data() + r * rs, y.data());
            }
        }
        benchmark::ClobberMemory();
    }
    state.counters["GBps"] = benchmark::Counter((double) rs * nrows * state.iterations(), benchmark::Counter::kIsRate,
                                                benchmark::Counter::kIs1000);
    state.SetLabel(std::string(ggml_type_name(t)) + (mode ? " gemv" : " vec_dot loop"));
}

void gemv_l2_args(benchmark::internal::Benchmark * b) {
    for (ggml_type t : k_bench_types) {
        b->Args({(int64_t) t, 0});
        b->Args({(int64_t) t, 1});
    }
    b->ArgNames({"type", "mode"});
}
BENCHMARK(BM_GemvL2)->Apply(gemv_l2_args)->Unit(benchmark::kMicrosecond);

void gemm_args(benchmark::internal::Benchmark * b) {
    for (ggml_type t : k_bench_types) {
        b->Args({(int64_t) t, 2048, 2048});
    }
    b->ArgNames({"type", "K", "N"});
}
BENCHMARK(BM_Gemm)->Apply(gemm_args)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
