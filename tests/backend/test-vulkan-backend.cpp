// The Vulkan backend beyond the op harness: device enumeration, buffer transfers at odd offsets,
// multi-node graphs (barriers between dependent dispatches), failure paths, and the scheduler
// splitting a graph between Vulkan and the CPU. Skips when the build or machine has no Vulkan device.
#include "backend-test-util.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml.h"
#include "test-compat.h"
#include "test-kv-quant-inputs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>
#include <string>
#include <vector>

using backend_test::ctx_holder;
using backend_test::random_floats;

// Counts operator new calls made on this thread while g_count_allocs is set (the no-allocation test).
namespace {
thread_local bool g_count_allocs = false;
thread_local long g_n_allocs     = 0;
}  // namespace

// GCC pairs the malloc/free inside these replacements with inlined new/delete call sites and warns
#if defined(__GNUC__) && !defined(__clang__)
#    pragma GCC diagnostic push
#    pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void * operator new(size_t n) {
    if (g_count_allocs)
        g_n_allocs++;
    if (void * p = std::malloc(n ? n : 1))
        return p;
    throw std::bad_alloc();
}
void operator delete(void * p) noexcept {
    std::free(p);
}
void operator delete(void * p, size_t) noexcept {
    std::free(p);
}
#if defined(__GNUC__) && !defined(__clang__)
#    pragma GCC diagnostic pop
#endif

namespace {

// lavapipe (a CPU-type Vulkan device) is hidden unless asked for: ask before the registry is touched.
const bool k_allow_cpu_vk = (setenv("GGML_VK_ALLOW_CPU_DEVICES", "1", 0), true);

ggml_backend_reg_t vk_reg() {
    return ggml_backend_reg_by_name("Vulkan");
}

ggml_backend_dev_t vk_dev0() {
    ggml_backend_reg_t reg = vk_reg();
    return reg && ggml_backend_reg_dev_count(reg) > 0 ? ggml_backend_reg_dev_get(reg, 0) : nullptr;
}

// The Vulkan device 0 and a CPU backend for a comparison, freed with the scope.
struct vk_and_cpu {
    ggml_backend_t vk  = ggml_backend_dev_init(vk_dev0(), nullptr);
    ggml_backend_t cpu = ggml_backend_cpu_init();
    vk_and_cpu()       = default;
    ~vk_and_cpu() {
        if (vk)
            ggml_backend_free(vk);
        if (cpu)
            ggml_backend_free(cpu);
    }
    vk_and_cpu(const vk_and_cpu &)             = delete;
    vk_and_cpu & operator=(const vk_and_cpu &) = delete;
};

#define SKIP_WITHOUT_VULKAN()                                                   \
    if (!vk_dev0()) {                                                           \
        if (backend_test::required("LLAMA_TEST_REQUIRE_VULKAN"))                \
            FAIL() << "LLAMA_TEST_REQUIRE_VULKAN=1 but no Vulkan device";       \
        GTEST_SKIP() << "no Vulkan device (build without Vulkan or no driver)"; \
    }

// A small attention-like chain: every node depends on the previous one.
struct chain {
    ggml_tensor *x, *w, *bias, *out;
};
chain build_chain(ggml_context * ctx) {
    chain c;
    c.x    = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 5);
    c.w    = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 64, 48);
    c.bias = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 48);
    ggml_set_name(c.x, "x");
    ggml_set_name(c.w, "w");
    ggml_set_name(c.bias, "bias");
    ggml_tensor * h = ggml_rms_norm(ctx, c.x, 1e-5f);
    h               = ggml_mul_mat(ctx, c.w, h);  // [48, 5]
    h               = ggml_add(ctx, h, c.bias);
    h               = ggml_scale(ctx, h, 0.5f);
    h               = ggml_soft_max(ctx, h);
    h               = ggml_silu(ctx, h);
    c.out           = ggml_sum_rows(ctx, ggml_sqr(ctx, h));  // [1, 5]
    return c;
}

void fill_chain(const chain & c) {
    auto                     xs = random_floats(64 * 5, 1), bs = random_floats(48, 2), ws = random_floats(64 * 48, 3);
    std::vector<ggml_fp16_t> wh(ws.size());
    for (size_t i = 0; i < ws.size(); i++)
        wh[i] = ggml_fp32_to_fp16(ws[i]);
    ggml_backend_tensor_set(c.x, xs.data(), 0, xs.size() * 4);
    ggml_backend_tensor_set(c.bias, bs.data(), 0, bs.size() * 4);
    ggml_backend_tensor_set(c.w, wh.data(), 0, wh.size() * 2);
}

std::vector<float> run_chain(ggml_backend_t be) {
    ctx_holder    h(32);
    chain         c  = build_chain(h.ctx);
    ggml_cgraph * gf = ggml_new_graph(h.ctx);
    ggml_build_forward_expand(gf, c.out);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(h.ctx, be);
    if (!buf)
        return {};
    fill_chain(c);
    std::vector<float> out(5, NAN);
    if (ggml_backend_graph_compute(be, gf) == GGML_STATUS_SUCCESS) {
        ggml_backend_tensor_get(c.out, out.data(), 0, out.size() * 4);
    }
    ggml_backend_buffer_free(buf);
    return out;
}

}  // namespace

TEST(Vulkan, DevicesAreEnumerated) {
    SKIP_WITHOUT_VULKAN();
    ggml_backend_reg_t reg = vk_reg();
    const size_t       n   = ggml_backend_reg_dev_count(reg);
    EXPECT_EQ(ggml_backend_reg_dev_get(reg, n), nullptr);
    for (size_t i = 0; i < n; i++) {
        ggml_backend_dev_t dev = ggml_backend_reg_dev_get(reg, i);
        ASSERT_NE(dev, nullptr);
        EXPECT_EQ(std::string(ggml_backend_dev_name(dev)), "Vulkan" + std::to_string(i));
        EXPECT_GT(std::strlen(ggml_backend_dev_description(dev)), 0u);
        size_t free = 0, total = 0;
        ggml_backend_dev_memory(dev, &free, &total);
        EXPECT_GT(total, 0u);
        EXPECT_LE(free, total);
        const auto type = ggml_backend_dev_type(dev);
        EXPECT_TRUE(type == GGML_BACKEND_DEVICE_TYPE_GPU || type == GGML_BACKEND_DEVICE_TYPE_IGPU);
        EXPECT_EQ(ggml_backend_dev_backend_reg(dev), reg);
        EXPECT_EQ(ggml_backend_dev_by_name(ggml_backend_dev_name(dev)), dev);
        ggml_backend_buffer_type_t buft = ggml_backend_dev_buffer_type(dev);
        ASSERT_NE(buft, nullptr);
        EXPECT_TRUE(ggml_backend_dev_supports_buft(dev, buft));
        EXPECT_FALSE(ggml_backend_buft_is_host(buft));
        const size_t align = ggml_backend_buft_get_alignment(buft);
        EXPECT_TRUE(align > 0 && (align & (align - 1)) == 0);
        std::printf("%s: %s, %.0f MiB\n", ggml_backend_dev_name(dev), ggml_backend_dev_description(dev),
                    total / 1048576.0);
    }
}

TEST(Vulkan, BufferRoundTripAtOddOffsets) {
    SKIP_WITHOUT_VULKAN();
    ggml_backend_buffer_type_t buft = ggml_backend_dev_buffer_type(vk_dev0());
    ctx_holder                 h(4);
    ggml_tensor *              t   = ggml_new_tensor_1d(h.ctx, GGML_TYPE_I8, 100003);
    ggml_backend_buffer_t      buf = ggml_backend_alloc_ctx_tensors_from_buft(h.ctx, buft);
    ASSERT_NE(buf, nullptr);
    EXPECT_FALSE(ggml_backend_buffer_is_host(buf));

    std::vector<uint8_t> data(100003);
    for (size_t i = 0; i < data.size(); i++)
        data[i] = (uint8_t) (i * 131 + 7);
    ggml_backend_tensor_set(t, data.data(), 0, data.size());
    std::vector<uint8_t> back(data.size(), 0);
    ggml_backend_tensor_get(t, back.data(), 0, back.size());
    EXPECT_EQ(back, data);

    // partial, unaligned ranges
    const uint8_t patch[5] = {1, 2, 3, 4, 5};
    ggml_backend_tensor_set(t, patch, 77777, 5);
    uint8_t got[9] = {};
    ggml_backend_tensor_get(t, got, 77775, 9);
    EXPECT_EQ(got[0], data[77775]);
    EXPECT_EQ(got[2], 1);
    EXPECT_EQ(got[6], 5);
    EXPECT_EQ(got[7], data[77782]);

    ggml_backend_tensor_memset(t, 0xAB, 13, 3);
    ggml_backend_tensor_get(t, got, 12, 5);
    EXPECT_EQ(got[0], data[12]);
    EXPECT_EQ(got[1], 0xAB);
    EXPECT_EQ(got[3], 0xAB);
    EXPECT_EQ(got[4], data[16]);

    ggml_backend_buffer_clear(buf, 0x5A);
    ggml_backend_tensor_get(t, back.data(), 0, back.size());
    EXPECT_EQ(back, std::vector<uint8_t>(back.size(), 0x5A));
    ggml_backend_buffer_free(buf);

    // an empty allocation is valid too
    ggml_backend_buffer_t empty = ggml_backend_buft_alloc_buffer(buft, 0);
    ggml_backend_buffer_free(empty);
}

TEST(Vulkan, ChainedGraphMatchesCpu) {
    SKIP_WITHOUT_VULKAN();
    const vk_and_cpu be;
    ASSERT_TRUE(be.vk && be.cpu);
    ggml_backend_t           vk = be.vk, cpu = be.cpu;
    const std::vector<float> a = run_chain(vk), b = run_chain(cpu);
    ASSERT_EQ(a.size(), 5u);
    for (size_t i = 0; i < a.size(); i++)
        EXPECT_NEAR(a[i], b[i], 1e-5 * std::fabs(b[i]) + 1e-7) << i;
    // repeated computes reuse the command buffer and fence
    for (int r = 0; r < 3; r++)
        EXPECT_EQ(run_chain(vk), a);
}

TEST(Vulkan, UnsupportedOpFailsCleanly) {
    SKIP_WITHOUT_VULKAN();
    ggml_backend_t vk = ggml_backend_dev_init(vk_dev0(), nullptr);
    ASSERT_NE(vk, nullptr);
    ctx_holder h(8);
    // writes into K-quant blocks (weight quantization) stay on the CPU
    ggml_tensor * x = ggml_new_tensor_2d(h.ctx, GGML_TYPE_F32, 256, 3);
    ggml_tensor * s = ggml_cpy(h.ctx, x, ggml_new_tensor_2d(h.ctx, GGML_TYPE_Q4_K, 256, 3));
    EXPECT_FALSE(ggml_backend_supports_op(vk, s));
    ggml_cgraph * gf = ggml_new_graph(h.ctx);
    ggml_build_forward_expand(gf, s);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(h.ctx, vk);
    ASSERT_NE(buf, nullptr);
    EXPECT_EQ(ggml_backend_graph_compute(vk, gf), GGML_STATUS_FAILED);
    ggml_backend_buffer_free(buf);
    ggml_backend_free(vk);
}

// Weights on the Vulkan device, an op Vulkan lacks in the middle (a copy into Q4_K blocks): the
// scheduler must split the graph, run the copy on the CPU, and give the answer of the CPU's Q4_K.
TEST(Vulkan, SchedulerSplitsBetweenVulkanAndCpu) {
    SKIP_WITHOUT_VULKAN();
    const vk_and_cpu be;
    ASSERT_TRUE(be.vk && be.cpu);
    ggml_backend_t vk = be.vk, cpu = be.cpu;

    constexpr int         K = 32, M = 256, N = 6;
    ctx_holder            hw(4);
    ggml_tensor *         w    = ggml_new_tensor_2d(hw.ctx, GGML_TYPE_F32, K, M);
    ggml_backend_buffer_t wbuf = ggml_backend_alloc_ctx_tensors(hw.ctx, vk);
    ASSERT_NE(wbuf, nullptr);
    auto ws = random_floats(K * M, 9);
    ggml_backend_tensor_set(w, ws.data(), 0, ws.size() * 4);

    ctx_holder    hg(16);
    ggml_tensor * x   = ggml_new_tensor_2d(hg.ctx, GGML_TYPE_F32, K, N);
    ggml_tensor * ids = ggml_new_tensor_1d(hg.ctx, GGML_TYPE_I32, N);
    ggml_set_input(x);
    ggml_set_input(ids);
    ggml_tensor * y   = ggml_mul_mat(hg.ctx, w, x);                                             // Vulkan
    ggml_tensor * q   = ggml_cpy(hg.ctx, y, ggml_new_tensor_2d(hg.ctx, GGML_TYPE_Q4_K, M, N));  // CPU only
    ggml_tensor * out = ggml_scale(hg.ctx, ggml_get_rows(hg.ctx, q, ids), 2.0f);                // Vulkan
    ggml_set_output(out);
    ggml_cgraph * gf = ggml_new_graph(hg.ctx);
    ggml_build_forward_expand(gf, out);

    ggml_backend_t       backends[2] = {vk, cpu};
    ggml_backend_sched_t sched       = ggml_backend_sched_new(backends, nullptr, 2, 64, false, true);
    ASSERT_NE(sched, nullptr);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, gf));
    auto                 xs = random_floats(K * N, 10);
    std::vector<int32_t> is(N);
    for (int n = 0; n < N; n++)
        is[n] = N - 1 - n;
    ggml_backend_tensor_set(x, xs.data(), 0, xs.size() * 4);
    ggml_backend_tensor_set(ids, is.data(), 0, is.size() * 4);
    ASSERT_EQ(ggml_backend_sched_graph_compute(sched, gf), GGML_STATUS_SUCCESS);
    EXPECT_GE(ggml_backend_sched_get_n_splits(sched), 2);
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, y), vk);
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, q), cpu);
    std::vector<float> got((size_t) ggml_nelements(out));
    ggml_backend_tensor_get(out, got.data(), 0, got.size() * 4);

    // reference on the host: row n of out is 2 * y[:, N - 1 - n], up to the Q4_K rounding
    for (int n = 0; n < N; n++) {
        std::vector<double> yr(M);
        double              amax = 0;
        for (int m = 0; m < M; m++) {
            double s = 0;
            for (int k = 0; k < K; k++)
                s += (double) ws[m * K + k] * xs[is[n] * K + k];
            yr[m] = s;
            amax  = std::max(amax, std::fabs(s));
        }
        for (int m = 0; m < M; m++)
            EXPECT_NEAR(got[n * M + m], 2 * yr[m], 2 * 0.1 * amax) << n << "," << m;
    }
    ggml_backend_sched_free(sched);
    ggml_backend_buffer_free(wbuf);
}

// Once its pipelines exist, computing a decode-like graph again allocates nothing on the host in our
// code: shader names are built in stack buffers and the pipeline cache is searched without strings.
// (Long variant names such as mul_mat_id_iq4_xs used to cost a heap string per dispatch.)
TEST(Vulkan, RepeatedComputeAllocatesNothing) {
    SKIP_WITHOUT_VULKAN();
    ggml_backend_t vk = ggml_backend_dev_init(vk_dev0(), nullptr);
    ASSERT_NE(vk, nullptr);
    ctx_holder    h(16);
    ggml_tensor * x   = ggml_new_tensor_2d(h.ctx, GGML_TYPE_F32, 256, 1);
    ggml_tensor * w   = ggml_new_tensor_2d(h.ctx, GGML_TYPE_Q4_K, 256, 64);
    ggml_tensor * as  = ggml_new_tensor_3d(h.ctx, GGML_TYPE_IQ4_XS, 256, 32, 4);
    ggml_tensor * ids = ggml_new_tensor_2d(h.ctx, GGML_TYPE_I32, 2, 1);
    ggml_tensor * n   = ggml_rms_norm(h.ctx, x, 1e-5f);
    ggml_tensor * y   = ggml_mul_mat(h.ctx, w, n);  // the subgroup GEMV where the device has it
    ggml_tensor * z   = ggml_mul_mat_id(h.ctx, as, ggml_reshape_3d(h.ctx, n, 256, 1, 1), ids);
    ggml_tensor * out = ggml_concat(h.ctx, y, ggml_reshape_2d(h.ctx, z, 64, 1), 0);
    ggml_cgraph * gf  = ggml_new_graph(h.ctx);
    ggml_build_forward_expand(gf, out);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(h.ctx, vk);
    ASSERT_NE(buf, nullptr);
    ggml_backend_buffer_clear(buf, 0);  // zero weights: finite results, the values do not matter here
    const int32_t id[2] = {0, 3};
    ggml_backend_tensor_set(ids, id, 0, sizeof id);
    ASSERT_EQ(ggml_backend_graph_compute(vk, gf), GGML_STATUS_SUCCESS);  // creates the pipelines
    g_n_allocs           = 0;
    g_count_allocs       = true;
    const ggml_status st = ggml_backend_graph_compute(vk, gf);
    g_count_allocs       = false;
    EXPECT_EQ(st, GGML_STATUS_SUCCESS);
    EXPECT_EQ(g_n_allocs, 0) << "operator new calls during a repeated compute";
    ggml_backend_buffer_free(buf);
    ggml_backend_free(vk);
}

TEST(Vulkan, OutOfRangeIndicesAreErrorsNotCrashes) {
    ggml_backend_reg_t reg = vk_reg();
    if (!reg) {
        if (backend_test::required("LLAMA_TEST_REQUIRE_VULKAN"))
            FAIL() << "LLAMA_TEST_REQUIRE_VULKAN=1 but built without Vulkan";
        GTEST_SKIP() << "built without Vulkan";
    }
    EXPECT_EQ(ggml_backend_reg_dev_get(reg, 1000), nullptr);
    EXPECT_EQ(ggml_backend_dev_by_name("Vulkan999"), nullptr);
}

// SSM_SCAN's state ids are data the host does not see before the shader runs: one out of range must not
// read or write past the buffers. The CPU fails the compute; the shader writes zeros for that sequence
// (docs/vulkan.md) and the other sequences keep their results.
TEST(Vulkan, SsmScanBadIdWritesZeros) {
    SKIP_WITHOUT_VULKAN();
    const int64_t ds = 16, hd = 4, nh = 2, nt = 3, ns = 2, n_rs = 2;
    auto          run = [&](ggml_backend_t be, const int32_t id[2]) {
        ctx_holder    h(16);
        ggml_tensor * in[6] = {ggml_new_tensor_4d(h.ctx, GGML_TYPE_F32, ds, hd, nh, n_rs),
                               ggml_new_tensor_4d(h.ctx, GGML_TYPE_F32, hd, nh, nt, ns),
                               ggml_new_tensor_3d(h.ctx, GGML_TYPE_F32, nh, nt, ns),
                               ggml_new_tensor_2d(h.ctx, GGML_TYPE_F32, 1, nh),
                               ggml_new_tensor_4d(h.ctx, GGML_TYPE_F32, ds, 1, nt, ns),
                               ggml_new_tensor_4d(h.ctx, GGML_TYPE_F32, ds, 1, nt, ns)};
        ggml_tensor * ids   = ggml_new_tensor_1d(h.ctx, GGML_TYPE_I32, ns);
        ggml_tensor * r     = ggml_ssm_scan(h.ctx, in[0], in[1], in[2], in[3], in[4], in[5], ids, 1);
        EXPECT_NE(r, nullptr);
        if (!r)
            return std::vector<float>();
        ggml_cgraph * gf = ggml_new_graph(h.ctx);
        ggml_build_forward_expand(gf, r);
        ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(h.ctx, be);
        EXPECT_NE(buf, nullptr);
        for (int i = 0; i < 6; i++) {
            const auto v = random_floats(ggml_nelements(in[i]), 40 + i);
            ggml_backend_tensor_set(in[i], v.data(), 0, ggml_nbytes(in[i]));
        }
        ggml_backend_tensor_set(ids, id, 0, ns * sizeof(int32_t));
        std::vector<float> out((size_t) ggml_nelements(r));
        if (ggml_backend_graph_compute(be, gf) == GGML_STATUS_SUCCESS)
            ggml_backend_tensor_get(r, out.data(), 0, ggml_nbytes(r));
        else
            out.clear();
        ggml_backend_buffer_free(buf);
        return out;
    };
    const vk_and_cpu be;
    ASSERT_TRUE(be.vk && be.cpu);
    ggml_backend_t vk = be.vk, cpu = be.cpu;
    const int32_t  good[2] = {1, 0};
    const auto     ref     = run(cpu, good);
    ASSERT_FALSE(ref.empty());
    const int64_t n_y = hd * nh * nt * ns, y_seq = hd * nh * nt, st_seq = ds * hd * nh;
    for (int32_t bad : {(int32_t) n_rs, -1, 1 << 30}) {
        const int32_t id[2] = {1, bad};
        const auto    got   = run(vk, id);
        ASSERT_EQ(got.size(), ref.size()) << bad;
        for (int64_t i = 0; i < y_seq; i++)  // sequence 0: as the CPU's
            EXPECT_NEAR(got[i], ref[i], 1e-4 * (1 + std::fabs(ref[i]))) << bad << " y " << i;
        for (int64_t i = 0; i < st_seq; i++)
            EXPECT_NEAR(got[n_y + i], ref[n_y + i], 1e-4 * (1 + std::fabs(ref[n_y + i]))) << bad << " state " << i;
        for (int64_t i = y_seq; i < n_y; i++)  // sequence 1: zeros
            EXPECT_EQ(got[i], 0.0f) << bad << " y " << i;
        for (int64_t i = st_seq; i < 2 * st_seq; i++)
            EXPECT_EQ(got[n_y + i], 0.0f) << bad << " state " << i;
    }
}

// ---- the KV-cache writer: Vulkan's blocks are the CPU's, byte for byte ----------------------------
// set_rows of F32 rows into a quantized cache (and the F32 -> quantized copy, the same shader) on both
// backends from the same bytes: every block of the destination must be equal, the rows not written
// (kept as they were) included. The rows cycle through kv_quant_inputs' kinds of block (zeros, tiny,
// huge, outliers, ties, ...); the ids write them to a shuffled subset of the cache rows per stream.
namespace {

const ggml_type k_kv_quant_types[] = {GGML_TYPE_Q8_0, GGML_TYPE_Q4_0, GGML_TYPE_Q4_1,
                                      GGML_TYPE_Q5_0, GGML_TYPE_Q5_1, GGML_TYPE_IQ4_NL};

struct kv_write {
    ggml_type type;
    int64_t   n_embd, n_cache, n_rows, n_stream;  // dst [n_embd, n_cache, n_stream], src [n_embd, n_rows, n_stream]
    ggml_type id_type;                            // I64 (the KV cache's) or I32
    bool      padded_src;                         // src rows a view with a wider stride
    bool      cpy;                                // ggml_cpy(src, dst) instead (n_cache == n_rows)
};

// The destination's bytes after the write on `be`; empty when the compute failed.
std::vector<uint8_t> run_kv_write(ggml_backend_t be, const kv_write & c, const std::vector<float> & src_data,
                                  const std::vector<int64_t> & rows, const std::vector<uint8_t> & before) {
    ctx_holder    h(8);
    ggml_tensor * dst = ggml_new_tensor_3d(h.ctx, c.type, c.n_embd, c.n_cache, c.n_stream);
    ggml_tensor * base =
        ggml_new_tensor_3d(h.ctx, GGML_TYPE_F32, c.n_embd + (c.padded_src ? 32 : 0), c.n_rows, c.n_stream);
    ggml_tensor * src = ggml_view_3d(h.ctx, base, c.n_embd, c.n_rows, c.n_stream, base->nb[1], base->nb[2], 0);
    ggml_tensor * ids = ggml_new_tensor_2d(h.ctx, c.id_type, c.n_rows, c.n_stream);
    ggml_tensor * out = c.cpy ? ggml_cpy(h.ctx, src, dst) : ggml_set_rows(h.ctx, dst, src, ids);
    ggml_cgraph * gf  = ggml_new_graph(h.ctx);
    ggml_build_forward_expand(gf, out);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(h.ctx, be);
    EXPECT_NE(buf, nullptr);
    if (!buf)
        return {};
    EXPECT_TRUE(ggml_backend_supports_op(be, out)) << ggml_backend_name(be);
    ggml_backend_tensor_set(dst, before.data(), 0, before.size());
    std::vector<float> padded((size_t) ggml_nelements(base), 0.0f);
    for (int64_t r = 0; r < c.n_rows * c.n_stream; r++)
        std::memcpy(&padded[(size_t) (r * base->ne[0])], &src_data[(size_t) (r * c.n_embd)], c.n_embd * 4);
    ggml_backend_tensor_set(base, padded.data(), 0, padded.size() * 4);
    std::vector<int32_t> rows32(rows.begin(), rows.end());
    if (c.id_type == GGML_TYPE_I64)
        ggml_backend_tensor_set(ids, rows.data(), 0, rows.size() * 8);
    else
        ggml_backend_tensor_set(ids, rows32.data(), 0, rows32.size() * 4);
    std::vector<uint8_t> got(before.size());
    if (ggml_backend_graph_compute(be, gf) == GGML_STATUS_SUCCESS)
        ggml_backend_tensor_get(dst, got.data(), 0, got.size());
    else
        got.clear();
    ggml_backend_buffer_free(buf);
    return got;
}

// Runs the write on the CPU and on Vulkan; reports the first blocks that differ.
void expect_same_kv_blocks(ggml_backend_t vk, ggml_backend_t cpu, const kv_write & c) {
    const std::string what = std::string(c.cpy ? "cpy f32 -> " : "set_rows ") + ggml_type_name(c.type) + " " +
                             std::to_string(c.n_embd) + "x" + std::to_string(c.n_rows) + "x" +
                             std::to_string(c.n_stream) + (c.padded_src ? " padded" : "") + " ids " +
                             ggml_type_name(c.id_type);
    const int64_t            nb = c.n_embd / 32;  // blocks per row
    const std::vector<float> x  = kv_quant_inputs::blocks((int) (nb * c.n_rows * c.n_stream), (uint32_t) c.type);
    std::mt19937             rng(7);
    std::vector<int64_t>     rows;  // per stream: n_rows distinct cache rows in shuffled order
    for (int64_t s = 0; s < c.n_stream; s++) {
        std::vector<int64_t> perm(c.n_cache);
        for (int64_t i = 0; i < c.n_cache; i++)
            perm[i] = i;
        if (!c.cpy)
            std::shuffle(perm.begin(), perm.end(), rng);
        rows.insert(rows.end(), perm.begin(), perm.begin() + c.n_rows);
    }
    const size_t         row_size = ggml_row_size(c.type, c.n_embd);
    std::vector<uint8_t> before(row_size * c.n_cache * c.n_stream);
    for (auto & b : before)
        b = (uint8_t) rng();
    const std::vector<uint8_t> ref = run_kv_write(cpu, c, x, rows, before);
    const std::vector<uint8_t> got = run_kv_write(vk, c, x, rows, before);
    ASSERT_EQ(ref.size(), before.size()) << what << ": the CPU compute failed";
    ASSERT_EQ(got.size(), before.size()) << what << ": the Vulkan compute failed";
    const size_t bs  = ggml_type_size(c.type);
    int          bad = 0;
    for (int64_t s = 0; s < c.n_stream; s++)
        for (int64_t i = 0; i < c.n_rows; i++)
            for (int64_t b = 0; b < nb; b++) {
                const size_t off = (size_t) (s * c.n_cache + rows[(size_t) (s * c.n_rows + i)]) * row_size + b * bs;
                if (std::memcmp(ref.data() + off, got.data() + off, bs) != 0 && ++bad <= 3) {
                    const int64_t blk = (s * c.n_rows + i) * nb + b;
                    ADD_FAILURE() << what << ": stream " << s << " src row " << i << " block " << b << " (kind "
                                  << blk % kv_quant_inputs::k_kinds << ") differs from the CPU's";
                }
            }
    EXPECT_EQ(bad, 0) << what;
    EXPECT_TRUE(ref == got) << what << ": the bytes around the written blocks differ";
    EXPECT_TRUE(ref != before) << what << ": nothing was written";
}

}  // namespace

TEST(Vulkan, QuantizedKvWritesAreTheCpuBytes) {
    SKIP_WITHOUT_VULKAN();
    const vk_and_cpu be;
    ASSERT_TRUE(be.vk && be.cpu);
    ggml_backend_t vk = be.vk, cpu = be.cpu;
    for (ggml_type t : k_kv_quant_types) {
        // 64 rows of 8 blocks per stream: a prefill; one row: a decode step into a cache of 37 rows
        expect_same_kv_blocks(vk, cpu, {t, 256, 96, 64, 2, GGML_TYPE_I64, false, false});
        expect_same_kv_blocks(vk, cpu, {t, 128, 37, 1, 1, GGML_TYPE_I64, false, false});
        expect_same_kv_blocks(vk, cpu, {t, 96, 40, 30, 1, GGML_TYPE_I32, true, false});
        expect_same_kv_blocks(vk, cpu, {t, 160, 20, 20, 1, GGML_TYPE_I64, true, true});
    }
}
