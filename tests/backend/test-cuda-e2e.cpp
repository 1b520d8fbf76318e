// End to end with GPU offload on a CUDA device: stories260K (F16, and quantized to Q8_0, Q4_0 and Q4_K)
// and every synthetic model in tests/data/models/synthetic, with all layers and with half the layers
// offloaded, give the CPU run's greedy tokens and logits within 1% of the row RMS; the weights, KV cache
// and nodes really are on the CUDA device. Follows test-vulkan-e2e.cpp. Without a CUDA device every test
// skips with one line; LLAMA_TEST_REQUIRE_CUDA=1 (scripts/gpu-check.sh) makes that a failure.
#include <dirent.h>
#include <gtest/gtest.h>
#include "test-compat.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "e2e-common.h"
#include "micro-model-bounds.h"

using testing_util::data_path;

namespace {

// The same GPU may also be a Vulkan device in a build with both backends; default parameters would then
// spread layers over both. These tests are about CUDA: keep Vulkan out of this process.
const bool k_no_vulkan = (setenv("GGML_VK_DISABLE", "1", 1), true);

ggml_backend_dev_t cuda_dev0() {
    ggml_backend_reg_t reg = ggml_backend_reg_by_name("CUDA");
    return reg && ggml_backend_reg_dev_count(reg) > 0 ? ggml_backend_reg_dev_get(reg, 0) : nullptr;
}

// device buffers are named after the device ("CUDA0"); the pinned host type is "CUDA_Host"
bool on_cuda(const ggml_tensor * t) {
    return t && t->buffer && !ggml_backend_buffer_is_host(t->buffer) && e2e::buft_name_starts_with(t, "CUDA");
}

// CUDA graphs replayed by the context's first backend (0 when the backend does not report them)
uint64_t cuda_graph_launches(llama_context * ctx) {
    using counts_fn   = void (*)(ggml_backend_t, uint64_t *, uint64_t *);
    uint64_t launches = 0;
    if (ggml_backend_reg_t reg = ggml_backend_reg_by_name("CUDA")) {
        if (auto fn = (counts_fn) ggml_backend_reg_get_proc_address(reg, "ggml_backend_cuda_graph_counts")) {
            fn(ctx->get_backends()[0], nullptr, &launches);
        }
    }
    return launches;
}

const e2e::gpu_backend k_cuda = {"CUDA", cuda_dev0, on_cuda, cuda_graph_launches, /*runs_recurrent_ops=*/true};

#define SKIP_WITHOUT_CUDA()                                                               \
    if (!cuda_dev0()) {                                                                   \
        if (e2e::env_is_1("LLAMA_TEST_REQUIRE_CUDA"))                                     \
            FAIL() << "LLAMA_TEST_REQUIRE_CUDA=1 but no CUDA device";                     \
        GTEST_SKIP() << "no CUDA device (build without LLAMA_CUDA, no driver or no GPU)"; \
    }

// greedy steps per run (the CPU reference runs them too, so the micro models' 32K-row output layers
// keep theirs shorter)
constexpr int k_steps       = 16;
constexpr int k_steps_micro = 8;

class CudaE2E : public ::testing::Test {
protected:
    void SetUp() override { llama_log_set(e2e::quiet_log, nullptr); }
    void TearDown() override { llama_log_set(nullptr, nullptr); }
};

}  // namespace

TEST_F(CudaE2E, Stories260KOffloadMatchesCpu) {
    SKIP_WITHOUT_CUDA();
    std::string skip;
    EXPECT_TRUE(e2e::check_model(k_cuda, "models/stories260K.gguf", "Once upon a time", k_steps, skip)) << skip;
}

TEST_F(CudaE2E, EverySyntheticModelOffloadMatchesCpu) {
    SKIP_WITHOUT_CUDA();
    std::vector<std::string> files;
    if (DIR * d = opendir(data_path("models/synthetic").c_str())) {
        while (dirent * e = readdir(d)) {
            const std::string n = e->d_name;
            if (n.size() > 5 && n.compare(n.size() - 5, 5, ".gguf") == 0) {
                files.push_back("models/synthetic/" + n);
            }
        }
        closedir(d);
    }
    std::sort(files.begin(), files.end());
    ASSERT_GE(files.size(), 5u) << "tests/data/models/synthetic is missing";
    int n_run = 0;
    for (const std::string & path : files) {
        std::string skip;
        if (e2e::check_model(k_cuda, path, "Once upon a time", k_steps_micro, skip, 0,
                             micro_bounds::of_file(path).device)) {
            n_run++;
        } else {
            std::printf("[ skip ] %s (architecture not implemented)\n", skip.c_str());
        }
    }
    std::printf("%d of %zu synthetic models run\n", n_run, files.size());
    EXPECT_GE(n_run, 5) << "llama, qwen2, phi3, gemma and gemma2 at least are implemented and must run";
}

// The recurrent and hybrid micro models fully offloaded (mamba2: ssm_conv + ssm_scan; lfm2: the short conv;
// qwen3next / qwen35: ssm_conv + gated_delta_net; kimi-linear: the per-channel gate; granitehybrid, nemotron_h,
// falcon-h1: Mamba-2 layers beside attention): their recurrent nodes run on CUDA (ops-ssm.cu), the states
// follow the layers (at most two splits: the token embeddings on the CPU, the rest on the device) and the
// greedy run matches the CPU's (e2e::check_recurrent_offload).
TEST_F(CudaE2E, RecurrentMicroModelsRunRecurrentOpsOnCuda) {
    SKIP_WITHOUT_CUDA();
    e2e::check_recurrent_offload(
        k_cuda,
        {"models/synthetic/mamba2-micro-f16.gguf", "models/synthetic/lfm2-micro-f16.gguf",
         "models/synthetic/qwen3next-micro-f16.gguf", "models/synthetic/qwen35-micro-f16.gguf",
         "models/synthetic/kimi-linear-micro-f16.gguf", "models/synthetic/granitehybrid-micro-f16.gguf",
         "models/synthetic/nemotron_h-micro-f16.gguf", "models/synthetic/falcon-h1-micro-f16.gguf"},
        k_steps_micro, 2);
}

// Quantized weights (the types a user downloads): the same comparison, CPU vs CUDA on the same file.
TEST_F(CudaE2E, QuantizedModelsOffloadMatchCpu) {
    SKIP_WITHOUT_CUDA();
    const struct {
        llama_ftype  ftype;
        const char * name;
    } kinds[] = {
        {LLAMA_FTYPE_MOSTLY_Q8_0, "q8_0"}, {LLAMA_FTYPE_MOSTLY_Q4_0, "q4_0"}, {LLAMA_FTYPE_MOSTLY_Q4_K_M, "q4_k_m"}};
    for (const auto & k : kinds) {
        const std::string           out = testing_util::write_temp_file(std::string("stories-") + k.name, {});
        llama_model_quantize_params qp  = llama_model_quantize_default_params();
        qp.ftype                        = k.ftype;
        qp.nthread                      = 2;
        ASSERT_EQ(llama_model_quantize(data_path("models/stories260K.gguf").c_str(), out.c_str(), &qp), 0u)
            << k.name << ": " << llama_last_error();
        std::string skip;
        EXPECT_TRUE(e2e::check_model(k_cuda, out, "Once upon a time", k_steps, skip)) << k.name << ": " << skip;
        remove(out.c_str());
    }
}

// A Q8_0 K and a Q4_0 V cache on CUDA (fa-ext.cu takes every pair of cache types; e2e::check_mixed_kv_cache).
// The CUDA writers quantize bit for bit as the CPU's (quantize.cuh), so both caches hold the same blocks and
// the logits keep the default bound.
TEST_F(CudaE2E, MixedQuantizedKvCacheFlashAttentionOnCuda) {
    SKIP_WITHOUT_CUDA();
    e2e::check_mixed_kv_cache(k_cuda, k_steps_micro, 2, 0.01);
}

TEST_F(CudaE2E, KvCacheFollowsLayersUnlessOffloadKqvIsOff) {
    SKIP_WITHOUT_CUDA();
    e2e::check_kv_placement(k_cuda);
}

TEST_F(CudaE2E, DefaultDevicesAndAbortCallback) {
    SKIP_WITHOUT_CUDA();
    e2e::check_default_devices_and_abort(k_cuda);
}

TEST_F(CudaE2E, LoadModesUploadTheSameWeights) {
    SKIP_WITHOUT_CUDA();
    e2e::check_load_modes(k_cuda);
}

TEST_F(CudaE2E, SplitModeNoneAndMainGpu) {
    SKIP_WITHOUT_CUDA();
    e2e::check_split_mode_none(k_cuda);
}
