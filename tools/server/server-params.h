// Request bodies (JSON) to tasks: type and range checks with OpenAI's field names, the chat
// template, tokenization. Every problem is a bad_request whose message names the field.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "chat-format.h"
#include "llama.h"
#include "server-task.h"

namespace tool {
struct sampling_params;
}

namespace server {

using json = nlohmann::ordered_json;

struct bad_request : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// What a completion request asks for, shared by /v1/completions and /v1/chat/completions.
struct completion_request {
    std::string              prompt;  // text to tokenize (the chat template already applied)
    int                      n             = 1;
    int                      max_tokens    = -1;  // -1: the server's limit
    bool                     stream        = false;
    bool                     include_usage = false;  // stream_options.include_usage
    std::vector<std::string> stop;
    bool                     ignore_eos   = false;  // not OpenAI: generate max_tokens tokens (benchmarks)
    int                      n_probs      = -1;     // -1: no log-probabilities; else top entries per token
    bool                     cache_prompt = true;   // native /completion: reuse the slot's cached prefix
    sampling_params          sampling;
    std::vector<float>       lora;  // a scale per LoRA adapter (server-lora.h); empty: the global ones
    // chat through the Jinja template (server-chat.h): tokenize with BOS unless the template wrote
    // it, and parse each choice's text with the template's output format
    bool                            add_special = true;
    bool                            parse       = false;
    llama_tools::chat_format        fmt         = llama_tools::chat_format::content_only;
    llama_tools::chat_parse_options popts;
};

// Parses the body text; bad_request on invalid UTF-8, malformed JSON or a non-object.
json parse_body(const std::string & body);

// The fields common to both endpoints (n, max_tokens, stream, stop, temperature, ...). A sampler
// field the body leaves out takes its value from `defaults` (the server's --temp, --top-k, ...; as
// upstream, OpenAI requests too: no OpenAI default such as temperature 1 applies).
completion_request parse_completion(const json & body, const llama_vocab * vocab,
                                    const sampling_params & defaults = sampling_params());

// The request defaults from the command line's sampler flags (llama-server --temp ...).
sampling_params sampling_defaults(const tool::sampling_params & flags);
// The log-probabilities asked for, as a count of top entries per token (-1: none). chat:
// `logprobs` (bool) and `top_logprobs` (0..20); completions: `logprobs` (0..20); all three, native
// /completion first: upstream's `n_probs` (0..100, 0: none), which the OpenAI fields override.
enum class probs_api { chat, completions, native };
int parse_logprobs(const json & body, probs_api api);

// Text of a message content: a string, null or an array of {"type": "text", "text": ...} parts;
// bad_request otherwise.
std::string content_text(const json & c);

// Tokenizes, with the model's special tokens (BOS) added when add_special, and special-token text
// ("<|im_start|>") read as those tokens when parse_special.
std::vector<llama_token> tokenize(const llama_vocab * vocab, const std::string & text, bool add_special,
                                  bool parse_special = true);

}  // namespace server
