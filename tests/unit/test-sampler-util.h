// Helpers shared by the sampler tests (test-sampler.cpp, test-sampler-extra.cpp): hand-built
// candidate arrays and reference results computed from the definitions in double precision,
// independently of the library's own helpers.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "llama.h"

namespace test_sampler {

// Owns the candidates of one apply: token i has logit logits[i], unsorted, nothing selected.
struct cands {
    std::vector<llama_token_data> data;
    llama_token_data_array        arr{};

    explicit cands(const std::vector<float> & logits) {
        for (size_t i = 0; i < logits.size(); ++i) {
            data.push_back({(llama_token) i, logits[i], 0.0f});
        }
        arr = {data.data(), data.size(), -1, false};
    }

    std::vector<llama_token> ids() const {
        std::vector<llama_token> r;
        for (size_t i = 0; i < arr.size; ++i) {
            r.push_back(arr.data[i].id);
        }
        return r;
    }

    std::set<llama_token> id_set() const {
        auto v = ids();
        return {v.begin(), v.end()};
    }

    float logit_of(llama_token id) const {
        for (size_t i = 0; i < arr.size; ++i) {
            if (arr.data[i].id == id) {
                return arr.data[i].logit;
            }
        }
        return NAN;
    }

    llama_token selected_id() const { return arr.selected >= 0 ? arr.data[arr.selected].id : -1; }
};

// softmax(logits) in double (empty in, empty out)
inline std::vector<double> softmax_ref(const std::vector<float> & logits) {
    double mx = -INFINITY;
    for (float l : logits) {
        mx = std::max(mx, (double) l);
    }
    std::vector<double> p(logits.size());
    double              sum = 0;
    for (size_t i = 0; i < logits.size(); ++i) {
        p[i] = std::exp((double) logits[i] - mx);
        sum += p[i];
    }
    for (auto & x : p) {
        x /= sum;
    }
    return p;
}

// token ids by decreasing logit (ties: lower id first)
inline std::vector<llama_token> order_ref(const std::vector<float> & logits) {
    std::vector<llama_token> ids(logits.size());
    std::iota(ids.begin(), ids.end(), 0);
    std::stable_sort(ids.begin(), ids.end(), [&](llama_token a, llama_token b) { return logits[a] > logits[b]; });
    return ids;
}

// n logits from N(0, 2), reproducible from seed
inline std::vector<float> random_logits(size_t n, uint32_t seed) {
    std::mt19937                    rng(seed);
    std::normal_distribution<float> nd(0.0f, 2.0f);
    std::vector<float>              v(n);
    for (auto & x : v) {
        x = nd(rng);
    }
    return v;
}

}  // namespace test_sampler
