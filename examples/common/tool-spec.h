// Speculative decoding as llama-cli and llama-server set it up from the shared options (-md,
// --spec-type, --draft-max ...; docs/speculative.md): the draft model and context when the type
// needs one, and the llama_spec decoder over the tool's target context.
#pragma once

#include <cstdio>
#include <string>

#include "arg-table.h"
#include "llama.h"

namespace tool {

class speculative {
public:
    speculative() = default;
    ~speculative();
    speculative(const speculative &)             = delete;
    speculative & operator=(const speculative &) = delete;

    // Sets up what p.spec asks for over the target context tgt, with a draft context of n_seq
    // sequences laid out as the target's (llama-cli 1, llama-server one per slot). True when nothing
    // is asked for (get() stays NULL) or all went well; false with `why` set (draft model missing or
    // not loadable, vocabulary mismatch, bad parameters).
    bool start(const params & p, llama_context * tgt, int n_seq, std::string & why);

    llama_spec * get() const { return spec_; }
    // The decoder's settings (--draft-max/--draft-min/--draft-p-min) and type name ("draft",
    // "ngram"); meaningful once get() is not NULL.
    const llama_spec_params & settings() const { return sp_; }
    const std::string &       type() const { return type_; }

    // Frees the decoder, the draft context and model (before llama_backend_free); the destructor
    // does it otherwise.
    void close();

    // "speculative: N drafted, M accepted (x%), S steps, E tokens" on out; nothing when off.
    void print_stats(FILE * out) const;

private:
    llama_model *     model_ = nullptr;
    llama_context *   ctx_   = nullptr;
    llama_spec *      spec_  = nullptr;
    llama_spec_params sp_{};
    std::string       type_;
};

// A grammar and a sampler chain as the one sampler llama_spec_step applies (llama_spec_seq::smpl takes
// one): the grammar prunes the candidates first, then the chain picks, and both accept each emitted
// token, as a plain grammar-constrained step does. Both are borrowed (they must outlive it); free it
// with llama_sampler_free. Its clones own clones of both.
llama_sampler * grammar_chain_sampler(llama_sampler * grmr, llama_sampler * chain);

}  // namespace tool
