// Rows of 32-element blocks for the tests that hold a GPU's KV-cache writer to the CPU's bytes
// (test-cuda-host-math: the CUDA quantizers on the host; test-vulkan-kv-write: the Vulkan set_rows):
// the shapes a KV cache sees plus the degenerate ones, one kind per block, cycling.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace kv_quant_inputs {

constexpr int k_kinds = 10;  // block b is of kind b % k_kinds

inline std::vector<float> blocks(int nblocks, uint32_t seed = 42) {
    std::mt19937                          rng(seed);
    std::normal_distribution<float>       nd(0.0f, 1.0f);
    std::uniform_real_distribution<float> ud(-1.0f, 1.0f);
    std::vector<float>                    x((size_t) nblocks * 32);
    for (int b = 0; b < nblocks; ++b) {
        float *   y    = x.data() + (size_t) b * 32;
        const int kind = b % k_kinds;
        for (int j = 0; j < 32; ++j) {
            switch (kind) {
                case 0:
                    y[j] = nd(rng);
                    break;
                case 1:
                    y[j] = ud(rng) * 100.0f;
                    break;
                case 2:
                    y[j] = nd(rng) * (j == 5 ? 50.0f : 0.1f);  // one outlier
                    break;
                case 3:
                    y[j] = 0.0f;
                    break;
                case 4:
                    y[j] = 3.25f;  // constant
                    break;
                case 5:
                    y[j] = nd(rng) * 1e-6f;  // scales in the fp16 subnormal range
                    break;
                case 6:
                    y[j] = std::fabs(nd(rng)) + 2.0f;  // all positive, offset
                    break;
                case 7:
                    y[j] = (float) ((int) (ud(rng) * 8.0f));  // exact small integers (ties)
                    break;
                case 8:
                    y[j] = ud(rng) * 20000.0f;  // huge: scales near the top of fp16
                    break;
                default:
                    y[j] = nd(rng) * 1e-15f;  // tiny: the scale rounds to a zero fp16
                    break;
            }
        }
    }
    return x;
}

}  // namespace kv_quant_inputs
