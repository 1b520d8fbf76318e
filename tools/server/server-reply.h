// What every HTTP handler answers with: JSON bodies, OpenAI-shaped error bodies, the in-flight
// count, response ids, and the status of a failed task. Shared by server-http.cpp (OpenAI
// endpoints) and server-native.cpp (upstream's native endpoints).
#pragma once

#include <httplib.h>

#include <atomic>
#include <cstdio>
#include <string>

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
