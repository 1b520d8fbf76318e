// Log-probabilities (recorded by the engine per generated token, server-task.h) in the three
// shapes clients read: OpenAI chat (`logprobs.content[]`), OpenAI legacy completions (parallel
// `tokens` / `token_logprobs` / `top_logprobs` / `text_offset` arrays) and upstream's native
// `completion_probabilities`.
#pragma once

#include <vector>

#include "server-params.h"
#include "server-task.h"

namespace server {

// {"content": [{token, logprob, bytes, top_logprobs: [{token, logprob, bytes}]}], "refusal": null}
json chat_logprobs(const std::vector<token_probs> & probs);
// {"tokens", "token_logprobs", "top_logprobs": [{token: logprob}], "text_offset"}; offsets count
// bytes from the start of the choice's text.
json completion_logprobs(const std::vector<token_probs> & probs);
// [{id, token, logprob, bytes, top_logprobs: [{id, token, logprob, bytes}]}]
json native_probs(const std::vector<token_probs> & probs);

}  // namespace server
