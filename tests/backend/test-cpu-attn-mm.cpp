// The attention-shaped MUL_MATs on the CPU: KQ over a strided F16/F32 K cache view (the short-row
// kernel of ops-matmul-attn.cpp) and KQV over the transposed V cache view (dot-product kernels), with
// GQA broadcast, at odd head sizes, key counts and token counts, against the scalar oracle
// (GGML_CPU_SCALAR path) for each instruction set; identical bits for any thread count; and the
// short-row kernel is really taken where it should be.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml-cpu/matmul-attn.h"
#include "ggml.h"
#include "test-common.h"

extern "C" void ggml_cpu_set_scalar(bool scalar);  // internal switches (ggml-cpu.cpp, ops-matmul.cpp)
extern "C" void ggml_cpu_set_mm_isa(int isa);      // -1 auto, 0 scalar, else a level rank (cpu-features.h)
extern "C" void ggml_cpu_set_auto_threads(bool enable);
int             ggml_cpu_mm_isa_level();

using testing_util::nmse;

namespace {

// The SIMD levels of this build's family by rank (ggml_cpu_set_mm_isa; each capped at what this CPU
// has): AVX2, AVX-512 on x86-64; NEON, dotprod, i8mm on arm64 (the float kernels of the three arm64
// levels are one set, so this also checks that each level reaches it).
#if defined(GGML_CPU_ARCH_ARM64)
const std::vector<int> k_simd_ranks = {1, 2, 3};
#else
const std::vector<int> k_simd_ranks = {1, 2};
#endif

struct attn_case {
    bool      kqv;  // false: KQ = K x Q; true: KQV = V^T x P
    ggml_type t;    // cache type
    int64_t   D, n_kv, n_tok, n_head, n_head_kv;

    std::string name() const {
        return std::string(kqv ? "KQV" : "KQ") + " " + ggml_type_name(t) + " D=" + std::to_string(D) +
               " n_kv=" + std::to_string(n_kv) + " n_tok=" + std::to_string(n_tok) +
               " heads=" + std::to_string(n_head) + "/" + std::to_string(n_head_kv);
    }
};

struct attn_graph {
    ggml_context *        ctx = nullptr;
    ggml_backend_buffer_t buf = nullptr;
    ggml_cgraph *         gf  = nullptr;
    ggml_tensor *         out = nullptr;

    attn_graph(const attn_case & c, ggml_backend_t be) {
        ggml_init_params ip{ggml_tensor_overhead() * 64 + ggml_graph_overhead(), nullptr, true};
        ctx                  = ggml_init(ip);
        const int64_t cells  = c.n_kv + 7;  // the cache is longer than the keys in use, as in a KV cache
        ggml_tensor * src[2] = {nullptr, nullptr};
        if (!c.kqv) {
            // K cache [D * n_head_kv, cells] viewed as [D, n_kv, n_head_kv]; Q [D, n_head, n_tok] permuted
            ggml_tensor * kc = src[0] = ggml_new_tensor_2d(ctx, c.t, c.D * c.n_head_kv, cells);
            ggml_tensor * k = ggml_view_3d(ctx, kc, c.D, c.n_kv, c.n_head_kv, kc->nb[1], ggml_row_size(c.t, c.D), 0);
            ggml_tensor * q = src[1] = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, c.D, c.n_head, c.n_tok);
            out                      = ggml_mul_mat(ctx, k, ggml_permute(ctx, q, 0, 2, 1, 3));
        } else {
            // transposed V cache [cells, D * n_head_kv] viewed as [n_kv, D, n_head_kv]; P [n_kv, n_tok, n_head]
            ggml_tensor * vc = src[0] = ggml_new_tensor_2d(ctx, c.t, cells, c.D * c.n_head_kv);
            ggml_tensor * v           = ggml_view_3d(ctx, vc, c.n_kv, c.D, c.n_head_kv, vc->nb[1], vc->nb[1] * c.D, 0);
            ggml_tensor * p = src[1] = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, c.n_kv, c.n_tok, c.n_head);
            out                      = ggml_mul_mat(ctx, v, p);
        }
        gf = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, out);
        buf = ggml_backend_alloc_ctx_tensors(ctx, be);
        std::mt19937                          rng(7);
        std::uniform_real_distribution<float> u(-1, 1);
        for (ggml_tensor * t : src) {
            std::vector<float> f((size_t) ggml_nelements(t));
            for (auto & x : f)
                x = u(rng);
            if (t->type == GGML_TYPE_F16) {
                std::vector<ggml_fp16_t> h(f.size());
                ggml_fp32_to_fp16_row(f.data(), h.data(), (int64_t) f.size());
                ggml_backend_tensor_set(t, h.data(), 0, h.size() * 2);
            } else {
                ggml_backend_tensor_set(t, f.data(), 0, f.size() * 4);
            }
        }
    }
    ~attn_graph() {
        ggml_backend_buffer_free(buf);
        ggml_free(ctx);
    }
    std::vector<float> run(ggml_backend_t be) const {
        EXPECT_EQ(ggml_backend_graph_compute(be, gf), GGML_STATUS_SUCCESS);
        std::vector<float> v((size_t) ggml_nelements(out));
        ggml_backend_tensor_get(out, v.data(), 0, v.size() * 4);
        return v;
    }
};

std::vector<attn_case> cases() {
    std::vector<attn_case> v;
    for (ggml_type t : {GGML_TYPE_F16, GGML_TYPE_F32}) {
        // KQ: head sizes around a vector (40, 64, 72, 256), key counts with partial 64-key blocks
        // and partial 256-key items
        for (int64_t D : {40, 64, 72, 256})
            for (int64_t n_kv : {1, 33, 130, 300})
                v.push_back({false, t, D, n_kv, 5, 8, 2});
        v.push_back({false, t, 64, 517, 37, 32, 4});  // TinyLlama's shape, 37 tokens
        // KQV: more than 256 keys, head sizes around the 64-column block
        for (int64_t D : {40, 64, 72, 130})
            for (int64_t n_kv : {257, 700})
                v.push_back({true, t, D, n_kv, 5, 8, 2});
        v.push_back({true, t, 64, 1100, 37, 32, 4});
        v.push_back({true, t, 64, 300, 150, 8, 1});  // more than one 512-row block per head
    }
    return v;
}

struct CpuAttnMm : ::testing::Test {
    ggml_backend_t be = nullptr;
    void           SetUp() override {
        ggml_cpu_set_auto_threads(false);  // small graphs must really run on 2 and 3 threads
        be = ggml_backend_cpu_init();
        ASSERT_NE(be, nullptr);
    }
    void TearDown() override {
        ggml_cpu_set_scalar(false);
        ggml_cpu_set_mm_isa(-1);
        ggml_cpu_set_auto_threads(true);
        ggml_backend_free(be);
    }
};

}  // namespace

TEST_F(CpuAttnMm, AgreesWithTheScalarOracle) {
    for (const attn_case & c : cases()) {
        attn_graph g(c, be);
        ggml_cpu_set_scalar(true);
        const std::vector<float> ref = g.run(be);
        ggml_cpu_set_scalar(false);
        for (int isa : k_simd_ranks) {
            ggml_cpu_set_mm_isa(isa);
            // exact products (F16 widens exactly); only the order of the sums differs
            EXPECT_LT(nmse(g.run(be), ref), 1e-11) << c.name() << " isa=" << isa;
        }
    }
}

TEST_F(CpuAttnMm, ThreadCountsGiveIdenticalBits) {
    for (const attn_case & c : cases()) {
        attn_graph g(c, be);
        ggml_backend_cpu_set_n_threads(be, 1);
        const std::vector<float> one = g.run(be);
        for (int nt : {2, 3}) {
            ggml_backend_cpu_set_n_threads(be, nt);
            const std::vector<float> r = g.run(be);
            EXPECT_EQ(0, std::memcmp(one.data(), r.data(), r.size() * 4)) << c.name() << " threads=" << nt;
        }
    }
}

TEST_F(CpuAttnMm, TakenAtPrefillShapesOnly) {
    // guards the comparisons above: with a SIMD level the path computes KQ from 16 rows per K/V
    // head (here 5 tokens x 4 heads = 20), never KQV (long rows), never under the scalar switch,
    // never for decode (1 token x 4 heads) and never for weight-shaped products
    const bool simd = ggml_cpu_mm_isa_level() >= 1;
    for (bool kqv : {false, true}) {
        attn_graph g({kqv, GGML_TYPE_F16, 64, 300, 5, 8, 2}, be);
        EXPECT_EQ(ggml_cpu_mm_attn_applies(g.out), simd && !kqv) << kqv;
        ggml_cpu_set_scalar(true);
        EXPECT_FALSE(ggml_cpu_mm_attn_applies(g.out)) << kqv;
        ggml_cpu_set_scalar(false);
        attn_graph d({kqv, GGML_TYPE_F16, 64, 300, 1, 8, 2}, be);
        EXPECT_FALSE(ggml_cpu_mm_attn_applies(d.out)) << kqv;
    }
    ggml_init_params ip{ggml_tensor_overhead() * 8, nullptr, true};
    ggml_context *   ctx = ggml_init(ip);
    ggml_tensor *    w   = ggml_mul_mat(ctx, ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 2048, 2048),
                                        ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 2048, 512));
    EXPECT_FALSE(ggml_cpu_mm_attn_applies(w));
    ggml_free(ctx);
}
