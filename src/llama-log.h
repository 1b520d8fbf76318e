// Internal helpers shared by every libllama source file: logging, formatting, the last-error
// string and the guard that turns C++ exceptions into C return values at the API boundary.
// Defined in llama-log.cpp. This header is the bottom floor of src/: it includes only ggml.h,
// so any file may include it without depending on the loader, the model or the context.
#pragma once

#include "ggml.h"

#include <cstdarg>
#include <stdexcept>
#include <string>

#define LLAMA_ATTRIBUTE_FORMAT(fmt, args) GGML_ATTRIBUTE_FORMAT(fmt, args)

// Sends a printf-style message to the callback installed by llama_log_set (default: stderr).
LLAMA_ATTRIBUTE_FORMAT(2, 3)
void llama_log_internal(ggml_log_level level, const char * fmt, ...);

#define LLAMA_LOG(...)       llama_log_internal(GGML_LOG_LEVEL_NONE, __VA_ARGS__)
#define LLAMA_LOG_DEBUG(...) llama_log_internal(GGML_LOG_LEVEL_DEBUG, __VA_ARGS__)
#define LLAMA_LOG_INFO(...)  llama_log_internal(GGML_LOG_LEVEL_INFO, __VA_ARGS__)
#define LLAMA_LOG_WARN(...)  llama_log_internal(GGML_LOG_LEVEL_WARN, __VA_ARGS__)
#define LLAMA_LOG_ERROR(...) llama_log_internal(GGML_LOG_LEVEL_ERROR, __VA_ARGS__)
#define LLAMA_LOG_CONT(...)  llama_log_internal(GGML_LOG_LEVEL_CONT, __VA_ARGS__)

// printf into a std::string.
LLAMA_ATTRIBUTE_FORMAT(1, 2)
std::string llama_format(const char * fmt, ...);

// Stores the thread-local last-error string read by llama_last_error().
void llama_set_last_error(const std::string & msg);

// The error type thrown inside the library; its message becomes the last error.
struct llama_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Records and logs the failure of C entry point `fn`.
void llama_report_error(const char * fn, const char * what);

// Runs body() and converts any exception into `on_error` plus last-error + log. Every exported
// function that can fail goes through this, so the C ABI never throws.
template <typename R, typename F>
R llama_api_guard(const char * fn, R on_error, F && body) {
    try {
        return body();
    } catch (const std::bad_alloc &) {
        llama_report_error(fn, "out of memory");
    } catch (const std::exception & e) {
        llama_report_error(fn, e.what());
    } catch (...) {
        llama_report_error(fn, "unknown error");
    }
    return on_error;
}

// The same for functions returning void.
template <typename F>
void llama_api_guard_void(const char * fn, F && body) {
    try {
        body();
    } catch (const std::bad_alloc &) {
        llama_report_error(fn, "out of memory");
    } catch (const std::exception & e) {
        llama_report_error(fn, e.what());
    } catch (...) {
        llama_report_error(fn, "unknown error");
    }
}

// Shape of a tensor as "[a, b, c, d]" for messages.
std::string llama_format_shape(const int64_t * ne, int n_dims);
