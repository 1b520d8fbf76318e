#include "server-metrics.h"

#include <sstream>

namespace server {

void metrics::count_request(const std::string & endpoint, int status) {
    std::lock_guard<std::mutex> lock(mutex_);
    requests_[{endpoint, status}]++;
}

std::string metrics::render() const {
    std::ostringstream os;
    auto               metric = [&](const char * name, const char * type, const char * help, auto value) {
        os << "# HELP " << name << ' ' << help << "\n# TYPE " << name << ' ' << type << '\n'
           << name << ' ' << value << '\n';
    };
    {
        std::lock_guard<std::mutex> lock(mutex_);
        os << "# HELP llama_requests_total HTTP requests answered, by endpoint and status\n"
              "# TYPE llama_requests_total counter\n";
        for (const auto & [key, n] : requests_) {
            os << "llama_requests_total{endpoint=\"" << key.first << "\",status=\"" << key.second << "\"} " << n
               << '\n';
        }
    }
    const double secs = (double) decode_us.load() / 1e6;
    metric("llama_prompt_tokens_total", "counter", "prompt tokens decoded", prompt_tokens.load());
    metric("llama_prompt_tokens_cached_total", "counter", "prompt tokens reused from a slot's KV cache",
           cached_tokens.load());
    metric("llama_generated_tokens_total", "counter", "tokens generated", generated_tokens.load());
    metric("llama_decode_seconds_total", "counter", "time spent decoding batches", secs);
    metric("llama_decode_calls_total", "counter", "batches decoded", decode_calls.load());
    metric("llama_tokens_per_second", "gauge", "(prompt + generated tokens) per second of decode time",
           secs > 0 ? (double) (prompt_tokens.load() + generated_tokens.load()) / secs : 0.0);
    metric("llama_queue_depth", "gauge", "tasks waiting for a slot", queue_depth.load());
    metric("llama_requests_in_flight", "gauge", "HTTP requests being processed", requests_in_flight.load());
    metric("llama_slots_busy", "gauge", "slots running a task", slots_busy.load());
    metric("llama_slots_total", "gauge", "slots (parallel sequences)", n_slots);
    metric("llama_kv_cache_tokens", "gauge", "tokens held in the KV cache", kv_tokens.load());
    metric("llama_kv_cache_capacity_tokens", "gauge", "KV cache size in tokens", kv_capacity);
    metric("llama_kv_cache_usage_ratio", "gauge", "KV cache use (0..1)",
           kv_capacity > 0 ? (double) kv_tokens.load() / (double) kv_capacity : 0.0);
    return os.str();
}

}  // namespace server
