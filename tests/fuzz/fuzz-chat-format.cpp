// libFuzzer harness for the chat output parsers (tools/common/chat-format*). Input: one byte of
// options (parser flags and a chunking seed), then the generated text. Every format parses the
// text whole and fed in chunks; the chunked run must give the same message, every partial()
// must extend the previous one, and the streaming deltas must add up to finish(). Any violation
// traps; the parser itself must never crash, hang or throw.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "chat-format.h"

using namespace llama_tools;

namespace {

void require(bool ok) {
    if (!ok) {
        __builtin_trap();
    }
}

bool is_prefix(const std::string & a, const std::string & b) {
    return b.compare(0, a.size(), a) == 0;
}

void apply(chat_msg & m, const chat_msg_delta & d) {
    m.content += d.content;
    m.reasoning_content += d.reasoning_content;
    if (d.tool_call_index >= 0) {
        if ((size_t) d.tool_call_index >= m.tool_calls.size()) {
            m.tool_calls.resize(d.tool_call_index + 1);
        }
        chat_tool_call & c = m.tool_calls[d.tool_call_index];
        c.name += d.tool_call_name;
        c.id += d.tool_call_id;
        c.arguments += d.tool_call_arguments;
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size) {
    if (size == 0) {
        return 0;
    }
    const uint8_t      flags = data[0];
    const std::string  text((const char *) data + 1, size - 1);
    chat_parse_options opts;
    opts.thinking_forced_open = flags & 1;
    opts.reasoning_in_content = flags & 2;
    opts.parse_tool_calls     = !(flags & 4);
    if (flags & 8) {
        opts.tools_json = R"([{"type": "function", "function": {"name": "f", "parameters": {"type": "object",
            "properties": {"p": {"type": "string"}, "s": {"type": "string"}}}}}])";
    }
    for (int fi = 0; fi < (int) chat_format::count; fi++) {
        const chat_format fmt = (chat_format) fi;
        chat_parser       whole(fmt, opts);
        whole.feed(text);
        const chat_msg want = whole.finish();

        chat_parser p(fmt, opts);
        chat_msg    prev, rebuilt;
        uint32_t    rng = flags * 2654435761u + 1;
        for (size_t i = 0; i < text.size();) {
            rng            = rng * 1664525u + 1013904223u;
            const size_t n = 1 + (rng >> 24) % 9;
            p.feed(std::string_view(text).substr(i, n));
            i += n;
            const chat_msg now = p.partial();
            require(is_prefix(prev.content, now.content) && is_prefix(now.content, want.content));
            require(is_prefix(prev.reasoning_content, now.reasoning_content));
            require(now.tool_calls.size() >= prev.tool_calls.size());
            for (const chat_msg_delta & d : diff(prev, now)) {
                apply(rebuilt, d);
            }
            prev = now;
        }
        const chat_msg fin = p.finish();
        for (const chat_msg_delta & d : diff(prev, fin)) {
            apply(rebuilt, d);
        }
        require(rebuilt == fin);
        require(fin == want);
    }
    return 0;
}
