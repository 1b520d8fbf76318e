// Vulkan flash attention (FLASH_ATTN_EXT) against a double-precision reference written here, at the
// sizes that reach each kernel (vk-flash-attn.cpp): head dims 64/80/96/128/256 (and K != V dims, up to
// DeepSeek's K 576 / V 512 with V a view of K), KV lengths that are not multiples of any tile, masks
// (F16/F32, padded rows, 25% -inf), GQA, softcap, ALiBi, ne3 > 1, the quantized K/V types, and K and
// V of two types (two quantized ones too). By default the shapes pick the path
// (tiled for >= 8 queries, split-K for few queries over >= 512 positions, else one workgroup per row);
// ctest runs this file again with GGML_VK_FA=tiled, =split and =row so every case goes through each
// kernel, and with GGML_VK_DISABLE_SUBGROUPS=1 (the tiled shader's shared-memory row reductions).
#include "backend-test-util.h"
#include "op-harness.h"
#include "test-compat.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#ifdef LLAMA_TEST_VK_INTERNALS
#    include "ggml-vulkan/vk-context.h"
#endif

using namespace op_harness;

namespace {

const bool k_allow_cpu_vk = (setenv("GGML_VK_ALLOW_CPU_DEVICES", "1", 0), true);

ggml_backend_dev_t vk_dev0() {
    ggml_backend_reg_t reg = ggml_backend_reg_by_name("Vulkan");
    return reg && ggml_backend_reg_dev_count(reg) > 0 ? ggml_backend_reg_dev_get(reg, 0) : nullptr;
}

#define SKIP_WITHOUT_VULKAN()                                                   \
    if (!vk_dev0()) {                                                           \
        if (backend_test::required("LLAMA_TEST_REQUIRE_VULKAN"))                \
            FAIL() << "LLAMA_TEST_REQUIRE_VULKAN=1 but no Vulkan device";       \
        GTEST_SKIP() << "no Vulkan device (build without Vulkan or no driver)"; \
    }

struct fa_shape {
    int64_t   dk, dv, n_q, n_kv, n_head, n_head_kv, ne3;
    ggml_type kv;
    int       mask;  // 0 none, 1 F16, 2 F32
    float     softcap, max_bias;
    ggml_type v_type = GGML_TYPE_COUNT;  // V's type when it differs from K's (kv)
    bool      v_view = false;            // V is the first dv values of each K row (absorbed MLA)
    ggml_type vt() const { return v_type == GGML_TYPE_COUNT ? kv : v_type; }
};

std::string describe(const fa_shape & s) {
    std::string d = "D=" + std::to_string(s.dk) + (s.dv != s.dk ? "/" + std::to_string(s.dv) : "") +
                    " n_q=" + std::to_string(s.n_q) + " n_kv=" + std::to_string(s.n_kv) +
                    " heads=" + std::to_string(s.n_head) + "/" + std::to_string(s.n_head_kv) +
                    " ne3=" + std::to_string(s.ne3) + " kv=" + ggml_type_name(s.kv) +
                    (s.vt() != s.kv ? std::string("/") + ggml_type_name(s.vt()) : "") + (s.v_view ? " v=view(k)" : "");
    d += s.mask == 0 ? " no-mask" : (s.mask == 1 ? " mask16" : " mask32");
    if (s.softcap > 0)
        d += " softcap";
    if (s.max_bias > 0)
        d += " alibi";
    return d;
}

double alibi_slope(float max_bias, int64_t n_head, int64_t h) {
    if (max_bias <= 0)
        return 1.0;
    int64_t n2 = 1;
    while (n2 * 2 <= n_head)
        n2 *= 2;
    const double m0 = std::pow(2.0, -max_bias / (double) n2), m1 = std::pow(2.0, -(max_bias / 2.0) / (double) n2);
    return h < n2 ? std::pow(m0, (double) (h + 1)) : std::pow(m1, (double) (2 * (h - n2) + 1));
}

ggml_tensor * build_fa(ggml_context * ctx, const fa_shape & s) {
    const float   scale = 1.0f / std::sqrt((float) s.dk);
    ggml_tensor * q     = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, s.dk, s.n_q, s.n_head, s.ne3);
    ggml_tensor * k     = ggml_new_tensor_4d(ctx, s.kv, s.dk, s.n_kv, s.n_head_kv, s.ne3);
    ggml_set_name(q, "q");
    ggml_set_name(k, "k");
    // a view steps its rows by K's row stride, wider than its own row
    ggml_tensor * v = s.v_view ? ggml_view_4d(ctx, k, s.dv, s.n_kv, s.n_head_kv, s.ne3, k->nb[1], k->nb[2], k->nb[3], 0)
                               : ggml_new_tensor_4d(ctx, s.vt(), s.dv, s.n_kv, s.n_head_kv, s.ne3);
    ggml_set_name(v, "v");
    ggml_tensor * m = nullptr;
    if (s.mask) {  // rows padded past n_q, as llama's KQ mask
        m = ggml_new_tensor_4d(ctx, s.mask == 1 ? GGML_TYPE_F16 : GGML_TYPE_F32, s.n_kv, s.n_q + 3, 1, 1);
        ggml_set_name(m, "mask");
    }
    return ggml_flash_attn_ext(ctx, q, k, v, m, scale, s.max_bias, s.softcap);
}

test_case make_case(const fa_shape & s) {
    test_case tc;
    tc.desc     = describe(s);
    tc.max_nmse = 1e-9;
    tc.build    = [s](ggml_context * ctx) { return build_fa(ctx, s); };
    tc.ref      = [s](const ggml_tensor * out, const std::vector<host_tensor> & src, const host_tensor &) {
        // out [Dv, n_head, n_q, ne3]
        std::vector<double> r((size_t) ggml_nelements(out));
        const double        scale = 1.0 / std::sqrt((double) s.dk);
        const double        sc    = (double) (float) scale;  // the op stores scale as a float
        const size_t        vs    = s.v_view ? 1 : 2;        // V's values: K's rows when V views K
        for (int64_t i3 = 0; i3 < s.ne3; ++i3)
            for (int64_t iq = 0; iq < s.n_q; ++iq)
                for (int64_t h = 0; h < s.n_head; ++h) {
                    const int64_t       hk = h / (s.n_head / s.n_head_kv);
                    std::vector<double> w((size_t) s.n_kv);
                    double              mx = -INFINITY;
                    for (int64_t j = 0; j < s.n_kv; ++j) {
                        double d = 0;
                        for (int64_t c = 0; c < s.dk; ++c)
                            d += src[0](c, iq, h, i3) * src[1](c, j, hk, i3);
                        d *= sc;
                        if (s.softcap > 0)
                            d = s.softcap * std::tanh(d / s.softcap);
                        if (s.mask)
                            d += alibi_slope(s.max_bias, s.n_head, h) * src[3](j, iq);
                        w[(size_t) j] = d;
                        mx            = std::max(mx, d);
                    }
                    double sum = 0;
                    for (double & x : w) {
                        x = mx == -INFINITY ? 0 : std::exp(x - mx);
                        sum += x;
                    }
                    for (int64_t c = 0; c < s.dv; ++c) {
                        double o = 0;
                        for (int64_t j = 0; j < s.n_kv; ++j)
                            o += w[(size_t) j] * src[vs](c, j, hk, i3);
                        r[(size_t) (((i3 * s.n_q + iq) * s.n_head + h) * s.dv + c)] = sum > 0 ? o / sum : 0;
                    }
                }
        return r;
    };
    return tc;
}

// (n_q, n_kv) pairs: one workgroup per row, split-K (>= 512 positions, 530 and 700 leave short
// chunks), tiled with a partial last query tile and a partial last KV tile
const int64_t k_sizes[][2] = {{1, 45}, {1, 700}, {3, 530}, {8, 45}, {37, 300}};

std::vector<fa_shape> shapes() {
    std::vector<fa_shape> v;
    int                   n = 0;
    // F16 (the KV cache's type) at every head dim, F32, BF16 and the quantized types at some
    const std::pair<int64_t, std::vector<ggml_type>> dims[] = {{64, {GGML_TYPE_F16, GGML_TYPE_F32, GGML_TYPE_Q4_0}},
                                                               {80, {GGML_TYPE_F16, GGML_TYPE_F32, GGML_TYPE_BF16}},
                                                               {96, {GGML_TYPE_F16, GGML_TYPE_Q8_0}},
                                                               {128, {GGML_TYPE_F16, GGML_TYPE_Q4_0, GGML_TYPE_BF16}},
                                                               {256, {GGML_TYPE_F16, GGML_TYPE_Q8_0}}};
    for (const auto & dt : dims)
        for (ggml_type t : dt.second) {
            const int64_t d = dt.first;
            for (const auto & qk : k_sizes) {
                const int64_t hkv  = n % 3 == 0 ? 4 : (n % 3 == 1 ? 2 : 1);  // plain, GQA 2, GQA 4
                const float   cap  = n % 4 == 1 ? 20.0f : 0.0f;
                const float   bias = n % 4 == 2 ? 8.0f : 0.0f;
                v.push_back({d, d, qk[0], qk[1], 4, hkv, 1, t, 1 + (n % 5 == 4), cap, bias});
                n++;
            }
        }
    // K and V head dims that differ, no mask, ne3 > 1 (ggml_flash_attn_ext takes F32/F16/Q8_0/Q4_0 K/V)
    for (const auto & qk : k_sizes) {
        v.push_back({128, 64, qk[0], qk[1], 4, 4, 1, GGML_TYPE_F16, 1, 0.0f, 0.0f});
        v.push_back({64, 64, qk[0], qk[1], 8, 2, 2, GGML_TYPE_F16, 0, 0.0f, 0.0f});
        v.push_back({96, 96, qk[0], qk[1], 4, 1, 2, GGML_TYPE_Q8_0, 2, 0.0f, 8.0f});
        // K and V of different types (a float type on one side): -ctk q8_0 -ctv f16 and the like
        v.push_back({64, 64, qk[0], qk[1], 4, 2, 1, GGML_TYPE_Q8_0, 1, 0.0f, 0.0f, GGML_TYPE_F16});
        v.push_back({128, 128, qk[0], qk[1], 4, 4, 1, GGML_TYPE_F16, 1, 0.0f, 0.0f, GGML_TYPE_IQ4_NL});
        v.push_back({64, 64, qk[0], qk[1], 4, 1, 1, GGML_TYPE_Q4_1, 2, 20.0f, 0.0f, GGML_TYPE_F32});
        v.push_back({80, 80, qk[0], qk[1], 4, 2, 1, GGML_TYPE_F32, 1, 0.0f, 0.0f, GGML_TYPE_F16});
        // two quantized types (one dequantizer per side): -ctk q8_0 -ctv q4_0 and the like
        v.push_back({64, 64, qk[0], qk[1], 4, 2, 1, GGML_TYPE_Q8_0, 1, 0.0f, 0.0f, GGML_TYPE_Q4_0});
        v.push_back({128, 128, qk[0], qk[1], 4, 4, 1, GGML_TYPE_Q4_0, 2, 20.0f, 0.0f, GGML_TYPE_IQ4_NL});
        v.push_back({96, 96, qk[0], qk[1], 4, 1, 1, GGML_TYPE_Q5_1, 1, 0.0f, 8.0f, GGML_TYPE_Q4_1});
        v.push_back({64, 64, qk[0], qk[1], 4, 4, 1, GGML_TYPE_IQ4_NL, 1, 0.0f, 0.0f, GGML_TYPE_Q5_0});
    }
    // DeepSeek's absorbed MLA: one KV head, K 576 wide (512 latent + 64 rope), V a view of its first 512
    // (the tiled kernel, forced onto a long KV, drifts on lavapipe past ~350 positions at this width, ~1800
    // at D=128: llvmpipe's loop limiter ends its KV walk early (docs/vulkan.md); so split-K's 700
    // positions only unforced)
    const char *  fa         = getenv("GGML_VK_FA");
    const int64_t mla[][2]   = {{1, 45}, {3, 300}, {8, 45}, {37, 300}, {1, 700}};
    const bool    forced_til = fa && !std::strcmp(fa, "tiled");
    for (const auto & qk : mla)
        for (ggml_type t : {GGML_TYPE_F16, GGML_TYPE_Q8_0})
            if (!(forced_til && qk[1] > 300))
                v.push_back({576, 512, qk[0], qk[1], 4, 1, 1, t, 1, 0.0f, 0.0f, GGML_TYPE_COUNT, true});
    v.push_back({256, 512, 8, 45, 4, 2, 2, GGML_TYPE_F32, 2, 0.0f, 8.0f});  // Dv 512 beside Dk, separate V
    return v;
}

}  // namespace

TEST(VulkanFlashAttn, MatchesDoubleReference) {
    SKIP_WITHOUT_VULKAN();
    ggml_backend_t be = ggml_backend_dev_init(vk_dev0(), nullptr);
    ASSERT_NE(be, nullptr);
    int      n_ok = 0;
    uint32_t seed = 1;
    for (const fa_shape & s : shapes()) {
        const result r = run_case(be, make_case(s), seed++);
        EXPECT_TRUE(r.supported) << describe(s) << ": not supported";
        EXPECT_TRUE(!r.supported || r.ok) << describe(s) << ": " << r.msg;
        n_ok += r.ok;
    }
    std::printf("%d flash-attention cases match (GGML_VK_FA=%s)\n", n_ok,
                getenv("GGML_VK_FA") ? getenv("GGML_VK_FA") : "unset");
    ggml_backend_free(be);
}

// The split path keeps its partials after dst: the buffer type must reserve them, and only for it.
TEST(VulkanFlashAttn, SplitPartialsReservedByAllocSize) {
    SKIP_WITHOUT_VULKAN();
    backend_test::ctx_holder   h(16);
    ggml_tensor *              decode  = build_fa(h.ctx, {128, 128, 1, 4096, 8, 2, 1, GGML_TYPE_F16, 1, 0.0f, 0.0f});
    ggml_tensor *              prefill = build_fa(h.ctx, {128, 128, 64, 4096, 8, 2, 1, GGML_TYPE_F16, 1, 0.0f, 0.0f});
    ggml_backend_buffer_type_t buft    = ggml_backend_dev_buffer_type(vk_dev0());
    const char *               env     = getenv("GGML_VK_FA");
    const std::string          forced  = env ? env : "";
    const size_t               dec     = ggml_backend_buft_get_alloc_size(buft, decode);
    const size_t               pre     = ggml_backend_buft_get_alloc_size(buft, prefill);
    if (forced.empty() || forced == "split") {
        // 4096 positions, one query: chunks of >= 256 positions, at most 32 -> 16 chunks x 8 heads x (128 + 2)
        EXPECT_EQ(dec, ggml_nbytes(decode) + 16 * 8 * 130 * sizeof(float));
    } else {
        EXPECT_EQ(dec, ggml_nbytes(decode));
    }
    if (forced == "split") {
        EXPECT_GT(pre, ggml_nbytes(prefill));
    } else {
        EXPECT_EQ(pre, ggml_nbytes(prefill));
    }
}

// Which K/V type pairs the device takes: any two of F32, F16 and the quantized types, BF16 only with
// BF16 (BF16 with another type is declined: the scheduler runs it on the CPU).
TEST(VulkanFlashAttn, TypePairs) {
    SKIP_WITHOUT_VULKAN();
    backend_test::ctx_holder h(16);
    auto                     takes = [&](ggml_type k, ggml_type v) {
        fa_shape s{64, 64, 1, 64, 4, 2, 1, k, 1, 0.0f, 0.0f, v};
        return ggml_backend_dev_supports_op(vk_dev0(), build_fa(h.ctx, s));
    };
    EXPECT_TRUE(takes(GGML_TYPE_BF16, GGML_TYPE_BF16));
    EXPECT_TRUE(takes(GGML_TYPE_Q8_0, GGML_TYPE_F16));
    EXPECT_TRUE(takes(GGML_TYPE_F16, GGML_TYPE_Q5_1));
    EXPECT_TRUE(takes(GGML_TYPE_F32, GGML_TYPE_F16));
    EXPECT_TRUE(takes(GGML_TYPE_IQ4_NL, GGML_TYPE_F32));
    EXPECT_TRUE(takes(GGML_TYPE_Q4_0, GGML_TYPE_Q8_0));
    EXPECT_TRUE(takes(GGML_TYPE_Q8_0, GGML_TYPE_Q4_0));
    EXPECT_TRUE(takes(GGML_TYPE_Q4_0, GGML_TYPE_IQ4_NL));
    EXPECT_TRUE(takes(GGML_TYPE_Q5_1, GGML_TYPE_Q4_1));
    EXPECT_FALSE(takes(GGML_TYPE_BF16, GGML_TYPE_Q8_0));
    EXPECT_FALSE(takes(GGML_TYPE_BF16, GGML_TYPE_F16));
    EXPECT_FALSE(takes(GGML_TYPE_F16, GGML_TYPE_BF16));
    // absorbed MLA: K 576 wide, V the strided view of its first 512 values
    for (ggml_type t : {GGML_TYPE_F16, GGML_TYPE_Q8_0, GGML_TYPE_Q4_0}) {
        fa_shape s{576, 512, 1, 64, 16, 1, 1, t, 1, 0.0f, 0.0f, GGML_TYPE_COUNT, true};
        EXPECT_TRUE(ggml_backend_dev_supports_op(vk_dev0(), build_fa(h.ctx, s))) << ggml_type_name(t);
    }
    fa_shape wide{576, 576, 1, 64, 16, 1, 1, GGML_TYPE_F16, 1, 0.0f, 0.0f};  // Dv past 512: the CPU's
    EXPECT_FALSE(ggml_backend_dev_supports_op(vk_dev0(), build_fa(h.ctx, wide)));
}

#ifdef LLAMA_TEST_VK_INTERNALS
// The default thresholds send the shapes above to every kernel (so the default run covers all three).
TEST(VulkanFlashAttn, ShapesPickEachPath) {
    SKIP_WITHOUT_VULKAN();
    if (getenv("GGML_VK_FA"))
        GTEST_SKIP() << "GGML_VK_FA forces the path";
    ASSERT_FALSE(ggml_vk_devices().empty());
    const vk_device *        dev = ggml_vk_devices()[0];
    backend_test::ctx_holder h(16);
    auto                     path = [&](int64_t d, int64_t n_q, int64_t n_kv) {
        return ggml_vk_fa_plan(dev, build_fa(h.ctx, {d, d, n_q, n_kv, 4, 2, 1, GGML_TYPE_F16, 1, 0.0f, 0.0f})).path;
    };
    EXPECT_EQ(path(64, 1, 45), vk_fa_path::row);
    EXPECT_EQ(path(64, 7, 511), vk_fa_path::row);
    EXPECT_EQ(path(64, 1, 700), vk_fa_path::split);
    EXPECT_EQ(path(64, 3, 530), vk_fa_path::split);
    EXPECT_EQ(path(64, 8, 45), vk_fa_path::tiled);
    EXPECT_EQ(path(256, 37, 300), vk_fa_path::tiled);
    const vk_fa_plan p = ggml_vk_fa_plan(dev, build_fa(h.ctx, {256, 256, 37, 300, 4, 4, 1, GGML_TYPE_F32, 1, 0, 0}));
    EXPECT_LE(4 * (p.br * 256 + p.bc * 257 + p.br * p.bc + p.wg), dev->props.limits.maxComputeSharedMemorySize);
    std::printf("D=256 tile: %u (query, head) rows x %u positions, %u invocations, %s row reductions\n", p.br, p.bc,
                p.wg, p.sg ? "subgroup" : "shared-memory");
    // absorbed MLA (K 576, V 512 a view of K): a tile that fits, or the row path when none does
    fa_shape         mla{576, 512, 37, 300, 4, 1, 1, GGML_TYPE_F16, 1, 0, 0, GGML_TYPE_COUNT, true};
    const vk_fa_plan pm = ggml_vk_fa_plan(dev, build_fa(h.ctx, mla));
    if (pm.path == vk_fa_path::tiled) {
        EXPECT_LE(4 * (pm.br * 576 + pm.bc * 577 + pm.br * pm.bc + pm.wg),
                  dev->props.limits.maxComputeSharedMemorySize);
    } else {
        EXPECT_EQ(pm.path, vk_fa_path::row);
    }
    std::printf("Dk=576/Dv=512 prefill: %s path, %u rows x %u positions (shared memory limit %u bytes)\n",
                pm.path == vk_fa_path::tiled ? "tiled" : "row", pm.br, pm.bc,
                dev->props.limits.maxComputeSharedMemorySize);
}
#endif
