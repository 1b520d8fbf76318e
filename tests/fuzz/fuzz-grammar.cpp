// libFuzzer harness for the GBNF parser and the matcher. Input: grammar text, then optionally a
// NUL byte and text to feed. A grammar that parses is then run: the text is accepted code point by
// code point, and candidate texts cut from the input are pruned, which must agree with accepting
// them. Malformed grammars must end in gram_error, never a crash, a hang or another exception.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "llama-grammar.h"
#include "llama-log.h"

// The parser reaches the vocab only for <name> tokens and <[id]> bounds, and logs redefinitions;
// the harness passes no vocab, so these stand-ins are never asked for a real answer.
int32_t llama_vocab_n_tokens(const struct llama_vocab *) {
    return 0;
}

int32_t llama_tokenize(const struct llama_vocab *, const char *, int32_t, llama_token *, int32_t, bool, bool) {
    return 0;
}

void llama_log_internal(ggml_log_level, const char *, ...) {}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size) {
    const std::string in((const char *) data, size);
    const size_t      cut     = in.find('\0');
    const std::string grammar = in.substr(0, cut);
    const std::string text    = cut == std::string::npos ? std::string() : in.substr(cut + 1);

    std::shared_ptr<const gram_rules> rules;
    try {
        rules = gram_parse(grammar, "root", nullptr);
    } catch (const gram_error &) {
        return 0;
    }
    try {
        gram_state st(rules);
        // candidates: every prefix of the text up to 8 bytes, as one token each
        std::vector<std::vector<uint32_t>> cps;
        std::vector<gram_cand>             cands;
        std::vector<std::string>           pieces;
        for (size_t n = 1; n <= text.size() && n <= 8; ++n) {
            pieces.push_back(text.substr(0, n));
        }
        cps.resize(pieces.size());
        for (size_t i = 0; i < pieces.size(); ++i) {
            const gram_partial p = gram_decode_utf8(pieces[i], {}, cps[i]);
            cps[i].push_back(0);
            if (p.n_remain >= 0) {
                cands.push_back({i, (llama_token) i, cps[i].data(), p});
            }
        }
        const std::vector<size_t> rejected = gram_reject(st, cands);
        for (const auto & c : cands) {
            const bool rej = std::find(rejected.begin(), rejected.end(), c.index) != rejected.end();
            gram_state tmp = st;
            if (rej == tmp.accept_token(c.id, pieces[c.index])) {
                __builtin_trap();  // pruning and accepting disagree
            }
        }
        for (size_t i = 0; i < text.size(); ++i) {
            if (!st.accept_text(text.substr(i, 1))) {
                break;
            }
        }
    } catch (const gram_error &) {
        // an ambiguous grammar hit the work limits: a clean failure
    }
    return 0;
}
