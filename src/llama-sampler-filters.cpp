// The filtering and reshaping samplers: they shrink or rescale the candidates and leave the pick
// to greedy or dist. Parameters outside their domain make the sampler a no-op (documented per
// sampler below and in llama.h) rather than failing.
#include <algorithm>
#include <cmath>
#include <exception>
#include <new>
#include <numeric>
#include <unordered_map>
#include <vector>

#include "llama-sampler.h"

static bool cur_p_empty(const llama_token_data_array * cur_p) {
    return cur_p->data == nullptr || cur_p->size == 0;
}

// ---------------------------------------------------------------------------------------------
// top-k: keep the k highest logits (k <= 0: no-op; k > size: keep all)
// ---------------------------------------------------------------------------------------------

namespace {
struct sampler_top_k {
    int32_t k;
};
struct sampler_p_keep {
    float  p;
    size_t min_keep;
};
struct sampler_temp {
    float temp;
};
struct sampler_temp_ext {
    float temp;
    float delta;
    float exponent;
};
}  // namespace

static void top_k_impl(llama_token_data_array * cur_p, int32_t k) {
    if (k <= 0 || cur_p_empty(cur_p)) {
        return;
    }
    const size_t kk = std::min((size_t) k, cur_p->size);
    if (!cur_p->sorted) {
        std::partial_sort(cur_p->data, cur_p->data + kk, cur_p->data + cur_p->size, llama_token_data_greater);
        cur_p->sorted = true;
    }
    cur_p->size = kk;
}

static const char * top_k_name(const llama_sampler *) {
    return "top-k";
}

static void top_k_apply(llama_sampler * smpl, llama_token_data_array * cur_p) {
    top_k_impl(cur_p, ((const sampler_top_k *) smpl->ctx)->k);
}

static const llama_sampler_i llama_sampler_top_k_i = llama_sampler_iface(
    top_k_name, nullptr, top_k_apply, nullptr, llama_sampler_clone_ctx<sampler_top_k, &llama_sampler_top_k_i>,
    llama_sampler_free_ctx<sampler_top_k>);

struct llama_sampler * llama_sampler_init_top_k(int32_t k) {
    return llama_sampler_make<sampler_top_k>(&llama_sampler_top_k_i, {k});
}

// ---------------------------------------------------------------------------------------------
// top-p (nucleus): the smallest prefix of the sorted candidates whose probability sum >= p,
// and at least min_keep. p >= 1 or NaN: no-op; p <= 0 keeps max(1, min_keep).
// ---------------------------------------------------------------------------------------------

static const char * top_p_name(const llama_sampler *) {
    return "top-p";
}

static void top_p_apply(llama_sampler * smpl, llama_token_data_array * cur_p) {
    const auto * ctx = (const sampler_p_keep *) smpl->ctx;
    if (!(ctx->p < 1.0f) || cur_p_empty(cur_p)) {
        return;
    }
    // probabilities first (no sort), then sort only as far as the nucleus reaches: it is usually
    // a few dozen tokens out of tens of thousands, so a full sort would dominate sampling time
    llama_sampler_softmax_impl(cur_p, false);

    llama_token_data * data   = cur_p->data;
    const size_t       n      = cur_p->size;
    size_t             sorted = cur_p->sorted ? n : 0;  // data[0, sorted) is in final order
    size_t             chunk  = 64;

    double cum  = 0.0;
    size_t last = n;
    for (size_t i = 0; i < n; ++i) {
        if (i == sorted) {
            const size_t end = std::min(n, sorted + chunk);
            std::partial_sort(data + sorted, data + end, data + n, llama_token_data_greater);
            sorted = end;
            chunk *= 2;
        }
        cum += data[i].p;
        if (cum >= ctx->p && i + 1 >= ctx->min_keep) {
            last = i + 1;
            break;
        }
    }
    // the kept prefix is sorted; when nothing was cut, the whole array was sorted on the way
    cur_p->size   = last;
    cur_p->sorted = true;
}

static const llama_sampler_i llama_sampler_top_p_i = llama_sampler_iface(
    top_p_name, nullptr, top_p_apply, nullptr, llama_sampler_clone_ctx<sampler_p_keep, &llama_sampler_top_p_i>,
    llama_sampler_free_ctx<sampler_p_keep>);

struct llama_sampler * llama_sampler_init_top_p(float p, size_t min_keep) {
    return llama_sampler_make<sampler_p_keep>(&llama_sampler_top_p_i, {p, min_keep});
}

// ---------------------------------------------------------------------------------------------
// min-p: keep tokens with p >= p_min * p_max, i.e. logit >= max_logit + log(p_min), and at least
// min_keep (the best ones). p <= 0 or NaN: no-op; p > 1 keeps max(1, min_keep).
// ---------------------------------------------------------------------------------------------

static const char * min_p_name(const llama_sampler *) {
    return "min-p";
}

static void min_p_apply(llama_sampler * smpl, llama_token_data_array * cur_p) {
    const auto * ctx = (const sampler_p_keep *) smpl->ctx;
    if (!(ctx->p > 0.0f) || cur_p_empty(cur_p)) {
        return;
    }
    llama_token_data * data = cur_p->data;
    const size_t       n    = cur_p->size;

    // comparing logits avoids a softmax; NaN logits never pass (NaN >= x is false)
    float max_l = -INFINITY;
    for (size_t i = 0; i < n; ++i) {
        if (!std::isnan(data[i].logit)) {
            max_l = std::max(max_l, data[i].logit);
        }
    }
    const float min_l = max_l + std::log(ctx->p);

    if (!cur_p->sorted) {
        // unsorted fast path: a stable in-place filter, valid when it keeps enough tokens
        size_t n_pass = 0;
        for (size_t i = 0; i < n; ++i) {
            n_pass += data[i].logit >= min_l;
        }
        if (n_pass >= std::max<size_t>(1, ctx->min_keep)) {
            size_t j = 0;
            for (size_t i = 0; i < n; ++i) {
                if (data[i].logit >= min_l) {
                    data[j++] = data[i];
                }
            }
            cur_p->size = j;
            return;
        }
        std::sort(data, data + n, llama_token_data_greater);
        cur_p->sorted = true;
    }

    size_t i = 1;  // the best token always stays
    for (; i < n; ++i) {
        if (!(data[i].logit >= min_l) && i >= ctx->min_keep) {
            break;
        }
    }
    cur_p->size = i;
}

static const llama_sampler_i llama_sampler_min_p_i = llama_sampler_iface(
    min_p_name, nullptr, min_p_apply, nullptr, llama_sampler_clone_ctx<sampler_p_keep, &llama_sampler_min_p_i>,
    llama_sampler_free_ctx<sampler_p_keep>);

struct llama_sampler * llama_sampler_init_min_p(float p, size_t min_keep) {
    return llama_sampler_make<sampler_p_keep>(&llama_sampler_min_p_i, {p, min_keep});
}

// ---------------------------------------------------------------------------------------------
// locally typical (Meister et al. 2022): order tokens by |-log p - H| (closest to the entropy
// first) and keep the shortest prefix of that order whose mass exceeds p, at least min_keep.
// p >= 1 or NaN: no-op. The result is no longer sorted by logit.
// ---------------------------------------------------------------------------------------------

static const char * typical_name(const llama_sampler *) {
    return "typical";
}

static void typical_apply(llama_sampler * smpl, llama_token_data_array * cur_p) {
    const auto * ctx = (const sampler_p_keep *) smpl->ctx;
    if (!(ctx->p < 1.0f) || cur_p_empty(cur_p)) {
        return;
    }
    llama_sampler_softmax_impl(cur_p, true);
    const size_t n = cur_p->size;

    double entropy = 0.0;
    for (size_t i = 0; i < n; ++i) {
        const float p = cur_p->data[i].p;
        if (p > 0.0f) {
            entropy -= (double) p * std::log((double) p);
        }
    }

    std::vector<double> shifted(n);
    for (size_t i = 0; i < n; ++i) {
        const float p = cur_p->data[i].p;
        shifted[i]    = p > 0.0f ? std::fabs(-std::log((double) p) - entropy) : INFINITY;
    }
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return shifted[a] < shifted[b]; });

    double cum  = 0.0;
    size_t last = n;
    for (size_t i = 0; i < n; ++i) {
        cum += cur_p->data[order[i]].p;
        if (cum > ctx->p && i + 1 >= ctx->min_keep) {
            last = i + 1;
            break;
        }
    }

    std::vector<llama_token_data> kept(last);
    for (size_t i = 0; i < last; ++i) {
        kept[i] = cur_p->data[order[i]];
    }
    std::copy(kept.begin(), kept.end(), cur_p->data);
    cur_p->size   = last;
    cur_p->sorted = false;
}

static const llama_sampler_i llama_sampler_typical_i = llama_sampler_iface(
    typical_name, nullptr, typical_apply, nullptr, llama_sampler_clone_ctx<sampler_p_keep, &llama_sampler_typical_i>,
    llama_sampler_free_ctx<sampler_p_keep>);

struct llama_sampler * llama_sampler_init_typical(float p, size_t min_keep) {
    return llama_sampler_make<sampler_p_keep>(&llama_sampler_typical_i, {p, min_keep});
}

// ---------------------------------------------------------------------------------------------
// temp: logit /= t; t <= 0 (or NaN) keeps only the best token (the others become -inf)
// ---------------------------------------------------------------------------------------------

static const char * temp_name(const llama_sampler *) {
    return "temp";
}

static void temp_apply(llama_sampler * smpl, llama_token_data_array * cur_p) {
    llama_sampler_temp_impl(cur_p, ((const sampler_temp *) smpl->ctx)->temp);
}

static const llama_sampler_i llama_sampler_temp_i = llama_sampler_iface(
    temp_name, nullptr, temp_apply, nullptr, llama_sampler_clone_ctx<sampler_temp, &llama_sampler_temp_i>,
    llama_sampler_free_ctx<sampler_temp>);

struct llama_sampler * llama_sampler_init_temp(float t) {
    return llama_sampler_make<sampler_temp>(&llama_sampler_temp_i, {t});
}

// ---------------------------------------------------------------------------------------------
// temp-ext (dynamic temperature, "entropy sampling"): with delta > 0 the temperature moves in
// [max(0, t - delta), t + delta] with the normalized entropy of the distribution:
//   T = T_min + (T_max - T_min) * (H / log(n))^exponent
// then p is recomputed. delta <= 0 is plain temp(t).
// ---------------------------------------------------------------------------------------------

static const char * temp_ext_name(const llama_sampler *) {
    return "temp-ext";
}

static void temp_ext_apply(llama_sampler * smpl, llama_token_data_array * cur_p) {
    const auto * ctx = (const sampler_temp_ext *) smpl->ctx;
    if (!(ctx->delta > 0.0f)) {
        llama_sampler_temp_impl(cur_p, ctx->temp);
        return;
    }
    if (cur_p_empty(cur_p) || cur_p->size <= 1) {
        return;  // one token: the temperature changes nothing
    }
    const float t_min = std::max(0.0f, ctx->temp - ctx->delta);
    const float t_max = ctx->temp + ctx->delta;

    llama_sampler_softmax_impl(cur_p, true);

    const double max_entropy = std::log((double) cur_p->size);
    double       entropy     = 0.0;
    for (size_t i = 0; i < cur_p->size; ++i) {
        const float p = cur_p->data[i].p;
        if (p > 0.0f) {
            entropy -= (double) p * std::log((double) p);
        }
    }
    const double norm  = std::clamp(entropy / max_entropy, 0.0, 1.0);
    const float  dyn_t = (float) (t_min + (t_max - t_min) * std::pow(norm, (double) ctx->exponent));

    llama_sampler_temp_impl(cur_p, dyn_t);  // dyn_t <= 0 or NaN degrades to keep-the-best
    llama_sampler_softmax_impl(cur_p, false);
}

static const llama_sampler_i llama_sampler_temp_ext_i = llama_sampler_iface(
    temp_ext_name, nullptr, temp_ext_apply, nullptr,
    llama_sampler_clone_ctx<sampler_temp_ext, &llama_sampler_temp_ext_i>, llama_sampler_free_ctx<sampler_temp_ext>);

struct llama_sampler * llama_sampler_init_temp_ext(float t, float delta, float exponent) {
    return llama_sampler_make<sampler_temp_ext>(&llama_sampler_temp_ext_i, {t, delta, exponent});
}

// ---------------------------------------------------------------------------------------------
// penalties over the last N accepted tokens (a ring buffer with per-token counts):
//   repeat:   logit > 0 ? logit / r : logit * r   (for every token seen at least once)
//   freq:     logit -= count * f
//   presence: logit -= p                          (once, if seen)
// last_n == 0 or all three neutral (1, 0, 0): no-op. last_n < 0 ("the context size", unknown to a
// sampler) counts every token accepted since the last reset. A repeat penalty <= 0 or NaN is 1.
// ---------------------------------------------------------------------------------------------

namespace {
struct sampler_penalties {
    int32_t last_n;
    float   repeat;
    float   freq;
    float   present;

    std::vector<llama_token>                 ring;  // grows to last_n, then overwritten at head
    size_t                                   head = 0;
    std::unordered_map<llama_token, int32_t> count;
};
}  // namespace

static const char * penalties_name(const llama_sampler *) {
    return "penalties";
}

static void penalties_accept(llama_sampler * smpl, llama_token token) {
    auto * ctx = (sampler_penalties *) smpl->ctx;
    if (ctx->last_n == 0) {
        return;
    }
    ctx->count[token]++;
    if (ctx->last_n < 0) {
        return;  // unbounded window: the counts are the whole history
    }
    if (ctx->ring.size() < (size_t) ctx->last_n) {
        ctx->ring.push_back(token);
        return;
    }
    const llama_token old = ctx->ring[ctx->head];
    auto              it  = ctx->count.find(old);
    if (it != ctx->count.end() && --it->second <= 0) {
        ctx->count.erase(it);
    }
    ctx->ring[ctx->head] = token;
    ctx->head            = (ctx->head + 1) % ctx->ring.size();
}

static void penalties_apply(llama_sampler * smpl, llama_token_data_array * cur_p) {
    const auto * ctx = (const sampler_penalties *) smpl->ctx;
    if (ctx->last_n == 0 || ctx->count.empty() || cur_p_empty(cur_p) ||
        (ctx->repeat == 1.0f && ctx->freq == 0.0f && ctx->present == 0.0f)) {
        return;
    }
    bool changed = false;
    for (size_t i = 0; i < cur_p->size; ++i) {
        const auto it = ctx->count.find(cur_p->data[i].id);
        if (it == ctx->count.end()) {
            continue;
        }
        float & logit = cur_p->data[i].logit;
        // dividing a negative logit would raise it: multiply instead so the penalty always lowers
        logit = logit <= 0.0f ? logit * ctx->repeat : logit / ctx->repeat;
        logit -= (float) it->second * ctx->freq + ctx->present;
        changed = true;
    }
    if (changed) {
        cur_p->sorted = false;
    }
}

static void penalties_reset(llama_sampler * smpl) {
    auto * ctx = (sampler_penalties *) smpl->ctx;
    ctx->ring.clear();
    ctx->head = 0;
    ctx->count.clear();
}

static const llama_sampler_i llama_sampler_penalties_i = llama_sampler_iface(
    penalties_name, penalties_accept, penalties_apply, penalties_reset,
    llama_sampler_clone_ctx<sampler_penalties, &llama_sampler_penalties_i>, llama_sampler_free_ctx<sampler_penalties>);

struct llama_sampler * llama_sampler_init_penalties(int32_t n_vocab, int32_t penalty_last_n, float penalty_repeat,
                                                    float penalty_freq, float penalty_present) {
    (void) n_vocab;  // llama.cpp's signature; the history is kept per token id, no table needed
    if (penalty_last_n < 0) {
        penalty_last_n = -1;
    }
    if (!(penalty_repeat > 0.0f) || std::isinf(penalty_repeat)) {
        LLAMA_LOG_WARN("%s: penalty_repeat = %f is invalid; using 1 (off)\n", __func__, (double) penalty_repeat);
        penalty_repeat = 1.0f;
    }
    if (!std::isfinite(penalty_freq)) {
        penalty_freq = 0.0f;
    }
    if (!std::isfinite(penalty_present)) {
        penalty_present = 0.0f;
    }
    sampler_penalties init{};
    init.last_n  = penalty_last_n;
    init.repeat  = penalty_repeat;
    init.freq    = penalty_freq;
    init.present = penalty_present;
    try {
        init.ring.reserve((size_t) std::clamp<int32_t>(penalty_last_n, 0, 1 << 16));
    } catch (const std::exception &) {
    }
    return llama_sampler_make<sampler_penalties>(&llama_sampler_penalties_i, init);
}

// ---------------------------------------------------------------------------------------------
// logit-bias: logit += bias for the listed tokens (entries for the same token add up; tokens
// outside [0, n_vocab) are dropped with a warning)
// ---------------------------------------------------------------------------------------------

namespace {
struct sampler_logit_bias {
    int32_t                                n_vocab;
    std::vector<llama_logit_bias>          biases;  // one entry per token
    std::unordered_map<llama_token, float> by_token;
};
}  // namespace

static const char * logit_bias_name(const llama_sampler *) {
    return "logit-bias";
}

static void logit_bias_apply(llama_sampler * smpl, llama_token_data_array * cur_p) {
    const auto * ctx = (const sampler_logit_bias *) smpl->ctx;
    if (ctx->biases.empty() || cur_p_empty(cur_p)) {
        return;
    }
    // fast path: the usual full-vocab array has data[id].id == id, so no scan is needed
    bool direct = true;
    for (const auto & b : ctx->biases) {
        if ((size_t) b.token >= cur_p->size || cur_p->data[b.token].id != b.token) {
            direct = false;
            break;
        }
    }
    if (direct) {
        for (const auto & b : ctx->biases) {
            cur_p->data[b.token].logit += b.bias;
        }
    } else {
        for (size_t i = 0; i < cur_p->size; ++i) {
            const auto it = ctx->by_token.find(cur_p->data[i].id);
            if (it != ctx->by_token.end()) {
                cur_p->data[i].logit += it->second;
            }
        }
    }
    cur_p->sorted = false;
}

static const llama_sampler_i llama_sampler_logit_bias_i =
    llama_sampler_iface(logit_bias_name, nullptr, logit_bias_apply, nullptr,
                        llama_sampler_clone_ctx<sampler_logit_bias, &llama_sampler_logit_bias_i>,
                        llama_sampler_free_ctx<sampler_logit_bias>);

struct llama_sampler * llama_sampler_init_logit_bias(int32_t n_vocab, int32_t n_logit_bias,
                                                     const llama_logit_bias * logit_bias) {
    if (n_logit_bias < 0 || (n_logit_bias > 0 && logit_bias == nullptr)) {
        LLAMA_SAMPLER_FAIL("invalid bias list (n_logit_bias = %d, logit_bias = %p)", n_logit_bias,
                           (const void *) logit_bias);
        return nullptr;
    }
    try {
        sampler_logit_bias init{};
        init.n_vocab = n_vocab;
        for (int32_t i = 0; i < n_logit_bias; ++i) {
            const llama_logit_bias & b = logit_bias[i];
            if (b.token < 0 || b.token >= n_vocab) {
                LLAMA_LOG_WARN("%s: token %d is outside the vocab [0, %d); ignored\n", __func__, b.token, n_vocab);
                continue;
            }
            init.by_token[b.token] += b.bias;
        }
        for (const auto & kv : init.by_token) {
            init.biases.push_back({kv.first, kv.second});
        }
        std::sort(init.biases.begin(), init.biases.end(),
                  [](const llama_logit_bias & a, const llama_logit_bias & b) { return a.token < b.token; });
        return llama_sampler_make<sampler_logit_bias>(&llama_sampler_logit_bias_i, init);
    } catch (const std::exception & e) {
        LLAMA_SAMPLER_FAIL("%s", e.what());
        return nullptr;
    }
}
