// End to end with GPU offload on the Vulkan device (lavapipe in CI): stories260K and the synthetic
// *-micro-f16 models, with all layers and with half the layers offloaded, give the CPU run's greedy
// tokens and logits within 1% of the row RMS; the weights, KV cache and nodes really are on the
// Vulkan device. Also the device-visibility policy: without GGML_VK_ALLOW_CPU_DEVICES a CPU-type
// Vulkan device is not used (checked in a child process, since the registry is enumerated once).
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include "test-compat.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../../examples/gguf-synth/gguf-synth.h"
#include "e2e-common.h"
#include "micro-model-bounds.h"
#include "test-iquant-blocks.h"
#include "test-synth-model.h"

extern char ** environ;

using e2e::model_ptr;
using e2e::on_cpu;
using testing_util::data_path;

namespace {

// Must run before anything touches the backend registry: lavapipe is a CPU-type Vulkan device, hidden
// unless asked for. The child of DefaultPolicyHidesCpuDevices runs with LLAMA_TEST_VK_CHILD set and
// keeps the default policy.
const bool k_allow_cpu_devices = [] {
    if (!getenv("LLAMA_TEST_VK_CHILD")) {
        setenv("GGML_VK_ALLOW_CPU_DEVICES", "1", 0);
    }
    return true;
}();

ggml_backend_dev_t vk_dev0() {
    ggml_backend_reg_t reg = ggml_backend_reg_by_name("Vulkan");
    return reg && ggml_backend_reg_dev_count(reg) > 0 ? ggml_backend_reg_dev_get(reg, 0) : nullptr;
}

bool on_vulkan(const ggml_tensor * t) {
    return e2e::buft_name_starts_with(t, "Vulkan");
}

const e2e::gpu_backend k_vulkan = {"Vulkan", vk_dev0, on_vulkan, nullptr, /*runs_recurrent_ops=*/true};

#define SKIP_WITHOUT_VULKAN()                                                   \
    if (!vk_dev0()) {                                                           \
        if (e2e::env_is_1("LLAMA_TEST_REQUIRE_VULKAN"))                         \
            FAIL() << "LLAMA_TEST_REQUIRE_VULKAN=1 but no Vulkan device";       \
        GTEST_SKIP() << "no Vulkan device (build without Vulkan or no driver)"; \
    }

// stories260K runs the full 16 steps; the micro models (32K-row output layers, ~40 tok/s fully
// offloaded on lavapipe with the subgroup GEMV) run fewer so the whole file stays around 15 s
constexpr int k_steps       = 16;
constexpr int k_steps_micro = 6;
constexpr int k_steps_quant = 8;
// fully offloaded: the token embeddings' get_rows on the CPU, everything after it on Vulkan
constexpr int k_max_splits = 2;
// The CPU quantizes the activations of a quantized matmul to 8 bits (its vec_dot type); Vulkan keeps
// them F32 and dequantizes the weights exactly, so logits differ by a few % of the RMS (greedy tokens
// still must match).
constexpr double k_quant_logit_tol = 0.08;

class VulkanE2E : public ::testing::Test {
protected:
    void SetUp() override { llama_log_set(e2e::quiet_log, nullptr); }
    void TearDown() override { llama_log_set(nullptr, nullptr); }
};

}  // namespace

TEST_F(VulkanE2E, Stories260KOffloadMatchesCpu) {
    SKIP_WITHOUT_VULKAN();
    std::string skip;
    EXPECT_TRUE(e2e::check_model(k_vulkan, "models/stories260K.gguf", "Once upon a time", k_steps, skip)) << skip;
}

// Every synthetic model (dense and mixture-of-experts: llama-moe, qwen3moe, gpt-oss) runs fully on
// Vulkan: every layer matrix there, at most k_max_splits splits.
TEST_F(VulkanE2E, SyntheticMicroModelsOffloadMatchCpu) {
    SKIP_WITHOUT_VULKAN();
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
    ASSERT_GE(files.size(), 10u) << "tests/data/models/synthetic is missing";
    int n_run = 0;
    for (const std::string & path : files) {
        std::string skip;
        if (e2e::check_model(k_vulkan, path, "Once upon a time", k_steps_micro, skip, k_max_splits,
                             micro_bounds::of_file(path).device)) {
            n_run++;
        } else {
            std::printf("[ skip ] %s (architecture not implemented)\n", skip.c_str());
        }
    }
    std::printf("%d of %zu synthetic models run\n", n_run, files.size());
    EXPECT_EQ(n_run, (int) files.size()) << "every synthetic architecture is implemented and must run";
}

// DeepSeek's own attention widths: the absorbed latent cache's K is 576 wide (512 latent + 64 rope)
// and V the strided view of its first 512 values. Flash attention (on by default) must run on Vulkan:
// with it on the CPU the graph splits around every layer's attention (6 splits instead of 2).
TEST_F(VulkanE2E, DeepSeekWidthLatentAttentionOnVulkan) {
    SKIP_WITHOUT_VULKAN();
    const std::string path = testing_util::write_temp_file("vk-ds512-f16", {});
    synth::params     p;
    ASSERT_TRUE(synth::apply_micro_model("deepseek2", p));
    p.n_lora_kv = 512, p.n_rot = 64, p.head_dim = 192, p.n_lora_q = 256;
    p.n_embd = 512, p.n_head = 8, p.n_layer = 2, p.n_ctx = 1024, p.n_threads = 2;
    p.vocab_path = data_path("models/stories260K.gguf");  // 512 tokens
    std::string err;
    ASSERT_TRUE(synth::write_model(p, path, err)) << err;
    std::string skip;
    EXPECT_TRUE(e2e::check_model(k_vulkan, path, "Once upon a time", k_steps_micro, skip, k_max_splits)) << skip;
    remove(path.c_str());
}

// The recurrent micro models (mamba2: ssm_conv + ssm_scan; lfm2: the short conv; qwen3next / qwen35:
// ssm_conv + gated_delta_net) fully offloaded: their recurrent nodes run on Vulkan (e2e::check_recurrent_offload).
// SyntheticMicroModelsOffloadMatchCpu checks the same for every model that has such nodes; this one also fails if a
// model stops having them.
TEST_F(VulkanE2E, RecurrentMicroModelsRunRecurrentOpsOnVulkan) {
    SKIP_WITHOUT_VULKAN();
    e2e::check_recurrent_offload(
        k_vulkan,
        {"models/synthetic/mamba2-micro-f16.gguf", "models/synthetic/lfm2-micro-f16.gguf",
         "models/synthetic/qwen3next-micro-f16.gguf", "models/synthetic/qwen35-micro-f16.gguf"},
        k_steps_micro, k_max_splits);
}

// A Q8_0 K and a Q4_0 V cache on Vulkan (one dequantizer per side in the shaders; a pair the device
// declined would run on the CPU and split the graph around each layer's attention;
// e2e::check_mixed_kv_cache: prefill through the tiled kernel, decode through the per-row one). Vulkan's
// KV writer (set_rows_q.comp) quantizes bit for bit as the CPU's, so both caches hold the same blocks
// and the logits keep the default bound.
TEST_F(VulkanE2E, MixedQuantizedKvCacheFlashAttentionOnVulkan) {
    SKIP_WITHOUT_VULKAN();
    e2e::check_mixed_kv_cache(k_vulkan, k_steps_quant, k_max_splits, 0.01);
}

TEST_F(VulkanE2E, KvCacheFollowsLayersUnlessOffloadKqvIsOff) {
    SKIP_WITHOUT_VULKAN();
    e2e::check_kv_placement(k_vulkan);
}

TEST_F(VulkanE2E, DefaultDevicesAndAbortCallback) {
    SKIP_WITHOUT_VULKAN();
    e2e::check_default_devices_and_abort(k_vulkan);
}

TEST_F(VulkanE2E, LoadModesUploadTheSameWeights) {
    SKIP_WITHOUT_VULKAN();
    e2e::check_load_modes(k_vulkan);
}

// Quantized weights: with every layer offloaded nothing stays on the CPU (every layer matrix on
// Vulkan, at most k_max_splits splits: token embeddings on the CPU, the rest on Vulkan) and the run
// matches the CPU run of the same file. stories260K's 64/172-wide rows take the fallback types
// (Q5_0, Q5_1, Q8_0, IQ4_NL, F16); the synthetic 256-wide "tiny" llama takes the K-quants themselves
// (Q4_K_M = Q4_K + Q6_K, Q5_K_M = Q5_K + Q6_K, Q3_K_M, Q2_K, Q6_K). Greedy tokens must match; IQ4_XS
// is left out here because its 8-bit-activation CPU error flips a near-tie of this random model
// (the op harness covers it, and Vulkan's quantized matmuls match the exact reference to 1e-10).
TEST_F(VulkanE2E, QuantizedModelsOffloadMatchCpu) {
    SKIP_WITHOUT_VULKAN();
    const std::string tiny = testing_util::write_temp_file("vk-tiny-f16", {});
    {
        synth::params p;
        synth::apply_preset("tiny", p);  // 256 wide, n_ff 768, untied LM head: every K-quant fits
        p.n_layer    = 2;
        p.n_threads  = 2;
        p.vocab_path = data_path("models/stories260K.gguf");  // 512 tokens
        std::string err;
        ASSERT_TRUE(synth::write_model(p, tiny, err)) << err;
    }
    const struct {
        const char * model;  // under tests/data, or absolute
        llama_ftype  ftype;
        const char * name;
    } kinds[] = {
        {"models/stories260K.gguf", LLAMA_FTYPE_MOSTLY_Q4_K_M, "stories-q4_k_m"},
        {"models/stories260K.gguf", LLAMA_FTYPE_MOSTLY_Q5_K_M, "stories-q5_k_m"},
        {"models/stories260K.gguf", LLAMA_FTYPE_MOSTLY_Q6_K, "stories-q6_k"},
        {"models/stories260K.gguf", LLAMA_FTYPE_MOSTLY_Q4_1, "stories-q4_1"},
        {tiny.c_str(), LLAMA_FTYPE_MOSTLY_Q4_K_M, "tiny-q4_k_m"},
        {tiny.c_str(), LLAMA_FTYPE_MOSTLY_Q5_K_M, "tiny-q5_k_m"},
        {tiny.c_str(), LLAMA_FTYPE_MOSTLY_Q3_K_M, "tiny-q3_k_m"},
        {tiny.c_str(), LLAMA_FTYPE_MOSTLY_Q2_K, "tiny-q2_k"},
        {tiny.c_str(), LLAMA_FTYPE_MOSTLY_Q6_K, "tiny-q6_k"},
    };
    for (const auto & k : kinds) {
        const std::string out = e2e::quantize_to_temp(k.model, k.ftype, k.name);
        if (out.empty()) {
            continue;
        }
        std::string skip;
        EXPECT_TRUE(
            e2e::check_model(k_vulkan, out, "Once upon a time", k_steps_quant, skip, k_max_splits, k_quant_logit_tol))
            << k.name << ": " << skip;
        remove(out.c_str());
    }
    remove(tiny.c_str());
}

// gpt-oss ships its experts in MXFP4: the MoE micro models quantized MXFP4_MOE (experts MXFP4, the rest
// Q8_0) run fully offloaded (experts included, no CPU split) and match the CPU run of the same file.
TEST_F(VulkanE2E, Mxfp4MoeModelsOffloadMatchCpu) {
    SKIP_WITHOUT_VULKAN();
    for (const char * rel : {"models/synthetic/gpt-oss-micro-f16.gguf", "models/synthetic/qwen3moe-micro-f16.gguf"}) {
        const std::string out = e2e::quantize_to_temp(rel, LLAMA_FTYPE_MOSTLY_MXFP4_MOE, "vk-mxfp4-moe");
        if (out.empty()) {
            continue;
        }
        {
            model_ptr m = e2e::load(out, 0, nullptr);
            ASSERT_NE(m, nullptr) << llama_last_error();
            ASSERT_NE(m->layers[0].ffn_down_exps, nullptr) << rel;
            EXPECT_EQ(m->layers[0].ffn_down_exps->type, GGML_TYPE_MXFP4) << rel;  // the test is about MXFP4
        }
        std::string skip;
        EXPECT_TRUE(
            e2e::check_model(k_vulkan, out, "Once upon a time", k_steps_quant, skip, k_max_splits, k_quant_logit_tol))
            << rel << ": " << skip;
        remove(out.c_str());
    }
}

// An i-quant model file (random i-quant blocks written like test-iquant-files, see test-iquant-blocks.h)
// runs fully offloaded with every matrix on Vulkan and no CPU split. Vulkan dequantizes exactly and keeps
// the activations F32, so it must match the CPU run of the F32 twin holding the same values (the CPU's
// i-quant path would differ by its 8-bit activations).
TEST_F(VulkanE2E, IquantModelsRunOnVulkanLikeTheirF32Values) {
    SKIP_WITHOUT_VULKAN();
    synth::params p       = llama_test_util::superblock_llama();
    p.vocab_path          = data_path("models/stories260K.gguf");  // 512 tokens
    p.n_vocab             = 0;                                     // the vocab file's size
    const std::string src = testing_util::write_temp_file("vk-iq-src.gguf", {});
    std::string       err;
    ASSERT_TRUE(synth::write_model(p, src, err)) << err;
    for (ggml_type t : {GGML_TYPE_IQ2_XXS, GGML_TYPE_IQ2_XS, GGML_TYPE_IQ2_S, GGML_TYPE_IQ3_XXS, GGML_TYPE_IQ3_S,
                        GGML_TYPE_IQ1_S, GGML_TYPE_IQ1_M}) {
        const std::string name = ggml_type_name(t);
        const std::string fq   = testing_util::write_temp_file("vk-iq-q.gguf", {});
        const std::string ff   = testing_util::write_temp_file("vk-iq-f.gguf", {});
        ASSERT_TRUE(iquant_blocks::write_pair(src, t, fq, ff)) << name;
        model_ptr mf = e2e::load(ff, 0, vk_dev0());
        model_ptr mq = e2e::load(fq, 999, vk_dev0());
        ASSERT_NE(mf, nullptr) << llama_last_error();
        ASSERT_NE(mq, nullptr) << llama_last_error();
        const e2e::run_result cpu = e2e::run_greedy(k_vulkan, mf.get(), "Once upon a time", k_steps_quant);
        const e2e::run_result vk  = e2e::run_greedy(k_vulkan, mq.get(), "Once upon a time", k_steps_quant);
        for (const ggml_tensor * w : e2e::layer_matrices(mq.get())) {
            EXPECT_EQ(w->type, t) << name << ": " << w->name;
            EXPECT_TRUE(on_vulkan(w)) << name << ": " << w->name << " is not on Vulkan";
        }
        EXPECT_EQ(mq->output->type, t) << name;
        EXPECT_TRUE(on_vulkan(mq->output)) << name;
        EXPECT_EQ(cpu.n_gpu_nodes, 0);
        EXPECT_GT(vk.n_gpu_nodes, 0);
        EXPECT_LE(vk.n_splits, k_max_splits) << name << ": ops fell back to the CPU";
        e2e::expect_same_run(cpu, vk, name + " all on Vulkan vs its F32 values on the CPU", 0.01);
        remove(fq.c_str());
        remove(ff.c_str());
    }
    remove(src.c_str());
}

// A ternary model (llama-gguf-synth --ternary: {-1, 0, +1} x an F16-exact scale per tensor) quantized to
// TQ1_0 / TQ2_0 through llama_model_quantize, every matrix in the type (LM head and embeddings too), holds
// exactly the F32 model's values; like the i-quants above it runs fully offloaded and must match the CPU
// run of the F32 model.
TEST_F(VulkanE2E, TernaryModelsRunOnVulkanLikeTheirF32Values) {
    SKIP_WITHOUT_VULKAN();
    synth::params p       = llama_test_util::superblock_llama();
    p.vocab_path          = data_path("models/stories260K.gguf");  // 512 tokens
    p.n_vocab             = 0;                                     // the vocab file's size
    p.ternary             = true;
    const std::string src = testing_util::write_temp_file("vk-tq-src.gguf", {});
    std::string       err;
    ASSERT_TRUE(synth::write_model(p, src, err)) << err;
    model_ptr mf = e2e::load(src, 0, vk_dev0());
    ASSERT_NE(mf, nullptr) << llama_last_error();
    const e2e::run_result cpu = e2e::run_greedy(k_vulkan, mf.get(), "Once upon a time", k_steps_quant);
    for (ggml_type t : {GGML_TYPE_TQ1_0, GGML_TYPE_TQ2_0}) {
        const std::string           name = ggml_type_name(t);
        const std::string           fq   = testing_util::write_temp_file("vk-tq-q.gguf", {});
        llama_model_quantize_params qp   = llama_model_quantize_default_params();
        qp.ftype                         = t == GGML_TYPE_TQ1_0 ? LLAMA_FTYPE_MOSTLY_TQ1_0 : LLAMA_FTYPE_MOSTLY_TQ2_0;
        qp.nthread                       = 2;
        qp.output_tensor_type            = t;
        qp.token_embedding_type          = t;
        ASSERT_EQ(llama_model_quantize(src.c_str(), fq.c_str(), &qp), 0u) << name << ": " << llama_last_error();
        model_ptr mq = e2e::load(fq, 999, vk_dev0());
        ASSERT_NE(mq, nullptr) << llama_last_error();
        const e2e::run_result vk = e2e::run_greedy(k_vulkan, mq.get(), "Once upon a time", k_steps_quant);
        for (const ggml_tensor * w : e2e::layer_matrices(mq.get())) {
            EXPECT_EQ(w->type, t) << name << ": " << w->name;
            EXPECT_TRUE(on_vulkan(w)) << name << ": " << w->name << " is not on Vulkan";
        }
        EXPECT_EQ(mq->output->type, t) << name;
        EXPECT_TRUE(on_vulkan(mq->output)) << name;
        EXPECT_EQ(cpu.n_gpu_nodes, 0);
        EXPECT_GT(vk.n_gpu_nodes, 0);
        EXPECT_LE(vk.n_splits, k_max_splits) << name << ": ops fell back to the CPU";
        e2e::expect_same_run(cpu, vk, name + " all on Vulkan vs its F32 values on the CPU", 0.01);
        mq.reset();
        remove(fq.c_str());
    }
    mf.reset();
    remove(src.c_str());
}

TEST_F(VulkanE2E, SplitModeNoneAndMainGpu) {
    SKIP_WITHOUT_VULKAN();
    e2e::check_split_mode_none(k_vulkan);
}

// The child half of DefaultPolicyHidesCpuDevices: runs only in the child process, where
// GGML_VK_ALLOW_CPU_DEVICES is unset. Default parameters must not place anything on a CPU-type
// Vulkan device (lavapipe/llvmpipe); a real GPU, if the machine has one, may be used.
TEST(VulkanPolicyChild, DefaultParamsDoNotUseCpuVulkanDevices) {
    if (!getenv("LLAMA_TEST_VK_CHILD")) {
        GTEST_SKIP() << "runs in the child process of VulkanPolicy.DefaultPolicyHidesCpuDevices";
    }
    llama_log_set(e2e::quiet_log, nullptr);
    ASSERT_EQ(getenv("GGML_VK_ALLOW_CPU_DEVICES"), nullptr);
    bool real_gpu = false;
    if (ggml_backend_reg_t reg = ggml_backend_reg_by_name("Vulkan")) {
        for (size_t i = 0; i < ggml_backend_reg_dev_count(reg); i++) {
            const std::string d = ggml_backend_dev_description(ggml_backend_reg_dev_get(reg, i));
            EXPECT_EQ(d.find("llvmpipe"), std::string::npos) << "CPU Vulkan device visible by default: " << d;
            real_gpu = true;
        }
    }
    model_ptr m(llama_model_load_from_file(data_path("models/stories260K.gguf").c_str(), llama_model_default_params()));
    ASSERT_NE(m, nullptr) << llama_last_error();
    if (!real_gpu) {
        EXPECT_FALSE(llama_supports_gpu_offload());
        EXPECT_TRUE(m->devices.empty());
        for (const llama_layer & l : m->layers) {
            EXPECT_TRUE(on_cpu(l.wq));
        }
        EXPECT_TRUE(on_cpu(m->output));
    }
}

TEST(VulkanPolicy, DefaultPolicyHidesCpuDevices) {
    if (getenv("LLAMA_TEST_VK_CHILD")) {
        GTEST_SKIP() << "the child runs only its own half";
    }
    // the child's environment and path are prepared before fork (only exec runs in the child)
    std::vector<std::string> env_s;
    for (char ** e = environ; *e; e++) {
        if (std::string(*e).rfind("GGML_VK_ALLOW_CPU_DEVICES=", 0) != 0) {
            env_s.push_back(*e);
        }
    }
    env_s.push_back("LLAMA_TEST_VK_CHILD=1");
    std::vector<char *> envp;
    for (std::string & e : env_s) {
        envp.push_back(&e[0]);
    }
    envp.push_back(nullptr);
    char          self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    ASSERT_GT(n, 0);
    self[n]            = '\0';
    std::string filter = "--gtest_filter=VulkanPolicyChild.*";
    char *      argv[] = {self, &filter[0], nullptr};
    fflush(stdout);
    fflush(stderr);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        execve(self, argv, envp.data());
        _exit(127);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "the child test failed (see its output above)";
}
