// The tool-call syntax of each family: one parser per call shape, and the table of markers that
// tells the parser's state machine where calls, reasoning and ignorable markers begin.
#include <algorithm>
#include <cstring>

#include <nlohmann/json.hpp>

#include "chat-format-impl.h"

namespace llama_tools::chat_impl {

namespace {

using ojson = nlohmann::ordered_json;

// A name longer than this is not a function name but prose that happens to follow a marker.
constexpr size_t k_max_name = 256;

call_result fail(scan st) {
    call_result r;
    r.st = st == scan::complete ? scan::invalid : st;
    return r;
}

call_result done(size_t end, std::vector<chat_tool_call> calls) {
    call_result r;
    r.st    = scan::complete;
    r.end   = end;
    r.calls = std::move(calls);
    return r;
}

bool name_char(char c) {
    return isalnum((unsigned char) c) || c == '_' || c == '-' || c == '.';
}

// A function name up to (not including) a terminator; invalid if other characters come first.
scan read_name(cursor & c, std::string & out) {
    const size_t start = c.i;
    while (!c.at_eof() && name_char(c.s[c.i])) {
        c.i++;
    }
    if (c.i - start > k_max_name) {
        return scan::invalid;
    }
    if (c.at_eof()) {
        return scan::incomplete;
    }
    out = std::string(c.s.substr(start, c.i - start));
    return out.empty() ? scan::invalid : scan::complete;
}

// A JSON object parsed as one call ({"name": .., "arguments": ..}), cursor advanced past it.
scan read_json_call(cursor & c, chat_tool_call & out) {
    c.ws();
    size_t     end = 0;
    const scan r   = json_scan(c.s, c.i, end);
    if (r != scan::complete) {
        return r;
    }
    if (!json_to_call(c.s.substr(c.i, end - c.i), out)) {
        return scan::invalid;
    }
    c.i = end;
    return scan::complete;
}

scan read_json_array_calls(cursor & c, std::vector<chat_tool_call> & out) {
    c.ws();
    if (!c.at_eof() && c.s[c.i] != '[') {
        return scan::invalid;
    }
    size_t     end = 0;
    const scan r   = json_scan(c.s, c.i, end);
    if (r != scan::complete) {
        return r;
    }
    if (!json_array_to_calls(c.s.substr(c.i, end - c.i), out)) {
        return scan::invalid;
    }
    c.i = end;
    return scan::complete;
}

// Arguments written as a JSON object; out: the compact dump.
scan read_json_args(cursor & c, std::string & out) {
    c.ws();
    if (!c.at_eof() && c.s[c.i] != '{') {
        return scan::invalid;
    }
    return c.json(out);
}

// <tool_call>\n{"name": "f", "arguments": {..}}\n</tool_call>
call_result parse_hermes(std::string_view text, size_t olen, bool, const call_context &) {
    cursor         c{text, olen};
    chat_tool_call call;
    if (scan r = read_json_call(c, call); r != scan::complete) {
        return fail(r);
    }
    c.ws();
    if (scan r = c.lit("</tool_call>"); r != scan::complete) {
        return fail(r);
    }
    return done(c.i, {call});
}

// A parameter's value: the raw text for a parameter the tools declare a string (the template
// writes strings unquoted), else JSON when it parses as JSON (numbers, booleans, objects), else
// the raw text. Without the tools' schemas, "42" meant as a string comes back a number.
ojson qwen_value(std::string v, bool is_string) {
    if (!v.empty() && v.front() == '\n') {
        v.erase(0, 1);
    }
    if (!v.empty() && v.back() == '\n') {
        v.pop_back();
    }
    if (is_string) {
        return ojson(v);
    }
    size_t end = 0;
    // the space ends a bare number, which the scanner would otherwise wait to see continue
    if (json_scan(v + " ", 0, end) == scan::complete && end == v.size()) {
        ojson j = ojson::parse(v, nullptr, false);
        if (!j.is_discarded()) {
            return j;
        }
    }
    return ojson(v);
}

// The tagged parameter lists of qwen3-coder (<parameter=k>\nv\n</parameter>) and GLM-4.5
// (<arg_key>k</arg_key>\n<arg_value>v</arg_value>): the markers around keys and values, and the
// marker that ends the list.
struct param_syntax {
    const char * end;
    const char * key_open;
    const char * key_close;
    const char * value_open;  // "" when the value follows the key's closing marker
    const char * value_close;
};
constexpr param_syntax k_qwen_params = {"</function>", "<parameter=", ">", "", "</parameter>"};
constexpr param_syntax k_glm_params  = {"</tool_call>", "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>"};

// Reads parameters of function fn up to and past the list's end marker into args (values as
// qwen_value reads them; a parameter the tools declare a string stays one).
scan read_params(cursor & c, const std::string & fn, const param_syntax & syn, const call_context & ctx, ojson & args) {
    for (;;) {
        c.ws();
        const scan end = c.peek(syn.end);
        if (end == scan::complete) {
            c.i += std::string_view(syn.end).size();
            return scan::complete;
        }
        const scan open = c.peek(syn.key_open);
        if (open == scan::invalid && end == scan::invalid) {
            return scan::invalid;
        }
        if (open != scan::complete) {
            return scan::incomplete;
        }
        c.i += std::string_view(syn.key_open).size();
        std::string key, value;
        if (scan r = c.until(syn.key_close, k_max_name, key); r != scan::complete || key.empty()) {
            return r == scan::complete ? scan::invalid : r;
        }
        if (*syn.value_open != '\0') {
            c.ws();
            if (scan r = c.lit(syn.value_open); r != scan::complete) {
                return r;
            }
        }
        if (scan r = c.until(syn.value_close, std::string_view::npos / 2, value); r != scan::complete) {
            return r;
        }
        bool is_string = false;
        if (ctx.string_params != nullptr) {
            is_string = std::find(ctx.string_params->begin(), ctx.string_params->end(), std::make_pair(fn, key)) !=
                        ctx.string_params->end();
        }
        args[key] = qwen_value(std::move(value), is_string);
    }
}

// One call of name with args ending at end; invalid if a raw value is not valid UTF-8.
call_result one_call(const std::string & name, const ojson & args, size_t end) {
    chat_tool_call call;
    call.name = name;
    try {
        call.arguments = args.dump();
    } catch (const std::exception &) {
        return fail(scan::invalid);
    }
    return done(end, {call});
}

// <tool_call>\n<function=f>\n<parameter=p>\nvalue\n</parameter>\n</function>\n</tool_call>
call_result parse_qwen3_coder(std::string_view text, size_t olen, bool, const call_context & ctx) {
    cursor c{text, olen};
    c.ws();
    std::string name;
    if (scan r = c.lit("<function="); r != scan::complete) {
        return fail(r);
    }
    if (scan r = c.until(">", k_max_name, name); r != scan::complete || name.empty()) {
        return fail(r);
    }
    ojson args = ojson::object();
    if (scan r = read_params(c, name, k_qwen_params, ctx, args); r != scan::complete) {
        return fail(r);
    }
    c.ws();
    if (scan r = c.lit("</tool_call>"); r != scan::complete) {
        return fail(r);
    }
    return one_call(name, args, c.i);
}

// GLM-4.5: <tool_call>f\n<arg_key>k</arg_key>\n<arg_value>v</arg_value>\n..</tool_call>, values
// written as qwen3-coder writes them (strings raw, everything else JSON).
call_result parse_glm45(std::string_view text, size_t olen, bool, const call_context & ctx) {
    cursor      c{text, olen};
    std::string name;
    c.ws();
    const size_t start = c.i;
    while (!c.at_eof() && c.s[c.i] != '\n' && c.s[c.i] != '<') {
        c.i++;
    }
    if (c.at_eof()) {
        return fail(c.i - start > k_max_name ? scan::invalid : scan::incomplete);
    }
    name = std::string(c.s.substr(start, c.i - start));
    while (!name.empty() && (name.back() == ' ' || name.back() == '\r')) {
        name.pop_back();
    }
    if (name.empty() || name.size() > k_max_name) {
        return fail(scan::invalid);
    }
    ojson args = ojson::object();
    if (scan r = read_params(c, name, k_glm_params, ctx, args); r != scan::complete) {
        return fail(r);
    }
    return one_call(name, args, c.i);
}

// Llama 3.x: the whole answer is {"name": "f", "parameters": {..}} (opener "{" at the start).
call_result parse_llama3_json(std::string_view text, size_t olen, bool, const call_context &) {
    // a JSON answer that is not a call shows as content at once, not when its JSON ends
    cursor first{text, olen};
    first.ws();
    if (first.peek("\"name\"") == scan::invalid && first.peek("\"type\"") == scan::invalid) {
        return fail(scan::invalid);
    }
    cursor         c{text, 0};
    chat_tool_call call;
    if (scan r = read_json_call(c, call); r != scan::complete) {
        return fail(r);
    }
    return done(c.i, {call});
}

// A Python literal of the builtin-tool form: "..." or '...' strings, True/False/None, JSON numbers.
scan read_python_value(cursor & c, ojson & out) {
    c.ws();
    if (c.at_eof()) {
        return scan::incomplete;
    }
    const char q = c.s[c.i];
    if (q == '"' || q == '\'') {
        std::string v;
        for (c.i++; !c.at_eof(); c.i++) {
            char ch = c.s[c.i];
            if (ch == q) {
                c.i++;
                out = v;
                return scan::complete;
            }
            if (ch == '\\') {
                if (++c.i >= c.s.size()) {
                    return scan::incomplete;
                }
                ch = c.s[c.i];
                ch = ch == 'n' ? '\n' : ch == 't' ? '\t' : ch;
            }
            v += ch;
        }
        return scan::incomplete;
    }
    for (const auto & [word, val] :
         {std::pair<const char *, ojson>{"True", true}, {"False", false}, {"None", nullptr}}) {
        const scan r = c.peek(word);
        if (r == scan::complete) {
            c.i += strlen(word);
            out = val;
            return scan::complete;
        }
        if (r == scan::incomplete) {
            return r;
        }
    }
    std::string dump;
    if (scan r = c.json(dump); r != scan::complete) {
        return r;
    }
    out = ojson::parse(dump);
    return scan::complete;
}

// <|python_tag|>tool.call(k="v", ..) (Llama 3.1 builtin tools), <|python_tag|>{"name": ..} or,
// when neither fits, code for the "python" tool; generation ends at <|eom_id|>, so it runs to the end.
call_result parse_python_tag(std::string_view text, size_t olen, bool at_end, const call_context &) {
    cursor c{text, olen};
    c.ws();
    if (!c.at_eof() && c.s[c.i] == '{') {
        chat_tool_call call;
        if (read_json_call(c, call) == scan::complete) {
            return done(c.i, {call});
        }
    } else {
        cursor      k = c;
        std::string name;
        scan        r = read_name(k, name);
        if (r == scan::complete && name.size() > 5 && name.compare(name.size() - 5, 5, ".call") == 0) {
            name.resize(name.size() - 5);
            r = k.lit("(");
        } else if (r == scan::complete) {
            r = scan::invalid;
        }
        ojson args = ojson::object();
        while (r == scan::complete) {
            k.ws();
            if (k.lit(")") == scan::complete) {
                chat_tool_call call;
                call.name      = name;
                call.arguments = args.dump();
                return done(k.i, {call});
            }
            if (!args.empty() && (r = k.lit(",")) != scan::complete) {
                break;
            }
            k.ws();
            std::string key;
            if ((r = read_name(k, key)) != scan::complete) {
                break;
            }
            k.ws();
            if ((r = k.lit("=")) != scan::complete) {
                break;
            }
            ojson v;
            if ((r = read_python_value(k, v)) != scan::complete) {
                break;
            }
            args[key] = v;
        }
        if (r == scan::incomplete && !at_end) {
            return fail(r);
        }
    }
    if (!at_end) {
        return fail(scan::incomplete);
    }
    chat_tool_call call;
    call.name = "python";
    try {
        call.arguments = ojson{{"code", std::string(text.substr(olen))}}.dump();
    } catch (const std::exception &) {
        return fail(scan::invalid);
    }
    return done(text.size(), {call});
}

// [TOOL_CALLS][{"name": .., "arguments": {..}, "id": ".."}] or [TOOL_CALLS]f[CALL_ID]id[ARGS]{..}
call_result parse_mistral(std::string_view text, size_t olen, bool, const call_context &) {
    cursor c{text, olen};
    c.ws();
    if (c.at_eof()) {
        return fail(scan::incomplete);
    }
    std::vector<chat_tool_call> calls;
    if (c.s[c.i] == '[') {
        if (scan r = read_json_array_calls(c, calls); r != scan::complete) {
            return fail(r);
        }
        return done(c.i, calls);
    }
    chat_tool_call call;
    if (scan r = read_name(c, call.name); r != scan::complete) {
        return fail(r);
    }
    if (scan r = c.lit("[CALL_ID]"); r == scan::complete) {
        if ((r = read_name(c, call.id)) != scan::complete) {
            return fail(r);
        }
    } else if (r == scan::incomplete) {
        return fail(r);
    }
    if (scan r = c.lit("[ARGS]"); r != scan::complete) {
        return fail(r);
    }
    if (scan r = read_json_args(c, call.arguments); r != scan::complete) {
        return fail(r);
    }
    return done(c.i, {call});
}

// <|channel|>commentary to=functions.f <|constrain|>json<|message|>{..}<|call|>; the opener ends at
// "functions.". <|call|> ends generation and may be missing from the text, so the end closes too.
call_result parse_harmony(std::string_view text, size_t olen, bool at_end, const call_context &) {
    cursor         c{text, olen};
    chat_tool_call call;
    const size_t   start = c.i;
    while (!c.at_eof() && c.s[c.i] != ' ' && c.s[c.i] != '<' && c.s[c.i] != '\n' && c.i - start <= k_max_name) {
        c.i++;
    }
    if (c.at_eof()) {
        return fail(scan::incomplete);
    }
    call.name = std::string(c.s.substr(start, c.i - start));
    std::string header;
    if (call.name.empty() || call.name.size() > k_max_name) {
        return fail(scan::invalid);
    }
    if (scan r = c.until("<|message|>", 64, header); r != scan::complete) {
        return fail(r);
    }
    if (scan r = read_json_args(c, call.arguments); r != scan::complete) {
        return fail(r);
    }
    c.ws();
    for (std::string_view end : {"<|call|>", "<|end|>"}) {
        const scan r = c.peek(end);
        if (r == scan::complete) {
            return done(c.i + end.size(), {call});
        }
        if (r == scan::incomplete) {
            return at_end ? done(c.s.size(), {call}) : fail(r);
        }
    }
    return fail(scan::invalid);
}

// One DeepSeek call after <｜tool▁call▁begin｜>: R1 writes "function<｜tool▁sep｜>f\n```json\n{..}\n```",
// V3.1 "f<｜tool▁sep｜>{..}"; both end with <｜tool▁call▁end｜>.
scan read_deepseek_item(cursor & c, chat_tool_call & call) {
    std::string head;
    if (scan r = c.until("<｜tool▁sep｜>", k_max_name, head); r != scan::complete) {
        return r;
    }
    if (head == "function") {
        if (scan r = c.until("\n", k_max_name, call.name); r != scan::complete) {
            return r;
        }
        c.ws();
        for (std::string_view fence : {"```json", "```"}) {
            const scan r = c.lit(fence);
            if (r == scan::complete) {
                break;
            }
            if (r == scan::incomplete) {
                return r;
            }
        }
    } else {
        call.name = head;
    }
    if (call.name.empty()) {
        return scan::invalid;
    }
    if (scan r = read_json_args(c, call.arguments); r != scan::complete) {
        return r;
    }
    c.ws();
    if (scan r = c.lit("```"); r == scan::incomplete) {
        return r;
    }
    c.ws();
    return c.lit("<｜tool▁call▁end｜>");
}

call_result parse_deepseek_block(std::string_view text, size_t olen, bool at_end, const call_context &) {
    cursor                      c{text, olen};
    std::vector<chat_tool_call> calls;
    for (;;) {
        c.ws();
        if (!calls.empty()) {
            const scan r = c.lit("<｜tool▁calls▁end｜>");
            if (r == scan::complete) {
                return done(c.i, calls);
            }
            if (c.at_eof() && at_end) {
                return done(c.i, calls);  // the end of generation closes the block
            }
            if (r == scan::incomplete) {
                return fail(r);
            }
        }
        if (scan r = c.lit("<｜tool▁call▁begin｜>"); r != scan::complete) {
            return fail(r);
        }
        chat_tool_call call;
        if (scan r = read_deepseek_item(c, call); r != scan::complete) {
            return fail(r);
        }
        calls.push_back(call);
    }
}

// A lone <｜tool▁call▁begin｜> without the block marker, as models sometimes write.
call_result parse_deepseek_item(std::string_view text, size_t olen, bool, const call_context &) {
    cursor         c{text, olen};
    chat_tool_call call;
    if (scan r = read_deepseek_item(c, call); r != scan::complete) {
        return fail(r);
    }
    return done(c.i, {call});
}

// <|tool_call|>[..] (Granite) and functools[..] (FireFunction v2)
call_result parse_json_array(std::string_view text, size_t olen, bool, const call_context &) {
    cursor                      c{text, olen};
    std::vector<chat_tool_call> calls;
    if (scan r = read_json_array_calls(c, calls); r != scan::complete) {
        return fail(r);
    }
    return done(c.i, calls);
}

// <|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": {..}}]<|END_ACTION|>
call_result parse_command_r(std::string_view text, size_t olen, bool, const call_context &) {
    cursor                      c{text, olen};
    std::vector<chat_tool_call> calls;
    if (scan r = read_json_array_calls(c, calls); r != scan::complete) {
        return fail(r);
    }
    c.ws();
    if (scan r = c.lit("<|END_ACTION|>"); r != scan::complete) {
        return fail(r);
    }
    return done(c.i, calls);
}

// >>>f\n{..} (functionary v3.2; ">>>all\n" starts text and is a skip marker)
call_result parse_functionary_v3_2(std::string_view text, size_t olen, bool, const call_context &) {
    cursor         c{text, olen};
    chat_tool_call call;
    if (scan r = read_name(c, call.name); r != scan::complete) {
        return fail(r);
    }
    if (call.name == "all") {
        return fail(scan::invalid);
    }
    if (scan r = c.lit("\n"); r != scan::complete) {
        return fail(r);
    }
    if (scan r = read_json_args(c, call.arguments); r != scan::complete) {
        return fail(r);
    }
    return done(c.i, {call});
}

// <function=f>{..}</function> (functionary v3.1 for Llama 3.1)
call_result parse_function_tag(std::string_view text, size_t olen, bool, const call_context &) {
    cursor         c{text, olen};
    chat_tool_call call;
    if (scan r = read_name(c, call.name); r != scan::complete) {
        return fail(r);
    }
    if (scan r = c.lit(">"); r != scan::complete) {
        return fail(r);
    }
    if (scan r = read_json_args(c, call.arguments); r != scan::complete) {
        return fail(r);
    }
    c.ws();
    if (scan r = c.lit("</function>"); r != scan::complete) {
        return fail(r);
    }
    return done(c.i, {call});
}

marker skip(const char * t) {
    return {t, marker_kind::skip, nullptr, false};
}

marker think(const char * t) {
    return {t, marker_kind::reasoning_open, nullptr, false};
}

marker call(const char * t, call_parser p, bool at_start_only = false) {
    return {t, marker_kind::call, p, at_start_only};
}

format_spec make_spec(chat_format fmt) {
    format_spec s;
    auto        think_tags = [&]() {
        s.markers.push_back(think("<think>"));
        s.reasoning_close = {"</think>"};
    };
    switch (fmt) {
        case chat_format::content_only:
        case chat_format::count:
            break;
        case chat_format::think:
            think_tags();
            break;
        case chat_format::hermes:
            think_tags();
            s.markers.push_back(call("<tool_call>", parse_hermes));
            break;
        case chat_format::qwen3_coder:
            think_tags();
            s.markers.push_back(call("<tool_call>", parse_qwen3_coder));
            break;
        case chat_format::llama3_json:
            s.markers.push_back(call("{", parse_llama3_json, true));
            s.markers.push_back(call("<|python_tag|>", parse_python_tag));
            s.trim_leading = " \t\r\n;";  // "; " between calls written one after another
            break;
        case chat_format::mistral:
            s.markers.push_back(think("[THINK]"));
            s.reasoning_close = {"[/THINK]"};
            s.markers.push_back(call("[TOOL_CALLS]", parse_mistral));
            break;
        case chat_format::gpt_oss:
            s.markers.push_back(think("<|channel|>analysis<|message|>"));
            s.reasoning_close = {"<|end|>"};
            for (const char * m : {"<|start|>assistant", "<|channel|>final<|message|>",
                                   "<|channel|>commentary<|message|>", "<|end|>", "<|return|>", "<|call|>"}) {
                s.markers.push_back(skip(m));
            }
            s.markers.push_back(call("<|channel|>commentary to=functions.", parse_harmony));
            s.markers.push_back(call(" to=functions.", parse_harmony));
            break;
        case chat_format::deepseek_r1:
        case chat_format::deepseek_v3_1:
            think_tags();
            s.markers.push_back(call("<｜tool▁calls▁begin｜>", parse_deepseek_block));
            s.markers.push_back(call("<｜tool▁call▁begin｜>", parse_deepseek_item));
            break;
        case chat_format::granite:
            think_tags();
            s.markers.push_back(skip("<response>"));
            s.markers.push_back(skip("</response>"));
            s.markers.push_back(call("<|tool_call|>", parse_json_array));
            break;
        case chat_format::command_r:
            s.markers.push_back(think("<|START_THINKING|>"));
            s.reasoning_close = {"<|END_THINKING|>"};
            s.markers.push_back(skip("<|START_RESPONSE|>"));
            s.markers.push_back(skip("<|END_RESPONSE|>"));
            s.markers.push_back(call("<|START_ACTION|>", parse_command_r));
            break;
        case chat_format::firefunction_v2:
            s.markers.push_back(call("functools", parse_json_array));
            break;
        case chat_format::functionary_v3_2:
            s.start_prefix = ">>>";
            s.markers.push_back(skip(">>>all\n"));
            s.markers.push_back(call(">>>", parse_functionary_v3_2));
            break;
        case chat_format::functionary_v3_1_llama3_1:
            s.markers.push_back(call("<function=", parse_function_tag));
            s.markers.push_back(call("<|python_tag|>", parse_python_tag));
            break;
        case chat_format::glm45:
            think_tags();
            s.markers.push_back(call("<tool_call>", parse_glm45));
            break;
    }
    return s;
}

}  // namespace

const format_spec & spec_of(chat_format fmt) {
    static const std::vector<format_spec> specs = [] {
        std::vector<format_spec> v;
        for (int i = 0; i <= (int) chat_format::count; i++) {
            v.push_back(make_spec((chat_format) i));
        }
        return v;
    }();
    const int i = (int) fmt;
    return specs[i >= 0 && i < (int) chat_format::count ? i : 0];
}

}  // namespace llama_tools::chat_impl
