// The engine's slot (server-engine.h): one sequence of the context and the task it runs. Shared by
// server-engine.cpp and server-engine-spec.cpp only.
#pragma once

#include <string>
#include <vector>

#include "server-engine.h"

namespace server {

struct engine::slot {
    int                      id   = 0;
    bool                     busy = false;
    task                     t;
    llama_sampler *          smpl = nullptr;
    llama_sampler *          grmr = nullptr;                    // the task's grammar, or NULL
    std::vector<llama_token> cache;                             // tokens in the KV cache for sequence `id`, in order
    std::vector<float>       cache_lora;                        // the LoRA scales `cache` was computed with
    size_t                   n_prompt_done = 0;                 // prompt tokens already in the cache
    llama_token              next          = LLAMA_TOKEN_NULL;  // sampled, not yet decoded
    int                      i_batch       = -1;                // batch row whose logits this slot samples from
    int                      n_gen         = 0;
    int                      n_cached      = 0;
    std::string              text;        // generated text
    size_t                   n_sent = 0;  // bytes of `text` already sent
    // per generated token (end-of-generation excluded): its id, where its text ends in `text`
    // and, when the task asks, its log-probabilities; tokens are sent with the event that
    // completes their text, so that they always match the text returned
    std::vector<llama_token> gen;
    std::vector<size_t>      gen_end;
    std::vector<token_probs> probs;
    size_t                   n_tok_sent = 0;
    int64_t                  t_start = 0, t_first = 0;  // llama_time_us() at assignment and first token
    // speculative decoding: the decoder's view of the sequence matches `cache` (else
    // llama_spec_seq_begin before the next step); the task's drafted and accepted tokens; whether
    // this engine step already advanced the slot
    bool                     spec_synced = false;
    bool                     spec_done   = false;
    int                      n_draft = 0, n_draft_acc = 0;
    std::vector<llama_token> spec_out;
    llama_sampler *          spec_smpl = nullptr;  // grmr and smpl as one sampler (spec_sampler), or NULL
};

}  // namespace server
