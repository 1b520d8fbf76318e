// CPU op micro-benchmarks: mul_mat GFLOP/s at LLM shapes, rms_norm / soft_max GB/s, flash attention
// at TinyLlama's attention shape, the recurrent-layer ops at Mamba-2 2.7B / Qwen3-Next shapes, and the
// thread pool's per-graph overhead on a decode-sized graph of ~500 tiny nodes.
//   ./bench-ops --benchmark_filter=MulMat
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml.h"

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

extern "C" void ggml_cpu_set_auto_threads(bool enable);  // internal (ggml-cpu.cpp)

namespace {

struct bench_graph {
    ggml_backend_t        be  = nullptr;
    ggml_context *        ctx = nullptr;
    ggml_backend_buffer_t buf = nullptr;
    ggml_cgraph *         gf  = nullptr;

    bench_graph(const std::function<ggml_tensor *(ggml_context *)> & build, int n_threads) {
        be = ggml_backend_cpu_init();
        ggml_backend_cpu_set_n_threads(be, n_threads);
        ggml_init_params ip{ggml_tensor_overhead() * 4096 + ggml_graph_overhead(), nullptr, true};
        ctx = ggml_init(ip);
        gf  = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, build(ctx));
        buf = ggml_backend_alloc_ctx_tensors(ctx, be);
        std::mt19937                          rng(42);
        std::uniform_real_distribution<float> u(-1, 1);
        for (ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
            if (t->op != GGML_OP_NONE || t->view_src)
                continue;
            std::vector<float> f((size_t) ggml_nelements(t));
            for (auto & x : f)
                x = u(rng);
            std::vector<uint8_t> bytes(ggml_nbytes(t));
            if (t->type == GGML_TYPE_F32)
                std::memcpy(bytes.data(), f.data(), bytes.size());
            if (t->type == GGML_TYPE_F16)
                ggml_fp32_to_fp16_row(f.data(), (ggml_fp16_t *) bytes.data(), (int64_t) f.size());
            if (t->type == GGML_TYPE_BF16)
                ggml_fp32_to_bf16_row(f.data(), (ggml_bf16_t *) bytes.data(), (int64_t) f.size());
            ggml_backend_tensor_set(t, bytes.data(), 0, bytes.size());
        }
    }
    ~bench_graph() {
        ggml_backend_buffer_free(buf);
        ggml_free(ctx);
        ggml_backend_free(be);
    }
    bool run() { return ggml_backend_graph_compute(be, gf) == GGML_STATUS_SUCCESS; }
};

// args: type (0 f32, 1 f16, 2 q4_0, 3 q8_0, 4 q4_K, 5 bf16; quantized weights are zero blocks), M, N,
// threads; K = 2048
void BM_MulMat(benchmark::State & st) {
    const ggml_type types[] = {GGML_TYPE_F32,  GGML_TYPE_F16,  GGML_TYPE_Q4_0,
                               GGML_TYPE_Q8_0, GGML_TYPE_Q4_K, GGML_TYPE_BF16};
    const ggml_type t       = types[st.range(0)];
    const int64_t   K = 2048, M = st.range(1), N = st.range(2);
    bench_graph     g(
        [&](ggml_context * ctx) {
            return ggml_mul_mat(ctx, ggml_new_tensor_2d(ctx, t, K, M), ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, N));
        },
        (int) st.range(3));
    for (auto _ : st) {
        if (!g.run())
            st.SkipWithError("compute failed");
    }
    st.counters["GFLOP/s"] = benchmark::Counter(2.0 * K * M * N * st.iterations() / 1e9, benchmark::Counter::kIsRate);
    st.SetLabel(std::string(ggml_type_name(t)) + " K=2048 M=" + std::to_string(M) + " N=" + std::to_string(N) +
                " threads=" + std::to_string(st.range(3)));
}
BENCHMARK(BM_MulMat)
    ->ArgsProduct({{0, 1, 5}, {2048, 5632}, {1, 512}, {1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_MulMat)->ArgsProduct({{2, 3, 4}, {5632}, {1, 512}, {1, 2}})->Unit(benchmark::kMillisecond)->UseRealTime();

// rows of 4096 (a 4096-wide model) x 512 tokens; bytes = read + write
void BM_RowOp(benchmark::State & st, int which) {
    const int64_t n = 4096, rows = 512;
    bench_graph   g(
        [&](ggml_context * ctx) {
            ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, n, rows);
            return which == 0 ? ggml_rms_norm(ctx, a, 1e-5f) : ggml_soft_max_ext(ctx, a, nullptr, 0.125f, 0.0f);
        },
        (int) st.range(0));
    for (auto _ : st) {
        if (!g.run())
            st.SkipWithError("compute failed");
    }
    st.SetBytesProcessed((int64_t) st.iterations() * n * rows * 4 * 2);
    st.SetLabel("threads=" + std::to_string(st.range(0)));
}
void BM_RmsNorm(benchmark::State & st) {
    BM_RowOp(st, 0);
}
void BM_SoftMax(benchmark::State & st) {
    BM_RowOp(st, 1);
}
BENCHMARK(BM_RmsNorm)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_SoftMax)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond)->UseRealTime();

// flash_attn_ext at TinyLlama's attention shape (32 query heads, 4 K/V heads, D = 64, F16 K/V, causal
// F16 mask). args: n_q (512 = prefill, 1 = decode), n_kv, threads. GFLOP/s counts Q.K and P.V over
// the unmasked keys. GGML_CPU_SCALAR=1 runs the scalar reference for comparison.
void BM_FlashAttn(benchmark::State & st) {
    const int64_t D = 64, n_head = 32, n_head_kv = 4, n_q = st.range(0), n_kv = st.range(1);
    ggml_tensor * mask = nullptr;
    bench_graph   g(
        [&](ggml_context * ctx) {
            mask = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, n_kv, n_q);
            return ggml_flash_attn_ext(ctx, ggml_new_tensor_3d(ctx, GGML_TYPE_F32, D, n_q, n_head),
                                         ggml_new_tensor_3d(ctx, GGML_TYPE_F16, D, n_kv, n_head_kv),
                                         ggml_new_tensor_3d(ctx, GGML_TYPE_F16, D, n_kv, n_head_kv), mask, 0.125f, 0.0f,
                                         0.0f);
        },
        (int) st.range(2));
    std::vector<ggml_fp16_t> m((size_t) (n_kv * n_q));
    double                   visible = 0;  // causal: query i sees the first n_kv - n_q + i + 1 keys
    for (int64_t i = 0; i < n_q; ++i)
        for (int64_t j = 0; j < n_kv; ++j) {
            const bool see             = j <= n_kv - n_q + i;
            m[(size_t) (i * n_kv + j)] = ggml_fp32_to_fp16(see ? 0.0f : -INFINITY);
            visible += see;
        }
    ggml_backend_tensor_set(mask, m.data(), 0, m.size() * 2);
    for (auto _ : st) {
        if (!g.run())
            st.SkipWithError("compute failed");
    }
    st.counters["GFLOP/s"] =
        benchmark::Counter(4.0 * D * n_head * visible * st.iterations() / 1e9, benchmark::Counter::kIsRate);
    st.SetLabel("n_q=" + std::to_string(n_q) + " n_kv=" + std::to_string(n_kv) +
                " threads=" + std::to_string(st.range(2)));
}
BENCHMARK(BM_FlashAttn)
    ->Args({512, 512, 1})
    ->Args({512, 512, 2})
    ->Args({512, 2048, 2})
    ->Args({1, 512, 2})
    ->Args({1, 4096, 1})
    ->Args({1, 4096, 2})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// The plain (flash attention off) attention at TinyLlama's shape, one op at a time: 0 = KQ (mul_mat of
// the F16 K cache view and Q), 1 = soft_max_ext with the F32 causal mask, 2 = KQV (mul_mat of the
// transposed F16 V cache and the probabilities). args: op, n_q, n_kv, threads. GFLOP/s over all keys.
void BM_AttnPlain(benchmark::State & st) {
    const int64_t D = 64, n_head = 32, n_head_kv = 4, op = st.range(0), n_q = st.range(1), n_kv = st.range(2);
    ggml_tensor * mask = nullptr;
    bench_graph   g(
        [&](ggml_context * ctx) {
            if (op == 0)
                return ggml_mul_mat(ctx, ggml_new_tensor_3d(ctx, GGML_TYPE_F16, D, n_kv, n_head_kv),
                                      ggml_new_tensor_3d(ctx, GGML_TYPE_F32, D, n_q, n_head));
            if (op == 1) {
                mask = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, n_kv, n_q);
                return ggml_soft_max_ext(ctx, ggml_new_tensor_3d(ctx, GGML_TYPE_F32, n_kv, n_q, n_head), mask, 0.125f,
                                           0.0f);
            }
            return ggml_mul_mat(ctx, ggml_new_tensor_3d(ctx, GGML_TYPE_F16, n_kv, D, n_head_kv),
                                  ggml_new_tensor_3d(ctx, GGML_TYPE_F32, n_kv, n_q, n_head));
        },
        (int) st.range(3));
    if (mask) {
        std::vector<float> m((size_t) (n_kv * n_q));
        for (int64_t i = 0; i < n_q; ++i)
            for (int64_t j = 0; j < n_kv; ++j)
                m[(size_t) (i * n_kv + j)] = j <= n_kv - n_q + i ? 0.0f : -INFINITY;
        ggml_backend_tensor_set(mask, m.data(), 0, m.size() * 4);
    }
    for (auto _ : st) {
        if (!g.run())
            st.SkipWithError("compute failed");
    }
    st.counters["GFLOP/s"] = benchmark::Counter(op == 1 ? 0.0 : 2.0 * D * n_head * n_q * n_kv * st.iterations() / 1e9,
                                                benchmark::Counter::kIsRate);
    st.SetLabel(std::string(op == 0   ? "KQ"
                            : op == 1 ? "soft_max"
                                      : "KQV") +
                " n_q=" + std::to_string(n_q) + " n_kv=" + std::to_string(n_kv) +
                " threads=" + std::to_string(st.range(3)));
}
BENCHMARK(BM_AttnPlain)
    ->ArgsProduct({{0, 1, 2}, {512}, {512, 4608}, {2}})
    ->ArgsProduct({{0, 1, 2}, {1}, {4608}, {2}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// One recurrent-layer node per call. args: op (0 ssm_conv d_conv=4 d_inner=5376, 1 ssm_scan Mamba-2 2.7B:
// d_state=128 head_dim=64 n_head=80, 2 gated_delta_net Qwen3-Next: S=128 H=32 H_k=16, 3 gated_delta_net
// with Kimi Linear's per-channel gate: S=128 H=H_k=32), n_t, threads
void BM_Recurrent(benchmark::State & st) {
    const int64_t op = st.range(0), T = st.range(1);
    auto          t = [](ggml_context * c, int64_t a, int64_t b, int64_t d = 1, int64_t e = 1) {
        return ggml_new_tensor_4d(c, GGML_TYPE_F32, a, b, d, e);
    };
    bench_graph g(
        [&](ggml_context * c) -> ggml_tensor * {
            if (op == 0)
                return ggml_ssm_conv(c, t(c, 3 + T, 5376), t(c, 4, 5376));
            if (op == 1) {
                ggml_tensor * ids = ggml_new_tensor_1d(c, GGML_TYPE_I32, 1);  // left zero by the fill: state 0
                return ggml_ssm_scan(c, t(c, 128, 64, 80), t(c, 64, 80, T), t(c, 80, T), t(c, 1, 80), t(c, 128, 1, T),
                                     t(c, 128, 1, T), ids, 1);
            }
            if (op == 3)
                return ggml_gated_delta_net(c, t(c, 128, 32, T), t(c, 128, 32, T), t(c, 128, 32, T), t(c, 128, 32, T),
                                            t(c, 1, 32, T), t(c, 128, 128, 32), 1);
            return ggml_gated_delta_net(c, t(c, 128, 16, T), t(c, 128, 16, T), t(c, 128, 32, T), t(c, 1, 32, T),
                                        t(c, 1, 32, T), t(c, 128, 128, 32), 1);
        },
        (int) st.range(2));
    for (auto _ : st) {
        if (!g.run())
            st.SkipWithError("compute failed");
    }
    const char * names[] = {"ssm_conv", "ssm_scan", "gated_delta_net", "gated_delta_net kda"};
    st.SetLabel(std::string(names[op]) + " n_t=" + std::to_string(T) + " threads=" + std::to_string(st.range(2)));
}
BENCHMARK(BM_Recurrent)
    ->ArgsProduct({{0, 1, 2}, {1, 64}, {1, 2}})
    ->ArgsProduct({{2}, {16, 512}, {1, 2}})  // the gated delta net chunked: one chunk, a long prefill
    ->ArgsProduct({{3}, {1, 16, 64, 512}, {1}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// ~500 tiny nodes like one decode step of a small model: per layer rms_norm, mul, mul_mat, add.
// arg 0: threads requested; arg 1: 1 = let the CPU drop threads on tiny graphs (default), 0 = force them
void BM_GraphOverhead(benchmark::State & st) {
    ggml_cpu_set_auto_threads(st.range(1) != 0);
    const int   n_layers = 125;
    bench_graph g(
        [&](ggml_context * ctx) {
            ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 1);
            ggml_tensor * w = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 64);
            ggml_tensor * s = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
            for (int i = 0; i < n_layers; ++i) {
                ggml_tensor * h = ggml_mul(ctx, ggml_rms_norm(ctx, x, 1e-5f), s);
                x               = ggml_add(ctx, ggml_mul_mat(ctx, w, h), x);
            }
            return x;
        },
        (int) st.range(0));
    const int n_nodes = ggml_graph_n_nodes(g.gf);
    for (auto _ : st) {
        if (!g.run())
            st.SkipWithError("compute failed");
    }
    st.counters["nodes"]    = n_nodes;
    st.counters["per_node"] = benchmark::Counter((double) st.iterations() * n_nodes,
                                                 benchmark::Counter::kIsRate | benchmark::Counter::kInvert);  // seconds
    st.SetLabel("threads=" + std::to_string(st.range(0)) + (st.range(1) ? " auto" : " forced"));
    ggml_cpu_set_auto_threads(true);
}
BENCHMARK(BM_GraphOverhead)->Args({1, 1})->Args({2, 1})->Args({2, 0})->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
