// JSON in and out of Jinja values, as Python's json module writes and reads it (the `tojson`
// filter of chat templates is json.dumps with ensure_ascii=False and insertion key order).
#include "jinja-value.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace jinja {

static void json_string(std::string & out, const std::string & s, bool ensure_ascii) {
    out += '"';
    for (uint32_t cp : utf8_decode(s)) {
        switch (cp) {
            case '"': out += "\\\""; continue;
            case '\\': out += "\\\\"; continue;
            case '\n': out += "\\n"; continue;
            case '\r': out += "\\r"; continue;
            case '\t': out += "\\t"; continue;
            case '\b': out += "\\b"; continue;
            case '\f': out += "\\f"; continue;
            default: break;
        }
        char buf[16];
        if (cp < 0x20 || (ensure_ascii && cp >= 0x7f)) {
            if (cp >= 0x10000 && !(cp >= 0xDC80 && cp <= 0xDCFF)) {
                uint32_t v = cp - 0x10000;
                snprintf(buf, sizeof buf, "\\u%04x\\u%04x", 0xD800 + (v >> 10), 0xDC00 + (v & 0x3ff));
            } else {
                snprintf(buf, sizeof buf, "\\u%04x", cp);
            }
            out += buf;
        } else {
            utf8_append(out, cp);
        }
    }
    out += '"';
}

static std::string json_key(const value & k) {
    switch (k.k) {
        case kind::string: return k.s;
        case kind::boolean: return k.b ? "true" : "false";
        case kind::none: return "null";
        case kind::integer: return std::to_string(k.i);
        case kind::floating: return float_repr(k.f);
        default: throw error(std::string("keys must be str, int, float, bool or None, not ") + k.type_name());
    }
}

static void dump(std::string & out, const value & v, const json_style & st, int level) {
    if (level > 512) {
        throw error("tojson: nesting too deep");
    }
    auto newline = [&](int lvl) {
        if (st.indent >= 0) {
            out += '\n';
            out.append((size_t) st.indent * (size_t) lvl, ' ');
        }
    };
    switch (v.k) {
        case kind::none: out += "null"; return;
        case kind::boolean: out += v.b ? "true" : "false"; return;
        case kind::integer: out += std::to_string(v.i); return;
        case kind::floating:
            if (std::isnan(v.f)) {
                out += "NaN";
            } else if (std::isinf(v.f)) {
                out += v.f < 0 ? "-Infinity" : "Infinity";
            } else {
                out += float_repr(v.f);
            }
            return;
        case kind::string: json_string(out, v.s, st.ensure_ascii); return;
        case kind::list: {
            if (v.l->empty()) {
                out += "[]";
                return;
            }
            out += '[';
            for (size_t j = 0; j < v.l->size(); ++j) {
                if (j) {
                    out += st.item_sep;
                }
                newline(level + 1);
                dump(out, (*v.l)[j], st, level + 1);
            }
            newline(level);
            out += ']';
            return;
        }
        case kind::dict: {
            if (v.d->size() == 0) {
                out += "{}";
                return;
            }
            std::vector<std::pair<std::string, const value *>> items;
            for (const auto & kv : v.d->items) {
                items.emplace_back(json_key(kv.first), &kv.second);
            }
            if (st.sort_keys) {
                std::stable_sort(items.begin(), items.end(),
                                 [](const auto & a, const auto & b) { return a.first < b.first; });
            }
            out += '{';
            for (size_t j = 0; j < items.size(); ++j) {
                if (j) {
                    out += st.item_sep;
                }
                newline(level + 1);
                json_string(out, items[j].first, st.ensure_ascii);
                out += st.key_sep;
                dump(out, *items[j].second, st, level + 1);
            }
            newline(level);
            out += '}';
            return;
        }
        case kind::undefined: throw error("Object of type Undefined is not JSON serializable");
        case kind::function: throw error("Object of type function is not JSON serializable");
    }
}

std::string to_json(const value & v, const json_style & style) {
    std::string out;
    dump(out, v, style, 0);
    return out;
}

namespace {

struct json_reader {
    std::string_view t;
    size_t           p = 0;

    [[noreturn]] void fail(const char * what) const {
        throw error(std::string("invalid JSON at offset ") + std::to_string(p) + ": " + what);
    }
    void ws() {
        while (p < t.size() && (t[p] == ' ' || t[p] == '\t' || t[p] == '\n' || t[p] == '\r')) {
            ++p;
        }
    }
    bool lit(const char * w) {
        size_t n = strlen(w);
        if (t.substr(p, n) == w) {
            p += n;
            return true;
        }
        return false;
    }
    uint32_t hex4() {
        if (p + 4 > t.size()) {
            fail("short \\u escape");
        }
        uint32_t v = 0;
        for (int j = 0; j < 4; ++j) {
            char c = t[p++];
            v <<= 4;
            if (c >= '0' && c <= '9') {
                v |= (uint32_t) (c - '0');
            } else if (c >= 'a' && c <= 'f') {
                v |= (uint32_t) (c - 'a' + 10);
            } else if (c >= 'A' && c <= 'F') {
                v |= (uint32_t) (c - 'A' + 10);
            } else {
                fail("bad \\u escape");
            }
        }
        return v;
    }
    std::string str() {
        ++p;  // opening quote
        std::string out;
        while (true) {
            if (p >= t.size()) {
                fail("unterminated string");
            }
            char c = t[p++];
            if (c == '"') {
                return out;
            }
            if ((unsigned char) c < 0x20) {
                fail("control character in string");
            }
            if (c != '\\') {
                out += c;
                continue;
            }
            if (p >= t.size()) {
                fail("unterminated string");
            }
            char e = t[p++];
            switch (e) {
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case '/': out += '/'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    uint32_t cp = hex4();
                    if (cp >= 0xD800 && cp < 0xDC00 && t.substr(p, 2) == "\\u") {
                        size_t   save = p;
                        p += 2;
                        uint32_t lo = hex4();
                        if (lo >= 0xDC00 && lo < 0xE000) {
                            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        } else {
                            p = save;
                        }
                    }
                    utf8_append(out, cp >= 0xDC80 && cp <= 0xDCFF ? 0xFFFD : cp);
                    break;
                }
                default: fail("bad escape");
            }
        }
    }
    value number() {
        size_t start = p;
        bool   is_float = false;
        if (t[p] == '-') {
            ++p;
        }
        if (p >= t.size() || !isdigit((unsigned char) t[p])) {
            fail("bad number");
        }
        if (t[p] == '0') {
            ++p;
        } else {
            while (p < t.size() && isdigit((unsigned char) t[p])) {
                ++p;
            }
        }
        if (p < t.size() && t[p] == '.') {
            is_float = true;
            ++p;
            if (p >= t.size() || !isdigit((unsigned char) t[p])) {
                fail("bad number");
            }
            while (p < t.size() && isdigit((unsigned char) t[p])) {
                ++p;
            }
        }
        if (p < t.size() && (t[p] == 'e' || t[p] == 'E')) {
            is_float = true;
            ++p;
            if (p < t.size() && (t[p] == '+' || t[p] == '-')) {
                ++p;
            }
            if (p >= t.size() || !isdigit((unsigned char) t[p])) {
                fail("bad number");
            }
            while (p < t.size() && isdigit((unsigned char) t[p])) {
                ++p;
            }
        }
        std::string num(t.substr(start, p - start));
        if (!is_float) {
            errno = 0;
            char *    end = nullptr;
            long long v   = strtoll(num.c_str(), &end, 10);
            if (errno == 0) {
                return value((int64_t) v);
            }
        }
        return value(strtod(num.c_str(), nullptr));
    }
    value any(int depth) {
        if (depth > 512) {
            fail("nesting too deep");
        }
        ws();
        if (p >= t.size()) {
            fail("unexpected end");
        }
        char c = t[p];
        if (c == '{') {
            ++p;
            value obj = value::make_dict();
            ws();
            if (p < t.size() && t[p] == '}') {
                ++p;
                return obj;
            }
            while (true) {
                ws();
                if (p >= t.size() || t[p] != '"') {
                    fail("expected a key");
                }
                std::string key = str();
                ws();
                if (p >= t.size() || t[p] != ':') {
                    fail("expected ':'");
                }
                ++p;
                obj.d->set(key, any(depth + 1));
                ws();
                if (p < t.size() && t[p] == ',') {
                    ++p;
                    continue;
                }
                if (p < t.size() && t[p] == '}') {
                    ++p;
                    return obj;
                }
                fail("expected ',' or '}'");
            }
        }
        if (c == '[') {
            ++p;
            value arr = value::make_list();
            ws();
            if (p < t.size() && t[p] == ']') {
                ++p;
                return arr;
            }
            while (true) {
                arr.l->push_back(any(depth + 1));
                ws();
                if (p < t.size() && t[p] == ',') {
                    ++p;
                    continue;
                }
                if (p < t.size() && t[p] == ']') {
                    ++p;
                    return arr;
                }
                fail("expected ',' or ']'");
            }
        }
        if (c == '"') {
            return value(str());
        }
        if (lit("true")) {
            return value(true);
        }
        if (lit("false")) {
            return value(false);
        }
        if (lit("null")) {
            return value::null();
        }
        if (c == '-' || isdigit((unsigned char) c)) {
            return number();
        }
        fail("unexpected character");
    }
};

}  // namespace

value from_json(std::string_view text) {
    json_reader r{ text };
    value       v = r.any(0);
    r.ws();
    if (r.p != text.size()) {
        r.fail("trailing characters");
    }
    return v;
}

}  // namespace jinja
