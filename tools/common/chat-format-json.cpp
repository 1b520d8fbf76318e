// JSON scanning for the tool-call parsers: a validating scanner that can tell a truncated JSON
// text (wait for more) from a broken one (give up), and the conversion of call objects.
#include <cctype>

#include <nlohmann/json.hpp>

#include "chat-format-impl.h"

namespace llama_tools::chat_impl {

namespace {

using ojson = nlohmann::ordered_json;

// Deep enough for any real arguments object, shallow enough that the recursion cannot exhaust
// the stack on hostile text.
constexpr int k_max_depth = 128;

bool is_ws(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

struct json_scanner {
    std::string_view s;
    size_t           i = 0;

    void ws() {
        while (i < s.size() && is_ws(s[i])) {
            i++;
        }
    }

    scan literal(std::string_view word) {
        for (char c : word) {
            if (i >= s.size()) {
                return scan::incomplete;
            }
            if (s[i] != c) {
                return scan::invalid;
            }
            i++;
        }
        return scan::complete;
    }

    scan string() {
        i++;  // the opening quote
        while (i < s.size()) {
            const unsigned char c = (unsigned char) s[i];
            if (c == '"') {
                i++;
                return scan::complete;
            }
            if (c < 0x20) {
                return scan::invalid;
            }
            if (c != '\\') {
                i++;
                continue;
            }
            if (++i >= s.size()) {
                return scan::incomplete;
            }
            const char e = s[i++];
            if (e == 'u') {
                for (int k = 0; k < 4; k++, i++) {
                    if (i >= s.size()) {
                        return scan::incomplete;
                    }
                    if (!isxdigit((unsigned char) s[i])) {
                        return scan::invalid;
                    }
                }
            } else if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
                return scan::invalid;
            }
        }
        return scan::incomplete;
    }

    // A number is complete only once something follows it: "12" may still become "123".
    scan number() {
        auto digits = [&]() {
            size_t n = 0;
            while (i < s.size() && isdigit((unsigned char) s[i])) {
                i++;
                n++;
            }
            return n;
        };
        if (s[i] == '-') {
            i++;
        }
        if (i >= s.size()) {
            return scan::incomplete;
        }
        if (s[i] == '0') {
            i++;
        } else if (digits() == 0) {
            return scan::invalid;
        }
        if (i < s.size() && s[i] == '.') {
            i++;
            if (digits() == 0) {
                return i >= s.size() ? scan::incomplete : scan::invalid;
            }
        }
        if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
            i++;
            if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
                i++;
            }
            if (digits() == 0) {
                return i >= s.size() ? scan::incomplete : scan::invalid;
            }
        }
        return i >= s.size() ? scan::incomplete : scan::complete;
    }

    scan value(int depth) {
        if (depth > k_max_depth) {
            return scan::invalid;
        }
        ws();
        if (i >= s.size()) {
            return scan::incomplete;
        }
        const char c = s[i];
        if (c == '"') {
            return string();
        }
        if (c == '-' || isdigit((unsigned char) c)) {
            return number();
        }
        if (c == 't') {
            return literal("true");
        }
        if (c == 'f') {
            return literal("false");
        }
        if (c == 'n') {
            return literal("null");
        }
        if (c != '{' && c != '[') {
            return scan::invalid;
        }
        const bool obj   = c == '{';
        const char close = obj ? '}' : ']';
        i++;
        ws();
        if (i >= s.size()) {
            return scan::incomplete;
        }
        if (s[i] == close) {
            i++;
            return scan::complete;
        }
        for (;;) {
            if (obj) {
                ws();
                if (i >= s.size()) {
                    return scan::incomplete;
                }
                if (s[i] != '"') {
                    return scan::invalid;
                }
                if (scan r = string(); r != scan::complete) {
                    return r;
                }
                ws();
                if (i >= s.size()) {
                    return scan::incomplete;
                }
                if (s[i++] != ':') {
                    return scan::invalid;
                }
            }
            if (scan r = value(depth + 1); r != scan::complete) {
                return r;
            }
            ws();
            if (i >= s.size()) {
                return scan::incomplete;
            }
            const char sep = s[i++];
            if (sep == close) {
                return scan::complete;
            }
            if (sep != ',') {
                return scan::invalid;
            }
        }
    }
};

bool call_from_object(const ojson & o, chat_tool_call & out) {
    if (!o.is_object()) {
        return false;
    }
    const char * name_key = o.contains("name") ? "name" : "tool_name";
    const char * args_key = o.contains("arguments") ? "arguments" : "parameters";
    if (!o.contains(name_key) || !o[name_key].is_string() || !o.contains(args_key)) {
        return false;
    }
    const ojson & args = o[args_key];
    if (args.is_string()) {
        // some models write the arguments as a JSON string holding the object
        ojson inner = ojson::parse(args.get<std::string>(), nullptr, false);
        if (inner.is_discarded() || !inner.is_object()) {
            return false;
        }
        out.arguments = inner.dump();
    } else if (args.is_object()) {
        out.arguments = args.dump();
    } else {
        return false;
    }
    out.name = o[name_key].get<std::string>();
    if (out.name.empty()) {
        return false;
    }
    const char * id_key = o.contains("id") ? "id" : "tool_call_id";
    if (o.contains(id_key)) {
        const ojson & id = o[id_key];
        if (id.is_string()) {
            out.id = id.get<std::string>();
        } else if (id.is_number_integer()) {
            out.id = id.dump();
        }
    }
    return true;
}

}  // namespace

scan json_scan(std::string_view s, size_t pos, size_t & end) {
    json_scanner sc{s, pos};
    const scan   r = sc.value(0);
    end            = sc.i;
    return r;
}

bool json_compact(std::string_view text, std::string & out) {
    try {
        ojson v = ojson::parse(text.begin(), text.end(), nullptr, false);
        if (v.is_discarded()) {
            return false;
        }
        out = v.dump();  // throws on invalid UTF-8 inside strings
        return true;
    } catch (const std::exception &) {
        return false;
    }
}

bool json_to_call(std::string_view object_text, chat_tool_call & out) {
    try {
        ojson v = ojson::parse(object_text.begin(), object_text.end(), nullptr, false);
        return !v.is_discarded() && call_from_object(v, out);
    } catch (const std::exception &) {
        return false;
    }
}

bool json_array_to_calls(std::string_view array_text, std::vector<chat_tool_call> & out) {
    try {
        ojson v = ojson::parse(array_text.begin(), array_text.end(), nullptr, false);
        if (v.is_discarded() || !v.is_array() || v.empty()) {
            return false;
        }
        std::vector<chat_tool_call> calls;
        for (const ojson & e : v) {
            chat_tool_call c;
            if (!call_from_object(e, c)) {
                return false;
            }
            calls.push_back(std::move(c));
        }
        out.insert(out.end(), calls.begin(), calls.end());
        return true;
    } catch (const std::exception &) {
        return false;
    }
}

std::vector<std::pair<std::string, std::string>> string_parameters(const std::string & tools_json) {
    std::vector<std::pair<std::string, std::string>> out;
    try {
        ojson tools = ojson::parse(tools_json, nullptr, false);
        if (tools.is_discarded() || !tools.is_array()) {
            return out;
        }
        for (const ojson & t : tools) {
            const ojson & fn = t.is_object() && t.contains("function") ? t["function"] : t;
            if (!fn.is_object() || !fn.contains("name") || !fn["name"].is_string() || !fn.contains("parameters")) {
                continue;
            }
            const ojson & params = fn["parameters"];
            if (!params.is_object() || !params.contains("properties") || !params["properties"].is_object()) {
                continue;
            }
            for (const auto & [key, schema] : params["properties"].items()) {
                if (schema.is_object() && schema.contains("type") && schema["type"] == "string") {
                    out.emplace_back(fn["name"].get<std::string>(), key);
                }
            }
        }
    } catch (const std::exception &) {
        out.clear();
    }
    return out;
}

void cursor::ws() {
    while (i < s.size() && is_ws(s[i])) {
        i++;
    }
}

scan cursor::peek(std::string_view l) const {
    const size_t avail = i < s.size() ? s.size() - i : 0;
    if (avail >= l.size()) {
        return s.compare(i, l.size(), l) == 0 ? scan::complete : scan::invalid;
    }
    return s.compare(i, avail, l.substr(0, avail)) == 0 ? scan::incomplete : scan::invalid;
}

scan cursor::lit(std::string_view l) {
    const scan r = peek(l);
    if (r == scan::complete) {
        i += l.size();
    }
    return r;
}

scan cursor::until(std::string_view stop, size_t max_len, std::string & out) {
    const size_t p = s.find(stop, i);
    if (p == std::string_view::npos) {
        return s.size() - i > max_len + stop.size() ? scan::invalid : scan::incomplete;
    }
    if (p - i > max_len) {
        return scan::invalid;
    }
    out = std::string(s.substr(i, p - i));
    i   = p + stop.size();
    return scan::complete;
}

scan cursor::json(std::string & out) {
    ws();
    size_t     end = 0;
    const scan r   = json_scan(s, i, end);
    if (r != scan::complete) {
        return r;
    }
    if (!json_compact(s.substr(i, end - i), out)) {
        return scan::invalid;
    }
    i = end;
    return scan::complete;
}

}  // namespace llama_tools::chat_impl
