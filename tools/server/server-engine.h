// The scheduler: N slots sharing one llama_context, one sequence each, with continuous batching.
// One engine thread owns the context. Each step it builds one batch from every generating slot's
// next token plus chunks of the prompts still to be read (up to n_batch tokens), decodes it, and
// samples one token for each slot whose last batch token produced logits. A slot keeps its KV
// cache after a task: the next task placed on it reuses the longest common prompt prefix.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "llama.h"
#include "server-metrics.h"
#include "server-task.h"

namespace server {

class engine {
public:
    // ctx must have n_seq_max >= n_slots; each slot may use n_ctx / n_slots tokens.
    // n_ctx_slot: the most tokens one slot may hold; 0: n_ctx / n_slots (llama-server's -kvu gives n_ctx).
    engine(llama_context * ctx, int n_slots, int queue_limit, metrics & m, int n_ctx_slot = 0);
    ~engine();

    enum class submit_status { ok, queue_full, too_long, stopping };
    // Queues a task. too_long: its prompt (plus one generated token) cannot fit in a slot.
    submit_status submit(task t);

    int slot_ctx() const { return n_ctx_slot_; }
    // No task running or waiting.
    bool idle();
    // Stops the engine thread (tasks still queued or running fail with "server shutting down").
    void stop();

private:
    struct slot;
    void run();
    void assign_waiting();
    void add_to_batch(llama_batch & batch, llama_token tok, llama_pos pos, int seq, bool logits);
    void process_token(slot & s, llama_token tok);
    void emit_text(slot & s, bool final);
    void update_gauges();
    void finish(slot & s, const std::string & reason, const std::string & error = "");

    llama_context *                    ctx_;
    const llama_vocab *                vocab_;
    llama_memory_t                     mem_;
    int                                n_ctx_slot_;
    int                                n_batch_;
    int                                queue_limit_;
    metrics &                          metrics_;
    std::vector<std::unique_ptr<slot>> slots_;
    std::vector<llama_token_data>      cur_;  // candidates of a grammar-constrained pick (engine thread)

    std::mutex              mutex_;
    std::condition_variable cv_;
    std::deque<task>        waiting_;
    bool                    stop_      = false;
    int                     n_running_ = 0;
    std::thread             thread_;
};

// Bytes at the end of `s` that form an incomplete UTF-8 sequence (0..3); they are held back until
// the next token completes them.
size_t utf8_incomplete_tail(const std::string & s);
// True when `s` is valid UTF-8.
bool utf8_valid(const std::string & s);

}  // namespace server
