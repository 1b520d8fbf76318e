// Small helpers shared by the GPU backend tests (test-cuda-backend.cpp, test-vulkan-backend.cpp):
// deterministic random inputs and an owning ggml context for graph metadata.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

#include "ggml.h"

namespace backend_test {

// LLAMA_TEST_REQUIRE_<BACKEND>=1 turns "no device" from a skip into a failure (CI, gpu-check.sh)
inline bool required(const char * env_name) {
    const char * v = getenv(env_name);
    return v && v[0] == '1';
}

inline std::vector<float> random_floats(size_t n, uint32_t seed) {
    std::mt19937                          rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float>                    v(n);
    for (auto & x : v) {
        x = u(rng);
    }
    return v;
}

// a no_alloc context with room for n_tensors tensors and one graph
struct ctx_holder {
    ggml_context * ctx;
    explicit ctx_holder(size_t n_tensors) {
        ggml_init_params ip{ggml_tensor_overhead() * n_tensors + ggml_graph_overhead(), nullptr, true};
        ctx = ggml_init(ip);
    }
    ~ctx_holder() { ggml_free(ctx); }
    ctx_holder(const ctx_holder &)             = delete;
    ctx_holder & operator=(const ctx_holder &) = delete;
};

}  // namespace backend_test
