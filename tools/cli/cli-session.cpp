#include "cli-session.h"

#include "tool-spec.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace cli {

llama_sampler * make_sampler(const sampling & s, const llama_vocab * vocab, int n_ctx) {
    llama_sampler * c = llama_sampler_chain_init(llama_sampler_chain_default_params());
    if (s.repeat_penalty != 1.0f || s.presence_penalty != 0.0f || s.frequency_penalty != 0.0f) {
        llama_sampler_chain_add(
            c, llama_sampler_init_penalties(llama_vocab_n_tokens(vocab), s.repeat_last_n, s.repeat_penalty,
                                            s.frequency_penalty, s.presence_penalty));
    }
    if (s.dry_multiplier > 0.0f) {
        std::vector<const char *> breakers;
        for (const auto & b : s.dry_sequence_breakers) {
            breakers.push_back(b.c_str());
        }
        llama_sampler_chain_add(c, llama_sampler_init_dry(vocab, s.dry_multiplier, s.dry_base, s.dry_allowed_length,
                                                          s.dry_penalty_last_n < 0 ? n_ctx : s.dry_penalty_last_n,
                                                          breakers.data(), breakers.size()));
    }
    if (s.temp <= 0.0f) {
        llama_sampler_chain_add(c, llama_sampler_init_greedy());
        return c;
    }
    if (s.mirostat != 0) {
        llama_sampler_chain_add(c, llama_sampler_init_temp(s.temp));
        llama_sampler_chain_add(c, s.mirostat == 1
                                       ? llama_sampler_init_mirostat(llama_vocab_n_tokens(vocab), s.seed,
                                                                     s.mirostat_tau, s.mirostat_eta, 100)
                                       : llama_sampler_init_mirostat_v2(s.seed, s.mirostat_tau, s.mirostat_eta));
        return c;
    }
    if (s.top_n_sigma > 0.0f) {
        llama_sampler_chain_add(c, llama_sampler_init_top_n_sigma(s.top_n_sigma));
    }
    llama_sampler_chain_add(c, llama_sampler_init_top_k(s.top_k));
    llama_sampler_chain_add(c, llama_sampler_init_typical(s.typical_p, 1));
    llama_sampler_chain_add(c, llama_sampler_init_top_p(s.top_p, 1));
    llama_sampler_chain_add(c, llama_sampler_init_min_p(s.min_p, 1));
    if (s.xtc_probability > 0.0f) {
        llama_sampler_chain_add(c, llama_sampler_init_xtc(s.xtc_probability, s.xtc_threshold, 1, s.seed));
    }
    if (s.dynatemp_range > 0.0f) {
        llama_sampler_chain_add(c, llama_sampler_init_temp_ext(s.temp, s.dynatemp_range, s.dynatemp_exp));
    } else {
        llama_sampler_chain_add(c, llama_sampler_init_temp(s.temp));
    }
    llama_sampler_chain_add(c, llama_sampler_init_dist(s.seed));
    return c;
}

// The next token: the grammar (if any) prunes the candidates, the chain picks, both accept it.
// LLAMA_TOKEN_NULL when the grammar leaves nothing or the logits are missing.
llama_token session::sample() {
    if (grmr_ == nullptr) {
        return llama_sampler_sample(smpl_, ctx_, -1);
    }
    const float * logits = llama_get_logits_ith(ctx_, -1);
    if (logits == nullptr) {
        return LLAMA_TOKEN_NULL;
    }
    const int n_vocab = llama_vocab_n_tokens(vocab_);
    cur_.resize((size_t) n_vocab);
    for (llama_token t = 0; t < n_vocab; t++) {
        cur_[(size_t) t] = {t, logits[t], 0.0f};
    }
    llama_token_data_array arr = {cur_.data(), cur_.size(), -1, false};
    llama_sampler_apply(grmr_, &arr);
    llama_sampler_apply(smpl_, &arr);
    if (arr.selected < 0 || arr.selected >= (int64_t) arr.size || std::isinf(arr.data[arr.selected].logit)) {
        return LLAMA_TOKEN_NULL;
    }
    const llama_token tok = arr.data[arr.selected].id;
    llama_sampler_accept(grmr_, tok);
    llama_sampler_accept(smpl_, tok);
    return tok;
}

session::session(llama_context * ctx, llama_sampler * smpl, bool verbose)
    : ctx_(ctx),
      smpl_(smpl),
      vocab_(llama_model_get_vocab(llama_get_model(ctx))),
      mem_(llama_get_memory(ctx)),
      n_ctx_((int) llama_n_ctx(ctx)),
      n_keep_(llama_vocab_get_add_bos(llama_model_get_vocab(llama_get_model(ctx))) ? 1 : 0),
      verbose_(verbose) {}

void session::clear() {
    spec_synced_ = false;
    llama_memory_clear(mem_, true);
    llama_sampler_reset(smpl_);
    tokens_.clear();
}

bool session::make_room(int n) {
    const int n_past    = (int) tokens_.size();
    const int n_discard = std::max((n_past - n_keep_) / 2, n_past + n - n_ctx_);
    if (n_keep_ + n > n_ctx_ || n_discard > n_past - n_keep_) {
        return false;
    }
    if (verbose_) {
        fprintf(stderr, "[context full: forgetting %d of %d tokens]\n", n_discard, n_past);
    }
    if (llama_memory_can_shift(mem_)) {
        llama_memory_seq_rm(mem_, 0, n_keep_, n_keep_ + n_discard);
        llama_memory_seq_add(mem_, 0, n_keep_ + n_discard, -1, -n_discard);
        tokens_.erase(tokens_.begin() + n_keep_, tokens_.begin() + n_keep_ + n_discard);
        return true;
    }
    // no position shift: keep the prefix and decode the rest again
    llama_memory_seq_rm(mem_, 0, n_keep_, -1);
    std::vector<llama_token> rest(tokens_.begin() + n_keep_ + n_discard, tokens_.end());
    tokens_.resize((size_t) n_keep_);
    const int n_batch = (int) llama_n_batch(ctx_);
    for (size_t i = 0; i < rest.size(); i += (size_t) n_batch) {
        const int m = (int) std::min(rest.size() - i, (size_t) n_batch);
        if (llama_decode(ctx_, llama_batch_get_one(rest.data() + i, m)) != 0) {
            return false;
        }
        tokens_.insert(tokens_.end(), rest.begin() + (long) i, rest.begin() + (long) i + m);
    }
    return true;
}

bool session::decode(const llama_token * toks, int n, reply_stats & stats) {
    const int n_batch = (int) llama_n_batch(ctx_);
    for (int i = 0; i < n; i += n_batch) {
        const int m = std::min(n - i, n_batch);
        if ((int) tokens_.size() + m > n_ctx_) {
            if (!make_room(m)) {
                return false;
            }
            stats.n_shifts++;
        }
        if (llama_decode(ctx_, llama_batch_get_one(const_cast<llama_token *>(toks + i), m)) != 0) {
            return false;
        }
        tokens_.insert(tokens_.end(), toks + i, toks + i + m);
    }
    return true;
}

int session::reply(const std::string & text, int n_predict, const std::function<void(const std::string &)> & on_piece,
                   reply_stats & stats) {
    bool first = tokens_.empty() || !cache_path_.empty();
    if (first) {
        // a template that wrote the BOS text itself (Jinja templates often do): no second BOS
        const llama_token bos = llama_vocab_bos(vocab_);
        const char *      bt  = bos == LLAMA_TOKEN_NULL ? nullptr : llama_vocab_get_text(vocab_, bos);
        if (bt && *bt && text.compare(0, strlen(bt), bt) == 0) {
            first = false;
        }
    }
    int                      n = -llama_tokenize(vocab_, text.c_str(), (int32_t) text.size(), nullptr, 0, first, true);
    std::vector<llama_token> toks((size_t) std::max(n, 0));
    if (n <= 0 || llama_tokenize(vocab_, text.c_str(), (int32_t) text.size(), toks.data(), n, first, true) < 0) {
        return -1;
    }
    stats.n_prompt = n;
    if (n_keep_ + n + 1 > n_ctx_) {
        return 0;
    }
    for (llama_token t : toks) {
        llama_sampler_accept(smpl_, t);  // penalties see the prompt too
    }
    size_t skip = 0;  // prompt tokens already in the cache (from the prompt cache file)
    if (!cache_path_.empty()) {
        skip           = load_prompt_cache(toks);
        stats.n_cached = (int) skip;
    }
    if (!decode(toks.data() + skip, n - (int) skip, stats)) {
        return -1;
    }
    if (!cache_all_) {
        save_prompt_cache();
    }
    stats.finish_reason = "length";
    if (grmr_ != nullptr) {
        llama_sampler_reset(grmr_);  // each reply is one sentence of the grammar
    }
    std::string pending;  // bytes of an incomplete UTF-8 character
    spec_synced_ = false;
    if (n_predict <= 0) {
        if (cache_all_) {
            save_prompt_cache();
        }
        return 1;
    }
    const llama_token first_tok = sample();
    if (first_tok == LLAMA_TOKEN_NULL) {
        return -1;
    }
    std::vector<llama_token> emit       = {first_tok};
    size_t                   n_in_cache = 0;  // a speculative step leaves all but its last token in the cache
    for (int i = 0;;) {
        for (size_t j = 0; j < emit.size(); j++) {
            const llama_token tok = emit[j];
            stats.n_gen++;
            i++;
            const bool eog = llama_vocab_is_eog(vocab_, tok);
            if (!eog) {
                char buf[256];
                int  m = llama_token_to_piece(vocab_, tok, buf, sizeof(buf), 0, false);
                if (m < 0) {
                    return -1;
                }
                pending.append(buf, (size_t) m);
                // print only complete characters
                size_t cut = pending.size();
                for (size_t k = 1; k <= 3 && k <= pending.size(); k++) {
                    const unsigned char c = (unsigned char) pending[pending.size() - k];
                    if ((c & 0xC0) == 0x80) {
                        continue;
                    }
                    const size_t need = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
                    cut               = need > k ? pending.size() - k : pending.size();
                    break;
                }
                if (cut > 0) {
                    on_piece(pending.substr(0, cut));
                    pending.erase(0, cut);
                }
            }
            if (!eog && i < n_predict) {
                continue;
            }
            // the end: the cache keeps what plain decoding would (the last token unless it ends
            // the text), not the tokens a step accepted beyond it
            const size_t keep = eog ? j : j + 1;
            if (n_in_cache > keep) {
                truncate(tokens_.size() - (n_in_cache - keep));
            } else if (!eog && j >= n_in_cache && !decode(&tok, 1, stats)) {
                return -1;
            }
            if (eog) {
                stats.finish_reason = "stop";
            }
            if (cache_all_) {
                save_prompt_cache();  // the reply's tokens included
            }
            return 1;
        }
        if (!next(emit.back(), emit, n_in_cache, stats)) {
            return -1;
        }
    }
}

void session::truncate(size_t n) {
    llama_memory_seq_rm(mem_, 0, (llama_pos) n, -1);
    tokens_.resize(n);
    spec_synced_ = false;
}

bool session::next(llama_token last, std::vector<llama_token> & emit, size_t & n_in_cache, reply_stats & stats) {
    if (spec_ != nullptr && (int) tokens_.size() + spec_n_max_ + 2 <= n_ctx_) {
        if (grmr_ != nullptr && spec_smpl_ == nullptr) {
            spec_smpl_.reset(tool::grammar_chain_sampler(grmr_, smpl_));
        }
        if (!spec_synced_) {
            if (llama_spec_seq_begin(spec_, 0, tokens_.data(), (int32_t) tokens_.size()) != 0) {
                return false;
            }
            spec_synced_ = true;
        }
        spec_out_.resize((size_t) spec_n_max_ + 1);
        llama_spec_seq s = {0,    last, grmr_ != nullptr ? spec_smpl_.get() : smpl_, spec_out_.data(), 0, 0, 0, 0,
                            0.0f, 0};
        if (llama_spec_step(spec_, &s, 1) != 0) {
            return false;
        }
        // the cache now holds `last` and the accepted drafts: every emitted token but the last
        tokens_.push_back(last);
        tokens_.insert(tokens_.end(), spec_out_.begin(), spec_out_.begin() + (s.n_out - 1));
        emit.assign(spec_out_.begin(), spec_out_.begin() + s.n_out);
        n_in_cache = (size_t) s.n_out - 1;
        return true;
    }
    if (!decode(&last, 1, stats)) {
        return false;
    }
    spec_synced_          = false;
    const llama_token tok = sample();
    if (tok == LLAMA_TOKEN_NULL) {
        return false;
    }
    emit       = {tok};
    n_in_cache = 0;
    return true;
}

// Restores the prompt-cache file into sequence 0 and keeps the part of it that starts `prompt`
// (all of it but the last token, whose logits give the first reply token). Returns the tokens kept.
size_t session::load_prompt_cache(const std::vector<llama_token> & prompt) {
    std::vector<llama_token> saved;
    tokens_.clear();
    llama_memory_clear(mem_, true);
    const prompt_cache::error e = prompt_cache::load(ctx_, 0, cache_fp_, cache_path_, (size_t) n_ctx_, saved);
    if (!e.ok()) {
        FILE * f = fopen(cache_path_.c_str(), "rb");  // a file that does not exist yet is a cold start
        if (f != nullptr) {
            fclose(f);
            fprintf(stderr, "llama-cli: prompt cache %s: %s (not used)\n", cache_path_.c_str(), e.reason.c_str());
        }
        llama_memory_clear(mem_, true);
        return 0;
    }
    size_t skip = 0;
    while (skip < saved.size() && skip + 1 < prompt.size() && saved[skip] == prompt[skip]) {
        skip++;
    }
    llama_memory_seq_rm(mem_, 0, (llama_pos) skip, -1);
    tokens_.assign(prompt.begin(), prompt.begin() + (long) skip);
    return skip;
}

void session::save_prompt_cache() {
    if (cache_path_.empty() || cache_ro_) {
        return;
    }
    const prompt_cache::error e = prompt_cache::save(ctx_, 0, cache_fp_, tokens_, cache_path_);
    if (!e.ok()) {
        fprintf(stderr, "llama-cli: warning: cannot save the prompt cache %s: %s\n", cache_path_.c_str(),
                e.reason.c_str());
    }
}

}  // namespace cli
