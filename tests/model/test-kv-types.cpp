// KV cache types end to end: every K and V type (F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL, and
// every mixed pair) with flash attention on and off gives logits within a per-type bound of the F16
// cache's (docs/kv-cache.md states the bounds and how they were measured); both attention paths read
// the same cache values, so they agree much more closely with each other; a cache whose blocks do not
// fit the heads is refused at creation with a reason; the layers offloaded to a Vulkan device (lavapipe
// here) give the CPU's results within the same bounds. Accuracy4K prints the 4K-context accuracy
// table of the docs. LLAMA_TEST_KV_PRINT=1 prints the errors measured per pair (how the bounds below
// were derived).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <unistd.h>

#include "../../examples/gguf-synth/gguf-synth.h"
#include "llama.h"
#include "test-common.h"
#include "test-compat.h"
#include "test-llama-util.h"

using namespace llama_test_util;

namespace {

// lavapipe (a CPU-type Vulkan device) is hidden unless asked for; only the Vulkan test offloads.
const bool k_allow_cpu_devices = [] {
    setenv("GGML_VK_ALLOW_CPU_DEVICES", "1", 0);
    return true;
}();

void quiet_log(ggml_log_level, const char *, void *) {}

const ggml_type k_types[] = {GGML_TYPE_F16,  GGML_TYPE_BF16, GGML_TYPE_Q8_0, GGML_TYPE_Q4_0,
                             GGML_TYPE_Q4_1, GGML_TYPE_Q5_0, GGML_TYPE_Q5_1, GGML_TYPE_IQ4_NL};

// Largest error, relative to the F16 cache's row RMS, that a K (is_v false) or V cache of type t may
// add to the logits of the test model: twice the largest value measured over the cases here (both
// attention paths, the other side F16; docs/kv-cache.md). V errors pass straight into the output,
// K errors only through the softmax weights, hence the smaller K bounds. The errors of a mixed pair
// add up at most.
double bound_of(ggml_type t, bool is_v) {
    switch (t) {
        case GGML_TYPE_F16:
        case GGML_TYPE_F32:
            return 0.0;
        case GGML_TYPE_BF16:
            return is_v ? 0.016 : 0.004;
        case GGML_TYPE_Q8_0:
            return is_v ? 0.04 : 0.012;
        case GGML_TYPE_Q5_0:
            return is_v ? 0.22 : 0.05;
        case GGML_TYPE_Q5_1:
            return is_v ? 0.18 : 0.05;
        case GGML_TYPE_Q4_0:
            return is_v ? 0.42 : 0.13;
        case GGML_TYPE_Q4_1:
            return is_v ? 0.44 : 0.09;
        case GGML_TYPE_IQ4_NL:
            return is_v ? 0.42 : 0.09;
        default:
            return 0.0;
    }
}

// The models written by synth_model, removed when the test program ends.
std::vector<std::string> & written_models() {
    static std::vector<std::string> v;
    return v;
}
struct remove_written_models : ::testing::Environment {
    void TearDown() override {
        for (const std::string & p : written_models())
            std::remove(p.c_str());
    }
};
const auto * k_cleanup = ::testing::AddGlobalTestEnvironment(new remove_written_models);

// A llama-architecture model with 32-wide heads (the quantized blocks fit them), written once per
// process. Its weights are wider than the shared micro models' (std 0.1) so attention is peaked and
// the logits depend on both the K and the V values.
std::string synth_model(int64_t n_ctx) {
    const std::string path =
        testing::TempDir() + "test-kv-types-" + std::to_string(getpid()) + "-" + std::to_string(n_ctx) + ".gguf";
    if (FILE * f = fopen(path.c_str(), "rb")) {
        fclose(f);
        return path;
    }
    synth::params p;
    synth::apply_preset("micro", p);
    p.n_embd    = 128;
    p.n_head    = 4;
    p.n_head_kv = 2;
    p.n_ff      = 256;
    p.n_ctx     = n_ctx;
    p.std       = 0.05f;
    p.n_threads = 2;
    std::string err;
    EXPECT_TRUE(synth::write_model(p, path, err)) << err;
    written_models().push_back(path);
    return path;
}

// n pseudo-random ids in 3..252 (inside every micro vocabulary), without the short period of
// synthetic_prompt, so a 4000-token prompt does not repeat itself.
std::vector<llama_token> prompt_of(int n) {
    std::vector<llama_token> t((size_t) n);
    uint32_t                 x = 12345;
    for (auto & id : t) {
        x  = x * 1664525u + 1013904223u;
        id = 3 + (llama_token) ((x >> 8) % 250);
    }
    return t;
}

struct run_opts {
    ggml_type type_k = GGML_TYPE_F16;
    ggml_type type_v = GGML_TYPE_F16;
    bool      fa     = true;
    uint32_t  n_ctx  = 256;
};

ctx_ptr make_ctx(llama_model * m, const run_opts & o) {
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx                = o.n_ctx;
    cp.n_batch              = o.n_ctx;
    cp.n_ubatch             = std::min<uint32_t>(512, o.n_ctx);
    cp.n_threads            = 2;
    cp.n_threads_batch      = 2;
    cp.type_k               = o.type_k;
    cp.type_v               = o.type_v;
    cp.flash_attn_type      = o.fa ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED;
    return ctx_ptr(llama_init_from_model(m, cp));
}

// Logits rows of a fixed run: the prompt as one batch (rows of its last n_tail positions), then n_tail
// more tokens one at a time (the decode path), so both the prefill and the decode kernels are compared.
// The fed tokens do not depend on the logits: every type sees the same sequence.
std::vector<float> run_rows(llama_model * m, const run_opts & o, int n_prompt, int n_tail) {
    ctx_ptr ctx = make_ctx(m, o);
    EXPECT_NE(ctx, nullptr) << ggml_type_name(o.type_k) << "/" << ggml_type_name(o.type_v) << ": "
                            << llama_last_error();
    if (!ctx)
        return {};
    const int                      nv   = llama_vocab_n_tokens(llama_model_get_vocab(m));
    const std::vector<llama_token> toks = prompt_of(n_prompt + n_tail);
    std::vector<float>             rows;
    {
        owned_batch b(n_prompt);
        for (int i = 0; i < n_prompt; i++)
            b.add(toks[(size_t) i], i, {0}, i >= n_prompt - n_tail);
        EXPECT_EQ(llama_decode(ctx.get(), b.b), 0) << llama_last_error();
        for (int i = n_prompt - n_tail; i < n_prompt; i++) {
            const float * lg = llama_get_logits_ith(ctx.get(), i);
            EXPECT_NE(lg, nullptr);
            if (!lg)
                return {};
            rows.insert(rows.end(), lg, lg + nv);
        }
    }
    for (int i = n_prompt; i < n_prompt + n_tail; i++) {
        owned_batch b(1);
        b.add(toks[(size_t) i], i, {0});
        EXPECT_EQ(llama_decode(ctx.get(), b.b), 0) << llama_last_error();
        const float * lg = llama_get_logits_ith(ctx.get(), -1);
        EXPECT_NE(lg, nullptr);
        if (!lg)
            return {};
        rows.insert(rows.end(), lg, lg + nv);
    }
    return rows;
}

struct err_stats {
    double max_rel = 0;  // largest |a - b| / RMS(b row)
    double rms_rel = 0;  // RMS over all rows of (a - b) / RMS(b row)
    double top1    = 0;  // fraction of rows with the same argmax
};

err_stats compare(const std::vector<float> & got, const std::vector<float> & ref, int nv) {
    err_stats s;
    if (got.size() != ref.size() || ref.empty()) {
        ADD_FAILURE() << "row counts differ: " << got.size() << " vs " << ref.size();
        return s;
    }
    const size_t n_rows = ref.size() / (size_t) nv;
    double       sum_sq = 0;
    int          same   = 0;
    for (size_t r = 0; r < n_rows; r++) {
        const float * a   = got.data() + r * (size_t) nv;
        const float * b   = ref.data() + r * (size_t) nv;
        double        ssb = 0;
        for (int i = 0; i < nv; i++)
            ssb += (double) b[i] * b[i];
        const double rms = std::sqrt(ssb / nv);
        for (int i = 0; i < nv; i++) {
            const double d = (a[i] - (double) b[i]) / rms;
            s.max_rel      = std::max(s.max_rel, std::fabs(d));
            sum_sq += d * d;
        }
        same += argmax(a, nv) == argmax(b, nv);
    }
    s.rms_rel = std::sqrt(sum_sq / (double) ref.size());
    s.top1    = (double) same / (double) n_rows;
    return s;
}

std::string pair_name(ggml_type k, ggml_type v, bool fa) {
    return std::string("K ") + ggml_type_name(k) + " V " + ggml_type_name(v) + (fa ? " fa" : " no-fa");
}

class KvTypes : public ::testing::Test {
protected:
    void SetUp() override { llama_log_set(quiet_log, nullptr); }
    void TearDown() override { llama_log_set(nullptr, nullptr); }
};

}  // namespace

TEST_F(KvTypes, EveryPairWithAndWithoutFlashAttentionIsWithinItsBound) {
    llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers       = 0;  // the CPU (lavapipe, when loaded, would otherwise take the layers)
    model_ptr m(llama_model_load_from_file(synth_model(256).c_str(), mp));
    ASSERT_NE(m, nullptr) << llama_last_error();
    const int nv = llama_vocab_n_tokens(llama_model_get_vocab(m.get()));
    for (bool fa : {true, false}) {
        run_opts o;
        o.fa                         = fa;
        const std::vector<float> ref = run_rows(m.get(), o, 120, 6);
        ASSERT_FALSE(ref.empty());
        for (ggml_type tk : k_types)
            for (ggml_type tv : k_types) {
                o.type_k                     = tk;
                o.type_v                     = tv;
                const std::vector<float> got = run_rows(m.get(), o, 120, 6);
                const err_stats          s   = compare(got, ref, nv);
                // the errors of K and V add up at most; 1e-6 leaves F16/F16 float-summation noise
                const double bound = bound_of(tk, false) + bound_of(tv, true) + 1e-6;
                if (getenv("LLAMA_TEST_KV_PRINT"))
                    std::printf("MEAS %s %s %d %.5f %.5f %.3f\n", ggml_type_name(tk), ggml_type_name(tv), fa, s.max_rel,
                                s.rms_rel, s.top1);
                EXPECT_LE(s.max_rel, bound) << pair_name(tk, tv, fa);
                if (tk == tv && tk != GGML_TYPE_F16) {
                    // a cache that changed nothing would pass any bound: each type must move the logits
                    EXPECT_GT(s.max_rel, 0.0) << pair_name(tk, tv, fa);
                }
            }
    }
}

// Both attention paths read the same cache values (a quantized V stays row-major without flash
// attention and is gathered as F32 in the graph); they differ in the order of summation and in Q:
// the plain path's K*Q product rounds Q to K's dot-product type (F16, or Q8_0 for a block type),
// flash attention keeps it F32. Measured at most 0.018 of the row RMS (Q4_1); bound 0.04.
TEST_F(KvTypes, FlashAndPlainAttentionAgreeOnEachType) {
    llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers       = 0;  // the CPU (lavapipe, when loaded, would otherwise take the layers)
    model_ptr m(llama_model_load_from_file(synth_model(256).c_str(), mp));
    ASSERT_NE(m, nullptr) << llama_last_error();
    const int nv = llama_vocab_n_tokens(llama_model_get_vocab(m.get()));
    for (ggml_type t : k_types) {
        run_opts o;
        o.type_k = o.type_v        = t;
        o.fa                       = true;
        const std::vector<float> a = run_rows(m.get(), o, 120, 6);
        o.fa                       = false;
        const std::vector<float> b = run_rows(m.get(), o, 120, 6);
        const err_stats          s = compare(b, a, nv);
        EXPECT_LE(s.max_rel, 0.04) << ggml_type_name(t);
        EXPECT_EQ(s.top1, 1.0) << ggml_type_name(t);
    }
}

// A quantized K cache shifts (llama_memory_seq_add): its rows are dequantized, rotated and requantized.
// The next logits stay within twice the type's K bound of a cache of the type that decoded the prompt
// at the shifted positions (the rotated rows are quantized twice).
TEST_F(KvTypes, AQuantizedKCacheShifts) {
    llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers       = 0;
    model_ptr m(llama_model_load_from_file(synth_model(256).c_str(), mp));
    ASSERT_NE(m, nullptr) << llama_last_error();
    const int                      nv    = llama_vocab_n_tokens(llama_model_get_vocab(m.get()));
    const int                      n     = 40;
    const llama_pos                delta = 10;
    const std::vector<llama_token> toks  = prompt_of(n + 1);
    auto                           next  = [&](const run_opts & o, llama_pos pos0, bool shift) {
        ctx_ptr c = make_ctx(m.get(), o);
        EXPECT_NE(c, nullptr) << llama_last_error();
        if (!c)
            return std::vector<float>();
        owned_batch b(n);
        for (int i = 0; i < n; i++)
            b.add(toks[(size_t) i], pos0 + i, {0}, false);
        EXPECT_EQ(llama_decode(c.get(), b.b), 0) << llama_last_error();
        if (shift)
            llama_memory_seq_add(llama_get_memory(c.get()), 0, 0, -1, delta);
        owned_batch one(1);
        one.add(toks[(size_t) n], n + delta, {0});
        EXPECT_EQ(llama_decode(c.get(), one.b), 0) << llama_last_error();
        const float * lg = llama_get_logits_ith(c.get(), -1);
        return lg ? std::vector<float>(lg, lg + nv) : std::vector<float>();
    };
    for (bool fa : {true, false})
        for (ggml_type t : {GGML_TYPE_Q8_0, GGML_TYPE_Q4_0}) {
            run_opts o;
            o.fa              = fa;
            o.type_k          = t;
            const err_stats s = compare(next(o, 0, true), next(o, delta, false), nv);
            if (getenv("LLAMA_TEST_KV_PRINT"))
                printf("shifted %s: %.3e of RMS\n", pair_name(t, o.type_v, fa).c_str(), s.max_rel);
            EXPECT_LE(s.max_rel, 2 * bound_of(t, false)) << pair_name(t, o.type_v, fa);
        }
}

// stories260K has 8-wide heads: the float types work on it, a block type is refused at creation
// with the reason (never a crash or a cache that straddles heads).
TEST_F(KvTypes, BlockTypesNeedHeadsTheirBlockDivides) {
    llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers       = 0;  // the CPU (lavapipe, when loaded, would otherwise take the layers)
    model_ptr m(llama_model_load_from_file(testing_util::data_path("models/stories260K.gguf").c_str(), mp));
    ASSERT_NE(m, nullptr) << llama_last_error();
    const int nv = llama_vocab_n_tokens(llama_model_get_vocab(m.get()));
    for (bool fa : {true, false}) {
        run_opts o;
        o.fa                         = fa;
        const std::vector<float> ref = run_rows(m.get(), o, 100, 6);
        ASSERT_FALSE(ref.empty());
        for (ggml_type tk : {GGML_TYPE_F16, GGML_TYPE_BF16, GGML_TYPE_F32})
            for (ggml_type tv : {GGML_TYPE_F16, GGML_TYPE_BF16, GGML_TYPE_F32}) {
                o.type_k          = tk;
                o.type_v          = tv;
                const err_stats s = compare(run_rows(m.get(), o, 100, 6), ref, nv);
                EXPECT_LE(s.max_rel, bound_of(tk, false) + bound_of(tv, true) + 2e-3) << pair_name(tk, tv, fa);
            }
        for (ggml_type t : k_types) {
            if (ggml_blck_size(t) == 1)
                continue;
            for (int which = 0; which < 2; which++) {
                o.type_k = which == 0 ? t : GGML_TYPE_F16;
                o.type_v = which == 0 ? GGML_TYPE_F16 : t;
                EXPECT_EQ(make_ctx(m.get(), o), nullptr) << pair_name(o.type_k, o.type_v, fa);
                EXPECT_NE(std::string(llama_last_error()).find("block size"), std::string::npos) << llama_last_error();
            }
        }
    }
}

// Types that are no KV cache type are refused at creation with the reason: an invalid enum value, and
// valid types that are not one of the nine (integers, K-quants, ternary), which would otherwise fail
// inside graph building. Never a crash.
TEST_F(KvTypes, TypesThatAreNoCacheTypeAreRefusedAtCreation) {
    llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers       = 0;
    model_ptr m(llama_model_load_from_file(synth_model(256).c_str(), mp));
    ASSERT_NE(m, nullptr) << llama_last_error();
    for (bool fa : {true, false})
        for (int which = 0; which < 2; which++) {
            for (int t : {(int) GGML_TYPE_COUNT, 999, -1}) {
                run_opts o;
                o.fa                               = fa;
                (which == 0 ? o.type_k : o.type_v) = (ggml_type) t;
                EXPECT_EQ(make_ctx(m.get(), o), nullptr) << t;
                EXPECT_NE(std::string(llama_last_error()).find("invalid KV cache type"), std::string::npos)
                    << llama_last_error();
            }
            for (ggml_type t : {GGML_TYPE_I32, GGML_TYPE_I8, GGML_TYPE_Q4_K, GGML_TYPE_TQ1_0, GGML_TYPE_MXFP4}) {
                run_opts o;
                o.fa                               = fa;
                (which == 0 ? o.type_k : o.type_v) = t;
                EXPECT_EQ(make_ctx(m.get(), o), nullptr) << ggml_type_name(t);
                EXPECT_NE(std::string(llama_last_error()).find("is not a KV cache type"), std::string::npos)
                    << llama_last_error();
            }
        }
}

// The accuracy table of docs/kv-cache.md: n_ctx 4096, a 4000-token prompt, the last 32 positions of
// the prompt and 32 decode steps; max and RMS error relative to the row RMS and top-1 agreement per
// type (K and V of that type, flash attention on), printed as the table of the docs (about 6 s here).
TEST_F(KvTypes, Accuracy4K) {
    llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers       = 0;  // the CPU (lavapipe, when loaded, would otherwise take the layers)
    model_ptr m(llama_model_load_from_file(synth_model(4096).c_str(), mp));
    ASSERT_NE(m, nullptr) << llama_last_error();
    const int nv = llama_vocab_n_tokens(llama_model_get_vocab(m.get()));
    run_opts  o;
    o.n_ctx                      = 4096;
    const std::vector<float> ref = run_rows(m.get(), o, 4000, 32);
    ASSERT_FALSE(ref.empty());
    std::printf("%-8s %12s %12s %8s %16s\n", "type", "max/rowRMS", "RMS/rowRMS", "top-1", "bytes/token/layer");
    for (ggml_type t : k_types) {
        o.type_k = o.type_v = t;
        const err_stats s   = compare(run_rows(m.get(), o, 4000, 32), ref, nv);
        const size_t    row = 2 * ggml_row_size(t, 64);  // K and V of the test model (2 KV heads of 32)
        std::printf("%-8s %12.5f %12.5f %8.3f %16zu\n", ggml_type_name(t), s.max_rel, s.rms_rel, s.top1, row);
        EXPECT_LE(s.max_rel, 2 * (bound_of(t, false) + bound_of(t, true)) + 1e-6) << ggml_type_name(t);
    }
}

// Every type with its layers (and their KV) on a Vulkan device, flash attention on and off: within the
// type's bound of the CPU's F16 cache. Types and pairs the device's kernels lack (BF16, mixed pairs
// under flash attention) run those nodes on the CPU through the scheduler, which this also checks.
TEST_F(KvTypes, OffloadedToVulkanWithinTheSameBounds) {
    // the backend modules are loaded with the first model
    const std::string  path = synth_model(256);
    llama_model_params mp   = llama_model_default_params();
    mp.n_gpu_layers         = 0;
    model_ptr cpu(llama_model_load_from_file(path.c_str(), mp));
    mp.n_gpu_layers = 99;
    model_ptr gpu(llama_model_load_from_file(path.c_str(), mp));
    ASSERT_TRUE(cpu && gpu) << llama_last_error();
    ggml_backend_reg_t reg = ggml_backend_reg_by_name("Vulkan");
    if (!reg || ggml_backend_reg_dev_count(reg) == 0) {
        const char * req = getenv("LLAMA_TEST_REQUIRE_VULKAN");
        if (req && req[0] == '1') {
            FAIL() << "LLAMA_TEST_REQUIRE_VULKAN=1 but no Vulkan device";
        }
        GTEST_SKIP() << "no Vulkan device (build without Vulkan or no driver)";
    }
    const int nv = llama_vocab_n_tokens(llama_model_get_vocab(cpu.get()));
    for (bool fa : {true, false}) {
        run_opts o;
        o.fa                         = fa;
        const std::vector<float> ref = run_rows(cpu.get(), o, 120, 6);
        ASSERT_FALSE(ref.empty());
        std::vector<std::pair<ggml_type, ggml_type>> pairs;
        for (ggml_type t : k_types)
            pairs.push_back({t, t});
        pairs.push_back({GGML_TYPE_Q8_0, GGML_TYPE_F16});
        pairs.push_back({GGML_TYPE_F16, GGML_TYPE_Q4_0});
        for (const auto & kv : pairs) {
            o.type_k          = kv.first;
            o.type_v          = kv.second;
            const err_stats s = compare(run_rows(gpu.get(), o, 120, 6), ref, nv);
            // 2e-3: the device's own summation order and exp, on top of the type's error
            EXPECT_LE(s.max_rel, bound_of(kv.first, false) + bound_of(kv.second, true) + 2e-3)
                << pair_name(kv.first, kv.second, fa);
        }
    }
}
