// The tools' log and error-report policy (docs/tools.md): every error is printed exactly once.
//  - The library's log lines at or above the chosen level go to stderr as they come (WARN by
//    default, everything with -v).
//  - An error the library also returns to the caller (llama_last_error(), or for ggml-only tools
//    any error line) is NOT printed by the log: the tool reports it once, with its context, as
//    "PROG: error: WHAT: REASON" through report_failure().
#pragma once

#include <string>

#include "ggml.h"

namespace tool {

// Sets the program name and the policy; then install log_callback with llama_log_set (libllama
// tools) or ggml_log_set (ggml-only tools). last_error: llama_last_error, or nullptr when the tool
// only uses ggml (then every ERROR line is held for report_failure()).
void log_init(const char * prog, ggml_log_level min_level, const char * (*last_error)(void) );
void log_callback(ggml_log_level level, const char * text, void * user_data);

// The reason of the latest library failure: last_error() when set, else the latest held error line
// ("" if none), without the trailing newline.
std::string failure_reason();

// Prints "PROG: error: WHAT: REASON" (": REASON" omitted when empty) to stderr once and returns
// EXIT_RUNTIME, so a tool can `return tool::report_failure("cannot load model " + path);`.
int report_failure(const std::string & what, const std::string & reason);
int report_failure(const std::string & what);  // reason = failure_reason()

}  // namespace tool
