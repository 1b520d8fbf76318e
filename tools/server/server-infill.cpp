#include "server-infill.h"

#include <algorithm>

#include "server-prompt.h"

namespace server {

namespace {

// A string (tokenized without BOS, special-token text kept as text) or an array of token ids and
// strings (upstream's "mixed" input).
std::vector<llama_token> code_tokens(const json & v, const llama_vocab * vocab, const char * field) {
    if (v.is_string()) {
        return tokenize(vocab, v.get<std::string>(), false, false);
    }
    if (!v.is_array()) {
        throw bad_request(std::string("'") + field + "' must be a string or an array of token ids and strings");
    }
    std::vector<llama_token> out;
    for (const auto & e : v) {
        if (e.is_string()) {
            const auto t = tokenize(vocab, e.get<std::string>(), false, false);
            out.insert(out.end(), t.begin(), t.end());
        } else {
            const auto t = parse_token_ids(json::array({e}), vocab, field);
            out.insert(out.end(), t.begin(), t.end());
        }
    }
    return out;
}

}  // namespace

std::string infill_missing_tokens(const llama_vocab * vocab) {
    std::string                                missing;
    const std::pair<llama_token, const char *> need[] = {
        {llama_vocab_fim_pre(vocab), "prefix"},
        {llama_vocab_fim_suf(vocab), "suffix"},
        {llama_vocab_fim_mid(vocab), "middle"},
    };
    for (const auto & n : need) {
        if (n.first == LLAMA_TOKEN_NULL) {
            missing += std::string(missing.empty() ? "" : ", ") + n.second;
        }
    }
    return missing.empty() ? "" : "Infill is not supported by this model: it has no FIM " + missing + " token";
}

std::vector<llama_token> infill_prompt(const json & body, const llama_vocab * vocab, int n_batch, int n_predict,
                                       int n_ctx) {
    auto pre_it = body.find("input_prefix");
    auto suf_it = body.find("input_suffix");
    if (pre_it == body.end()) {
        throw bad_request("'input_prefix' is required");
    }
    if (suf_it == body.end()) {
        throw bad_request("'input_suffix' is required");
    }
    std::vector<llama_token> prefix = code_tokens(*pre_it, vocab, "input_prefix");
    std::vector<llama_token> suffix = code_tokens(*suf_it, vocab, "input_suffix");
    std::vector<llama_token> typed;
    if (auto it = body.find("prompt"); it != body.end() && !it->is_null()) {
        if (!it->is_string()) {
            throw bad_request("'prompt' must be a string");
        }
        typed = tokenize(vocab, it->get<std::string>(), false, false);
    }

    const llama_token        rep = llama_vocab_fim_rep(vocab), sep = llama_vocab_fim_sep(vocab);
    std::vector<llama_token> extra;
    auto                     append = [&](const std::string & text) {
        const auto t = tokenize(vocab, text, false, false);
        extra.insert(extra.end(), t.begin(), t.end());
    };
    if (rep != LLAMA_TOKEN_NULL) {
        extra.push_back(rep);
        append("myproject\n");  // upstream's fixed project name
    }
    if (auto it = body.find("input_extra"); it != body.end() && !it->is_null()) {
        if (!it->is_array()) {
            throw bad_request("'input_extra' must be an array of {\"filename\": string, \"text\": string}");
        }
        for (const auto & chunk : *it) {
            auto text = chunk.is_object() ? chunk.find("text") : chunk.end();
            if (!chunk.is_object() || text == chunk.end() || !text->is_string()) {
                throw bad_request("'input_extra' chunks must have a string 'text'");
            }
            std::string filename = "tmp";
            if (auto f = chunk.find("filename"); f != chunk.end()) {
                if (!f->is_string()) {
                    throw bad_request("'input_extra' chunk 'filename' must be a string");
                }
                filename = f->get<std::string>();
            }
            if (sep != LLAMA_TOKEN_NULL) {
                extra.push_back(sep);
                append(filename + "\n");
            } else {
                append("\n\n--- snippet ---\n\n");  // upstream's chunk separator without FIM_SEP
            }
            append(text->get<std::string>());
        }
    }
    if (sep != LLAMA_TOKEN_NULL) {
        extra.push_back(sep);
        append("filename\n");  // upstream's name of the file being edited
    }

    // prefix : suffix = 3 : 1 of one batch, the prefix's end and the suffix's start kept
    const size_t n_pre = std::min(prefix.size(), (size_t) std::max(0, 3 * (n_batch / 4)));
    const size_t n_suf =
        std::min(suffix.size(), (size_t) std::max<long>(0, (long) (n_batch / 4) - (2 + (long) typed.size())));
    const size_t n_extra = std::min(extra.size(), (size_t) std::max(0, n_ctx - n_batch - 2 * n_predict));
    prefix.erase(prefix.begin(), prefix.end() - (long) n_pre);
    suffix.resize(n_suf);

    std::vector<llama_token> out(extra.end() - (long) n_extra, extra.end());
    if (llama_vocab_get_add_bos(vocab)) {
        out.push_back(llama_vocab_bos(vocab));
    }
    out.push_back(llama_vocab_fim_pre(vocab));
    out.insert(out.end(), prefix.begin(), prefix.end());
    out.insert(out.end(), typed.begin(), typed.end());
    out.push_back(llama_vocab_fim_suf(vocab));
    out.insert(out.end(), suffix.begin(), suffix.end());
    out.push_back(llama_vocab_fim_mid(vocab));
    return out;
}

}  // namespace server
