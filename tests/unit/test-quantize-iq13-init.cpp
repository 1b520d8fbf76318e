// The i-quant neighbour maps (ggml-quantize-iq-nbr.c) are built lazily on the first quantization into
// their type. Several threads quantizing at once as the very first thing this process does must all
// wait for one complete map and get the same bytes as a later single-threaded run (TSan in CI checks the
// memory accesses). Its own executable, so that nothing has built the maps before.
#include <gtest/gtest.h>

#include <random>
#include <thread>
#include <vector>

#include "ggml.h"

namespace {

TEST(QuantizeIq13Init, ConcurrentFirstUseBuildsOneMap) {
    const ggml_type                 types[] = {GGML_TYPE_IQ3_XXS, GGML_TYPE_IQ3_S, GGML_TYPE_IQ1_S, GGML_TYPE_IQ1_M};
    const int64_t                   n       = 512;
    const int                       n_thr   = 6;
    std::mt19937                    rng(5);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<float>              x((size_t) n * n_thr);
    for (auto & v : x) {
        v = nd(rng);
    }
    for (ggml_type t : types) {
        const size_t                      rs = ggml_row_size(t, n);
        std::vector<std::vector<uint8_t>> out(n_thr, std::vector<uint8_t>(rs));
        std::vector<size_t>               ret(n_thr, 0);
        std::vector<std::thread>          th;
        const std::vector<float>          ones(n, 1.0f);  // IQ1_S refuses a NULL imatrix
        const float *                     im = ggml_quantize_requires_imatrix(t) ? ones.data() : nullptr;
        // every thread starts on the same type at once: the first calls race on the lazy build
        for (int i = 0; i < n_thr; i++) {
            th.emplace_back(
                [&, i] { ret[i] = ggml_quantize_chunk(t, x.data() + (size_t) i * n, out[i].data(), 0, 1, n, im); });
        }
        for (auto & h : th) {
            h.join();
        }
        for (int i = 0; i < n_thr; i++) {
            ASSERT_EQ(ret[i], rs) << ggml_type_name(t);
            std::vector<uint8_t> again(rs);
            ASSERT_EQ(ggml_quantize_chunk(t, x.data() + (size_t) i * n, again.data(), 0, 1, n, im), rs);
            EXPECT_EQ(out[i], again) << ggml_type_name(t) << " thread " << i;
        }
    }
}

}  // namespace
