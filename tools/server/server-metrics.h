// Counters for GET /metrics (Prometheus text format 0.0.4). Updated from the HTTP threads and the
// engine thread, hence atomics; the text is rendered on demand.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace server {

struct metrics {
    std::atomic<uint64_t> prompt_tokens{0};     // prompt tokens decoded
    std::atomic<uint64_t> cached_tokens{0};     // prompt tokens reused from a slot's cache
    std::atomic<uint64_t> generated_tokens{0};  // tokens sampled
    std::atomic<uint64_t> decode_us{0};         // time spent in llama_decode
    std::atomic<uint64_t> decode_calls{0};
    // decode time split between prompt and generated tokens by their share of each batch (a batch
    // mixes both), for upstream's prompt_seconds_total / tokens_predicted_seconds_total
    std::atomic<uint64_t> prompt_us{0};
    std::atomic<uint64_t> predict_us{0};
    std::atomic<uint64_t> busy_slot_decodes{0};  // sum over decodes of the slots in the batch
    std::atomic<int64_t>  n_tokens_max{0};       // longest sequence seen (prompt + generated)
    std::atomic<int64_t>  queue_depth{0};        // tasks waiting for a slot
    std::atomic<int64_t>  slots_busy{0};         // slots running a task
    std::atomic<int64_t>  kv_tokens{0};          // tokens held in the KV cache by all slots
    std::atomic<int64_t>  requests_in_flight{0};
    int64_t               kv_capacity = 0;  // context size (set once)
    int64_t               n_slots     = 0;

    // One llama_decode of n_prompt prompt and n_gen generated tokens from n_slots slots took us.
    void record_decode(int n_prompt, int n_gen, int n_slots_in_batch, uint64_t us);
    // A slot holds a sequence of n tokens.
    void observe_sequence(int64_t n);

    // One request finished: counted per endpoint and HTTP status.
    void count_request(const std::string & endpoint, int status);

    std::string render() const;

private:
    mutable std::mutex                              mutex_;
    std::map<std::pair<std::string, int>, uint64_t> requests_;
};

}  // namespace server
