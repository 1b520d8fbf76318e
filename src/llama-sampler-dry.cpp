// DRY ("don't repeat yourself"): penalises the tokens that would extend a sequence that already
// occurred in the recent history. Repeats are found with the Z-function of the reversed history
// (linear time); sequence breakers cut the history that can count as a repeat.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <memory>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include "llama-sampler.h"

namespace {

// breaker strings longer than this are cut, and their token tails too (keeps the scan linear)
constexpr size_t DRY_MAX_BREAKER_CHARS = 40;
constexpr size_t DRY_MAX_BREAKER_TAIL  = 20;

struct sampler_dry {
    float   multiplier;
    float   base;
    int32_t allowed_length;
    int32_t last_n;

    // head token -> token tails that complete a breaker after it (empty tail: the head alone)
    std::unordered_multimap<llama_token, std::vector<llama_token>> breakers;

    std::deque<llama_token> history;  // at most last_n accepted tokens, oldest first

    bool enabled() const { return multiplier != 0.0f && base >= 1.0f && last_n > 0; }
};

std::vector<llama_token> tokenize_plain(const llama_vocab * vocab, const std::string & text) {
    std::vector<llama_token> out(text.size() + 4);
    int32_t                  n =
        llama_tokenize(vocab, text.data(), (int32_t) text.size(), out.data(), (int32_t) out.size(), false, false);
    if (n < 0) {
        out.resize((size_t) -n);
        n = llama_tokenize(vocab, text.data(), (int32_t) text.size(), out.data(), (int32_t) out.size(), false, false);
    }
    out.resize(n > 0 ? (size_t) n : 0);
    return out;
}

// Every token that contains the breaker is a breaker by itself; a token whose text ends with a
// proper prefix of the breaker is the head of a breaker completed by the tokens of the rest.
void add_breaker(const llama_vocab * vocab, const std::string & brk, sampler_dry & ctx) {
    const int32_t n_vocab = llama_vocab_n_tokens(vocab);
    for (llama_token id = 0; id < n_vocab; ++id) {
        const std::string word = llama_sampler_token_piece(vocab, id, true);
        if (word.find(brk) != std::string::npos) {
            ctx.breakers.emplace(id, std::vector<llama_token>());
            continue;
        }
        for (size_t pos = word.find(brk[0]); pos != std::string::npos; pos = word.find(brk[0], pos + 1)) {
            const size_t len = word.size() - pos;  // < brk.size(), else the find above had hit
            if (word.compare(pos, len, brk, 0, len) != 0) {
                continue;
            }
            std::vector<llama_token> tail = tokenize_plain(vocab, brk.substr(len));
            if (tail.size() > DRY_MAX_BREAKER_TAIL) {
                tail.resize(DRY_MAX_BREAKER_TAIL);
            }
            auto range = ctx.breakers.equal_range(id);
            bool dup   = false;
            for (auto it = range.first; it != range.second && !dup; ++it) {
                dup = it->second == tail;
            }
            if (!dup) {
                ctx.breakers.emplace(id, std::move(tail));
            }
        }
    }
}

}  // namespace

static const char * dry_name(const llama_sampler *) {
    return "dry";
}

static void dry_accept(llama_sampler * smpl, llama_token token) {
    auto * ctx = (sampler_dry *) smpl->ctx;
    if (!ctx->enabled()) {
        return;
    }
    ctx->history.push_back(token);
    if (ctx->history.size() > (size_t) ctx->last_n) {
        ctx->history.pop_front();
    }
}

static void dry_apply(llama_sampler * smpl, llama_token_data_array * cur_p) {
    auto * ctx = (sampler_dry *) smpl->ctx;
    if (!ctx->enabled()) {
        return;
    }
    const int n = (int) ctx->history.size();
    if (n <= ctx->allowed_length) {
        return;
    }
    // r[k]: the k-th most recent token
    std::vector<llama_token> r(ctx->history.rbegin(), ctx->history.rend());

    // a breaker cuts the repeat: only the tokens after the most recent breaker can repeat
    int limit = n;
    for (int i = 0; i < n && limit == n; ++i) {
        auto range   = ctx->breakers.equal_range(r[i]);
        int  longest = -1;
        for (auto it = range.first; it != range.second; ++it) {
            const int len = (int) it->second.size();
            if (len <= longest || len > i) {
                continue;
            }
            bool match = true;
            for (int j = 0; j < len && match; ++j) {
                match = it->second[j] == r[i - 1 - j];
            }
            if (match) {
                longest = len;
            }
        }
        if (longest >= 0) {
            limit = i - longest;
        }
    }
    if (limit < ctx->allowed_length) {
        return;
    }

    // z[k] = length of the longest common prefix of r and r[k..]: the repeat of the latest
    // tokens that ends just before the token r[k-1] (which would extend it if emitted)
    std::vector<int> z(n, 0);
    for (int k = 1, lt = 0, rt = 0; k < n; ++k) {
        int len = 0;
        if (k < rt) {
            len = std::min(rt - k, z[k - lt]);
        }
        while (k + len < n && r[len] == r[k + len]) {
            len++;
        }
        z[k] = len;
        if (k + len > rt) {
            lt = k;
            rt = k + len;
        }
    }
    std::unordered_map<llama_token, int> max_repeat;
    for (int k = 1; k < n; ++k) {
        const int len = std::min(z[k], limit);
        if (len >= ctx->allowed_length) {
            int & m = max_repeat[r[k - 1]];
            m       = std::max(m, len);
        }
    }
    if (max_repeat.empty()) {
        return;
    }

    // base^exp overflows a float past this exponent
    int max_exp = 0;
    if (ctx->base > 1.000001f) {
        max_exp = (int) (88.7228391 / std::log((double) ctx->base));
    }
    for (size_t i = 0; i < cur_p->size; ++i) {
        const auto it = max_repeat.find(cur_p->data[i].id);
        if (it == max_repeat.end()) {
            continue;
        }
        auto range          = ctx->breakers.equal_range(cur_p->data[i].id);
        bool single_breaker = false;
        for (auto b = range.first; b != range.second && !single_breaker; ++b) {
            single_breaker = b->second.empty();
        }
        if (single_breaker) {
            continue;  // emitting a breaker ends the repeat instead of extending it
        }
        int e = it->second - ctx->allowed_length;
        if (max_exp > 0 && e > max_exp) {
            e = max_exp;
        }
        cur_p->data[i].logit -= ctx->multiplier * std::pow(ctx->base, (float) e);
    }
    cur_p->sorted = false;
}

static void dry_reset(llama_sampler * smpl) {
    ((sampler_dry *) smpl->ctx)->history.clear();
}

static const llama_sampler_i llama_sampler_dry_i = llama_sampler_iface(
    dry_name, dry_accept, dry_apply, dry_reset, llama_sampler_clone_ctx<sampler_dry, &llama_sampler_dry_i>,
    llama_sampler_free_ctx<sampler_dry>);

struct llama_sampler * llama_sampler_init_dry(const struct llama_vocab * vocab, float dry_multiplier, float dry_base,
                                              int32_t dry_allowed_length, int32_t dry_penalty_last_n,
                                              const char ** seq_breakers, size_t num_breakers) {
    try {
        auto ctx            = std::make_unique<sampler_dry>();
        ctx->multiplier     = dry_multiplier;
        ctx->base           = dry_base;
        ctx->allowed_length = dry_allowed_length;
        ctx->last_n         = std::max(dry_penalty_last_n, 0);
        if (ctx->enabled() && seq_breakers != nullptr && num_breakers > 0) {
            if (vocab == nullptr) {
                LLAMA_SAMPLER_FAIL("sequence breakers need a vocab");
                return nullptr;
            }
            for (size_t i = 0; i < num_breakers; ++i) {
                if (seq_breakers[i] == nullptr || seq_breakers[i][0] == '\0') {
                    LLAMA_LOG_WARN("%s: skipping empty sequence breaker %zu\n", __func__, i);
                    continue;
                }
                std::string brk(seq_breakers[i]);
                if (brk.size() > DRY_MAX_BREAKER_CHARS) {
                    brk.resize(DRY_MAX_BREAKER_CHARS);
                }
                add_breaker(vocab, brk, *ctx);
            }
        }
        return llama_sampler_wrap(&llama_sampler_dry_i, ctx.release());
    } catch (const std::exception & e) {
        LLAMA_SAMPLER_FAIL("%s", e.what());
        return nullptr;
    }
}
