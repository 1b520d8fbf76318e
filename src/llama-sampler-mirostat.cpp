// Samplers that carry a random generator or a running estimate: xtc, top-n-sigma (stateless, kept
// here beside xtc as the other "cut the head/tail by a statistic" filter), mirostat 1.0 and 2.0,
// and adaptive-p. Definitions: llama.h and docs/sampling.md.
#include <algorithm>
#include <cmath>
#include <new>
#include <vector>

#include "llama-sampler.h"

namespace {

struct sampler_xtc {
    float        probability;
    float        threshold;
    size_t       min_keep;
    uint32_t     seed;
    uint32_t     seed_cur;
    std::mt19937 rng;
};

struct sampler_top_n_sigma {
    float n;
};

struct sampler_mirostat {
    int32_t      n_vocab;
    uint32_t     seed;
    uint32_t     seed_cur;
    float        tau;
    float        eta;
    int32_t      m;
    float        mu;  // surprise budget, starts at 2 * tau
    std::mt19937 rng;
};

struct sampler_adaptive_p {
    float              target;
    float              decay;
    uint32_t           seed;
    uint32_t           seed_cur;
    std::mt19937       rng;
    float              weighted_sum;  // sum over accepted tokens of p_i * decay^age
    float              total_weight;  // sum of decay^age
    std::vector<float> original_p;    // probabilities before the reshaping, of the last apply
    llama_token        pending_id  = LLAMA_TOKEN_NULL;
    int64_t            pending_idx = -1;
};

// a uniform float in [0, 1) from one 32-bit draw (same stream on every standard library)
float uniform01(std::mt19937 & rng) {
    return (float) ((double) rng() * (1.0 / 4294967296.0));
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// xtc: with probability p, drop every token with p >= threshold except the last (least likely) one
// ---------------------------------------------------------------------------------------------

static const char * xtc_name(const llama_sampler *) {
    return "xtc";
}

static void xtc_apply(llama_sampler * smpl, llama_token_data_array * cur_p) {
    auto * ctx = (sampler_xtc *) smpl->ctx;
    if (!(ctx->probability > 0.0f) || !(ctx->threshold <= 0.5f) || cur_p->size < 2) {
        return;
    }
    if (uniform01(ctx->rng) > ctx->probability) {
        return;
    }
    llama_sampler_softmax_impl(cur_p, true);

    // index of the last token at or above the threshold (the sort is by logit, so p is decreasing)
    size_t last = 0;
    for (size_t i = 0; i < cur_p->size && cur_p->data[i].p >= ctx->threshold; ++i) {
        last = i;
    }
    if (last > 0 && cur_p->size - last >= ctx->min_keep) {
        cur_p->data += last;
        cur_p->size -= last;
    }
}

static void xtc_reset(llama_sampler * smpl) {
    auto * ctx    = (sampler_xtc *) smpl->ctx;
    ctx->seed_cur = llama_sampler_resolve_seed(ctx->seed);
    ctx->rng.seed(ctx->seed_cur);
}

extern const llama_sampler_i llama_sampler_xtc_i;
const llama_sampler_i        llama_sampler_xtc_i = llama_sampler_iface(
           xtc_name, nullptr, xtc_apply, xtc_reset, llama_sampler_clone_ctx<sampler_xtc, &llama_sampler_xtc_i>,
           llama_sampler_free_ctx<sampler_xtc>);

struct llama_sampler * llama_sampler_init_xtc(float p, float t, size_t min_keep, uint32_t seed) {
    sampler_xtc ctx{p, t, min_keep, seed, llama_sampler_resolve_seed(seed), {}};
    ctx.rng.seed(ctx.seed_cur);
    return llama_sampler_make(&llama_sampler_xtc_i, ctx);
}

// ---------------------------------------------------------------------------------------------
// top-n-sigma: logits below max - n * stddev become -inf (-inf logits are left out of the stats)
// ---------------------------------------------------------------------------------------------

static const char * top_n_sigma_name(const llama_sampler *) {
    return "top-n-sigma";
}

static void top_n_sigma_apply(llama_sampler * smpl, llama_token_data_array * cur_p) {
    const float n = ((const sampler_top_n_sigma *) smpl->ctx)->n;
    if (!(n > 0.0f) || cur_p->size <= 1) {
        return;
    }
    double max_l = -INFINITY;
    double sum   = 0.0;
    size_t count = 0;
    for (size_t i = 0; i < cur_p->size; ++i) {
        const float l = cur_p->data[i].logit;
        if (std::isfinite(l)) {
            max_l = std::max(max_l, (double) l);
            sum += l;
            count++;
        }
    }
    if (count == 0) {
        return;
    }
    const double mean = sum / (double) count;
    double       acc  = 0.0;
    for (size_t i = 0; i < cur_p->size; ++i) {
        const float l = cur_p->data[i].logit;
        if (std::isfinite(l)) {
            acc += (l - mean) * (l - mean);
        }
    }
    const double cut = max_l - n * std::sqrt(acc / (double) count);
    for (size_t i = 0; i < cur_p->size; ++i) {
        if (!(cur_p->data[i].logit >= cut)) {
            cur_p->data[i].logit = -INFINITY;
        }
    }
}

extern const llama_sampler_i llama_sampler_top_n_sigma_i;
const llama_sampler_i        llama_sampler_top_n_sigma_i =
    llama_sampler_iface(top_n_sigma_name, nullptr, top_n_sigma_apply, nullptr,
                        llama_sampler_clone_ctx<sampler_top_n_sigma, &llama_sampler_top_n_sigma_i>,
                        llama_sampler_free_ctx<sampler_top_n_sigma>);

struct llama_sampler * llama_sampler_init_top_n_sigma(float n) {
    return llama_sampler_make<sampler_top_n_sigma>(&llama_sampler_top_n_sigma_i, {n});
}

// ---------------------------------------------------------------------------------------------
// mirostat 1.0 and 2.0
// ---------------------------------------------------------------------------------------------

// Draws from the (renormalised) candidates, sets selected and moves mu towards the target surprise.
static void mirostat_pick(sampler_mirostat * ctx, llama_token_data_array * cur_p) {
    llama_sampler_softmax_impl(cur_p, true);
    const int64_t idx = llama_sampler_draw_impl(cur_p, ctx->rng);
    cur_p->selected   = idx;
    if (idx < 0) {
        return;
    }
    const float surprise = -std::log2(cur_p->data[idx].p);
    ctx->mu -= ctx->eta * (surprise - ctx->tau);
}

static const char * mirostat_name(const llama_sampler *) {
    return "mirostat";
}

static void mirostat_apply(llama_sampler * smpl, llama_token_data_array * cur_p) {
    auto * ctx = (sampler_mirostat *) smpl->ctx;
    if (cur_p->size == 0) {
        cur_p->selected = -1;
        return;
    }
    llama_sampler_softmax_impl(cur_p, true);

    // least-squares estimate of the Zipf exponent s from the ratios of the m most likely tokens
    double sum_tb = 0.0;
    double sum_tt = 0.0;
    for (size_t i = 0; i + 1 < cur_p->size && (int64_t) i + 1 < (int64_t) ctx->m; ++i) {
        const double t = std::log((double) (i + 2) / (double) (i + 1));
        const double b = std::log((double) cur_p->data[i].p / (double) cur_p->data[i + 1].p);
        if (!std::isfinite(b)) {
            break;  // zero probabilities further down say nothing about the slope
        }
        sum_tb += t * b;
        sum_tt += t * t;
    }
    size_t k = 1;
    if (sum_tt > 0.0) {
        const double s   = sum_tb / sum_tt;
        const double eps = s - 1.0;
        const double kf =
            std::pow(eps * std::pow(2.0, (double) ctx->mu) / (1.0 - std::pow((double) ctx->n_vocab, -eps)), 1.0 / s);
        if (std::isfinite(kf) && kf >= 1.0) {
            k = kf >= (double) cur_p->size ? cur_p->size : (size_t) kf;
        }
    }
    cur_p->size = std::min(cur_p->size, k);
    mirostat_pick(ctx, cur_p);
}

static void mirostat_reset(llama_sampler * smpl) {
    auto * ctx    = (sampler_mirostat *) smpl->ctx;
    ctx->mu       = 2.0f * ctx->tau;
    ctx->seed_cur = llama_sampler_resolve_seed(ctx->seed);
    ctx->rng.seed(ctx->seed_cur);
}

extern const llama_sampler_i llama_sampler_mirostat_i;
const llama_sampler_i        llama_sampler_mirostat_i = llama_sampler_iface(
           mirostat_name, nullptr, mirostat_apply, mirostat_reset,
           llama_sampler_clone_ctx<sampler_mirostat, &llama_sampler_mirostat_i>, llama_sampler_free_ctx<sampler_mirostat>);

struct llama_sampler * llama_sampler_init_mirostat(int32_t n_vocab, uint32_t seed, float tau, float eta, int32_t m) {
    sampler_mirostat ctx{n_vocab, seed, llama_sampler_resolve_seed(seed), tau, eta, m, 2.0f * tau, {}};
    ctx.rng.seed(ctx.seed_cur);
    return llama_sampler_make(&llama_sampler_mirostat_i, ctx);
}

static const char * mirostat_v2_name(const llama_sampler *) {
    return "mirostat-v2";
}

static void mirostat_v2_apply(llama_sampler * smpl, llama_token_data_array * cur_p) {
    auto * ctx = (sampler_mirostat *) smpl->ctx;
    if (cur_p->size == 0) {
        cur_p->selected = -1;
        return;
    }
    llama_sampler_softmax_impl(cur_p, true);
    size_t keep = 0;
    while (keep < cur_p->size && -std::log2(cur_p->data[keep].p) <= ctx->mu) {
        keep++;
    }
    cur_p->size = std::max<size_t>(keep, 1);
    mirostat_pick(ctx, cur_p);
}

extern const llama_sampler_i llama_sampler_mirostat_v2_i;
const llama_sampler_i        llama_sampler_mirostat_v2_i = llama_sampler_iface(
           mirostat_v2_name, nullptr, mirostat_v2_apply, mirostat_reset,
           llama_sampler_clone_ctx<sampler_mirostat, &llama_sampler_mirostat_v2_i>, llama_sampler_free_ctx<sampler_mirostat>);

struct llama_sampler * llama_sampler_init_mirostat_v2(uint32_t seed, float tau, float eta) {
    sampler_mirostat ctx{0, seed, llama_sampler_resolve_seed(seed), tau, eta, 0, 2.0f * tau, {}};
    ctx.rng.seed(ctx.seed_cur);
    return llama_sampler_make(&llama_sampler_mirostat_v2_i, ctx);
}

// ---------------------------------------------------------------------------------------------
// adaptive-p
// ---------------------------------------------------------------------------------------------

// shape of the reshaped logits: quadratic near the target probability, linear in the tails
static constexpr float ADAPTIVE_P_WIDTH = 0.3f;
static constexpr float ADAPTIVE_P_PEAK  = 5.0f;
static constexpr float ADAPTIVE_P_SHARP = 10.0f;

static const char * adaptive_p_name(const llama_sampler *) {
    return "adaptive-p";
}

static void adaptive_p_apply(llama_sampler * smpl, llama_token_data_array * cur_p) {
    auto * ctx = (sampler_adaptive_p *) smpl->ctx;
    if (cur_p->size == 0) {
        cur_p->selected = -1;
        return;
    }
    llama_sampler_softmax_impl(cur_p, false);
    if (ctx->target < 0.0f) {
        cur_p->selected = llama_sampler_draw_impl(cur_p, ctx->rng);
        return;
    }
    ctx->original_p.resize(cur_p->size);
    for (size_t i = 0; i < cur_p->size; ++i) {
        ctx->original_p[i] = cur_p->data[i].p;
    }
    const float target = std::min(ctx->target, 1.0f);
    // aim above the target when recent picks were below it, and vice versa
    const float adapted = ctx->total_weight == 0.0f ? target : 2.0f * target - ctx->weighted_sum / ctx->total_weight;
    const float aim     = std::min(std::max(adapted, 0.0f), 1.0f);
    for (size_t i = 0; i < cur_p->size; ++i) {
        if (cur_p->data[i].logit == -INFINITY) {
            continue;  // masked by an earlier sampler: stays masked
        }
        const float d        = std::fabs(cur_p->data[i].p - aim) / ADAPTIVE_P_WIDTH;
        cur_p->data[i].logit = ADAPTIVE_P_PEAK - ADAPTIVE_P_SHARP * d * d / (1.0f + d);
    }
    cur_p->sorted = false;
    llama_sampler_softmax_impl(cur_p, false);
    const int64_t idx = llama_sampler_draw_impl(cur_p, ctx->rng);
    cur_p->selected   = idx;
    ctx->pending_id   = cur_p->data[idx].id;
    ctx->pending_idx  = idx;
}

static void adaptive_p_accept(llama_sampler * smpl, llama_token token) {
    auto * ctx = (sampler_adaptive_p *) smpl->ctx;
    if (ctx->pending_id == token && ctx->pending_idx >= 0 && (size_t) ctx->pending_idx < ctx->original_p.size()) {
        ctx->weighted_sum = ctx->original_p[ctx->pending_idx] + ctx->decay * ctx->weighted_sum;
        ctx->total_weight = 1.0f + ctx->decay * ctx->total_weight;
    }
    ctx->pending_id  = LLAMA_TOKEN_NULL;
    ctx->pending_idx = -1;
}

static void adaptive_p_reset(llama_sampler * smpl) {
    auto * ctx = (sampler_adaptive_p *) smpl->ctx;
    // the history starts as if every past token had exactly the target probability
    ctx->weighted_sum = ctx->target / (1.0f - ctx->decay);
    ctx->total_weight = 1.0f / (1.0f - ctx->decay);
    ctx->pending_id   = LLAMA_TOKEN_NULL;
    ctx->pending_idx  = -1;
    ctx->seed_cur     = llama_sampler_resolve_seed(ctx->seed);
    ctx->rng.seed(ctx->seed_cur);
}

extern const llama_sampler_i llama_sampler_adaptive_p_i;
const llama_sampler_i        llama_sampler_adaptive_p_i =
    llama_sampler_iface(adaptive_p_name, adaptive_p_accept, adaptive_p_apply, adaptive_p_reset,
                        llama_sampler_clone_ctx<sampler_adaptive_p, &llama_sampler_adaptive_p_i>,
                        llama_sampler_free_ctx<sampler_adaptive_p>);

struct llama_sampler * llama_sampler_init_adaptive_p(float target, float decay, uint32_t seed) {
    const float        d = std::isnan(decay) ? 0.0f : std::min(std::max(decay, 0.0f), 0.99f);
    sampler_adaptive_p ctx;
    ctx.target       = target;
    ctx.decay        = d;
    ctx.seed         = seed;
    ctx.seed_cur     = llama_sampler_resolve_seed(seed);
    ctx.weighted_sum = target / (1.0f - d);
    ctx.total_weight = 1.0f / (1.0f - d);
    ctx.rng.seed(ctx.seed_cur);
    return llama_sampler_make(&llama_sampler_adaptive_p_i, ctx);
}

// ---------------------------------------------------------------------------------------------
// seed query (llama_sampler_get_seed)
// ---------------------------------------------------------------------------------------------

bool llama_sampler_seed_of(const llama_sampler * smpl, uint32_t * seed) {
    if (smpl == nullptr || smpl->ctx == nullptr) {
        return false;
    }
    if (smpl->iface == &llama_sampler_xtc_i) {
        *seed = ((const sampler_xtc *) smpl->ctx)->seed_cur;
    } else if (smpl->iface == &llama_sampler_mirostat_i || smpl->iface == &llama_sampler_mirostat_v2_i) {
        *seed = ((const sampler_mirostat *) smpl->ctx)->seed_cur;
    } else if (smpl->iface == &llama_sampler_adaptive_p_i) {
        *seed = ((const sampler_adaptive_p *) smpl->ctx)->seed_cur;
    } else {
        return false;
    }
    return true;
}
