// Logging, message formatting, the last-error string and the guard that turns C++ exceptions into
// C return values at the API boundary (declared in llama-log.h). The bottom floor of libllama: it
// includes nothing of the runtime above it, so every file can log without reaching up.
#include "llama-log.h"
#include "llama.h"

#include <cstdio>
#include <mutex>
#include <string>

// ---- logging -----------------------------------------------------------------------------------

namespace {

void log_default(ggml_log_level level, const char * text, void * /*user_data*/) {
    (void) level;
    fputs(text, stderr);
    fflush(stderr);
}

struct log_state {
    std::mutex        mutex;
    ggml_log_callback callback  = log_default;
    void *            user_data = nullptr;
};

log_state & log_get() {
    static log_state s;
    return s;
}

thread_local std::string g_last_error;

}  // namespace

void llama_log_internal(ggml_log_level level, const char * fmt, ...) {
    char    stack[512];
    va_list args;
    va_start(args, fmt);
    va_list copy;
    va_copy(copy, args);
    const int n = vsnprintf(stack, sizeof(stack), fmt, args);
    va_end(args);
    std::string  heap;
    const char * text = stack;
    if (n >= (int) sizeof(stack)) {
        heap.resize((size_t) n + 1);
        vsnprintf(&heap[0], heap.size(), fmt, copy);
        text = heap.c_str();
    }
    va_end(copy);
    ggml_log_callback cb;
    void *            ud;
    {
        log_state &                 s = log_get();
        std::lock_guard<std::mutex> lock(s.mutex);
        cb = s.callback;
        ud = s.user_data;
    }
    cb(level, text, ud);
}

std::string llama_format(const char * fmt, ...) {
    va_list args;
    va_start(args, fmt);
    va_list copy;
    va_copy(copy, args);
    const int n = vsnprintf(nullptr, 0, fmt, args);
    va_end(args);
    std::string out;
    if (n > 0) {
        out.resize((size_t) n + 1);
        vsnprintf(&out[0], out.size(), fmt, copy);
        out.resize((size_t) n);
    }
    va_end(copy);
    return out;
}

std::string llama_format_shape(const int64_t * ne, int n_dims) {
    std::string s = "[";
    for (int i = 0; i < n_dims; i++) {
        s += (i ? ", " : "") + std::to_string(ne[i]);
    }
    return s + "]";
}

void llama_set_last_error(const std::string & msg) {
    g_last_error = msg;
}

void llama_report_error(const char * fn, const char * what) {
    g_last_error = llama_format("%s: %s", fn, what);
    LLAMA_LOG_ERROR("%s\n", g_last_error.c_str());
}

const char * llama_last_error(void) {
    return g_last_error.c_str();
}

void llama_log_set(ggml_log_callback log_callback, void * user_data) {
    {
        log_state &                 s = log_get();
        std::lock_guard<std::mutex> lock(s.mutex);
        s.callback  = log_callback ? log_callback : log_default;
        s.user_data = log_callback ? user_data : nullptr;
    }
    ggml_log_set(log_callback, user_data);
}

void llama_log_get(ggml_log_callback * log_callback, void ** user_data) {
    log_state &                 s = log_get();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (log_callback) {
        *log_callback = s.callback;
    }
    if (user_data) {
        *user_data = s.user_data;
    }
}
