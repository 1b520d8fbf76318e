#include "server-metrics.h"

#include <sstream>

namespace server {

void metrics::count_request(const std::string & endpoint, int status) {
    std::lock_guard<std::mutex> lock(mutex_);
    requests_[{endpoint, status}]++;
}

void metrics::record_decode(int n_prompt, int n_gen, int n_slots_in_batch, uint64_t us) {
    prompt_tokens += (uint64_t) n_prompt;
    decode_us += us;
    decode_calls++;
    busy_slot_decodes += (uint64_t) n_slots_in_batch;
    const int n = n_prompt + n_gen;
    if (n > 0) {
        const uint64_t p = us * (uint64_t) n_prompt / (uint64_t) n;
        prompt_us += p;
        predict_us += us - p;
    }
}

void metrics::observe_sequence(int64_t n) {
    int64_t cur = n_tokens_max.load();
    while (n > cur && !n_tokens_max.compare_exchange_weak(cur, n)) {
    }
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
    // one snapshot of the gauges: the same quantity under two names must agree within a scrape
    const int64_t waiting = queue_depth.load(), running = slots_busy.load(), kv = kv_tokens.load();
    const double  kv_ratio = kv_capacity > 0 ? (double) kv / (double) kv_capacity : 0.0;
    const double  secs     = (double) decode_us.load() / 1e6;
    metric("llama_prompt_tokens_total", "counter", "prompt tokens decoded", prompt_tokens.load());
    metric("llama_prompt_tokens_cached_total", "counter", "prompt tokens reused from a slot's KV cache",
           cached_tokens.load());
    metric("llama_generated_tokens_total", "counter", "tokens generated", generated_tokens.load());
    metric("llama_decode_seconds_total", "counter", "time spent decoding batches", secs);
    metric("llama_decode_calls_total", "counter", "batches decoded", decode_calls.load());
    metric("llama_tokens_per_second", "gauge", "(prompt + generated tokens) per second of decode time",
           secs > 0 ? (double) (prompt_tokens.load() + generated_tokens.load()) / secs : 0.0);
    metric("llama_queue_depth", "gauge", "tasks waiting for a slot", waiting);
    metric("llama_requests_in_flight", "gauge", "HTTP requests being processed", requests_in_flight.load());
    metric("llama_slots_busy", "gauge", "slots running a task", running);
    metric("llama_slots_total", "gauge", "slots (parallel sequences)", n_slots);
    metric("llama_kv_cache_tokens", "gauge", "tokens held in the KV cache", kv);
    metric("llama_kv_cache_capacity_tokens", "gauge", "KV cache size in tokens", kv_capacity);
    metric("llama_kv_cache_usage_ratio", "gauge", "KV cache use (0..1)", kv_ratio);
    metric("llama_requests_waiting", "gauge", "requests waiting for a slot (gateway: TotalQueuedRequests)", waiting);
    metric("llama_requests_running", "gauge", "requests being generated (gateway: TotalRunningRequests)", running);

    // upstream llama.cpp's names, so its dashboards read this server unchanged
    const double p_s = (double) prompt_us.load() / 1e6, g_s = (double) predict_us.load() / 1e6;
    const auto   n_p = prompt_tokens.load(), n_g = generated_tokens.load(), n_d = decode_calls.load();
    metric("llamacpp:prompt_tokens_total", "counter", "prompt tokens processed, excluding cached tokens", n_p);
    metric("llamacpp:prompt_tokens_cached_total", "counter", "prompt tokens reused from the cache",
           cached_tokens.load());
    metric("llamacpp:prompt_seconds_total", "counter", "decode time spent on prompt tokens", p_s);
    metric("llamacpp:tokens_predicted_total", "counter", "tokens generated", n_g);
    metric("llamacpp:tokens_predicted_seconds_total", "counter", "decode time spent on generated tokens", g_s);
    metric("llamacpp:n_decode_total", "counter", "llama_decode calls", n_d);
    metric("llamacpp:n_tokens_max", "counter", "longest sequence seen (prompt + generated)", n_tokens_max.load());
    metric("llamacpp:prompt_tokens_seconds", "gauge", "prompt throughput in tokens/s",
           p_s > 0 ? (double) n_p / p_s : 0.0);
    metric("llamacpp:predicted_tokens_seconds", "gauge", "generation throughput in tokens/s",
           g_s > 0 ? (double) n_g / g_s : 0.0);
    metric("llamacpp:requests_processing", "gauge", "requests being processed", running);
    metric("llamacpp:requests_deferred", "gauge", "requests waiting for a slot", waiting);
    metric("llamacpp:n_busy_slots_per_decode", "gauge", "slots per llama_decode call on average",
           n_d > 0 ? (double) busy_slot_decodes.load() / (double) n_d : 0.0);
    metric("llamacpp:kv_cache_usage_ratio", "gauge", "KV cache use (0..1)", kv_ratio);
    metric("llamacpp:kv_cache_tokens", "gauge", "tokens held in the KV cache", kv);
    return os.str();
}

}  // namespace server
