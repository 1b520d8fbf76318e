// Checking grammars without a model: the gpt-2 vocab (vocab only) and whether a grammar sampler lets
// a model write a given text and then end. Shared by the JSON schema and tool-call grammar tests.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "llama.h"
#include "test-common.h"

namespace testing_util {

// The gpt-2 vocabulary, loaded once (NULL if the file does not load).
inline const llama_vocab * gpt2_vocab() {
    struct holder {
        llama_model *       model = nullptr;
        const llama_vocab * vocab = nullptr;
        holder() {
            llama_model_params p = llama_model_default_params();
            p.vocab_only         = true;
            model                = llama_model_load_from_file(data_path("vocab/ggml-vocab-gpt-2.gguf").c_str(), p);
            vocab                = model ? llama_model_get_vocab(model) : nullptr;
        }
        ~holder() { llama_model_free(model); }
    };
    static holder h;
    return h.vocab;
}

// Whether sampler s (a grammar, lazy or not) lets a model emit exactly `text` and then end; frees s.
inline bool sampler_accepts(llama_sampler * s, const std::string & text) {
    const llama_vocab * v = gpt2_vocab();
    if (s == nullptr || v == nullptr) {
        llama_sampler_free(s);
        return false;
    }
    std::vector<llama_token> toks(text.size() + 8);
    const int32_t            n =
        llama_tokenize(v, text.data(), (int32_t) text.size(), toks.data(), (int32_t) toks.size(), false, false);
    EXPECT_GT(n, 0);
    toks.resize(n > 0 ? (size_t) n : 0);
    toks.push_back(llama_vocab_eos(v));  // the end: allowed only when the grammar is complete
    bool ok = true;
    for (llama_token t : toks) {
        llama_token_data       d   = {t, 0.0f, 0.0f};
        llama_token_data_array arr = {&d, 1, -1, false};
        llama_sampler_apply(s, &arr);
        if (std::isinf(d.logit)) {
            ok = false;
            break;
        }
        if (t != llama_vocab_eos(v)) {
            llama_sampler_accept(s, t);
        }
    }
    llama_sampler_free(s);
    return ok;
}

// The same for a GBNF text (root rule "root"), which must compile.
inline bool grammar_accepts(const std::string & gbnf, const std::string & text) {
    llama_sampler * s = llama_sampler_init_grammar(gpt2_vocab(), gbnf.c_str(), "root");
    EXPECT_NE(s, nullptr) << llama_last_error() << "\n" << gbnf;
    return sampler_accepts(s, text);
}

}  // namespace testing_util
