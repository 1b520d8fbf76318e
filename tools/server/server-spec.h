// llama-server's speculative decoding setup (-md, --spec-type, --draft-max ...; docs/server.md): the
// draft model, loaded once, with one draft context whose sequences are the slots', and the
// llama_spec decoder the engine steps generating slots with (server-engine-spec.cpp).
#pragma once

#include <string>

#include "arg-table.h"
#include "llama.h"
#include "server-engine.h"

namespace server {

class speculative {
public:
    speculative() = default;
    ~speculative();
    speculative(const speculative &)             = delete;
    speculative & operator=(const speculative &) = delete;

    // Sets up what p.spec asks for over the target context tgt, whose n_slots sequences are the
    // slots. True when nothing is asked for (config().spec stays NULL) or all went well; false with
    // `why` set (draft model missing or not loadable, vocabulary mismatch, bad parameters).
    bool start(const tool::params & p, llama_context * tgt, int n_slots, std::string & why);

    const spec_config & config() const { return cfg_; }

    // Frees the decoder, the draft context and model (after the engine stopped, before
    // llama_backend_free); the destructor does it otherwise.
    void close();

private:
    llama_model *   model_ = nullptr;
    llama_context * ctx_   = nullptr;
    spec_config     cfg_;
};

}  // namespace server
