// Generic sampler calls, the sampler chain, its perf counters, and the two terminal samplers
// (greedy and dist) that pick cur_p->selected. Every exported call tolerates NULL and bad input.
#include "llama-sampler.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <ctime>
#include <exception>
#include <new>
#include <random>

// ---------------------------------------------------------------------------------------------
// shared helpers
// ---------------------------------------------------------------------------------------------

static inline float llama_logit_key(float x) {
    return std::isnan(x) ? -INFINITY : x;
}

bool llama_token_data_greater(const llama_token_data & a, const llama_token_data & b) {
    const float ka = llama_logit_key(a.logit);
    const float kb = llama_logit_key(b.logit);
    if (ka != kb) {
        return ka > kb;
    }
    return a.id < b.id;
}

void llama_sampler_softmax_impl(llama_token_data_array * cur_p, bool do_sort) {
    if (cur_p == nullptr || cur_p->data == nullptr || cur_p->size == 0) {
        return;
    }
    llama_token_data * data = cur_p->data;
    const size_t       n    = cur_p->size;

    if (do_sort && !cur_p->sorted) {
        std::sort(data, data + n, llama_token_data_greater);
        cur_p->sorted = true;
    }

    float max_l = -INFINITY;
    for (size_t i = 0; i < n; ++i) {
        max_l = std::max(max_l, llama_logit_key(data[i].logit));
    }

    if (max_l == INFINITY) {
        // exp(inf - inf) is NaN: give the +inf tokens equal shares instead
        size_t n_inf = 0;
        for (size_t i = 0; i < n; ++i) {
            n_inf += data[i].logit == INFINITY;
        }
        for (size_t i = 0; i < n; ++i) {
            data[i].p = data[i].logit == INFINITY ? 1.0f / (float) n_inf : 0.0f;
        }
        return;
    }
    if (max_l == -INFINITY) {
        // nothing is preferred: uniform rather than 0/0
        for (size_t i = 0; i < n; ++i) {
            data[i].p = 1.0f / (float) n;
        }
        return;
    }

    double sum = 0.0;
    for (size_t i = 0; i < n; ++i) {
        const float e = std::exp(llama_logit_key(data[i].logit) - max_l);
        data[i].p     = e;
        sum += e;
    }
    const float inv = (float) (1.0 / sum);  // sum >= 1: the max itself contributes exp(0)
    for (size_t i = 0; i < n; ++i) {
        data[i].p *= inv;
    }
}

int64_t llama_sampler_argmax_impl(const llama_token_data_array * cur_p) {
    if (cur_p == nullptr || cur_p->data == nullptr || cur_p->size == 0) {
        return -1;
    }
    int64_t best   = 0;
    float   best_k = llama_logit_key(cur_p->data[0].logit);
    for (size_t i = 1; i < cur_p->size; ++i) {
        const float k = llama_logit_key(cur_p->data[i].logit);
        if (k > best_k) {
            best   = (int64_t) i;
            best_k = k;
        }
    }
    return best;
}

void llama_sampler_temp_impl(llama_token_data_array * cur_p, float temp) {
    if (cur_p == nullptr || cur_p->data == nullptr || cur_p->size == 0) {
        return;
    }
    if (!(temp > 0.0f)) {
        // zero/negative/NaN temperature is the limit t -> 0: only the best token survives
        const int64_t best = llama_sampler_argmax_impl(cur_p);
        for (size_t i = 0; i < cur_p->size; ++i) {
            if ((int64_t) i != best) {
                cur_p->data[i].logit = -INFINITY;
            }
        }
        return;
    }
    for (size_t i = 0; i < cur_p->size; ++i) {
        cur_p->data[i].logit /= temp;
    }
}

int64_t llama_sampler_time_us() {
    using namespace std::chrono;
    return duration_cast<microseconds>(steady_clock::now().time_since_epoch()).count();
}

// ---------------------------------------------------------------------------------------------
// generic calls
// ---------------------------------------------------------------------------------------------

struct llama_sampler * llama_sampler_init(struct llama_sampler_i * iface, llama_sampler_context_t ctx) {
    if (iface == nullptr) {
        LLAMA_SAMPLER_FAIL("iface is NULL");
        return nullptr;
    }
    auto * smpl = new (std::nothrow) llama_sampler{iface, ctx};
    if (smpl == nullptr) {
        LLAMA_SAMPLER_FAIL("out of memory");
    }
    return smpl;
}

const char * llama_sampler_name(const struct llama_sampler * smpl) {
    if (smpl == nullptr || smpl->iface == nullptr || smpl->iface->name == nullptr) {
        return "(null)";
    }
    return smpl->iface->name(smpl);
}

void llama_sampler_accept(struct llama_sampler * smpl, llama_token token) {
    if (smpl == nullptr || smpl->iface == nullptr || smpl->iface->accept == nullptr) {
        return;
    }
    try {
        smpl->iface->accept(smpl, token);
    } catch (const std::exception & e) {
        LLAMA_SAMPLER_FAIL("%s: %s", llama_sampler_name(smpl), e.what());
    }
}

void llama_sampler_apply(struct llama_sampler * smpl, struct llama_token_data_array * cur_p) {
    if (smpl == nullptr || smpl->iface == nullptr || cur_p == nullptr) {
        LLAMA_SAMPLER_FAIL("NULL sampler or candidates");
        return;
    }
    if (cur_p->data == nullptr && cur_p->size > 0) {
        LLAMA_SAMPLER_FAIL("candidates have size %zu but no data", cur_p->size);
        return;
    }
    if (smpl->iface->apply == nullptr) {
        LLAMA_SAMPLER_FAIL("sampler '%s' has no apply", llama_sampler_name(smpl));
        return;
    }
    try {
        smpl->iface->apply(smpl, cur_p);
    } catch (const std::exception & e) {
        LLAMA_SAMPLER_FAIL("%s: %s", llama_sampler_name(smpl), e.what());
    }
}

void llama_sampler_reset(struct llama_sampler * smpl) {
    if (smpl == nullptr || smpl->iface == nullptr || smpl->iface->reset == nullptr) {
        return;
    }
    try {
        smpl->iface->reset(smpl);
    } catch (const std::exception & e) {
        LLAMA_SAMPLER_FAIL("%s: %s", llama_sampler_name(smpl), e.what());
    }
}

struct llama_sampler * llama_sampler_clone(const struct llama_sampler * smpl) {
    if (smpl == nullptr || smpl->iface == nullptr) {
        return nullptr;
    }
    if (smpl->iface->clone != nullptr) {
        try {
            return smpl->iface->clone(smpl);
        } catch (const std::exception & e) {
            LLAMA_SAMPLER_FAIL("%s: %s", llama_sampler_name(smpl), e.what());
            return nullptr;
        }
    }
    if (smpl->ctx == nullptr) {
        // stateless: sharing the (static) interface is a complete copy
        return llama_sampler_init(smpl->iface, nullptr);
    }
    LLAMA_SAMPLER_FAIL("sampler '%s' has state but no clone", llama_sampler_name(smpl));
    return nullptr;
}

void llama_sampler_free(struct llama_sampler * smpl) {
    if (smpl == nullptr) {
        return;
    }
    if (smpl->iface != nullptr && smpl->iface->free != nullptr) {
        smpl->iface->free(smpl);
    }
    delete smpl;
}

// ---------------------------------------------------------------------------------------------
// chain
// ---------------------------------------------------------------------------------------------

namespace {

// Adds the elapsed time to a counter on scope exit, unless perf is off.
struct chain_timer {
    llama_sampler_chain * chain;
    int64_t               t0;

    explicit chain_timer(llama_sampler_chain * c) : chain(c), t0(c->params.no_perf ? 0 : llama_sampler_time_us()) {}

    ~chain_timer() {
        if (!chain->params.no_perf) {
            chain->t_sample_us += llama_sampler_time_us() - t0;
        }
    }
};

}  // namespace

static const char * chain_name(const llama_sampler * /*smpl*/) {
    return "chain";
}

static void chain_accept(llama_sampler * smpl, llama_token token) {
    auto *      chain = (llama_sampler_chain *) smpl->ctx;
    chain_timer tm(chain);
    for (auto * s : chain->samplers) {
        llama_sampler_accept(s, token);
    }
    chain->n_sample++;
}

static void chain_apply(llama_sampler * smpl, llama_token_data_array * cur_p) {
    auto *      chain = (llama_sampler_chain *) smpl->ctx;
    chain_timer tm(chain);
    for (auto * s : chain->samplers) {
        llama_sampler_apply(s, cur_p);
    }
}

static void chain_reset(llama_sampler * smpl) {
    auto * chain = (llama_sampler_chain *) smpl->ctx;
    for (auto * s : chain->samplers) {
        llama_sampler_reset(s);
    }
}

static void chain_free(llama_sampler * smpl) {
    auto * chain = (llama_sampler_chain *) smpl->ctx;
    for (auto * s : chain->samplers) {
        llama_sampler_free(s);
    }
    delete chain;
}

static llama_sampler * chain_clone(const llama_sampler * smpl);

static const llama_sampler_i llama_sampler_chain_i =
    llama_sampler_iface(chain_name, chain_accept, chain_apply, chain_reset, chain_clone, chain_free);

bool llama_sampler_is_chain(const llama_sampler * smpl) {
    return smpl != nullptr && smpl->iface == &llama_sampler_chain_i && smpl->ctx != nullptr;
}

static llama_sampler * chain_clone(const llama_sampler * smpl) {
    const auto *    src = (const llama_sampler_chain *) smpl->ctx;
    llama_sampler * dst = llama_sampler_chain_init(src->params);
    if (dst == nullptr) {
        return nullptr;
    }
    for (const auto * s : src->samplers) {
        llama_sampler * c = llama_sampler_clone(s);
        if (c == nullptr) {
            llama_sampler_free(dst);
            return nullptr;
        }
        llama_sampler_chain_add(dst, c);
    }
    return dst;
}

struct llama_sampler_chain_params llama_sampler_chain_default_params(void) {
    llama_sampler_chain_params params;
    params.no_perf = true;
    return params;
}

struct llama_sampler * llama_sampler_chain_init(struct llama_sampler_chain_params params) {
    auto * chain = new (std::nothrow) llama_sampler_chain;
    if (chain == nullptr) {
        LLAMA_SAMPLER_FAIL("out of memory");
        return nullptr;
    }
    chain->params        = params;
    llama_sampler * smpl = llama_sampler_init(&llama_sampler_chain_i, chain);
    if (smpl == nullptr) {
        delete chain;
    }
    return smpl;
}

void llama_sampler_chain_add(struct llama_sampler * chain, struct llama_sampler * smpl) {
    if (!llama_sampler_is_chain(chain)) {
        LLAMA_SAMPLER_FAIL("not a sampler chain");
        return;
    }
    if (smpl == nullptr || smpl == chain) {
        LLAMA_SAMPLER_FAIL("cannot add %s to the chain", smpl == nullptr ? "NULL" : "the chain itself");
        return;
    }
    auto * c = (llama_sampler_chain *) chain->ctx;
    if (std::find(c->samplers.begin(), c->samplers.end(), smpl) != c->samplers.end()) {
        // owning it twice would free it twice
        LLAMA_SAMPLER_FAIL("sampler '%s' is already in the chain", llama_sampler_name(smpl));
        return;
    }
    try {
        c->samplers.push_back(smpl);
    } catch (const std::exception & e) {
        // ownership was handed over: the chain must not leak it
        LLAMA_SAMPLER_FAIL("%s", e.what());
        llama_sampler_free(smpl);
    }
}

struct llama_sampler * llama_sampler_chain_get(struct llama_sampler * chain, int32_t i) {
    if (!llama_sampler_is_chain(chain)) {
        LLAMA_SAMPLER_FAIL("not a sampler chain");
        return nullptr;
    }
    const auto * c = (const llama_sampler_chain *) chain->ctx;
    if (i < 0 || (size_t) i >= c->samplers.size()) {
        return nullptr;
    }
    return c->samplers[i];
}

int llama_sampler_chain_n(const struct llama_sampler * chain) {
    if (!llama_sampler_is_chain(chain)) {
        return 0;
    }
    return (int) ((const llama_sampler_chain *) chain->ctx)->samplers.size();
}

struct llama_sampler * llama_sampler_chain_remove(struct llama_sampler * chain, int32_t i) {
    if (!llama_sampler_is_chain(chain)) {
        LLAMA_SAMPLER_FAIL("not a sampler chain");
        return nullptr;
    }
    auto * c = (llama_sampler_chain *) chain->ctx;
    if (i < 0 || (size_t) i >= c->samplers.size()) {
        return nullptr;
    }
    llama_sampler * smpl = c->samplers[i];
    c->samplers.erase(c->samplers.begin() + i);
    return smpl;
}

// ---------------------------------------------------------------------------------------------
// perf
// ---------------------------------------------------------------------------------------------

struct llama_perf_sampler_data llama_perf_sampler(const struct llama_sampler * chain) {
    llama_perf_sampler_data data{};
    if (!llama_sampler_is_chain(chain)) {
        return data;  // only chains keep counters (llama.h): zeros, not an error
    }
    const auto * c   = (const llama_sampler_chain *) chain->ctx;
    data.t_sample_ms = 1e-3 * (double) c->t_sample_us;
    data.n_sample    = c->n_sample;
    return data;
}

void llama_perf_sampler_print(const struct llama_sampler * chain) {
    if (!llama_sampler_is_chain(chain)) {
        LLAMA_SAMPLER_FAIL("perf counters are kept only by a sampler chain");
        return;
    }
    const llama_perf_sampler_data d       = llama_perf_sampler(chain);
    const double                  per_tok = d.n_sample > 0 ? d.t_sample_ms / d.n_sample : 0.0;
    const double                  tok_s   = d.t_sample_ms > 0 ? 1e3 * d.n_sample / d.t_sample_ms : 0.0;
    LLAMA_LOG_INFO("%s:    sampling time = %10.2f ms / %5d runs   (%8.2f ms per token, %8.2f tokens per second)\n",
                   __func__, d.t_sample_ms, d.n_sample, per_tok, tok_s);
}

void llama_perf_sampler_reset(struct llama_sampler * chain) {
    if (!llama_sampler_is_chain(chain)) {
        LLAMA_SAMPLER_FAIL("perf counters are kept only by a sampler chain");
        return;
    }
    auto * c       = (llama_sampler_chain *) chain->ctx;
    c->t_sample_us = 0;
    c->n_sample    = 0;
}

// ---------------------------------------------------------------------------------------------
// greedy: the highest logit
// ---------------------------------------------------------------------------------------------

static const char * greedy_name(const llama_sampler * /*smpl*/) {
    return "greedy";
}

static void greedy_apply(llama_sampler * /*smpl*/, llama_token_data_array * cur_p) {
    cur_p->selected = llama_sampler_argmax_impl(cur_p);
}

// stateless: no ctx to free, and llama_sampler_clone copies the iface when clone is NULL
static const llama_sampler_i llama_sampler_greedy_i =
    llama_sampler_iface(greedy_name, nullptr, greedy_apply, nullptr, nullptr, nullptr);

struct llama_sampler * llama_sampler_init_greedy(void) {
    return llama_sampler_init(&llama_sampler_greedy_i, nullptr);
}

// ---------------------------------------------------------------------------------------------
// dist: draw from softmax(logits) with a seeded Mersenne twister
// ---------------------------------------------------------------------------------------------

namespace {

struct sampler_dist {
    uint32_t     seed;      // as given (LLAMA_DEFAULT_SEED = pick one at random)
    uint32_t     seed_cur;  // the seed actually in use
    std::mt19937 rng;
};

}  // namespace

uint32_t llama_sampler_resolve_seed(uint32_t seed) {
    if (seed != LLAMA_DEFAULT_SEED) {
        return seed;
    }
    try {
        std::random_device rd;
        return rd();
    } catch (const std::exception &) {
        // no entropy source: the clock is still different from run to run
        return (uint32_t) std::time(nullptr) ^ (uint32_t) llama_sampler_time_us();
    }
}

std::string llama_sampler_token_piece(const llama_vocab * vocab, llama_token id, bool special) {
    char    buf[256];
    int32_t n = llama_token_to_piece(vocab, id, buf, (int32_t) sizeof(buf), 0, special);
    if (n >= 0) {
        return std::string(buf, (size_t) n);
    }
    std::string big((size_t) -n, '\0');
    n = llama_token_to_piece(vocab, id, &big[0], (int32_t) big.size(), 0, special);
    return n >= 0 ? big.substr(0, (size_t) n) : std::string();
}

static const char * dist_name(const llama_sampler * /*smpl*/) {
    return "dist";
}

static void dist_apply(llama_sampler * smpl, llama_token_data_array * cur_p) {
    auto * ctx = (sampler_dist *) smpl->ctx;
    if (cur_p->size == 0) {
        cur_p->selected = -1;
        return;
    }
    llama_sampler_softmax_impl(cur_p, false);
    cur_p->selected = llama_sampler_draw_impl(cur_p, ctx->rng);
}

int64_t llama_sampler_draw_impl(const llama_token_data_array * cur_p, std::mt19937 & rng) {
    if (cur_p == nullptr || cur_p->data == nullptr || cur_p->size == 0) {
        return -1;
    }
    double sum = 0.0;
    for (size_t i = 0; i < cur_p->size; ++i) {
        sum += cur_p->data[i].p > 0.0f ? cur_p->data[i].p : 0.0f;
    }
    // u in [0, 1) from 32 random bits: same stream on every standard library, unlike
    // std::uniform_real_distribution whose algorithm is implementation-defined
    const double u = (double) rng() * (1.0 / 4294967296.0) * sum;

    double  cum  = 0.0;
    int64_t pick = -1;
    for (size_t i = 0; i < cur_p->size; ++i) {
        if (!(cur_p->data[i].p > 0.0f)) {
            continue;
        }
        pick = (int64_t) i;  // the last token with mass absorbs rounding at the top end
        cum += cur_p->data[i].p;
        if (u < cum) {
            break;
        }
    }
    return pick >= 0 ? pick : 0;
}

static void dist_reset(llama_sampler * smpl) {
    auto * ctx    = (sampler_dist *) smpl->ctx;
    ctx->seed_cur = llama_sampler_resolve_seed(ctx->seed);
    ctx->rng.seed(ctx->seed_cur);
}

static const llama_sampler_i llama_sampler_dist_i = llama_sampler_iface(
    dist_name, nullptr, dist_apply, dist_reset, llama_sampler_clone_ctx<sampler_dist, &llama_sampler_dist_i>,
    llama_sampler_free_ctx<sampler_dist>);

struct llama_sampler * llama_sampler_init_dist(uint32_t seed) {
    sampler_dist ctx{seed, llama_sampler_resolve_seed(seed), {}};
    ctx.rng.seed(ctx.seed_cur);
    return llama_sampler_make(&llama_sampler_dist_i, ctx);
}

// ---------------------------------------------------------------------------------------------
// seed query
// ---------------------------------------------------------------------------------------------

uint32_t llama_sampler_get_seed(const struct llama_sampler * smpl) {
    if (smpl == nullptr) {
        return LLAMA_DEFAULT_SEED;
    }
    if (smpl->iface == &llama_sampler_dist_i && smpl->ctx != nullptr) {
        return ((const sampler_dist *) smpl->ctx)->seed_cur;
    }
    uint32_t own = LLAMA_DEFAULT_SEED;
    if (llama_sampler_seed_of(smpl, &own)) {
        return own;  // xtc, mirostat, adaptive-p (llama-sampler-mirostat.cpp)
    }
    if (llama_sampler_is_chain(smpl)) {
        // the last seeded member decides, as it is the one that picks the token
        const auto * c = (const llama_sampler_chain *) smpl->ctx;
        for (auto it = c->samplers.rbegin(); it != c->samplers.rend(); ++it) {
            const uint32_t seed = llama_sampler_get_seed(*it);
            if (seed != LLAMA_DEFAULT_SEED) {
                return seed;
            }
        }
    }
    return LLAMA_DEFAULT_SEED;
}

// ---------------------------------------------------------------------------------------------
// copy: dst takes a clone of src's state and keeps its own llama_sampler object
// ---------------------------------------------------------------------------------------------

void llama_sampler_copy(const struct llama_sampler * src, struct llama_sampler * dst) {
    if (src == nullptr || dst == nullptr || src == dst) {
        return;
    }
    if (src->iface != dst->iface) {
        LLAMA_SAMPLER_FAIL("cannot copy '%s' into a different kind of sampler ('%s')", llama_sampler_name(src),
                           llama_sampler_name(dst));
        return;
    }
    llama_sampler * tmp = llama_sampler_clone(src);
    if (tmp == nullptr) {
        LLAMA_SAMPLER_FAIL("cannot clone '%s'", llama_sampler_name(src));
        return;
    }
    // a chain's state is its members: dst's members are freed with its ctx, tmp's are adopted
    if (dst->iface != nullptr && dst->iface->free != nullptr) {
        dst->iface->free(dst);
    }
    dst->ctx = tmp->ctx;
    tmp->ctx = nullptr;
    delete tmp;
}
