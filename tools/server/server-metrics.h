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
    std::atomic<int64_t>  queue_depth{0};  // tasks waiting for a slot
    std::atomic<int64_t>  slots_busy{0};   // slots running a task
    std::atomic<int64_t>  kv_tokens{0};    // tokens held in the KV cache by all slots
    std::atomic<int64_t>  requests_in_flight{0};
    int64_t               kv_capacity = 0;  // context size (set once)
    int64_t               n_slots     = 0;

    // One request finished: counted per endpoint and HTTP status.
    void count_request(const std::string & endpoint, int status);

    std::string render() const;

private:
    mutable std::mutex                              mutex_;
    std::map<std::pair<std::string, int>, uint64_t> requests_;
};

}  // namespace server
