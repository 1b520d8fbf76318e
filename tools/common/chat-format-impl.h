// Internals shared by the chat-format-*.cpp files: the per-format description that the parser's
// state machine (chat-format-parse.cpp) reads, the tool-call parsers of each family
// (chat-format-calls.cpp) and the JSON scanning they use (chat-format-json.cpp).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "chat-format.h"

namespace llama_tools::chat_impl {

// Outcome of looking at a possibly unfinished text: it is done, it may still become valid with
// more text, or it can never be valid.
enum class scan { complete, incomplete, invalid };

struct call_result {
    scan                        st  = scan::invalid;
    size_t                      end = 0;  // bytes consumed from the opener's first byte (complete only)
    std::vector<chat_tool_call> calls;
};

// What the caller knows beyond the text: (function, parameter) pairs the tools declare strings.
struct call_context {
    const std::vector<std::pair<std::string, std::string>> * string_params = nullptr;
};

// Parses the call(s) starting at text[0] (the opener, opener_len bytes long). at_end: no more
// text will come, so a parser may accept a call that the end of generation closes.
using call_parser = call_result (*)(std::string_view text, size_t opener_len, bool at_end, const call_context & ctx);

// The (function, parameter) pairs of an OpenAI tools array whose schema type is "string";
// empty for malformed JSON.
std::vector<std::pair<std::string, std::string>> string_parameters(const std::string & tools_json);

enum class marker_kind { skip, reasoning_open, call };

// A literal the parser looks for in content.
struct marker {
    std::string text;
    marker_kind kind          = marker_kind::skip;
    call_parser parse         = nullptr;  // kind == call
    bool        at_start_only = false;    // only while no content has been written
};

struct format_spec {
    std::vector<marker>      markers;
    std::vector<std::string> reasoning_close;
    std::string              start_prefix;              // text the prompt ends with, as if the output began with it
    std::string              trim_leading = " \t\r\n";  // dropped from the start of content
};

const format_spec & spec_of(chat_format fmt);

// A cursor over a possibly unfinished text, for the call parsers.
struct cursor {
    std::string_view s;
    size_t           i;

    bool at_eof() const { return i >= s.size(); }
    void ws();
    // Whether the text at i starts with lit (complete), is cut short inside it (incomplete) or differs.
    scan peek(std::string_view lit) const;
    // peek, advancing past lit when complete.
    scan lit(std::string_view lit);
    // Text up to (not including) `stop`, at most max_len bytes; advances past stop when complete.
    scan until(std::string_view stop, size_t max_len, std::string & out);
    // One JSON value (leading whitespace skipped); out: its compact dump.
    scan json(std::string & out);
};

// Scans one JSON value at s[pos] (no leading whitespace); end: one past it when complete.
scan json_scan(std::string_view s, size_t pos, size_t & end);

// Compact dump of the JSON text (key order kept); false if it is not valid JSON or not UTF-8.
bool json_compact(std::string_view text, std::string & out);

// Fills a call from a JSON object with "name"/"tool_name", "arguments"/"parameters" (an object,
// or a string holding one) and optionally "id"/"tool_call_id". False if the shape is wrong.
bool json_to_call(std::string_view object_text, chat_tool_call & out);

// Each element of a JSON array of call objects; false if any is malformed or it is empty.
bool json_array_to_calls(std::string_view array_text, std::vector<chat_tool_call> & out);

}  // namespace llama_tools::chat_impl
