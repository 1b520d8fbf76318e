// llama-cli's speculative decoding (--spec-type, -md, --draft-max ...; docs/speculative.md): the
// draft model and context and the llama_spec decoder the session generates with, and the
// acceptance figures printed at the end of a run.
#pragma once

#include <cstdio>
#include <string>

#include "arg-table.h"
#include "llama.h"

namespace cli {

class speculative {
public:
    speculative() = default;
    ~speculative();
    speculative(const speculative &)             = delete;
    speculative & operator=(const speculative &) = delete;

    // Sets up what p.spec asks for over the target context tgt. True when nothing is asked for
    // (get() stays NULL) or all went well; false with `why` set (draft model missing or not
    // loadable, vocabulary mismatch, bad parameters).
    bool start(const tool::params & p, llama_context * tgt, std::string & why);

    llama_spec * get() const { return spec_; }
    int          n_draft_max() const { return n_max_; }

    // Frees the decoder, the draft context and model (before llama_backend_free); the destructor
    // does it otherwise.
    void close();

    // "speculative: N drafted, M accepted (x%), S steps, E tokens" on out; nothing when off.
    void print_stats(FILE * out) const;

private:
    llama_model *   model_ = nullptr;
    llama_context * ctx_   = nullptr;
    llama_spec *    spec_  = nullptr;
    int             n_max_ = 0;
};

}  // namespace cli
