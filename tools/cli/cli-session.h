// A conversation held in one context (sequence 0): decoding with room made when the context is
// full (context shift: the oldest half after the kept prefix is forgotten, positions shifted with
// llama_memory_seq_rm/seq_add, or re-decoded where the cache cannot shift), and sampling a reply.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "arg-table.h"
#include "llama.h"
#include "prompt-cache.h"

namespace cli {

// The sampler flags (defaults as llama.cpp's), filled by the shared option table.
using sampling = tool::sampling_params;

// The chain for `s` (upstream's order). n_ctx resolves the -1 ("whole context") windows.
llama_sampler * make_sampler(const sampling & s, const llama_vocab * vocab, int n_ctx);

struct reply_stats {
    int         n_prompt = 0;
    int         n_gen    = 0;
    int         n_shifts = 0;   // context shifts during this reply
    int         n_cached = 0;   // prompt tokens taken from the prompt cache file
    std::string finish_reason;  // "stop" or "length"
};

class session {
public:
    session(llama_context * ctx, llama_sampler * smpl, bool verbose);

    // Decodes `text` (tokenized; BOS added only at the very start) and samples up to n_predict
    // tokens, calling on_piece for each piece of text. Returns 1 on success, 0 when the text alone
    // cannot fit in the context (nothing decoded), -1 on failure (reason in llama_last_error()).
    int reply(const std::string & text, int n_predict, const std::function<void(const std::string &)> & on_piece,
              reply_stats & stats);

    // Forgets everything (a new conversation).
    void clear();

    // One-shot prompt cache (--prompt-cache FILE, the prompt-cache format of tools/common, shared
    // with llama-server --prompt-cache-dir): the next reply() treats its text as the whole prompt,
    // reuses the longest prefix the file holds and saves sequence 0 after its prompt (with `all`:
    // after the reply, generated tokens included; with `read_only`: never). A missing file is a
    // cold start; an unusable one (damaged, another model or cache type) too, after one message.
    void set_prompt_cache(const std::string & path, const prompt_cache::fingerprint & fp, bool all, bool read_only) {
        cache_path_ = path;
        cache_fp_   = fp;
        cache_all_  = all;
        cache_ro_   = read_only;
    }

    // Constrains every reply with a grammar sampler (borrowed, not freed; reset at each reply).
    // It is kept out of the chain because the chain also sees the prompt (penalties).
    void set_grammar(llama_sampler * grammar) { grmr_ = grammar; }

    // Generates with speculative decoding (spec borrowed, over this session's context; NULL: off):
    // the same text as plain decoding when greedy. With a grammar the steps apply the grammar and the
    // chain as one sampler (tool::grammar_chain_sampler). Not used when a step would not fit the
    // context (the plain path makes room, then steps resume).
    void set_speculative(llama_spec * spec, int n_draft_max) {
        spec_       = spec;
        spec_n_max_ = n_draft_max;
    }

private:
    bool        decode(const llama_token * toks, int n, reply_stats & stats);
    bool        make_room(int n);
    size_t      load_prompt_cache(const std::vector<llama_token> & prompt);
    void        save_prompt_cache();
    llama_token sample();
    // The next tokens after `last`: one speculative step, or a plain decode and sample. Fills emit
    // (n_in_cache of them, a prefix, are in the cache already). False on failure.
    bool next(llama_token last, std::vector<llama_token> & emit, size_t & n_in_cache, reply_stats & stats);
    // Forgets the cache from token n on.
    void truncate(size_t n);

    llama_context *               ctx_;
    llama_sampler *               smpl_;
    llama_sampler *               grmr_ = nullptr;
    std::vector<llama_token_data> cur_;  // candidates of a grammar-constrained pick
    const llama_vocab *           vocab_;
    llama_memory_t                mem_;
    int                           n_ctx_;
    int                           n_keep_;
    bool                          verbose_;
    std::vector<llama_token>      tokens_;  // what the cache holds, in position order
    std::string                   cache_path_;
    llama_spec *                  spec_        = nullptr;
    int                           spec_n_max_  = 0;
    bool                          spec_synced_ = false;  // the decoder knows tokens_
    std::vector<llama_token>      spec_out_;
    // the grammar and the chain as one sampler for the steps (made at the first constrained step)
    std::unique_ptr<llama_sampler, decltype(&llama_sampler_free)> spec_smpl_{nullptr, llama_sampler_free};
    prompt_cache::fingerprint                                     cache_fp_;
    bool                                                          cache_all_ = false;
    bool                                                          cache_ro_  = false;
};

}  // namespace cli
