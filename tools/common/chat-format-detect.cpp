// Format names and detection of a template's format from markers in its Jinja source.
#include "chat-format.h"

namespace llama_tools {

namespace {

// One row per format, in enum order (checked below).
constexpr const char * k_names[] = {
    "content-only",     "think",
    "hermes",           "qwen3-coder",
    "llama3-json",      "mistral",
    "gpt-oss",          "deepseek-r1",
    "deepseek-v3.1",    "granite",
    "command-r7b",      "firefunction-v2",
    "functionary-v3.2", "functionary-v3.1-llama3.1",
    "glm-4.5",
};
static_assert(sizeof(k_names) / sizeof(k_names[0]) == (size_t) chat_format::count, "one name per chat_format");

bool has(const std::string & s, const char * needle) {
    return s.find(needle) != std::string::npos;
}

}  // namespace

const char * chat_format_name(chat_format fmt) {
    const int i = (int) fmt;
    return i >= 0 && i < (int) chat_format::count ? k_names[i] : "unknown";
}

bool chat_format_from_name(const std::string & name, chat_format & out) {
    for (int i = 0; i < (int) chat_format::count; i++) {
        if (name == k_names[i]) {
            out = (chat_format) i;
            return true;
        }
    }
    return false;
}

chat_format detect_chat_format(const std::string & src) {
    // Most specific first: several families share markers (Qwen3.5 writes <tool_call> around
    // Qwen3-Coder's <function=...>, DeepSeek R1 and V3.1 share the tool-call block markers,
    // FireFunction and functionary are Llama 3 templates).
    if (has(src, "<|channel|>") && has(src, "<|message|>")) {
        return chat_format::gpt_oss;
    }
    if (has(src, "<|START_ACTION|>")) {
        return chat_format::command_r;
    }
    if (has(src, "<｜tool▁calls▁begin｜>") || has(src, "<｜tool▁call▁begin｜>")) {
        // R1 wraps the arguments in a ```json fence; V3.1 writes them right after the separator
        return has(src, "```json") ? chat_format::deepseek_r1 : chat_format::deepseek_v3_1;
    }
    if (has(src, "[TOOL_CALLS]")) {
        return chat_format::mistral;
    }
    if (has(src, "<arg_key>") && has(src, "<arg_value>")) {  // GLM-4.5 / 4.6 / 4.7 and their kin
        return chat_format::glm45;
    }
    if (has(src, "<function=") && has(src, "<parameter=")) {
        return chat_format::qwen3_coder;
    }
    if (has(src, "<tool_call>")) {
        return chat_format::hermes;
    }
    if (has(src, "<|tool_call|>")) {
        return chat_format::granite;
    }
    if (has(src, ">>>all")) {
        return chat_format::functionary_v3_2;
    }
    if (has(src, "<function=")) {
        return chat_format::functionary_v3_1_llama3_1;
    }
    if (has(src, " functools[")) {
        return chat_format::firefunction_v2;
    }
    if (has(src, "<|start_header_id|>") && (has(src, "<|python_tag|>") || has(src, "ipython"))) {
        return chat_format::llama3_json;
    }
    if (has(src, "<think>") || has(src, "</think>")) {
        return chat_format::think;
    }
    return chat_format::content_only;
}

}  // namespace llama_tools
