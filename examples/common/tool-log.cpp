// The log callback and failure reports shared by the tools; see tool-log.h.
#include "tool-log.h"

#include <cstdio>
#include <cstring>
#include <mutex>

#include "arg-parse.h"

namespace tool {

namespace {

struct log_state {
    std::mutex   mutex;  // the library may log from worker threads
    const char * prog                = "tool";
    int          min_level           = GGML_LOG_LEVEL_WARN;
    const char * (*last_error)(void) = nullptr;
    bool        printing_previous    = true;  // the decision for the line a CONT continues
    std::string held;                         // latest held ERROR text (ggml-only tools)
};

log_state & state() {
    static log_state s;
    return s;
}

std::string chomp(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) {
        s.pop_back();
    }
    return s;
}

}  // namespace

void log_init(const char * prog, ggml_log_level min_level, const char * (*last_error)(void) ) {
    log_state &                 s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    s.prog       = prog;
    s.min_level  = min_level;
    s.last_error = last_error;
}

void log_callback(ggml_log_level level, const char * text, void *) {
    log_state &                 s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (level == GGML_LOG_LEVEL_CONT) {
        if (s.printing_previous) {
            fputs(text, stderr);
        } else if (!s.last_error) {
            s.held += text;
        }
        return;
    }
    if (level == GGML_LOG_LEVEL_ERROR) {
        // the failing call hands this reason to the tool, which reports it with context
        const bool returned = s.last_error ? chomp(text) == s.last_error() : true;
        if (!s.last_error) {
            s.held = text;
        }
        s.printing_previous = !returned;
    } else {
        s.printing_previous =
            level != GGML_LOG_LEVEL_NONE ? (int) level >= s.min_level : s.min_level <= GGML_LOG_LEVEL_INFO;
    }
    if (s.printing_previous) {
        fputs(text, stderr);
    }
}

std::string failure_reason() {
    log_state &                 s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.last_error && *s.last_error()) {
        return s.last_error();
    }
    return chomp(s.held);
}

int report_failure(const std::string & what, const std::string & reason) {
    const char * prog = state().prog;
    if (reason.empty()) {
        fprintf(stderr, "%s: error: %s\n", prog, what.c_str());
    } else {
        fprintf(stderr, "%s: error: %s: %s\n", prog, what.c_str(), reason.c_str());
    }
    return EXIT_RUNTIME;
}

int report_failure(const std::string & what) {
    return report_failure(what, failure_reason());
}

}  // namespace tool
