// Samplers on hand-made candidate arrays. Expected results are computed here from the definitions
// (softmax in double, sorting by value), independently of the library's helpers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "llama.h"
#include "test-sampler-util.h"

namespace {

using test_sampler::cands;
using test_sampler::order_ref;
using test_sampler::random_logits;
using test_sampler::softmax_ref;

// Applies a sampler once and frees it.
void apply_once(llama_sampler * s, cands & c) {
    ASSERT_NE(s, nullptr);
    llama_sampler_apply(s, &c.arr);
    llama_sampler_free(s);
}

const std::vector<float> k_logits = {1.0f, 3.0f, -2.0f, 0.5f, 2.5f, 0.0f, -1.0f, 2.0f};

}  // namespace

// ---------------------------------------------------------------------------------------------

TEST(Sampler, GreedyPicksArgmax) {
    cands c(k_logits);
    apply_once(llama_sampler_init_greedy(), c);
    ASSERT_EQ(c.arr.selected, 1);
    EXPECT_EQ(c.arr.data[c.arr.selected].id, 1);

    cands tie({0.0f, 5.0f, 5.0f, NAN});
    apply_once(llama_sampler_init_greedy(), tie);
    EXPECT_EQ(tie.arr.selected, 1);  // first of the tied maxima; NaN never wins

    auto * g = llama_sampler_init_greedy();
    EXPECT_STREQ(llama_sampler_name(g), "greedy");
    llama_sampler_free(g);
}

TEST(Sampler, TopKKeepsKHighest) {
    for (int k : {1, 3, 5, 8}) {
        cands c(k_logits);
        apply_once(llama_sampler_init_top_k(k), c);
        const auto want = order_ref(k_logits);
        ASSERT_EQ(c.arr.size, (size_t) k);
        EXPECT_EQ(c.ids(), std::vector<llama_token>(want.begin(), want.begin() + k)) << "k=" << k;
        EXPECT_TRUE(c.arr.sorted);
    }
    // k <= 0: no-op (order untouched); k > n: all kept
    for (int k : {0, -5}) {
        cands c(k_logits);
        apply_once(llama_sampler_init_top_k(k), c);
        EXPECT_EQ(c.arr.size, k_logits.size());
        EXPECT_EQ(c.ids()[0], 0);
    }
    cands c(k_logits);
    apply_once(llama_sampler_init_top_k(1000), c);
    EXPECT_EQ(c.ids(), order_ref(k_logits));

    // ties break on the lower token id, wherever the tokens sit in the array
    cands t({1.0f, 1.0f, 1.0f, 1.0f, 1.0f});
    std::reverse(t.data.begin(), t.data.end());
    apply_once(llama_sampler_init_top_k(2), t);
    EXPECT_EQ(t.ids(), (std::vector<llama_token>{0, 1}));
}

TEST(Sampler, TopPKeepsSmallestNucleus) {
    const auto logits = random_logits(64, 7);
    const auto p      = softmax_ref(logits);
    const auto order  = order_ref(logits);
    for (float top_p : {0.05f, 0.3f, 0.5f, 0.9f, 0.99f}) {
        // smallest prefix with cumulative probability >= top_p
        size_t n   = 0;
        double cum = 0;
        while (n < order.size()) {
            cum += p[order[n++]];
            if (cum >= top_p) {
                break;
            }
        }
        cands c(logits);
        apply_once(llama_sampler_init_top_p(top_p, 1), c);
        EXPECT_EQ(c.ids(), std::vector<llama_token>(order.begin(), order.begin() + n)) << "p=" << top_p;
        for (size_t i = 0; i < c.arr.size; ++i) {
            EXPECT_NEAR(c.arr.data[i].p, p[c.arr.data[i].id], 1e-6);
        }
    }
    // the boundary counts: with four equal tokens, 0.5 is reached exactly after two
    cands u({0.0f, 0.0f, 0.0f, 0.0f});
    apply_once(llama_sampler_init_top_p(0.5f, 1), u);
    EXPECT_EQ(u.arr.size, 2u);
    // min_keep wins over p
    cands c(logits);
    apply_once(llama_sampler_init_top_p(0.0f, 5), c);
    EXPECT_EQ(c.arr.size, 5u);
    // p >= 1 and NaN: no-op
    for (float bad : {1.0f, 1.5f, NAN}) {
        cands d(logits);
        apply_once(llama_sampler_init_top_p(bad, 1), d);
        EXPECT_EQ(d.arr.size, logits.size());
    }
}

TEST(Sampler, MinPKeepsRelativeProbability) {
    const auto   logits = random_logits(50, 11);
    const auto   p      = softmax_ref(logits);
    const double pmax   = *std::max_element(p.begin(), p.end());
    for (float min_p : {0.01f, 0.1f, 0.5f, 0.9f}) {
        std::set<llama_token> want;
        for (size_t i = 0; i < p.size(); ++i) {
            if (p[i] >= min_p * pmax) {
                want.insert((llama_token) i);
            }
        }
        cands c(logits);  // unsorted path
        apply_once(llama_sampler_init_min_p(min_p, 1), c);
        EXPECT_EQ(c.id_set(), want) << "p=" << min_p;

        cands s(logits);  // sorted path
        apply_once(llama_sampler_init_top_k((int) logits.size()), s);
        ASSERT_TRUE(s.arr.sorted);
        apply_once(llama_sampler_init_min_p(min_p, 1), s);
        EXPECT_EQ(s.id_set(), want) << "sorted, p=" << min_p;
    }
    // min_keep: the best min_keep survive even when the threshold drops them
    cands c(logits);
    apply_once(llama_sampler_init_min_p(0.99f, 4), c);
    const auto order = order_ref(logits);
    EXPECT_EQ(c.id_set(), std::set<llama_token>(order.begin(), order.begin() + 4));
    // p <= 0 and NaN: no-op
    for (float bad : {0.0f, -1.0f, NAN}) {
        cands d(logits);
        apply_once(llama_sampler_init_min_p(bad, 1), d);
        EXPECT_EQ(d.arr.size, logits.size());
    }
}

TEST(Sampler, TypicalKeepsTokensNearEntropy) {
    const auto logits = random_logits(40, 3);
    const auto p      = softmax_ref(logits);
    double     h      = 0;
    for (double x : p) {
        h -= x * std::log(x);
    }
    std::vector<llama_token> by_dist(p.size());
    std::iota(by_dist.begin(), by_dist.end(), 0);
    std::stable_sort(by_dist.begin(), by_dist.end(), [&](llama_token a, llama_token b) {
        return std::fabs(-std::log(p[a]) - h) < std::fabs(-std::log(p[b]) - h);
    });
    for (float tp : {0.2f, 0.5f, 0.9f}) {
        size_t n   = 0;
        double cum = 0;
        while (n < by_dist.size()) {
            cum += p[by_dist[n++]];
            if (cum > tp) {
                break;
            }
        }
        cands c(logits);
        apply_once(llama_sampler_init_typical(tp, 1), c);
        EXPECT_EQ(c.id_set(), std::set<llama_token>(by_dist.begin(), by_dist.begin() + n)) << "p=" << tp;
        EXPECT_FALSE(c.arr.sorted);
    }
    cands c(logits);
    apply_once(llama_sampler_init_typical(1.0f, 1), c);
    EXPECT_EQ(c.arr.size, logits.size());
    // the mass must exceed p strictly: four equal tokens and p = 0.5 keep three
    cands u({0.0f, 0.0f, 0.0f, 0.0f});
    apply_once(llama_sampler_init_typical(0.5f, 1), u);
    EXPECT_EQ(u.arr.size, 3u);
    // min_keep
    cands k(logits);
    apply_once(llama_sampler_init_typical(0.0f, 6), k);
    EXPECT_EQ(k.arr.size, 6u);
}

TEST(Sampler, TemperatureScalesLogits) {
    cands c(k_logits);
    apply_once(llama_sampler_init_temp(0.5f), c);
    for (size_t i = 0; i < k_logits.size(); ++i) {
        EXPECT_FLOAT_EQ(c.logit_of((llama_token) i), k_logits[i] / 0.5f);
    }
    // t <= 0: only the best token keeps a finite logit
    for (float t : {0.0f, -1.0f}) {
        cands z(k_logits);
        apply_once(llama_sampler_init_temp(t), z);
        for (size_t i = 0; i < k_logits.size(); ++i) {
            if (i == 1) {
                EXPECT_EQ(z.logit_of(1), 3.0f);
            } else {
                EXPECT_TRUE(std::isinf(z.logit_of((llama_token) i)) && z.logit_of((llama_token) i) < 0);
            }
        }
    }
}

TEST(Sampler, TempExtFollowsEntropy) {
    // delta == 0: plain temperature
    cands a(k_logits);
    apply_once(llama_sampler_init_temp_ext(0.8f, 0.0f, 1.0f), a);
    for (size_t i = 0; i < k_logits.size(); ++i) {
        EXPECT_FLOAT_EQ(a.logit_of((llama_token) i), k_logits[i] / 0.8f);
    }
    // delta > 0: T = T_min + (T_max - T_min) * (H / log n)^exponent, then p recomputed
    const float t = 1.0f, delta = 0.5f, expo = 2.0f;
    const auto  p = softmax_ref(k_logits);
    double      h = 0;
    for (double x : p) {
        h -= x * std::log(x);
    }
    const double       dyn = (t - delta) + 2 * delta * std::pow(h / std::log((double) k_logits.size()), expo);
    std::vector<float> scaled(k_logits.size());
    for (size_t i = 0; i < scaled.size(); ++i) {
        scaled[i] = (float) (k_logits[i] / dyn);
    }
    const auto want = softmax_ref(scaled);
    cands      b(k_logits);
    apply_once(llama_sampler_init_temp_ext(t, delta, expo), b);
    ASSERT_EQ(b.arr.size, k_logits.size());
    for (size_t i = 0; i < b.arr.size; ++i) {
        const llama_token id = b.arr.data[i].id;
        EXPECT_NEAR(b.arr.data[i].logit, scaled[id], 1e-4);
        EXPECT_NEAR(b.arr.data[i].p, want[id], 1e-5);
    }
}

TEST(Sampler, PenaltiesArithmetic) {
    const float rep = 1.5f, freq = 0.25f, pres = 0.5f;
    auto *      s = llama_sampler_init_penalties(32, 4, rep, freq, pres);
    ASSERT_NE(s, nullptr);
    // history: 1, 2, 2, 7  (window of 4)
    for (llama_token t : {1, 2, 2, 7}) {
        llama_sampler_accept(s, t);
    }
    cands c(k_logits);
    llama_sampler_apply(s, &c.arr);
    std::map<llama_token, int> cnt = {{1, 1}, {2, 2}, {7, 1}};
    for (size_t i = 0; i < k_logits.size(); ++i) {
        float want = k_logits[i];
        if (cnt.count((llama_token) i)) {
            want = want <= 0 ? want * rep : want / rep;
            want -= cnt[(llama_token) i] * freq + pres;
        }
        EXPECT_FLOAT_EQ(c.logit_of((llama_token) i), want) << "token " << i;
    }
    // the window slides: after two more tokens, 1 and the first 2 fall out
    llama_sampler_accept(s, 5);
    llama_sampler_accept(s, 5);
    cands d(k_logits);
    llama_sampler_apply(s, &d.arr);
    EXPECT_FLOAT_EQ(d.logit_of(1), k_logits[1]);
    EXPECT_FLOAT_EQ(d.logit_of(2), k_logits[2] * rep - 1 * freq - pres);
    EXPECT_FLOAT_EQ(d.logit_of(5), k_logits[5] * rep - 2 * freq - pres);
    // reset forgets the history
    llama_sampler_reset(s);
    cands e(k_logits);
    llama_sampler_apply(s, &e.arr);
    for (size_t i = 0; i < k_logits.size(); ++i) {
        EXPECT_EQ(e.logit_of((llama_token) i), k_logits[i]);
    }
    llama_sampler_free(s);

    // last_n == 0 disables; last_n == -1 remembers everything since reset
    auto * off = llama_sampler_init_penalties(32, 0, 2.0f, 1.0f, 1.0f);
    auto * all = llama_sampler_init_penalties(32, -1, 1.0f, 1.0f, 0.0f);
    for (int i = 0; i < 100; ++i) {
        llama_sampler_accept(off, 4);
        llama_sampler_accept(all, 4);
    }
    cands f(k_logits), g(k_logits);
    llama_sampler_apply(off, &f.arr);
    llama_sampler_apply(all, &g.arr);
    EXPECT_EQ(f.logit_of(4), k_logits[4]);
    EXPECT_FLOAT_EQ(g.logit_of(4), k_logits[4] - 100.0f);
    llama_sampler_free(off);
    llama_sampler_free(all);
}

TEST(Sampler, LogitBias) {
    const llama_logit_bias biases[] = {{0, 5.0f}, {3, -2.0f}, {3, -1.0f}, {99, 7.0f}, {-1, 1.0f}};
    auto *                 s        = llama_sampler_init_logit_bias((int32_t) k_logits.size(), 5, biases);
    ASSERT_NE(s, nullptr);
    cands c(k_logits);  // data[id].id == id: direct path
    llama_sampler_apply(s, &c.arr);
    EXPECT_FLOAT_EQ(c.logit_of(0), k_logits[0] + 5.0f);
    EXPECT_FLOAT_EQ(c.logit_of(3), k_logits[3] - 3.0f);  // entries for one token add up
    EXPECT_FLOAT_EQ(c.logit_of(1), k_logits[1]);

    cands d(k_logits);  // shuffled and truncated: lookup path
    std::reverse(d.data.begin(), d.data.end());
    d.arr.size = 6;  // ids 7..2
    llama_sampler_apply(s, &d.arr);
    EXPECT_FLOAT_EQ(d.logit_of(3), k_logits[3] - 3.0f);
    EXPECT_FLOAT_EQ(d.logit_of(7), k_logits[7]);
    llama_sampler_free(s);

    EXPECT_EQ(llama_sampler_init_logit_bias(8, 3, nullptr), nullptr);
    EXPECT_EQ(llama_sampler_init_logit_bias(8, -1, biases), nullptr);
    auto * empty = llama_sampler_init_logit_bias(8, 0, nullptr);
    ASSERT_NE(empty, nullptr);
    llama_sampler_free(empty);
}

TEST(Sampler, DistIsSeededAndMatchesSoftmax) {
    const std::vector<float> logits = {1.0f, 2.0f, 0.0f, 1.5f, -1.0f};
    const auto               p      = softmax_ref(logits);

    auto * a = llama_sampler_init_dist(1234);
    auto * b = llama_sampler_init_dist(1234);
    EXPECT_EQ(llama_sampler_get_seed(a), 1234u);
    std::vector<int64_t> seq_a, seq_b;
    std::vector<int>     hist(logits.size(), 0);
    const int            n_draws = 40000;
    for (int i = 0; i < n_draws; ++i) {
        cands ca(logits), cb(logits);
        llama_sampler_apply(a, &ca.arr);
        llama_sampler_apply(b, &cb.arr);
        ASSERT_GE(ca.arr.selected, 0);
        ASSERT_LT(ca.arr.selected, (int64_t) logits.size());
        hist[ca.arr.data[ca.arr.selected].id]++;
        if (i < 64) {
            seq_a.push_back(ca.arr.data[ca.arr.selected].id);
            seq_b.push_back(cb.arr.data[cb.arr.selected].id);
        }
    }
    EXPECT_EQ(seq_a, seq_b);
    for (size_t i = 0; i < logits.size(); ++i) {
        // binomial standard deviation is <= 0.0025 here; 0.01 is 4+ sigma
        EXPECT_NEAR((double) hist[i] / n_draws, p[i], 0.01) << "token " << i;
    }

    // reset replays the stream; a clone continues it identically
    llama_sampler_reset(a);
    auto * c = llama_sampler_clone(a);
    ASSERT_NE(c, nullptr);
    for (int i = 0; i < 64; ++i) {
        cands ca(logits), cc(logits);
        llama_sampler_apply(a, &ca.arr);
        llama_sampler_apply(c, &cc.arr);
        EXPECT_EQ(ca.arr.data[ca.arr.selected].id, seq_a[i]);
        EXPECT_EQ(cc.arr.data[cc.arr.selected].id, seq_a[i]);
    }
    llama_sampler_free(a);
    llama_sampler_free(b);
    llama_sampler_free(c);

    // a different seed gives a different stream; the default seed resolves to a real one
    auto *               d = llama_sampler_init_dist(99);
    std::vector<int64_t> seq_d;
    for (int i = 0; i < 64; ++i) {
        cands cd(logits);
        llama_sampler_apply(d, &cd.arr);
        seq_d.push_back(cd.arr.data[cd.arr.selected].id);
    }
    EXPECT_NE(seq_d, seq_a);
    llama_sampler_free(d);
    auto * r = llama_sampler_init_dist(LLAMA_DEFAULT_SEED);
    ASSERT_NE(r, nullptr);
    (void) llama_sampler_get_seed(r);  // random; only must not crash
    llama_sampler_free(r);

    // tokens with zero probability are never drawn
    auto * z = llama_sampler_init_dist(5);
    for (int i = 0; i < 200; ++i) {
        cands cz({0.0f, -INFINITY, 1.0f, -INFINITY});
        llama_sampler_apply(z, &cz.arr);
        const llama_token id = cz.arr.data[cz.arr.selected].id;
        EXPECT_TRUE(id == 0 || id == 2);
    }
    llama_sampler_free(z);
}

TEST(Sampler, ChainOrderAndMembers) {
    auto * chain = llama_sampler_chain_init(llama_sampler_chain_default_params());
    ASSERT_NE(chain, nullptr);
    EXPECT_STREQ(llama_sampler_name(chain), "chain");
    llama_sampler_chain_add(chain, llama_sampler_init_top_k(1));
    llama_sampler_chain_add(chain, llama_sampler_init_dist(42));
    EXPECT_EQ(llama_sampler_chain_n(chain), 2);
    EXPECT_STREQ(llama_sampler_name(llama_sampler_chain_get(chain, 0)), "top-k");
    EXPECT_STREQ(llama_sampler_name(llama_sampler_chain_get(chain, 1)), "dist");
    EXPECT_EQ(llama_sampler_chain_get(chain, 2), nullptr);
    EXPECT_EQ(llama_sampler_chain_get(chain, -1), nullptr);
    EXPECT_EQ(llama_sampler_get_seed(chain), 42u);
    // top-k(1) before dist: always the argmax
    for (int i = 0; i < 20; ++i) {
        cands c(k_logits);
        llama_sampler_apply(chain, &c.arr);
        EXPECT_EQ(c.arr.data[c.arr.selected].id, 1);
    }
    // order matters: logit-bias after top-k(1) cannot bring token 2 back; before it, it wins
    const llama_logit_bias boost = {2, 100.0f};
    auto *                 late  = llama_sampler_chain_init(llama_sampler_chain_default_params());
    auto *                 early = llama_sampler_chain_init(llama_sampler_chain_default_params());
    llama_sampler_chain_add(late, llama_sampler_init_top_k(1));
    llama_sampler_chain_add(late, llama_sampler_init_logit_bias(8, 1, &boost));
    llama_sampler_chain_add(late, llama_sampler_init_greedy());
    llama_sampler_chain_add(early, llama_sampler_init_logit_bias(8, 1, &boost));
    llama_sampler_chain_add(early, llama_sampler_init_top_k(1));
    llama_sampler_chain_add(early, llama_sampler_init_greedy());
    cands cl(k_logits), ce(k_logits);
    llama_sampler_apply(late, &cl.arr);
    llama_sampler_apply(early, &ce.arr);
    EXPECT_EQ(cl.arr.data[cl.arr.selected].id, 1);
    EXPECT_EQ(ce.arr.data[ce.arr.selected].id, 2);
    llama_sampler_free(late);
    llama_sampler_free(early);

    // remove hands ownership back; out of range gives NULL
    EXPECT_EQ(llama_sampler_chain_remove(chain, 5), nullptr);
    EXPECT_EQ(llama_sampler_chain_remove(chain, -1), nullptr);
    auto * removed = llama_sampler_chain_remove(chain, 0);
    ASSERT_NE(removed, nullptr);
    EXPECT_STREQ(llama_sampler_name(removed), "top-k");
    EXPECT_EQ(llama_sampler_chain_n(chain), 1);
    llama_sampler_free(removed);
    llama_sampler_free(chain);
}

TEST(Sampler, ChainCloneIsIndependent) {
    auto * chain = llama_sampler_chain_init(llama_sampler_chain_default_params());
    llama_sampler_chain_add(chain, llama_sampler_init_penalties(32, 8, 1.0f, 10.0f, 0.0f));
    llama_sampler_chain_add(chain, llama_sampler_init_greedy());
    llama_sampler_accept(chain, 1);  // penalize the argmax (token 1) in the original only... so far
    auto * copy = llama_sampler_clone(chain);
    ASSERT_NE(copy, nullptr);
    EXPECT_EQ(llama_sampler_chain_n(copy), 2);
    EXPECT_NE(llama_sampler_chain_get(copy, 0), llama_sampler_chain_get(chain, 0));

    llama_sampler_accept(chain, 4);  // only the original learns about token 4
    cands a(k_logits), b(k_logits);
    llama_sampler_apply(chain, &a.arr);
    llama_sampler_apply(copy, &b.arr);
    EXPECT_EQ(a.arr.data[a.arr.selected].id, 7);  // 1 and 4 penalized
    EXPECT_EQ(b.arr.data[b.arr.selected].id, 4);  // only 1 penalized

    // reset clears member state
    llama_sampler_reset(chain);
    cands c(k_logits);
    llama_sampler_apply(chain, &c.arr);
    EXPECT_EQ(c.arr.data[c.arr.selected].id, 1);
    llama_sampler_free(chain);
    llama_sampler_free(copy);
}

TEST(Sampler, PerfCounters) {
    llama_sampler_chain_params params = llama_sampler_chain_default_params();
    params.no_perf                    = false;
    auto * chain                      = llama_sampler_chain_init(params);
    llama_sampler_chain_add(chain, llama_sampler_init_greedy());
    const auto big = random_logits(4096, 1);
    for (int i = 0; i < 5; ++i) {
        cands c(big);
        llama_sampler_apply(chain, &c.arr);
        llama_sampler_accept(chain, c.arr.data[c.arr.selected].id);
    }
    auto d = llama_perf_sampler(chain);
    EXPECT_EQ(d.n_sample, 5);
    EXPECT_GE(d.t_sample_ms, 0.0);
    llama_perf_sampler_print(chain);
    llama_perf_sampler_reset(chain);
    d = llama_perf_sampler(chain);
    EXPECT_EQ(d.n_sample, 0);
    EXPECT_EQ(d.t_sample_ms, 0.0);
    llama_sampler_free(chain);

    // no_perf (the default): nothing measured; a non-chain reports zeros
    auto * quiet = llama_sampler_chain_init(llama_sampler_chain_default_params());
    cands  c(k_logits);
    llama_sampler_apply(quiet, &c.arr);
    EXPECT_EQ(llama_perf_sampler(quiet).t_sample_ms, 0.0);
    llama_sampler_free(quiet);
    auto * g = llama_sampler_init_greedy();
    EXPECT_EQ(llama_perf_sampler(g).n_sample, 0);
    llama_sampler_free(g);
}

namespace {
// a custom sampler: bans token 0, counts accepts
struct ban_ctx {
    int accepted = 0;
};
const char * ban_name(const llama_sampler *) {
    return "ban0";
}
void ban_accept(llama_sampler * s, llama_token) {
    ((ban_ctx *) s->ctx)->accepted++;
}
void ban_apply(llama_sampler *, llama_token_data_array * cur_p) {
    for (size_t i = 0; i < cur_p->size; ++i) {
        if (cur_p->data[i].id == 0) {
            cur_p->data[i].logit = -INFINITY;
        }
    }
}
void ban_free(llama_sampler * s) {
    delete (ban_ctx *) s->ctx;
}
llama_sampler_i ban_iface       = {ban_name, ban_accept, ban_apply, nullptr, nullptr, ban_free,
                                   nullptr,  nullptr,    nullptr,   nullptr, nullptr, nullptr};
llama_sampler_i stateless_iface = {nullptr, nullptr, ban_apply, nullptr, nullptr, nullptr,
                                   nullptr, nullptr, nullptr,   nullptr, nullptr, nullptr};
}  // namespace

TEST(Sampler, CustomSamplerInChain) {
    auto * ctx   = new ban_ctx;
    auto * ban   = llama_sampler_init(&ban_iface, ctx);
    auto * chain = llama_sampler_chain_init(llama_sampler_chain_default_params());
    llama_sampler_chain_add(chain, ban);
    llama_sampler_chain_add(chain, llama_sampler_init_greedy());
    cands c({9.0f, 1.0f, 2.0f});
    llama_sampler_apply(chain, &c.arr);
    EXPECT_EQ(c.arr.data[c.arr.selected].id, 2);
    llama_sampler_accept(chain, 2);
    EXPECT_EQ(ctx->accepted, 1);
    // stateful without clone: cannot be cloned, so neither can the chain
    EXPECT_EQ(llama_sampler_clone(ban), nullptr);
    EXPECT_EQ(llama_sampler_clone(chain), nullptr);
    llama_sampler_free(chain);  // frees ban and ctx

    // stateless (ctx NULL) clones by sharing the interface
    auto * st = llama_sampler_init(&stateless_iface, nullptr);
    auto * cl = llama_sampler_clone(st);
    ASSERT_NE(cl, nullptr);
    EXPECT_STREQ(llama_sampler_name(cl), "(null)");
    llama_sampler_free(st);
    llama_sampler_free(cl);
}

TEST(Sampler, BadInputNeverCrashes) {
    // NULL everywhere
    llama_sampler_free(nullptr);
    llama_sampler_accept(nullptr, 1);
    llama_sampler_apply(nullptr, nullptr);
    llama_sampler_reset(nullptr);
    EXPECT_EQ(llama_sampler_clone(nullptr), nullptr);
    EXPECT_EQ(llama_sampler_init(nullptr, nullptr), nullptr);
    EXPECT_EQ(llama_sampler_chain_get(nullptr, 0), nullptr);
    EXPECT_EQ(llama_sampler_chain_remove(nullptr, 0), nullptr);
    EXPECT_EQ(llama_sampler_chain_n(nullptr), 0);
    llama_sampler_chain_add(nullptr, nullptr);
    EXPECT_EQ(llama_sampler_get_seed(nullptr), (uint32_t) LLAMA_DEFAULT_SEED);
    llama_perf_sampler_print(nullptr);
    llama_perf_sampler_reset(nullptr);

    // chain misuse: NULL member, itself, twice, non-chain target
    auto * chain = llama_sampler_chain_init(llama_sampler_chain_default_params());
    auto * g     = llama_sampler_init_greedy();
    llama_sampler_chain_add(chain, nullptr);
    llama_sampler_chain_add(chain, chain);
    llama_sampler_chain_add(chain, g);
    llama_sampler_chain_add(chain, g);
    EXPECT_EQ(llama_sampler_chain_n(chain), 1);
    auto * other  = llama_sampler_init_greedy();
    auto * orphan = llama_sampler_init_greedy();
    llama_sampler_chain_add(other, orphan);  // not a chain: refused, the caller still owns orphan
    EXPECT_EQ(llama_sampler_chain_n(other), 0);
    llama_sampler_free(other);
    llama_sampler_free(orphan);
    llama_sampler_apply(chain, nullptr);
    llama_token_data_array no_data = {nullptr, 5, -1, false};
    llama_sampler_apply(chain, &no_data);
    EXPECT_EQ(no_data.selected, -1);
    llama_sampler_free(chain);

    // every sampler on an empty array, all-NaN, mixed NaN/inf, one element
    const llama_logit_bias lb       = {0, 1.0f};
    auto                   make_all = [&]() {
        return std::vector<llama_sampler *>{
            llama_sampler_init_greedy(),
            llama_sampler_init_dist(1),
            llama_sampler_init_top_k(3),
            llama_sampler_init_top_k(0),
            llama_sampler_init_top_p(0.5f, 1),
            llama_sampler_init_top_p(-3.0f, 0),
            llama_sampler_init_min_p(0.1f, 1),
            llama_sampler_init_min_p(7.0f, 100),
            llama_sampler_init_typical(0.5f, 1),
            llama_sampler_init_typical(-1.0f, 0),
            llama_sampler_init_temp(0.7f),
            llama_sampler_init_temp(NAN),
            llama_sampler_init_temp_ext(1.0f, 0.5f, 1.0f),
            llama_sampler_init_temp_ext(0.0f, 5.0f, -2.0f),
            llama_sampler_init_penalties(32, 3, 1.2f, 0.1f, 0.1f),
            llama_sampler_init_penalties(32, 3, 0.0f, NAN, INFINITY),
            llama_sampler_init_logit_bias(4, 1, &lb),
        };
    };
    const std::vector<std::vector<float>> inputs = {
        {},     {NAN, NAN, NAN}, {NAN, INFINITY, -INFINITY, 1.0f}, {INFINITY, INFINITY, 0.0f}, {-INFINITY, -INFINITY},
        {2.0f},
    };
    for (const auto & in : inputs) {
        for (auto * s : make_all()) {
            ASSERT_NE(s, nullptr);
            llama_sampler_accept(s, 0);
            llama_sampler_accept(s, -7);  // any id, even a bad one
            cands c(in);
            llama_sampler_apply(s, &c.arr);
            EXPECT_LE(c.arr.size, in.size()) << llama_sampler_name(s);
            if (c.arr.selected >= 0) {
                EXPECT_LT((size_t) c.arr.selected, c.arr.size) << llama_sampler_name(s);
            }
            auto * cl = llama_sampler_clone(s);
            EXPECT_NE(cl, nullptr) << llama_sampler_name(s);
            llama_sampler_reset(cl);
            llama_sampler_free(cl);
            llama_sampler_free(s);
        }
    }

    // greedy and dist always select a valid index on non-empty input, whatever the logits
    for (const auto & in : inputs) {
        if (in.empty()) {
            continue;
        }
        auto * d = llama_sampler_init_dist(3);
        cands  c(in);
        llama_sampler_apply(d, &c.arr);
        EXPECT_GE(c.arr.selected, 0);
        llama_sampler_free(d);
    }
}
