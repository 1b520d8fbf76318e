#include "server-params.h"

#include "arg-table.h"
#include "json-schema-grammar.h"
#include "server-engine.h"

namespace server {

json parse_body(const std::string & body) {
    if (!utf8_valid(body)) {
        throw bad_request("the request body is not valid UTF-8");
    }
    json j;
    try {
        j = json::parse(body);
    } catch (const json::exception & e) {
        throw bad_request(std::string("malformed JSON: ") + e.what());
    }
    if (!j.is_object()) {
        throw bad_request("the request body must be a JSON object");
    }
    return j;
}

namespace {

// Reads an optional number field in [lo, hi]; null or absent leaves `out` unchanged.
template <typename T>
void get_number(const json & j, const char * key, T & out, double lo, double hi) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) {
        return;
    }
    const bool want_int = std::is_integral<T>::value;
    if (!it->is_number() || (want_int && !it->is_number_integer())) {
        throw bad_request(std::string("'") + key + "' must be " + (want_int ? "an integer" : "a number"));
    }
    const double v = it->get<double>();
    if (!(v >= lo && v <= hi)) {
        throw bad_request(std::string("'") + key + "' must be in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                          "]");
    }
    out = want_int ? (T) it->get<int64_t>() : (T) v;
}

void get_bool(const json & j, const char * key, bool & out) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) {
        return;
    }
    if (!it->is_boolean()) {
        throw bad_request(std::string("'") + key + "' must be a boolean");
    }
    out = it->get<bool>();
}

// The samplers beyond OpenAI's, with the names and meanings of upstream's server.
void parse_samplers(const json & body, sampling_params & sp) {
    get_number(body, "typical_p", sp.typical_p, 0, 1);
    get_number(body, "repeat_last_n", sp.repeat_last_n, -1, 1 << 20);
    get_number(body, "top_n_sigma", sp.top_n_sigma, -1, 100);
    get_number(body, "xtc_probability", sp.xtc_probability, 0, 1);
    get_number(body, "xtc_threshold", sp.xtc_threshold, 0, 1);
    get_number(body, "mirostat", sp.mirostat, 0, 2);
    get_number(body, "mirostat_tau", sp.mirostat_tau, 0, 100);
    get_number(body, "mirostat_eta", sp.mirostat_eta, 0, 1);
    get_number(body, "dry_multiplier", sp.dry_multiplier, 0, 100);
    get_number(body, "dry_base", sp.dry_base, 1, 100);
    get_number(body, "dry_allowed_length", sp.dry_allowed_length, 1, 1 << 20);
    get_number(body, "dry_penalty_last_n", sp.dry_penalty_last_n, -1, 1 << 20);
    // speculative decoding, upstream's flat names; bounded by the decoder's limit (the server cuts
    // n_max to its --draft-max)
    get_number(body, "speculative.n_max", sp.spec_n_max, 0, LLAMA_SPEC_DRAFT_MAX);
    get_number(body, "speculative.n_min", sp.spec_n_min, 0, LLAMA_SPEC_DRAFT_MAX);
    get_number(body, "speculative.p_min", sp.spec_p_min, 0, 1);
    if (sp.spec_n_max >= 0 && sp.spec_n_min > sp.spec_n_max) {
        throw bad_request("'speculative.n_min' must not be above 'speculative.n_max'");
    }
    if (auto it = body.find("dry_sequence_breakers"); it != body.end() && !it->is_null()) {
        if (!it->is_array() || it->size() > 64) {
            throw bad_request("'dry_sequence_breakers' must be an array of up to 64 non-empty strings");
        }
        sp.dry_sequence_breakers.clear();
        for (const auto & b : *it) {
            if (!b.is_string() || b.get<std::string>().empty()) {
                throw bad_request("'dry_sequence_breakers' must be an array of up to 64 non-empty strings");
            }
            sp.dry_sequence_breakers.push_back(b.get<std::string>());
        }
    }
}

std::string schema_grammar(const json & schema, const char * field) {
    if (!schema.is_object() && !schema.is_boolean()) {
        throw bad_request(std::string("'") + field + "' must be a JSON schema (an object)");
    }
    try {
        return llama_tools::json_schema_to_grammar(schema.dump());
    } catch (const llama_tools::schema_error & e) {
        throw bad_request(std::string("'") + field + "': " + e.what());
    }
}

// GBNF from `grammar` (raw), `json_schema` (upstream's field) or `response_format`; checked
// against the vocabulary here so that a bad one is a 400, not a failed generation.
std::string parse_grammar(const json & body, const llama_vocab * vocab) {
    std::string grammar;
    int         n_sources = 0;
    if (auto it = body.find("grammar"); it != body.end() && !it->is_null()) {
        if (!it->is_string()) {
            throw bad_request("'grammar' must be a string (GBNF)");
        }
        grammar = it->get<std::string>();
        n_sources++;
    }
    if (auto it = body.find("json_schema"); it != body.end() && !it->is_null()) {
        grammar = schema_grammar(*it, "json_schema");
        n_sources++;
    }
    if (auto it = body.find("response_format"); it != body.end() && !it->is_null()) {
        if (!it->is_object() || !it->contains("type") || !(*it)["type"].is_string()) {
            throw bad_request("'response_format' must be an object with a string 'type'");
        }
        const std::string type = (*it)["type"].get<std::string>();
        if (type == "json_object") {
            // upstream also takes a schema here
            grammar = it->contains("schema") ? schema_grammar((*it)["schema"], "response_format.schema")
                                             : llama_tools::json_object_grammar();
            n_sources++;
        } else if (type == "json_schema") {
            auto js = it->find("json_schema");
            if (js == it->end() || !js->is_object() || !js->contains("schema")) {
                throw bad_request("'response_format.json_schema' must be an object with a 'schema'");
            }
            grammar = schema_grammar((*js)["schema"], "response_format.json_schema.schema");
            n_sources++;
        } else if (type != "text") {
            throw bad_request("'response_format.type' must be \"text\", \"json_object\" or \"json_schema\"");
        }
    }
    if (n_sources > 1) {
        throw bad_request("give only one of 'grammar', 'json_schema' and 'response_format'");
    }
    if (!grammar.empty()) {
        llama_sampler * g = llama_sampler_init_grammar(vocab, grammar.c_str(), "root");
        if (g == nullptr) {
            throw bad_request(std::string("'grammar' is invalid: ") + llama_last_error());
        }
        llama_sampler_free(g);
    }
    return grammar;
}

}  // namespace

completion_request parse_completion(const json & body, const llama_vocab * vocab, const sampling_params & defaults) {
    completion_request r;
    r.sampling = defaults;
    get_number(body, "n", r.n, 1, 16);
    get_number(body, "max_tokens", r.max_tokens, 0, 1 << 20);
    get_number(body, "max_completion_tokens", r.max_tokens, 0, 1 << 20);
    get_bool(body, "stream", r.stream);
    get_bool(body, "ignore_eos", r.ignore_eos);
    get_number(body, "temperature", r.sampling.temperature, 0, 2);
    get_number(body, "top_p", r.sampling.top_p, 0, 1);
    get_number(body, "top_k", r.sampling.top_k, 0, 1 << 20);
    get_number(body, "min_p", r.sampling.min_p, 0, 1);
    get_number(body, "presence_penalty", r.sampling.presence_penalty, -2, 2);
    get_number(body, "frequency_penalty", r.sampling.frequency_penalty, -2, 2);
    get_number(body, "repeat_penalty", r.sampling.repeat_penalty, 0, 10);
    int64_t seed = -1;
    get_number(body, "seed", seed, -9.2e18, 9.2e18);
    if (seed >= 0) {
        r.sampling.seed = (uint32_t) (seed & 0xFFFFFFFF);
    }
    if (auto it = body.find("stream_options"); it != body.end() && !it->is_null()) {
        if (!it->is_object()) {
            throw bad_request("'stream_options' must be an object");
        }
        get_bool(*it, "include_usage", r.include_usage);
    }
    if (auto it = body.find("stop"); it != body.end() && !it->is_null()) {
        if (it->is_string()) {
            r.stop.push_back(it->get<std::string>());
        } else if (it->is_array() && it->size() <= 4) {
            for (const auto & s : *it) {
                if (!s.is_string()) {
                    throw bad_request("'stop' must be a string or an array of up to 4 strings");
                }
                r.stop.push_back(s.get<std::string>());
            }
        } else {
            throw bad_request("'stop' must be a string or an array of up to 4 strings");
        }
        r.stop.erase(std::remove(r.stop.begin(), r.stop.end(), std::string()), r.stop.end());
    }
    if (auto it = body.find("logit_bias"); it != body.end() && !it->is_null()) {
        if (!it->is_object()) {
            throw bad_request("'logit_bias' must be an object mapping token ids to numbers");
        }
        const int n_vocab = llama_vocab_n_tokens(vocab);
        for (const auto & [key, val] : it->items()) {
            char *     end = nullptr;
            const long id  = std::strtol(key.c_str(), &end, 10);
            if (key.empty() || *end != '\0' || id < 0 || id >= n_vocab) {
                throw bad_request("'logit_bias' key '" + key + "' is not a token id of this model");
            }
            if (!val.is_number() || val.get<double>() < -100 || val.get<double>() > 100) {
                throw bad_request("'logit_bias' values must be numbers in [-100, 100]");
            }
            r.sampling.logit_bias.push_back({(llama_token) id, val.get<float>()});
        }
    }
    parse_samplers(body, r.sampling);
    r.sampling.grammar = parse_grammar(body, vocab);
    return r;
}

sampling_params sampling_defaults(const tool::sampling_params & f) {
    sampling_params sp;
    sp.temperature           = f.temp;
    sp.top_k                 = f.top_k;
    sp.top_p                 = f.top_p;
    sp.min_p                 = f.min_p;
    sp.typical_p             = f.typical_p;
    sp.repeat_last_n         = f.repeat_last_n;
    sp.repeat_penalty        = f.repeat_penalty;
    sp.presence_penalty      = f.presence_penalty;
    sp.frequency_penalty     = f.frequency_penalty;
    sp.top_n_sigma           = f.top_n_sigma;
    sp.xtc_probability       = f.xtc_probability;
    sp.xtc_threshold         = f.xtc_threshold;
    sp.mirostat              = f.mirostat;
    sp.mirostat_tau          = f.mirostat_tau;
    sp.mirostat_eta          = f.mirostat_eta;
    sp.dry_multiplier        = f.dry_multiplier;
    sp.dry_base              = f.dry_base;
    sp.dry_allowed_length    = f.dry_allowed_length;
    sp.dry_penalty_last_n    = f.dry_penalty_last_n;
    sp.dry_sequence_breakers = f.dry_sequence_breakers;
    sp.seed                  = f.seed;
    return sp;
}

int parse_logprobs(const json & body, probs_api api) {
    int n = -1;
    if (api == probs_api::chat) {
        bool on = false;
        get_bool(body, "logprobs", on);
        int top = -1;
        get_number(body, "top_logprobs", top, 0, 20);
        if (top >= 0 && !on) {
            throw bad_request("'top_logprobs' needs 'logprobs': true");
        }
        n = on ? std::max(top, 0) : -1;
    } else if (api == probs_api::completions) {
        get_number(body, "logprobs", n, 0, 20);
    }
    // upstream's n_probs, on every endpoint; on the OpenAI ones only when logprobs is not given
    if (n < 0) {
        int np = 0;
        get_number(body, "n_probs", np, 0, 100);
        n = np > 0 ? np : n;
    }
    return n;
}

// Text of a message content: a string, or an array of {"type": "text", "text": ...} parts.
std::string content_text(const json & c) {
    if (c.is_null()) {
        return "";
    }
    if (c.is_string()) {
        return c.get<std::string>();
    }
    if (c.is_array()) {
        std::string out;
        for (const auto & part : c) {
            if (!part.is_object() || part.value("type", "") != "text" || !part.contains("text") ||
                !part["text"].is_string()) {
                throw bad_request("'content' parts must be {\"type\": \"text\", \"text\": string}");
            }
            out += part["text"].get<std::string>();
        }
        return out;
    }
    throw bad_request("'content' must be a string or an array of text parts");
}

std::vector<llama_token> tokenize(const llama_vocab * vocab, const std::string & text, bool add_special,
                                  bool parse_special) {
    if (text.size() > (size_t) INT32_MAX / 2) {
        throw bad_request("prompt too long");
    }
    const int32_t            n_max = (int32_t) text.size() + 2;
    std::vector<llama_token> toks((size_t) n_max);
    int32_t                  n =
        llama_tokenize(vocab, text.data(), (int32_t) text.size(), toks.data(), n_max, add_special, parse_special);
    if (n < 0) {
        toks.resize((size_t) -n);
        n = llama_tokenize(vocab, text.data(), (int32_t) text.size(), toks.data(), -n, add_special, parse_special);
    }
    if (n < 0) {
        throw bad_request("the prompt cannot be tokenized");
    }
    toks.resize((size_t) n);
    return toks;
}

}  // namespace server
