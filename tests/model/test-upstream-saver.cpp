// Model files written by upstream llama.cpp's own saver (llama_model_save_to_file, through its
// test-llama-archs generator; see tests/data/upstream-saver/README.md). Such a file carries every
// hyperparameter key, the unset ones with upstream's sentinels (pooling_type 0xFFFFFFFF, zero scales,
// rope scaling "linear" with factor 0, soft-capping keys on architectures that ignore them). Every file
// of an architecture we run must load and give upstream's logits on a fixed prompt (1% of the row RMS);
// a file of an architecture we do not run must be refused with a message naming it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string>
#include <vector>

#include "llama.h"
#include "test-common.h"
#include "test-llama-util.h"

using namespace llama_test_util;
using testing_util::data_path;

namespace {

void quiet_log(ggml_log_level, const char *, void *) {}

// The prompt the reference logits were computed on (ids below every file's n_vocab of 128).
const std::vector<llama_token> k_prompt = {1, 17, 42, 99, 3, 64, 127, 8};

class UpstreamSaver : public ::testing::TestWithParam<std::string> {
protected:
    static void SetUpTestSuite() { llama_log_set(quiet_log, nullptr); }
    static void TearDownTestSuite() { llama_log_set(nullptr, nullptr); }
};

TEST_P(UpstreamSaver, MatchesUpstreamLogits) {
    const std::string  name    = GetParam();
    const std::string  path    = data_path("upstream-saver/" + name + ".gguf");
    const auto         want    = load_logits("upstream-saver/" + name + ".logits.f32");
    int                n_vocab = 0;
    std::string        err;
    std::vector<float> got = sequence_logits(path, k_prompt, n_vocab, err);
    ASSERT_TRUE(err.empty()) << name << ": " << err;
    ASSERT_EQ(n_vocab, 128);
    ASSERT_EQ(got.size(), want.size()) << name;
    double worst = 0;
    for (size_t i = 0; i < k_prompt.size(); i++) {
        const double e = max_err_rel_rms(got.data() + i * n_vocab, want.data() + i * n_vocab, n_vocab);
        EXPECT_LT(e, 0.01) << name << " row " << i;
        worst = std::max(worst, e);
    }
    printf("%s: max |logit error| / row RMS = %.2e\n", name.c_str(), worst);
}

INSTANTIATE_TEST_SUITE_P(Files, UpstreamSaver,
                         ::testing::Values("llama-dense", "llama-moe", "qwen2-dense", "phi3-dense", "gemma-dense",
                                           "gemma2-dense", "qwen3-dense", "qwen3moe-moe", "gpt-oss-moe",
                                           "granite-dense", "granitemoe-moe", "mistral3-dense", "mistral3-moe",
                                           "exaone4-dense", "smollm3-dense", "mamba2-dense", "lfm2-dense",
                                           "granitehybrid-dense", "nemotron_h-dense", "glm4moe-moe", "deepseek2-moe",
                                           "falcon-h1-dense", "lfm2moe-moe", "qwen3next-moe", "qwen35-dense",
                                           "qwen35moe-moe", "nemotron_h_moe-dense", "kimi-linear-moe"),
                         [](const ::testing::TestParamInfo<std::string> & i) {
                             std::string n = i.param;
                             for (char & c : n) {
                                 c = isalnum((unsigned char) c) ? c : '_';
                             }
                             return n;
                         });

// An architecture we do not run: refused with its name in the error, not a crash.
TEST(UpstreamSaverRefused, NamesTheArchitecture) {
    llama_log_set(quiet_log, nullptr);
    for (const char * arch : {"qwen-dense"}) {  // upstream's first Qwen (not qwen2)
        const std::string path    = data_path(std::string("upstream-saver/") + arch + ".gguf");
        int               n_vocab = 0;
        std::string       err;
        const auto        got = sequence_logits(path, k_prompt, n_vocab, err);
        EXPECT_TRUE(got.empty()) << arch;
        EXPECT_NE(err.find("architecture"), std::string::npos) << arch << ": " << err;
        const std::string short_name = std::string(arch).substr(0, std::string(arch).rfind('-'));
        EXPECT_NE(err.find("'" + short_name + "'"), std::string::npos) << arch << ": " << err;
    }
    llama_log_set(nullptr, nullptr);
}

// An architecture we run, with a variant we do not: upstream's saver gives every file the rope sections
// [8, 8, 8, 8], which makes glm4 GLM-4V's multi-section RoPE. Refused with the reason, not run wrong.
TEST(UpstreamSaverRefused, NamesTheUnsupportedVariant) {
    llama_log_set(quiet_log, nullptr);
    int         n_vocab = 0;
    std::string err;
    const auto  got = sequence_logits(data_path("upstream-saver/glm4-dense.gguf"), k_prompt, n_vocab, err);
    EXPECT_TRUE(got.empty());
    EXPECT_NE(err.find("multi-section RoPE"), std::string::npos) << err;
    llama_log_set(nullptr, nullptr);
}

}  // namespace
