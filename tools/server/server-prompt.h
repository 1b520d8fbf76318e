// The `prompt` of /v1/completions and /completion, in every shape upstream accepts: a string, an
// array of token ids, a "mixed" array of ids and strings (one prompt), or an array of those (one
// prompt each). Token ids are checked against the vocabulary; problems are bad_request.
#pragma once

#include <vector>

#include "llama.h"
#include "server-params.h"

namespace server {

// Each prompt as tokens. Text is tokenized with special-token text parsed and, when add_special,
// the model's BOS; a mixed prompt gets it only when it starts with text. Token ids are used as
// given. At most max_prompts prompts; none may be empty.
std::vector<std::vector<llama_token>> parse_prompts(const json & prompt, const llama_vocab * vocab, bool add_special,
                                                    size_t max_prompts);

// Token ids of a JSON array (e.g. /detokenize's `tokens`), each checked against the vocabulary.
std::vector<llama_token> parse_token_ids(const json & arr, const llama_vocab * vocab, const char * field);

}  // namespace server
