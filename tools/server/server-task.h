// A generation task and the channel its results travel on. The HTTP thread that received the
// request creates one channel and one task per choice (OpenAI's `n`), hands the tasks to the
// engine, and reads events from the channel; the engine thread pushes them. Cancelling the channel
// (client gone, shutdown) makes the engine drop the tasks at its next step.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "llama.h"

namespace server {

// Sampling settings of one task (OpenAI names; see server-params.cpp for their ranges).
struct sampling_params {
    float                         temperature           = 1.0f;  // <= 0: greedy
    float                         top_p                 = 1.0f;
    int32_t                       top_k                 = 0;  // 0: off
    float                         min_p                 = 0.0f;
    float                         presence_penalty      = 0.0f;
    float                         frequency_penalty     = 0.0f;
    float                         repeat_penalty        = 1.0f;
    int32_t                       repeat_last_n         = 64;  // -1: the slot's size
    float                         typical_p             = 1.0f;
    float                         top_n_sigma           = -1.0f;  // <= 0: off
    float                         xtc_probability       = 0.0f;
    float                         xtc_threshold         = 0.1f;
    int32_t                       mirostat              = 0;  // 0 off, 1 or 2: replaces top-k/p/min-p/...
    float                         mirostat_tau          = 5.0f;
    float                         mirostat_eta          = 0.1f;
    float                         dry_multiplier        = 0.0f;  // 0: off
    float                         dry_base              = 1.75f;
    int32_t                       dry_allowed_length    = 2;
    int32_t                       dry_penalty_last_n    = -1;  // -1: the slot's size
    std::vector<std::string>      dry_sequence_breakers = {"\n", ":", "\"", "*"};
    uint32_t                      seed                  = LLAMA_DEFAULT_SEED;
    std::vector<llama_logit_bias> logit_bias;
    std::string                   grammar;               // GBNF (from `grammar` or `response_format`); empty: none
    bool                          grammar_lazy = false;  // constrain only once a trigger matched (tool calls)
    std::vector<std::string>      grammar_triggers;      // lazy: ECMAScript patterns over the output
    // speculative decoding (speculative.n_max, .n_min, .p_min; -1: the server's --draft-max ...);
    // n_max 0 turns it off for the task
    int32_t spec_n_max = -1;
    int32_t spec_n_min = -1;
    float   spec_p_min = -1.0f;
};

// A token with its log-probability under the model's distribution (log-softmax of the raw logits,
// before any sampler: upstream's default and what OpenAI reports).
struct token_logprob {
    llama_token id = LLAMA_TOKEN_NULL;
    std::string piece;  // raw bytes (possibly part of a UTF-8 sequence)
    float       logprob = 0.0f;
};

// One generated token: its own log-probability and the most probable tokens at its position.
struct token_probs {
    token_logprob              chosen;
    std::vector<token_logprob> top;     // sorted by logprob, highest first
    size_t                     offset;  // byte offset of the token's text in the choice's text
};

// One event of a task: a piece of text, or its end (finish_reason set, or error set).
struct task_event {
    int                      index = 0;  // the choice this event belongs to
    std::string              text;
    std::vector<llama_token> tokens;  // the generated tokens whose text this event completes
    std::vector<token_probs> probs;   // their log-probabilities, when the task asks for them
    bool                     done = false;
    std::string              finish_reason;      // "stop" or "length" when done without error
    std::string              error;              // set when the task failed (done is true too)
    int                      n_prompt = 0;       // prompt tokens (in the final event)
    int                      n_cached = 0;       // prompt tokens reused from the slot's cache
    int                      n_gen    = 0;       // generated tokens (in the final event)
    std::string              stop_word;          // the stop string that ended the task, if one did
    int                      slot_id     = -1;   // the slot that ran the task (in the final event)
    double                   t_prompt_ms = 0.0;  // prompt processing time (in the final event)
    double                   t_gen_ms    = 0.0;  // generation time after the first token (in the final event)
    int                      n_draft     = 0;    // tokens drafted by speculative decoding (in the final event)
    int                      n_draft_acc = 0;    // of those, accepted
};

// Events of all the tasks of one request, in the order they were produced.
class channel {
public:
    void push(task_event ev);
    // Waits up to timeout_ms for an event; false when none arrived.
    bool pop(task_event & ev, int timeout_ms);
    void cancel() { cancelled_ = true; }
    bool cancelled() const { return cancelled_; }

private:
    std::mutex              mutex_;
    std::condition_variable cv_;
    std::deque<task_event>  events_;
    std::atomic<bool>       cancelled_{false};
};

// What the engine needs to run one completion.
struct task {
    std::vector<llama_token> prompt;
    int                      max_tokens = 16;
    std::vector<std::string> stop;                  // stop strings (not included in the output)
    bool                     ignore_eos   = false;  // generate past end-of-generation tokens (benchmarks)
    int                      n_probs      = -1;     // -1: no log-probabilities; else the top entries per token
    bool                     cache_prompt = true;   // reuse the slot's cached prefix of the prompt
    sampling_params          sampling;
    std::vector<float>       lora;             // a scale per LoRA adapter: the batch configuration this task needs
    int64_t                  deadline_us = 0;  // llama_time_us() after which the task fails; 0 none
    int                      index       = 0;  // choice index
    std::shared_ptr<channel> out;
};

// The whole result of one choice, gathered from its events.
struct choice_result {
    std::string              text;
    std::vector<llama_token> tokens;
    std::vector<token_probs> probs;
    task_event               last;  // the final event (finish_reason, counts, timings)
};

// Reads events until n_tasks tasks ended; returns the results by choice index, and in `error` the
// first task error (empty when none).
std::vector<choice_result> collect_results(channel & ch, int n_tasks, std::string & error);

}  // namespace server
