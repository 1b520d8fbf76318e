// What every HTTP handler answers with: JSON bodies, OpenAI-shaped error bodies, the in-flight
// count, response ids, the status of a failed task, error handlers and binding. Shared by the
// endpoint files and the router.
#pragma once

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <string>
#include <vector>

#include "server-metrics.h"
#include "server-params.h"

namespace server {

inline std::string dump(const json & j) {
    // invalid UTF-8 (a token that is part of a character) becomes U+FFFD: a dump must never throw
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

inline void send_error(httplib::Response & res, int status, const std::string & message,
                       const char * type = "invalid_request_error") {
    res.status = status;
    res.set_content(dump({{"error", {{"message", message}, {"type", type}, {"code", status}}}}), "application/json");
}

// Counts a request as in flight for /metrics and the shutdown drain while it lives.
struct in_flight {
    metrics & m;
    explicit in_flight(metrics & m) : m(m) { m.requests_in_flight++; }
    ~in_flight() { m.requests_in_flight--; }
};

// upstream's `timings` of a finished task (/completion; the OpenAI answers: top level with one choice,
// in each choice with several, and on a streamed choice's last chunk and the usage chunk);
// draft_n / draft_n_accepted only when speculative decoding drafted.
inline json timings_json(const task_event & last) {
    const int n_eval = last.n_prompt - last.n_cached;
    // the first generated token is sampled at the end of prompt processing
    const int n_pred = std::max(last.n_gen - 1, 0);
    auto      per    = [](double ms, int n) { return n > 0 ? ms / n : 0.0; };
    auto      rate   = [](double ms, int n) { return ms > 0 ? 1000.0 * n / ms : 0.0; };
    json      t      = {{"cache_n", last.n_cached},
                        {"prompt_n", n_eval},
                        {"prompt_ms", last.t_prompt_ms},
                        {"prompt_per_token_ms", per(last.t_prompt_ms, n_eval)},
                        {"prompt_per_second", rate(last.t_prompt_ms, n_eval)},
                        {"predicted_n", last.n_gen},
                        {"predicted_ms", last.t_gen_ms},
                        {"predicted_per_token_ms", per(last.t_gen_ms, n_pred)},
                        {"predicted_per_second", rate(last.t_gen_ms, n_pred)}};
    if (last.n_draft > 0) {  // upstream's names, only when speculative decoding drafted
        t["draft_n"]          = last.n_draft;
        t["draft_n_accepted"] = last.n_draft_acc;
    }
    return t;
}

inline std::string random_id(const char * prefix) {
    static std::atomic<uint64_t> counter{0};
    char                         buf[64];
    snprintf(buf, sizeof(buf), "%s-%llx%llx", prefix, (unsigned long long) llama_time_us(),
             (unsigned long long) counter++);
    return buf;
}

// The HTTP status of a task error (the engine's messages).
inline int error_status(const std::string & error) {
    if (error == "request timed out") {
        return 504;
    }
    if (error == "server shutting down") {
        return 503;
    }
    return 500;
}

// Error bodies in the shape above for what no handler answered (404, 413, ...) and for uncaught
// exceptions (500); shared by the single-model server and the router.
inline void set_error_bodies(httplib::Server & s) {
    s.set_exception_handler([](const httplib::Request &, httplib::Response & res, std::exception_ptr ep) {
        std::string what = "internal error";
        try {
            std::rethrow_exception(ep);
        } catch (const std::exception & e) {
            what = e.what();
        } catch (...) {
        }
        send_error(res, 500, what, "server_error");
    });
    s.set_error_handler([](const httplib::Request &, httplib::Response & res) {
        if (!res.body.empty() || res.is_chunked_content_provider_) {
            return;  // a handler's own answer
        }
        if (res.status == 413) {
            send_error(res, 413, "request body too large");
        } else if (res.status == 404) {
            send_error(res, 404, "no such endpoint");
        } else {
            send_error(res, res.status, "request failed (HTTP " + std::to_string(res.status) + ")");
        }
    });
}

// The key of a request: "Authorization: Bearer KEY", else "X-Api-Key: KEY" (upstream's order).
inline bool key_accepted(const std::vector<std::string> & keys, const httplib::Request & req) {
    if (keys.empty()) {
        return true;
    }
    std::string key = req.get_header_value("Authorization");
    if (key.empty()) {
        key = req.get_header_value("X-Api-Key");
    }
    if (key.compare(0, 7, "Bearer ") == 0) {
        key = key.substr(7);
    }
    return std::find(keys.begin(), keys.end(), key) != keys.end();
}

// Binds host:port (0: any free port); the port, or -1.
inline int bind_port(httplib::Server & s, const std::string & host, int port) {
    if (port == 0) {
        return s.bind_to_any_port(host);
    }
    return s.bind_to_port(host, port) ? port : -1;
}

// A handler that answers bad_request with 400 and any other exception with 500, naming the cause.
template <typename F>
auto guarded(F fn) {
    return [fn](const httplib::Request & req, httplib::Response & res) {
        try {
            fn(req, res);
        } catch (const bad_request & e) {
            send_error(res, 400, e.what());
        } catch (const std::exception & e) {
            send_error(res, 500, e.what(), "server_error");
        }
    };
}

}  // namespace server
