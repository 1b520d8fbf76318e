// GBNF for each format's tool calls. Every tool's "parameters" schema goes through
// json_schema_to_grammar; its rules (all named, root included) are renamed with a "tN-" prefix so
// the schemas of several tools coexist in one grammar. The wrapper rules written here use names
// without a digit after "t", so they cannot collide with the renamed ones.
#include <algorithm>
#include <cctype>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "chat-format.h"
#include "json-schema-grammar.h"

namespace llama_tools {

namespace {

using ojson = nlohmann::ordered_json;

struct tool_info {
    std::string name;
    ojson       params;
};

// A GBNF literal of the text: quotes, backslashes and control characters escaped.
std::string lit(const std::string & s) {
    std::string out = "\"";
    for (char c : s) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                out += c;
        }
    }
    return out + "\"";
}

// Renames every rule of a grammar written by json_schema_to_grammar: identifiers outside
// literals, classes, token references, repetition counts and comments get the prefix.
std::string prefix_rules(const std::string & g, const std::string & prefix) {
    std::string out;
    size_t      i       = 0;
    auto        copy_to = [&](char close) {
        out += g[i++];
        while (i < g.size() && g[i] != close) {
            if (g[i] == '\\' && i + 1 < g.size()) {
                out += g[i++];
            }
            out += g[i++];
        }
        if (i < g.size()) {
            out += g[i++];
        }
    };
    auto is_name = [](char c) { return isalnum((unsigned char) c) || c == '-' || c == '_'; };
    while (i < g.size()) {
        const char c = g[i];
        if (c == '"') {
            copy_to('"');
        } else if (c == '[') {
            copy_to(']');
        } else if (c == '{') {
            copy_to('}');
        } else if (c == '<') {
            copy_to('>');
        } else if (c == '#') {
            copy_to('\n');
        } else if (is_name(c)) {
            out += prefix;
            while (i < g.size() && is_name(g[i])) {
                out += g[i++];
            }
        } else {
            out += g[i++];
        }
    }
    return out;
}

std::vector<tool_info> read_tools(const std::string & tools_json) {
    ojson tools = ojson::parse(tools_json, nullptr, false);
    if (tools.is_discarded() || !tools.is_array()) {
        throw std::invalid_argument("tools: expected a JSON array");
    }
    std::vector<tool_info> out;
    for (const ojson & t : tools) {
        const ojson & fn = t.is_object() && t.contains("function") ? t["function"] : t;
        if (!fn.is_object() || !fn.contains("name") || !fn["name"].is_string()) {
            throw std::invalid_argument("tools: each tool needs function.name");
        }
        tool_info info;
        info.name   = fn["name"].get<std::string>();
        info.params = fn.contains("parameters") ? fn["parameters"] : ojson{{"type", "object"}};
        out.push_back(std::move(info));
    }
    return out;
}

// What each format writes around one call, given the rule of the arguments and the name.
struct call_writer {
    std::string rules;  // extra rules (qwen3-coder's parameters)
    int         n_rules = 0;

    // {"name": "f", "arguments": ARGS}, `first` (a member and its comma) before the name
    std::string json_obj(const char * name_key, const std::string & name, const char * args_key,
                         const std::string & args, const std::string & first = "") const {
        return "\"{\" ws " + first + lit(std::string("\"") + name_key + "\"") + " ws \":\" ws " +
               lit(ojson(name).dump()) + " ws \",\" ws " + lit(std::string("\"") + args_key + "\"") + " ws \":\" ws " +
               args + " ws \"}\"";
    }

    // A raw string value: any text without "</" (which would start the closing tag), or, with
    // minLength / maxLength, that many characters none of which is '<' (a bounded repetition cannot
    // look ahead at pairs; without the bound a model may never close the value).
    std::string raw_string(const ojson & schema, const std::string & prefix) {
        auto bound = [&](const char * key, uint64_t & out) {
            if (schema.contains(key) && schema[key].is_number_unsigned()) {
                out = schema[key].get<uint64_t>();
                return true;
            }
            return false;
        };
        uint64_t   lo = 0, hi = 0;
        const bool has_lo = bound("minLength", lo), has_hi = bound("maxLength", hi);
        if (!has_lo && !has_hi) {
            return "qtext";
        }
        // (maxLength < minLength never gets here: the tool's whole schema was converted before)
        const std::string name = prefix + "s" + std::to_string(n_rules++);
        rules += name + " ::= [^<]{" + std::to_string(lo) + "," + (has_hi ? std::to_string(hi) : "") + "}\n";
        return name;
    }

    // <parameter=p>\nvalue\n</parameter>\n per property, in the schema's order
    // qwen3-coder's <parameter=k> items, or GLM-4.5's <arg_key>/<arg_value> pairs (glm)
    std::string qwen_params(const tool_info & t, const std::string & prefix, bool glm = false) {
        std::string out;
        if (!t.params.is_object() || !t.params.contains("properties")) {
            return out;
        }
        const ojson & req = t.params.contains("required") ? t.params["required"] : ojson::array();
        for (const auto & [key, schema] : t.params["properties"].items()) {
            std::string value;
            if (schema.is_object() && schema.value("type", "") == "string" && !schema.contains("enum") &&
                !schema.contains("pattern") && !schema.contains("const")) {
                value = raw_string(schema, prefix);  // strings are written raw
            } else {
                const std::string p = prefix + "p" + std::to_string(n_rules++) + "-";
                rules += prefix_rules(json_schema_to_grammar_widened(schema.dump()), p);
                value = p + "root";
            }
            const bool  required = std::find(req.begin(), req.end(), ojson(key)) != req.end();
            std::string item =
                glm ? lit("<arg_key>" + key + "</arg_key>\n<arg_value>") + " " + value + " " + lit("</arg_value>\n")
                    : lit("<parameter=" + key + ">\n") + " " + value + " " + lit("\n</parameter>\n");
            out += required ? " " + item : " (" + item + ")?";
        }
        return out;
    }
};

}  // namespace

chat_tool_grammar build_tool_call_grammar(chat_format fmt, const std::string & tools_json,
                                          const std::string & tool_choice, bool parallel, chat_thinking thinking) {
    chat_tool_grammar res;
    if (tool_choice == "none") {
        return res;
    }
    std::vector<tool_info> tools = read_tools(tools_json);
    if (tool_choice != "auto" && tool_choice != "required") {
        std::vector<tool_info> picked;
        for (const tool_info & t : tools) {
            if (t.name == tool_choice) {
                picked.push_back(t);
            }
        }
        if (picked.empty()) {
            throw std::invalid_argument("tool_choice names no tool: " + tool_choice);
        }
        tools = picked;
    }
    if (tools.empty()) {
        throw std::invalid_argument("tools: empty");
    }
    if (fmt == chat_format::content_only || fmt == chat_format::think || fmt >= chat_format::count) {
        throw std::invalid_argument(std::string("format has no tool calls: ") + chat_format_name(fmt));
    }
    res.lazy = tool_choice == "auto";

    call_writer              w;
    std::string              schemas;
    std::vector<std::string> calls;  // one alternative per tool
    for (size_t k = 0; k < tools.size(); k++) {
        const tool_info &   t      = tools[k];
        const std::string   prefix = "t" + std::to_string(k) + "-";
        const std::string   args   = prefix + "root";
        const std::string & n      = t.name;
        schemas += prefix_rules(json_schema_to_grammar_widened(t.params.dump()), prefix);
        switch (fmt) {
            case chat_format::hermes:
                calls.push_back("\"<tool_call>\" ws " + w.json_obj("name", n, "arguments", args) +
                                " ws \"</tool_call>\"");
                break;
            case chat_format::qwen3_coder:
                calls.push_back(lit("<tool_call>\n<function=" + n + ">\n") + w.qwen_params(t, prefix) + " " +
                                lit("</function>\n</tool_call>"));
                break;
            case chat_format::glm45:
                calls.push_back(lit("<tool_call>" + n + "\n") + w.qwen_params(t, prefix, true) + " " +
                                lit("</tool_call>"));
                break;
            case chat_format::llama3_json:
                calls.push_back(w.json_obj("name", n, "parameters", args));
                break;
            case chat_format::mistral:
            case chat_format::granite:
            case chat_format::firefunction_v2:
                calls.push_back(w.json_obj("name", n, "arguments", args));
                break;
            case chat_format::command_r:
                calls.push_back(
                    w.json_obj("tool_name", n, "parameters", args,
                               lit("\"tool_call_id\"") + " ws \":\" ws \"\\\"\" [0-9]{1,4} \"\\\"\" ws \",\" ws "));
                break;
            case chat_format::gpt_oss:
                calls.push_back(lit("<|channel|>commentary to=functions." + n + " <|constrain|>json<|message|>") + " " +
                                args);
                break;
            case chat_format::deepseek_r1:
                calls.push_back(lit("<｜tool▁call▁begin｜>function<｜tool▁sep｜>" + n + "\n```json\n") + " " + args +
                                " " + lit("\n```<｜tool▁call▁end｜>"));
                break;
            case chat_format::deepseek_v3_1:
                calls.push_back(lit("<｜tool▁call▁begin｜>" + n + "<｜tool▁sep｜>") + " " + args + " " +
                                lit("<｜tool▁call▁end｜>"));
                break;
            case chat_format::functionary_v3_2:
                calls.push_back(lit(n + "\n") + " " + args);
                break;
            case chat_format::functionary_v3_1_llama3_1:
                calls.push_back(lit("<function=" + n + ">") + " " + args + " " + lit("</function>"));
                break;
            default:
                break;
        }
    }
    std::string g = "call ::= ";
    for (size_t k = 0; k < calls.size(); k++) {
        g += (k ? " | " : "") + std::string("(") + calls[k] + ")";
    }
    g += "\n";
    // `more` repeats a call after the format's separator when parallel calls are allowed
    auto seq = [&](const std::string & sep) { return parallel ? "call (" + sep + " call)*" : std::string("call"); };
    std::string body;
    std::string reasoning;  // optional reasoning before a required call
    // <think> blocks: when the prompt opened one, the output starts inside it and must close it
    // before the call; otherwise a block is optional and opens with its marker (without that, any
    // free text would pass as reasoning and a required call would never be forced)
    const std::string think_block =
        thinking == chat_thinking::forced_open ? "ttext \"</think>\" ws" : "(\"<think>\" ttext \"</think>\" ws)?";
    switch (fmt) {
        case chat_format::hermes:
        case chat_format::qwen3_coder:
        case chat_format::glm45:
        case chat_format::functionary_v3_1_llama3_1:
            body              = seq("ws");
            res.trigger_words = {fmt == chat_format::functionary_v3_1_llama3_1 ? "<function=" : "<tool_call>"};
            reasoning         = fmt == chat_format::functionary_v3_1_llama3_1 ? "" : think_block;
            break;
        case chat_format::llama3_json:
            body                 = seq("ws \";\" ws");
            res.trigger_patterns = {"^\\s*(\\{\\s*\"name\")[\\s\\S]*$"};
            break;
        case chat_format::mistral: {
            std::string raw;
            for (size_t k = 0; k < tools.size(); k++) {
                raw += (k ? " | " : "") + lit(tools[k].name + "[ARGS]") + " t" + std::to_string(k) + "-root";
            }
            g += "raw ::= " + raw + "\n";
            body = "\"[TOOL_CALLS]\" (\"[\" ws " + seq("ws \",\" ws") + " ws \"]\" | " +
                   (parallel ? "raw (\"[TOOL_CALLS]\" raw)*" : "raw") + ")";
            res.trigger_words = {"[TOOL_CALLS]"};
            reasoning         = "(\"[THINK]\" ttext \"[/THINK]\")?";
            break;
        }
        case chat_format::gpt_oss:
            body              = "call";  // <|call|> ends generation: one call per turn
            res.trigger_words = {"<|channel|>commentary to=functions."};
            reasoning         = "(\"<|channel|>analysis<|message|>\" htext \"<|end|><|start|>assistant\")?";
            break;
        case chat_format::deepseek_r1:
        case chat_format::deepseek_v3_1:
            body              = "\"<｜tool▁calls▁begin｜>\" " + seq("ws") + " \"<｜tool▁calls▁end｜>\"";
            res.trigger_words = {"<｜tool▁calls▁begin｜>"};
            reasoning         = think_block;
            break;
        case chat_format::granite:
            body              = "\"<|tool_call|>\" ws \"[\" ws " + seq("ws \",\" ws") + " ws \"]\"";
            res.trigger_words = {"<|tool_call|>"};
            reasoning         = "(\"<think>\" ttext \"</think>\" ws)?";
            break;
        case chat_format::command_r:
            body = "\"<|START_ACTION|>\" ws \"[\" ws " + seq("ws \",\" ws") + " ws \"]\" ws \"<|END_ACTION|>\"";
            res.trigger_words = {"<|START_ACTION|>"};
            reasoning         = "(\"<|START_THINKING|>\" htext \"<|END_THINKING|>\")?";
            break;
        case chat_format::firefunction_v2:
            body              = "\"functools[\" ws " + seq("ws \",\" ws") + " ws \"]\"";
            res.trigger_words = {"functools["};
            reasoning         = "\" \"?";
            break;
        case chat_format::functionary_v3_2:
            // the prompt ends with ">>>": a call starts the output or follows ">>>"
            body                 = seq("\">>>\"");
            res.trigger_patterns = {"^(?!all\\n)([A-Za-z0-9_.-]+\\n)[\\s\\S]*$", ">>>((?!all\\n)[A-Za-z0-9_.-]+\\n)"};
            break;
        default:
            break;
    }
    if (thinking == chat_thinking::none) {
        reasoning.clear();
    }
    for (const std::string & word : res.trigger_words) {
        std::string pat;
        for (char c : word) {
            if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) {
                pat += '\\';
            }
            pat += c;
        }
        res.trigger_patterns.push_back(pat);
    }
    // A lazy grammar starts at the trigger; a required call may follow the format's reasoning.
    res.grammar = "root ::= " + (res.lazy || reasoning.empty() ? "" : reasoning + " ") + body + "\n" + g +
                  "ws ::= | \" \" | \"\\n\" [ \\t]{0,20}\n"
                  "ttext ::= ([^<] | \"<\" [^/])*\n"
                  "htext ::= ([^<] | \"<\" [^|])*\n"
                  "qtext ::= ([^<] | \"<\" [^/])*\n" +
                  w.rules + schemas;
    return res;
}

}  // namespace llama_tools
