#include "server-prompt.h"

namespace server {

namespace {

llama_token token_id(const json & v, const llama_vocab * vocab, const char * field) {
    const int n_vocab = llama_vocab_n_tokens(vocab);
    if (!v.is_number_integer()) {
        throw bad_request(std::string("'") + field + "' token ids must be integers");
    }
    const int64_t id = v.get<int64_t>();
    if (id < 0 || id >= n_vocab) {
        throw bad_request(std::string("'") + field + "' token id " + std::to_string(id) + " is not in [0, " +
                          std::to_string(n_vocab) + ")");
    }
    return (llama_token) id;
}

// An array of only ids and strings with at least one id: one prompt (upstream's mixed prompt).
bool is_single_prompt(const json & arr) {
    bool has_id = false;
    for (const auto & v : arr) {
        if (v.is_number()) {
            has_id = true;
        } else if (!v.is_string()) {
            return false;
        }
    }
    return has_id;
}

std::vector<llama_token> one_prompt(const json & p, const llama_vocab * vocab, bool add_special) {
    if (p.is_string()) {
        return tokenize(vocab, p.get<std::string>(), add_special);
    }
    if (!p.is_array() || !is_single_prompt(p)) {
        throw bad_request("'prompt' entries must be strings, arrays of token ids, or arrays of token ids and strings");
    }
    std::vector<llama_token> out;
    for (size_t i = 0; i < p.size(); i++) {
        if (p[i].is_string()) {
            const auto t = tokenize(vocab, p[i].get<std::string>(), add_special && i == 0);
            out.insert(out.end(), t.begin(), t.end());
        } else {
            out.push_back(token_id(p[i], vocab, "prompt"));
        }
    }
    return out;
}

}  // namespace

std::vector<std::vector<llama_token>> parse_prompts(const json & prompt, const llama_vocab * vocab, bool add_special,
                                                    size_t max_prompts) {
    std::vector<std::vector<llama_token>> out;
    if (prompt.is_string() || (prompt.is_array() && is_single_prompt(prompt))) {
        out.push_back(one_prompt(prompt, vocab, add_special));
    } else if (prompt.is_array() && !prompt.empty()) {
        if (prompt.size() > max_prompts) {
            throw bad_request("'prompt' may list at most " + std::to_string(max_prompts) + " prompts");
        }
        for (const auto & p : prompt) {
            out.push_back(one_prompt(p, vocab, add_special));
        }
    } else {
        throw bad_request("'prompt' must be a string, an array of token ids, or a non-empty array of prompts");
    }
    for (const auto & p : out) {
        if (p.empty()) {
            throw bad_request("'prompt' is empty");
        }
    }
    return out;
}

std::vector<llama_token> parse_token_ids(const json & arr, const llama_vocab * vocab, const char * field) {
    if (!arr.is_array()) {
        throw bad_request(std::string("'") + field + "' must be an array of token ids");
    }
    std::vector<llama_token> out;
    for (const auto & v : arr) {
        out.push_back(token_id(v, vocab, field));
    }
    return out;
}

}  // namespace server
