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
    bool                     ignore_eos = false;  // not OpenAI: generate max_tokens tokens (benchmarks)
    sampling_params          sampling;
    // chat through the Jinja template (server-chat.h): tokenize with BOS unless the template wrote
    // it, and parse each choice's text with the template's output format
    bool                            add_special = true;
    bool                            parse       = false;
    llama_tools::chat_format        fmt         = llama_tools::chat_format::content_only;
    llama_tools::chat_parse_options popts;
};

// Parses the body text; bad_request on invalid UTF-8, malformed JSON or a non-object.
json parse_body(const std::string & body);

// The fields common to both endpoints (n, max_tokens, stream, stop, temperature, ...).
completion_request parse_completion(const json & body, const llama_vocab * vocab);
// Text of a message content: a string, null or an array of {"type": "text", "text": ...} parts;
// bad_request otherwise.
std::string content_text(const json & c);

// Tokenizes with the model's special tokens (BOS) added and special-token text parsed.
std::vector<llama_token> tokenize(const llama_vocab * vocab, const std::string & text, bool add_special);

}  // namespace server
