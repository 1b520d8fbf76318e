// End to end with GPU offload on the Vulkan device (lavapipe in CI): stories260K and the synthetic
// *-micro-f16 models, with all layers and with half the layers offloaded, give the CPU run's greedy
// tokens and logits within 1% of the row RMS; the weights, KV cache and nodes really are on the
// Vulkan device. Also the device-visibility policy: without GGML_VK_ALLOW_CPU_DEVICES a CPU-type
// Vulkan device is not used (checked in a child process, since the registry is enumerated once).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "e2e-common.h"

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

const e2e::gpu_backend k_vulkan = {"Vulkan", vk_dev0, on_vulkan};

#define SKIP_WITHOUT_VULKAN()                                                   \
    if (!vk_dev0()) {                                                           \
        if (e2e::env_is_1("LLAMA_TEST_REQUIRE_VULKAN"))                         \
            FAIL() << "LLAMA_TEST_REQUIRE_VULKAN=1 but no Vulkan device";       \
        GTEST_SKIP() << "no Vulkan device (build without Vulkan or no driver)"; \
    }

// stories260K runs the full 16 steps; the micro models (32K-row output layers, 1-2 tok/s fully
// offloaded on lavapipe) run fewer so the whole file stays around half a minute on 2 cores
constexpr int k_steps       = 16;
constexpr int k_steps_micro = 6;

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

TEST_F(VulkanE2E, SyntheticMicroModelsOffloadMatchCpu) {
    SKIP_WITHOUT_VULKAN();
    int n_run = 0;
    for (const char * arch : {"llama", "qwen2", "phi3", "gemma", "gemma2"}) {
        const std::string path = std::string("models/synthetic/") + arch + "-micro-f16.gguf";
        if (access(data_path(path).c_str(), R_OK) != 0) {
            continue;
        }
        std::string skip;
        if (e2e::check_model(k_vulkan, path, "Once upon a time", k_steps_micro, skip)) {
            n_run++;
        } else {
            std::printf("[ skip ] %s (architecture not implemented)\n", skip.c_str());
        }
    }
    EXPECT_EQ(n_run, 5) << "every synthetic architecture is implemented and must run";
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

// Q4_1 matrices have no Vulkan mul_mat: with every layer "offloaded" they stay on the CPU while the
// norms go to Vulkan, and the result still equals the CPU run of the same file.
TEST_F(VulkanE2E, UnsupportedWeightTypesStayOnTheCpu) {
    SKIP_WITHOUT_VULKAN();
    const std::string           out = testing_util::write_temp_file("stories-q4_1", {});
    llama_model_quantize_params qp  = llama_model_quantize_default_params();
    qp.ftype                        = LLAMA_FTYPE_MOSTLY_Q4_1;
    qp.pure                         = true;
    qp.nthread                      = 2;
    ASSERT_EQ(llama_model_quantize(data_path("models/stories260K.gguf").c_str(), out.c_str(), &qp), 0u)
        << llama_last_error();

    auto load_abs = [&](int n_gpu_layers) {
        static ggml_backend_dev_t devs[2];
        devs[0]               = vk_dev0();
        llama_model_params mp = llama_model_default_params();
        mp.n_gpu_layers       = n_gpu_layers;
        mp.devices            = devs;
        return model_ptr(llama_model_load_from_file(out.c_str(), mp));
    };
    model_ptr m_cpu = load_abs(0);
    model_ptr m_gpu = load_abs(999);
    ASSERT_NE(m_cpu, nullptr) << llama_last_error();
    ASSERT_NE(m_gpu, nullptr) << llama_last_error();
    for (const llama_layer & l : m_gpu->layers) {
        ASSERT_EQ(l.wq->type, GGML_TYPE_Q4_1);
        for (const ggml_tensor * w : {l.wq, l.wk, l.wv, l.wo, l.ffn_gate, l.ffn_up, l.ffn_down}) {
            // rows that are not a multiple of 32 keep a float type, which Vulkan can use
            EXPECT_EQ(on_cpu(w), w->type == GGML_TYPE_Q4_1) << w->name << " " << ggml_type_name(w->type);
            EXPECT_EQ(on_vulkan(w), w->type != GGML_TYPE_Q4_1) << w->name << " " << ggml_type_name(w->type);
        }
        EXPECT_TRUE(on_vulkan(l.attn_norm));
        EXPECT_TRUE(on_vulkan(l.ffn_norm));
    }
    const e2e::run_result cpu = e2e::run_greedy(k_vulkan, m_cpu.get(), "Once upon a time", k_steps);
    const e2e::run_result gpu = e2e::run_greedy(k_vulkan, m_gpu.get(), "Once upon a time", k_steps);
    EXPECT_GT(gpu.n_gpu_nodes, 0);
    e2e::expect_same_run(cpu, gpu, "stories260K Q4_1, matrices kept on the CPU");
    remove(out.c_str());
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
