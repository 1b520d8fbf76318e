// The grammar samplers: llama_sampler_init_grammar and its lazy forms. The grammar (rules, the
// vocab's token texts decoded once, the triggers) is immutable and shared by clones; each sampler
// owns only its match state and, while lazy and untriggered, the text seen so far.
// GCC 12 with the sanitizers reports -Wmaybe-uninitialized inside libstdc++'s <regex> (a moved
// std::function in its NFA builder): a false positive in library code, silenced for this file.
#if defined(__GNUC__) && !defined(__clang__)
#    pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "llama-grammar.h"
#include "llama-sampler.h"

namespace {

struct grammar_shared {
    const llama_vocab *               vocab = nullptr;
    std::shared_ptr<const gram_rules> rules;  // NULL: the empty grammar (no constraint)

    std::vector<std::string>  pieces;    // per token, special tokens as their text
    std::vector<uint32_t>     cps;       // per token, its code points (decoded alone), 0-terminated
    std::vector<size_t>       cps_at;    // per token, offset in cps
    std::vector<gram_partial> cps_tail;  // per token, the incomplete sequence its text ends with
    std::vector<char>         eog;

    std::vector<std::regex>  patterns;
    std::vector<bool>        pattern_anchored;  // ^...$: must match all the text so far
    std::vector<llama_token> trigger_tokens;
    bool                     lazy = false;
};

struct sampler_grammar {
    std::shared_ptr<const grammar_shared> sh;
    std::optional<gram_state>             state;
    bool                                  awaiting = false;

    // while awaiting a trigger: the text so far and each token's span in it (replayed on a trigger)
    std::string                                                    buf;
    std::vector<std::pair<llama_token, std::pair<size_t, size_t>>> spans;

    void restart() {
        std::optional<gram_state> fresh;  // built first: if it throws, the old state stays
        if (sh->rules) {
            fresh.emplace(sh->rules);
        }
        state    = std::move(fresh);
        awaiting = sh->lazy;
        buf.clear();
        spans.clear();
    }
};

void load_vocab(grammar_shared & sh) {
    const int32_t n = llama_vocab_n_tokens(sh.vocab);
    sh.pieces.resize(n);
    sh.cps_at.resize(n);
    sh.cps_tail.resize(n);
    sh.eog.resize(n);
    std::vector<uint32_t> tmp;
    for (llama_token id = 0; id < n; ++id) {
        sh.pieces[id] = llama_sampler_token_piece(sh.vocab, id, true);
        sh.eog[id]    = llama_vocab_is_eog(sh.vocab, id);
        tmp.clear();
        sh.cps_tail[id] = gram_decode_utf8(sh.pieces[id], {}, tmp);
        sh.cps_at[id]   = sh.cps.size();
        sh.cps.insert(sh.cps.end(), tmp.begin(), tmp.end());
        sh.cps.push_back(0);
    }
}

}  // namespace

static const char * grammar_name(const llama_sampler *) {
    return "grammar";
}

static void grammar_apply(llama_sampler * smpl, llama_token_data_array * cur_p) {
    auto * ctx = (sampler_grammar *) smpl->ctx;
    if (!ctx->state || ctx->awaiting) {
        return;
    }
    const grammar_shared & sh       = *ctx->sh;
    const gram_state &     st       = *ctx->state;
    const bool             complete = st.complete();
    const auto             n_vocab  = (llama_token) sh.pieces.size();
    const bool             pending  = st.partial.n_remain != 0;

    std::vector<gram_cand>             cands;
    std::vector<std::vector<uint32_t>> decoded;  // only when a partial character is pending
    if (pending) {
        decoded.resize(cur_p->size);
    }
    cands.reserve(cur_p->size);
    for (size_t i = 0; i < cur_p->size; ++i) {
        llama_token_data & d = cur_p->data[i];
        if (d.logit == -INFINITY) {
            continue;
        }
        if (d.id < 0 || d.id >= n_vocab) {
            d.logit = -INFINITY;
            continue;
        }
        if (sh.eog[d.id]) {
            if (!complete) {
                d.logit = -INFINITY;  // the grammar must be finished before generation ends
            }
            continue;
        }
        if (sh.pieces[d.id].empty()) {
            d.logit = -INFINITY;  // text-less tokens cannot advance a grammar
            continue;
        }
        gram_cand c{i, d.id, nullptr, {}};
        if (!pending) {
            c.cps     = sh.cps.data() + sh.cps_at[d.id];
            c.partial = sh.cps_tail[d.id];
        } else {
            c.partial = gram_decode_utf8(sh.pieces[d.id], st.partial, decoded[i]);
            decoded[i].push_back(0);
            c.cps = decoded[i].data();
        }
        if (c.partial.n_remain < 0) {
            d.logit = -INFINITY;  // invalid UTF-8 (given what came before)
            continue;
        }
        cands.push_back(c);
    }
    std::vector<size_t> rejected;
    try {
        rejected = gram_reject(st, cands);
    } catch (const gram_error &) {
        // over the work limits: fail closed (nothing passes) rather than let anything through
        for (size_t i = 0; i < cur_p->size; ++i) {
            cur_p->data[i].logit = -INFINITY;
        }
        throw;
    }
    for (size_t idx : rejected) {
        cur_p->data[idx].logit = -INFINITY;
    }
}

static std::string token_piece(const grammar_shared & sh, llama_token token) {
    if (token < 0 || (size_t) token >= sh.pieces.size()) {
        throw std::runtime_error("token " + std::to_string(token) + " is not in the vocabulary");
    }
    return sh.pieces[token];
}

static void grammar_feed(sampler_grammar * ctx, llama_token token, const std::string & piece) {
    if (!ctx->state->accept_token(token, piece)) {
        throw std::runtime_error("token " + std::to_string(token) + " ('" + piece + "') does not fit the grammar");
    }
}

// Lazy and untriggered: records the token and checks the triggers; on a trigger the grammar is
// fed the output from the trigger on (whole tokens as tokens, a cut one as text).
static void grammar_await(sampler_grammar * ctx, llama_token token, const std::string & piece) {
    const grammar_shared & sh = *ctx->sh;
    if (std::find(sh.trigger_tokens.begin(), sh.trigger_tokens.end(), token) != sh.trigger_tokens.end()) {
        ctx->awaiting = false;
        ctx->buf.clear();
        ctx->spans.clear();
        grammar_feed(ctx, token, piece);
        return;
    }
    ctx->spans.push_back({token, {ctx->buf.size(), ctx->buf.size() + piece.size()}});
    ctx->buf += piece;
    for (size_t i = 0; i < sh.patterns.size(); ++i) {
        std::smatch m;
        const bool  hit = sh.pattern_anchored[i] ? std::regex_match(ctx->buf, m, sh.patterns[i])
                                                 : std::regex_search(ctx->buf, m, sh.patterns[i]);
        if (!hit) {
            continue;
        }
        size_t start = (size_t) m.position(0);
        for (size_t g = 1; g < m.size(); ++g) {
            if (m.length(g) > 0) {
                start = (size_t) m.position(g);
                break;
            }
        }
        ctx->awaiting    = false;
        const auto spans = std::move(ctx->spans);
        const auto buf   = std::move(ctx->buf);
        ctx->spans.clear();
        ctx->buf.clear();
        for (const auto & sp : spans) {
            const size_t b = sp.second.first;
            const size_t e = sp.second.second;
            if (e <= start) {
                continue;
            }
            if (b >= start) {
                grammar_feed(ctx, sp.first, buf.substr(b, e - b));
            } else if (!ctx->state->accept_text(buf.substr(start, e - start))) {
                throw std::runtime_error("the text after the trigger does not fit the grammar");
            }
        }
        return;
    }
}

static void grammar_accept(llama_sampler * smpl, llama_token token) {
    auto * ctx = (sampler_grammar *) smpl->ctx;
    if (!ctx->state) {
        return;
    }
    const std::string piece = token_piece(*ctx->sh, token);
    if (ctx->awaiting) {
        grammar_await(ctx, token, piece);
        return;
    }
    if (ctx->sh->eog[token]) {
        if (!ctx->state->complete()) {
            throw std::runtime_error("end of generation before the grammar is complete");
        }
        return;
    }
    grammar_feed(ctx, token, piece);
}

static void grammar_reset(llama_sampler * smpl) {
    ((sampler_grammar *) smpl->ctx)->restart();
}

static const llama_sampler_i llama_sampler_grammar_i = llama_sampler_iface(
    grammar_name, grammar_accept, grammar_apply, grammar_reset,
    llama_sampler_clone_ctx<sampler_grammar, &llama_sampler_grammar_i>, llama_sampler_free_ctx<sampler_grammar>);

// regex metacharacters escaped, so that a trigger word matches itself
static std::string regex_escape(const std::string & s) {
    std::string out;
    for (char c : s) {
        if (std::strchr(".^$|()*+?[]{}\\", c) != nullptr && c != '\0') {
            out += '\\';
        }
        out += c;
    }
    return out;
}

static llama_sampler * grammar_init(const char * func, const llama_vocab * vocab, const char * grammar_str,
                                    const char * grammar_root, bool lazy, const std::vector<std::string> & patterns,
                                    const llama_token * trigger_tokens, size_t num_trigger_tokens) {
    try {
        auto sh   = std::make_shared<grammar_shared>();
        sh->vocab = vocab;
        sh->lazy  = lazy;
        if (grammar_str != nullptr && grammar_str[0] != '\0') {
            if (vocab == nullptr) {
                throw gram_error("vocab is NULL");
            }
            sh->rules = gram_parse(grammar_str, grammar_root != nullptr ? grammar_root : "root", vocab);
            load_vocab(*sh);
            for (const auto & p : patterns) {
                try {
                    sh->patterns.emplace_back(p, std::regex::ECMAScript);
                } catch (const std::regex_error & e) {
                    throw gram_error("bad trigger pattern '" + p + "': " + e.what());
                }
                sh->pattern_anchored.push_back(!p.empty() && p.front() == '^' && p.back() == '$');
            }
            const llama_token n_vocab = llama_vocab_n_tokens(vocab);
            for (size_t i = 0; trigger_tokens != nullptr && i < num_trigger_tokens; ++i) {
                if (trigger_tokens[i] < 0 || trigger_tokens[i] >= n_vocab) {
                    throw gram_error("trigger token " + std::to_string(trigger_tokens[i]) +
                                     " is not in the vocabulary");
                }
                sh->trigger_tokens.push_back(trigger_tokens[i]);
            }
        }
        auto ctx = std::make_unique<sampler_grammar>();
        ctx->sh  = std::move(sh);
        ctx->restart();
        return llama_sampler_wrap(&llama_sampler_grammar_i, ctx.release());
    } catch (const std::exception & e) {
        llama_report_error(func, llama_format("grammar: %s", e.what()).c_str());
        return nullptr;
    }
}

struct llama_sampler * llama_sampler_init_grammar(const struct llama_vocab * vocab, const char * grammar_str,
                                                  const char * grammar_root) {
    return grammar_init(__func__, vocab, grammar_str, grammar_root, false, {}, nullptr, 0);
}

struct llama_sampler * llama_sampler_init_grammar_lazy(const struct llama_vocab * vocab, const char * grammar_str,
                                                       const char * grammar_root, const char ** trigger_words,
                                                       size_t num_trigger_words, const llama_token * trigger_tokens,
                                                       size_t num_trigger_tokens) {
    std::vector<std::string> patterns;
    if (trigger_words != nullptr && num_trigger_words > 0) {
        // one pattern: anything, then the first trigger word; the grammar starts at the word
        std::string p = "[\\s\\S]*?(";
        for (size_t i = 0; i < num_trigger_words; ++i) {
            p += (i > 0 ? "|" : "") + regex_escape(trigger_words[i] != nullptr ? trigger_words[i] : "");
        }
        p += ")[\\s\\S]*";
        patterns.push_back(p);
    }
    return grammar_init(__func__, vocab, grammar_str, grammar_root, true, patterns, trigger_tokens, num_trigger_tokens);
}

struct llama_sampler * llama_sampler_init_grammar_lazy_patterns(const struct llama_vocab * vocab,
                                                                const char * grammar_str, const char * grammar_root,
                                                                const char **       trigger_patterns,
                                                                size_t              num_trigger_patterns,
                                                                const llama_token * trigger_tokens,
                                                                size_t              num_trigger_tokens) {
    std::vector<std::string> patterns;
    for (size_t i = 0; trigger_patterns != nullptr && i < num_trigger_patterns; ++i) {
        if (trigger_patterns[i] != nullptr) {
            patterns.emplace_back(trigger_patterns[i]);
        }
    }
    return grammar_init(__func__, vocab, grammar_str, grammar_root, true, patterns, trigger_tokens, num_trigger_tokens);
}
