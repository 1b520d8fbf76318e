// The samplers of issue 14 (xtc, top-n-sigma, mirostat v1/v2, adaptive-p, DRY, infill) and
// llama_sampler_copy, on hand-built candidates. Every expectation is computed here from the
// definition (double precision), not with the library's helpers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "llama.h"
#include "test-common.h"
#include "test-sampler-util.h"

namespace {

using test_sampler::cands;
using test_sampler::order_ref;
using test_sampler::random_logits;
using test_sampler::softmax_ref;

struct model_ptr {
    llama_model * m = nullptr;
    explicit model_ptr(llama_model * p) : m(p) {}
    ~model_ptr() { llama_model_free(m); }
    model_ptr(const model_ptr &)             = delete;
    model_ptr & operator=(const model_ptr &) = delete;
};

llama_model * load_vocab(const std::string & rel) {
    llama_model_params p = llama_model_default_params();
    p.vocab_only         = true;
    p.n_gpu_layers       = 0;
    return llama_model_load_from_file(testing_util::data_path(rel).c_str(), p);
}

std::string piece(const llama_vocab * v, llama_token t) {
    char          buf[256];
    const int32_t n = llama_token_to_piece(v, t, buf, sizeof(buf), 0, false);
    return n > 0 ? std::string(buf, n) : std::string();
}

llama_token find_piece(const llama_vocab * v, const std::string & text) {
    for (llama_token t = 0; t < llama_vocab_n_tokens(v); ++t) {
        if (piece(v, t) == text) {
            return t;
        }
    }
    return LLAMA_TOKEN_NULL;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

TEST(SamplerExtra, XtcRemovesTopChoicesButTheLast) {
    const std::vector<float> logits = {3.0f, 2.5f, 2.0f, 0.5f, 0.0f, -1.0f, -3.0f};
    const auto               p      = softmax_ref(logits);
    const auto               order  = order_ref(logits);
    for (float t : {0.05f, 0.1f, 0.2f, 0.5f}) {
        size_t last = 0;  // the last token (in order) with p >= t
        for (size_t i = 0; i < order.size() && p[order[i]] >= t; ++i) {
            last = i;
        }
        std::set<llama_token> want(order.begin() + (last > 0 ? last : 0), order.end());
        cands                 c(logits);
        auto *                s = llama_sampler_init_xtc(1.0f, t, 1, 42);
        llama_sampler_apply(s, &c.arr);
        llama_sampler_free(s);
        EXPECT_EQ(c.id_set(), want) << "t=" << t;
    }
    // min_keep larger than what would remain: no-op; probability 0 and threshold > 0.5: no-op
    for (auto * s : {llama_sampler_init_xtc(1.0f, 0.05f, 7, 1), llama_sampler_init_xtc(0.0f, 0.05f, 1, 1),
                     llama_sampler_init_xtc(1.0f, 0.6f, 1, 1)}) {
        cands c(logits);
        llama_sampler_apply(s, &c.arr);
        llama_sampler_free(s);
        EXPECT_EQ(c.arr.size, logits.size());
    }
}

TEST(SamplerExtra, XtcProbabilityIsSeeded) {
    const std::vector<float> logits = {3.0f, 2.5f, 2.0f, 0.5f};
    auto                     run    = [&](llama_sampler * s) {
        std::string fired;
        for (int i = 0; i < 200; ++i) {
            cands c(logits);
            llama_sampler_apply(s, &c.arr);
            fired += c.arr.size < logits.size() ? '1' : '0';
        }
        return fired;
    };
    auto * a = llama_sampler_init_xtc(0.3f, 0.1f, 1, 1234);
    auto * b = llama_sampler_init_xtc(0.3f, 0.1f, 1, 1234);
    auto * d = llama_sampler_init_xtc(0.3f, 0.1f, 1, 999);
    EXPECT_EQ(llama_sampler_get_seed(a), 1234u);
    const std::string ra = run(a);
    EXPECT_EQ(ra, run(b));
    EXPECT_NE(ra, run(d));
    const double rate = (double) std::count(ra.begin(), ra.end(), '1') / ra.size();
    EXPECT_NEAR(rate, 0.3, 0.1);
    llama_sampler_reset(a);  // back to the start of the same stream
    EXPECT_EQ(run(a), ra);
    for (auto * s : {a, b, d}) {
        llama_sampler_free(s);
    }
}

TEST(SamplerExtra, TopNSigmaMasksBelowMaxMinusNSigma) {
    for (uint32_t seed : {1u, 2u, 3u}) {
        auto logits = random_logits(50, seed);
        logits[7]   = -INFINITY;  // excluded from the statistics
        for (float n : {0.5f, 1.0f, 2.0f}) {
            double mx = -INFINITY, sum = 0;
            int    cnt = 0;
            for (float l : logits) {
                if (std::isfinite(l)) {
                    mx = std::max(mx, (double) l);
                    sum += l;
                    cnt++;
                }
            }
            const double mean = sum / cnt;
            double       acc  = 0;
            for (float l : logits) {
                if (std::isfinite(l)) {
                    acc += (l - mean) * (l - mean);
                }
            }
            const double cut = mx - n * std::sqrt(acc / cnt);
            cands        c(logits);
            auto *       s = llama_sampler_init_top_n_sigma(n);
            llama_sampler_apply(s, &c.arr);
            llama_sampler_free(s);
            for (size_t i = 0; i < logits.size(); ++i) {
                if (std::fabs(logits[i] - cut) < 1e-4) {
                    continue;  // on the edge: rounding decides
                }
                if (logits[i] >= cut) {
                    EXPECT_EQ(c.logit_of((llama_token) i), logits[i]);
                } else {
                    EXPECT_EQ(c.logit_of((llama_token) i), -INFINITY) << i;
                }
            }
        }
    }
    cands  c({1.0f, 2.0f, 3.0f});
    auto * s = llama_sampler_init_top_n_sigma(0.0f);  // no-op
    llama_sampler_apply(s, &c.arr);
    llama_sampler_free(s);
    EXPECT_EQ(c.logit_of(0), 1.0f);
}

TEST(SamplerExtra, MirostatV2TruncatesBySurpriseAndAdaptsMu) {
    const auto  logits = random_logits(64, 7);
    const auto  p      = softmax_ref(logits);
    const auto  order  = order_ref(logits);
    const float tau = 3.0f, eta = 0.5f;
    double      mu = 2.0 * tau;
    auto *      s  = llama_sampler_init_mirostat_v2(77, tau, eta);
    EXPECT_EQ(llama_sampler_get_seed(s), 77u);
    for (int step = 0; step < 6; ++step) {
        size_t keep = 0;
        while (keep < order.size() && -std::log2(p[order[keep]]) <= mu) {
            keep++;
        }
        keep = std::max<size_t>(keep, 1);
        cands c(logits);
        llama_sampler_apply(s, &c.arr);
        ASSERT_EQ(c.arr.size, keep) << "step " << step;
        ASSERT_GE(c.arr.selected, 0);
        ASSERT_LT((size_t) c.arr.selected, keep);
        double z = 0;
        for (size_t i = 0; i < keep; ++i) {
            z += p[order[i]];
        }
        const double surprise = -std::log2(p[c.selected_id()] / z);
        mu -= eta * (surprise - tau);
    }
    llama_sampler_free(s);
}

TEST(SamplerExtra, MirostatV1KeepsTopKFromZipfEstimate) {
    const auto    logits  = random_logits(200, 11);
    const auto    p       = softmax_ref(logits);
    const auto    order   = order_ref(logits);
    const int32_t n_vocab = 200, m = 100;
    const float   tau = 5.0f, eta = 0.1f;
    double        mu = 2.0 * tau;
    auto *        s  = llama_sampler_init_mirostat(n_vocab, 5, tau, eta, m);
    for (int step = 0; step < 4; ++step) {
        double tb = 0, tt = 0;
        for (int i = 0; i + 1 < m && i + 1 < (int) order.size(); ++i) {
            const double t = std::log((i + 2.0) / (i + 1.0));
            const double b = std::log(p[order[i]] / p[order[i + 1]]);
            tb += t * b;
            tt += t * t;
        }
        const double sh  = tb / tt;
        const double eps = sh - 1.0;
        const double kf  = std::pow(eps * std::pow(2.0, mu) / (1.0 - std::pow((double) n_vocab, -eps)), 1.0 / sh);
        const size_t k   = std::min<size_t>(order.size(), (size_t) std::max(1.0, kf));
        cands        c(logits);
        llama_sampler_apply(s, &c.arr);
        // float vs double in the estimate may move k by one at the boundary
        ASSERT_NEAR((double) c.arr.size, (double) k, 1.0) << "step " << step;
        ASSERT_GE(c.arr.selected, 0);
        double z = 0;
        for (size_t i = 0; i < c.arr.size; ++i) {
            z += p[order[i]];
        }
        mu -= eta * (-std::log2(p[c.selected_id()] / z) - tau);
    }
    llama_sampler_free(s);
}

TEST(SamplerExtra, AdaptivePReshapesAroundTheAdaptedTarget) {
    const auto  logits = random_logits(16, 3);
    const auto  p      = softmax_ref(logits);
    const float target = 0.3f, decay = 0.5f;
    double      wsum = target / (1.0 - decay), wtot = 1.0 / (1.0 - decay);
    auto *      s = llama_sampler_init_adaptive_p(target, decay, 9);
    for (int step = 0; step < 5; ++step) {
        const double aim = std::min(1.0, std::max(0.0, 2.0 * target - wsum / wtot));
        cands        c(logits);
        llama_sampler_apply(s, &c.arr);
        ASSERT_EQ(c.arr.size, logits.size());
        for (size_t i = 0; i < logits.size(); ++i) {
            const double d    = std::fabs(p[i] - aim) / 0.3;
            const double want = 5.0 - 10.0 * d * d / (1.0 + d);
            EXPECT_NEAR(c.logit_of((llama_token) i), want, 1e-3) << "step " << step << " token " << i;
        }
        const llama_token tok = c.selected_id();
        ASSERT_GE(tok, 0);
        llama_sampler_accept(s, tok);
        wsum = p[tok] + decay * wsum;
        wtot = 1.0 + decay * wtot;
    }
    llama_sampler_free(s);

    // negative target: a plain draw, logits untouched
    cands  c(logits);
    auto * plain = llama_sampler_init_adaptive_p(-1.0f, 0.5f, 9);
    llama_sampler_apply(plain, &c.arr);
    llama_sampler_free(plain);
    EXPECT_GE(c.arr.selected, 0);
    EXPECT_EQ(c.logit_of(0), logits[0]);
}

namespace {
// longest repeat each next token would extend (naive definition), limited to the tokens after
// the last breaker position (limit)
std::map<llama_token, int> dry_ref(const std::vector<llama_token> & h, int limit, int allowed) {
    std::map<llama_token, int> rep;
    const int                  n = (int) h.size();
    for (int i = 0; i + 1 < n; ++i) {
        int len = 0;
        while (len <= i && h[i - len] == h[n - 1 - len]) {
            len++;
        }
        len = std::min(len, limit);
        if (len >= allowed) {
            rep[h[i + 1]] = std::max(rep[h[i + 1]], len);
        }
    }
    return rep;
}
}  // namespace

TEST(SamplerExtra, DryPenalisesRepeatExtensions) {
    const float  mult = 0.8f, base = 1.75f;
    const int    allowed = 2;
    std::mt19937 rng(5);
    for (int trial = 0; trial < 30; ++trial) {
        std::vector<llama_token> h(40);
        for (auto & t : h) {
            t = (llama_token) (rng() % 4);  // a small alphabet repeats a lot
        }
        auto * s = llama_sampler_init_dry(nullptr, mult, base, allowed, 1000, nullptr, 0);
        ASSERT_NE(s, nullptr) << llama_last_error();
        for (auto t : h) {
            llama_sampler_accept(s, t);
        }
        const std::vector<float> logits(6, 1.0f);
        cands                    c(logits);
        llama_sampler_apply(s, &c.arr);
        llama_sampler_free(s);
        const auto rep = dry_ref(h, (int) h.size(), allowed);
        for (llama_token t = 0; t < 6; ++t) {
            const auto   it   = rep.find(t);
            const double want = it == rep.end() ? 1.0 : 1.0 - mult * std::pow(base, it->second - allowed);
            EXPECT_NEAR(c.logit_of(t), want, 1e-3 * std::fabs(want) + 1e-4) << "trial " << trial << " token " << t;
        }
    }
    // last_n limits the history; multiplier 0 is a no-op. Returns token 1's logit after the history
    // 1 2 3 1 2 3 on five zero logits (base 2, allowed length 2).
    auto logit1_after = [](float multiplier, int32_t last_n) {
        auto * s = llama_sampler_init_dry(nullptr, multiplier, 2.0f, 2, last_n, nullptr, 0);
        for (llama_token t : {1, 2, 3, 1, 2, 3}) {
            llama_sampler_accept(s, t);
        }
        cands c(std::vector<float>(5, 0.0f));
        llama_sampler_apply(s, &c.arr);
        llama_sampler_free(s);
        return c.logit_of(1);
    };
    // only the last 3 tokens [1 2 3] are kept: no earlier occurrence, so no repeat
    EXPECT_EQ(logit1_after(1.0f, 3), 0.0f);
    EXPECT_EQ(logit1_after(0.0f, 100), 0.0f);
}

TEST(SamplerExtra, DrySequenceBreakerStopsTheRepeat) {
    model_ptr m(load_vocab("vocab/ggml-vocab-llama-spm.gguf"));
    ASSERT_NE(m.m, nullptr) << llama_last_error();
    const llama_vocab * v  = llama_model_get_vocab(m.m);
    llama_token         nl = LLAMA_TOKEN_NULL;  // the byte token of "\n"
    for (llama_token t = 0; t < llama_vocab_n_tokens(v) && nl < 0; ++t) {
        if (std::string(llama_vocab_get_text(v, t)) == "<0x0A>") {
            nl = t;
        }
    }
    ASSERT_GE(nl, 0);
    const llama_token              a = 100, b = 101, c_ = 102, d = 103, X = nl;
    const std::vector<llama_token> h = {a, b, X, c_, d, a, b, X, c_};

    for (bool with_breaker : {false, true}) {
        const char * brk[] = {"\n"};
        auto *       s     = llama_sampler_init_dry(v, 1.0f, 2.0f, 2, 100, with_breaker ? brk : nullptr, with_breaker);
        ASSERT_NE(s, nullptr);
        for (auto t : h) {
            llama_sampler_accept(s, t);
        }
        cands c(std::vector<float>(200, 0.0f));
        llama_sampler_apply(s, &c.arr);
        llama_sampler_free(s);
        // without: "a b X c" repeats (length 4) and d would extend it: 1 * 2^(4-2)
        EXPECT_NEAR(c.logit_of(d), with_breaker ? 0.0f : -4.0f, 1e-5) << with_breaker;
    }
}

TEST(SamplerExtra, InfillMergesPrefixesAndHandlesEog) {
    model_ptr m(load_vocab("vocab/ggml-vocab-llama-spm.gguf"));
    ASSERT_NE(m.m, nullptr) << llama_last_error();
    const llama_vocab * v   = llama_model_get_vocab(m.m);
    const llama_token   th  = find_piece(v, " th");
    const llama_token   the = find_piece(v, " the");
    const llama_token   thy = find_piece(v, " they");
    const llama_token   dog = find_piece(v, " dog");
    const llama_token   eos = llama_vocab_eos(v);
    ASSERT_TRUE(th >= 0 && the >= 0 && thy >= 0 && dog >= 0);

    // 1. text: " th" 0.3, " the" 0.35, " they" 0.05, " dog" 0.28, eos 0.02
    {
        std::vector<llama_token_data> d   = {{th, std::log(0.3f), 0},
                                             {the, std::log(0.35f), 0},
                                             {thy, std::log(0.05f), 0},
                                             {dog, std::log(0.28f), 0},
                                             {eos, std::log(0.02f), 0}};
        llama_token_data_array        arr = {d.data(), d.size(), -1, false};
        auto *                        s   = llama_sampler_init_infill(v);
        llama_sampler_apply(s, &arr);
        llama_sampler_free(s);
        // 3*0.02*5 = 0.3 < 0.98: text. Merges: " the" <- " th" (0.65), then " the" <- " they" (0.7)
        // (each pair merges into the more likely one). Kept >= 0.2: " the" 0.7, " dog" 0.28, eos;
        // then >= 1/3: " the" and eos. Normalised: 0.7 / 0.72, 0.02 / 0.72.
        std::map<llama_token, float> got;
        for (size_t i = 0; i < arr.size; ++i) {
            got[arr.data[i].id] = arr.data[i].p;
        }
        ASSERT_EQ(got.size(), 2u);
        EXPECT_NEAR(got[the], 0.70 / 0.72, 1e-4);
        EXPECT_NEAR(got[eos], 0.02 / 0.72, 1e-4);
    }
    // 2. EOG heavy: 3 * 0.15 * 3 = 1.35 > 0.85 of text: only EOG
    {
        std::vector<llama_token_data> d = {
            {dog, std::log(0.45f), 0}, {th, std::log(0.4f), 0}, {eos, std::log(0.15f), 0}};
        llama_token_data_array arr = {d.data(), d.size(), -1, false};
        auto *                 s   = llama_sampler_init_infill(v);
        llama_sampler_apply(s, &arr);
        llama_sampler_free(s);
        ASSERT_EQ(arr.size, 1u);
        EXPECT_EQ(arr.data[0].id, eos);
        EXPECT_NEAR(arr.data[0].p, 1.0f, 1e-6);
    }
    // 3. all text tokens weak and no EOG: a single end token
    {
        // six equally likely text tokens (1/6 < 0.2) none of which starts another
        std::vector<llama_token_data> d;
        std::vector<std::string>      texts;
        for (llama_token t = 1000; d.size() < 6; ++t) {
            const std::string x   = piece(v, t);
            bool              rel = x.empty() || llama_vocab_is_eog(v, t);
            for (const auto & y : texts) {
                rel = rel || x.compare(0, y.size(), y) == 0 || y.compare(0, x.size(), x) == 0;
            }
            if (!rel) {
                texts.push_back(x);
                d.push_back({t, 0.0f, 0});
            }
        }
        llama_token_data_array arr = {d.data(), d.size(), -1, false};
        auto *                 s   = llama_sampler_init_infill(v);
        llama_sampler_apply(s, &arr);
        llama_sampler_free(s);
        ASSERT_EQ(arr.size, 1u);
        const llama_token eot = llama_vocab_eot(v);
        EXPECT_EQ(arr.data[0].id, eot != LLAMA_TOKEN_NULL ? eot : eos);
    }
}

// ---------------------------------------------------------------------------------------------
// clone and copy: independent state that continues exactly as the original would
// ---------------------------------------------------------------------------------------------

namespace {
// applies + accepts n steps on the same logits; returns the picked (or penalised) tokens
std::vector<float> run_steps(llama_sampler * s, int n, uint32_t seed) {
    std::vector<float> trace;
    for (int i = 0; i < n; ++i) {
        cands c(random_logits(32, seed + i));
        llama_sampler_apply(s, &c.arr);
        llama_token tok = c.arr.selected >= 0 ? c.arr.data[c.arr.selected].id : (llama_token) (i * 7 % 32);
        for (size_t j = 0; j < c.arr.size; ++j) {
            trace.push_back(c.arr.data[j].logit);
        }
        trace.push_back((float) tok);
        llama_sampler_accept(s, tok);
    }
    return trace;
}

std::vector<llama_sampler *> stateful_samplers() {
    auto * chain = llama_sampler_chain_init(llama_sampler_chain_default_params());
    llama_sampler_chain_add(chain, llama_sampler_init_dry(nullptr, 1.0f, 1.5f, 1, 64, nullptr, 0));
    llama_sampler_chain_add(chain, llama_sampler_init_xtc(0.5f, 0.05f, 1, 3));
    llama_sampler_chain_add(chain, llama_sampler_init_dist(4));
    return {
        llama_sampler_init_dist(1),
        llama_sampler_init_xtc(0.5f, 0.05f, 1, 2),
        llama_sampler_init_mirostat(32, 3, 3.0f, 0.2f, 100),
        llama_sampler_init_mirostat_v2(4, 3.0f, 0.2f),
        llama_sampler_init_adaptive_p(0.4f, 0.9f, 5),
        llama_sampler_init_dry(nullptr, 1.0f, 1.5f, 1, 64, nullptr, 0),
        llama_sampler_init_top_n_sigma(1.5f),
        chain,
    };
}
}  // namespace

TEST(SamplerExtra, CloneAndCopyAreIndependent) {
    auto originals = stateful_samplers();
    auto others    = stateful_samplers();  // same kinds, to copy into
    for (size_t k = 0; k < originals.size(); ++k) {
        llama_sampler * s = originals[k];
        ASSERT_NE(s, nullptr) << k;
        const std::string name = llama_sampler_name(s);
        run_steps(s, 5, 100);  // some history and rng use

        llama_sampler * c = llama_sampler_clone(s);
        ASSERT_NE(c, nullptr) << name;
        llama_sampler_copy(s, others[k]);

        const auto a = run_steps(s, 8, 200);
        const auto b = run_steps(c, 8, 200);
        const auto d = run_steps(others[k], 8, 200);
        EXPECT_EQ(a, b) << name << ": clone diverged";
        EXPECT_EQ(a, d) << name << ": copy diverged";

        // advancing the clone leaves the original where it was: both still agree afterwards
        run_steps(c, 3, 300);
        llama_sampler * c2 = llama_sampler_clone(s);
        EXPECT_EQ(run_steps(s, 4, 400), run_steps(c2, 4, 400)) << name;
        llama_sampler_free(c);
        llama_sampler_free(c2);
    }
    // different kinds: refused, nothing changes, no crash
    llama_sampler_copy(originals[0], originals[1]);
    EXPECT_NE(std::string(llama_last_error()).find("different kind"), std::string::npos);
    llama_sampler_copy(nullptr, originals[0]);
    llama_sampler_copy(originals[0], nullptr);
    for (auto * s : originals) {
        llama_sampler_free(s);
    }
    for (auto * s : others) {
        llama_sampler_free(s);
    }
}
