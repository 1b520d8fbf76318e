// The prompt of /infill (fill-in-the-middle), built as upstream llama-server builds it: extra
// context chunks (input_extra), then the model's FIM tokens around the code before and after the
// cursor, with `prompt` (text already typed at the cursor) after the prefix:
//   [extra chunks] [BOS] FIM_PRE prefix prompt FIM_SUF suffix FIM_MID
// A model with FIM_REP / FIM_SEP tokens gets upstream's repo-level layout for the chunks.
#pragma once

#include <vector>

#include "llama.h"
#include "server-params.h"

namespace server {

// Empty when the model has its FIM prefix, suffix and middle tokens; else a message naming those
// it lacks.
std::string infill_missing_tokens(const llama_vocab * vocab);

// The prompt tokens for an /infill body (input_prefix and input_suffix required: a string or an
// array of token ids and strings; input_extra: [{"text", "filename"}]; prompt: a string). The
// prefix keeps its last 3/4 n_batch tokens and the suffix what is left of n_batch / 4; the extra
// chunks fill what n_ctx leaves after n_batch and twice n_predict, the latest ones kept.
// bad_request names the field at fault.
std::vector<llama_token> infill_prompt(const json & body, const llama_vocab * vocab, int n_batch, int n_predict,
                                       int n_ctx);

}  // namespace server
