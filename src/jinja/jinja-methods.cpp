// Methods of str, list and dict values (`s.strip()`, `d.items()`, ...) with Python's behaviour,
// and the string helpers the filters share.
#include "jinja-builtins.h"
#include "llama-unicode.h"

#include <algorithm>

namespace jinja {

bool py_isspace(uint32_t cp) {
    return (cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x20) || cp == 0x85 || cp == 0xa0 || cp == 0x1680 ||
           (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 || cp == 0x202f || cp == 0x205f ||
           cp == 0x3000;
}

// Case mapping for ASCII, Latin-1, Greek and Cyrillic (the scripts templates meet); other code
// points map to themselves.
uint32_t py_upper(uint32_t c) {
    if (c >= 'a' && c <= 'z') {
        return c - 32;
    }
    if ((c >= 0xe0 && c <= 0xfe && c != 0xf7) || (c >= 0x3b1 && c <= 0x3cb && c != 0x3c2) ||
        (c >= 0x430 && c <= 0x44f)) {
        return c - 32;
    }
    if (c >= 0x450 && c <= 0x45f) {
        return c - 80;
    }
    if (c == 0x3c2) {
        return 0x3a3;
    }
    return c;
}

uint32_t py_lower(uint32_t c) {
    if (c >= 0x80) {
        return llama_unicode_tolower(c);  // the tokenizers' full Unicode table
    }
    if (c >= 'A' && c <= 'Z') {
        return c + 32;
    }
    if ((c >= 0xc0 && c <= 0xde && c != 0xd7) || (c >= 0x391 && c <= 0x3ab && c != 0x3a2) ||
        (c >= 0x410 && c <= 0x42f)) {
        return c + 32;
    }
    if (c >= 0x400 && c <= 0x40f) {
        return c + 80;
    }
    return c;
}

// Numbers (N*) that are not decimal digits (Nd): the No and Nl ranges templates could meet.
static bool not_decimal(uint32_t c) {
    static const uint32_t ranges[][2] = {
        {0x00B2, 0x00B3}, {0x00B9, 0x00B9},   {0x00BC, 0x00BE},   {0x09F4, 0x09F9}, {0x0B72, 0x0B77}, {0x0BF0, 0x0BF2},
        {0x0C78, 0x0C7E}, {0x0D58, 0x0D5E},   {0x0D70, 0x0D78},   {0x0F2A, 0x0F33}, {0x1369, 0x137C}, {0x16EE, 0x16F0},
        {0x17F0, 0x17F9}, {0x19DA, 0x19DA},   {0x2070, 0x2089},   {0x2150, 0x2189}, {0x2460, 0x249B}, {0x24EA, 0x24FF},
        {0x2776, 0x2793}, {0x2CFD, 0x2CFD},   {0x3007, 0x3007},   {0x3021, 0x3029}, {0x3038, 0x303A}, {0x3192, 0x3195},
        {0x3220, 0x3229}, {0x3248, 0x324F},   {0x3251, 0x325F},   {0x3280, 0x3289}, {0x32B1, 0x32BF}, {0xA6E6, 0xA6EF},
        {0xA830, 0xA835}, {0x10107, 0x10133}, {0x10140, 0x10178},
    };
    for (const auto & r : ranges) {
        if (c >= r[0] && c <= r[1]) {
            return true;
        }
    }
    return false;
}

// The non-decimal numbers Python's isdigit() accepts: superscripts, subscripts, circled digits.
static bool digit_like(uint32_t c) {
    return c == 0x00B2 || c == 0x00B3 || c == 0x00B9 || c == 0x2070 || (c >= 0x2074 && c <= 0x2079) ||
           (c >= 0x2080 && c <= 0x2089) || (c >= 0x2460 && c <= 0x2468) || (c >= 0x2474 && c <= 0x247C) ||
           (c >= 0x2488 && c <= 0x2490) || c == 0x24EA || (c >= 0x24F5 && c <= 0x24FD) || c == 0x24FF ||
           (c >= 0x2776 && c <= 0x277E) || (c >= 0x2780 && c <= 0x2788) || (c >= 0x278A && c <= 0x2792);
}

static bool is_cased(uint32_t c) {
    return py_upper(c) != c || py_lower(c) != c;
}

std::string py_upper(const std::string & s) {
    std::string out;
    for (uint32_t c : utf8_decode(s)) {
        utf8_append(out, py_upper(c));
    }
    return out;
}

std::string py_lower(const std::string & s) {
    std::string out;
    for (uint32_t c : utf8_decode(s)) {
        utf8_append(out, py_lower(c));
    }
    return out;
}

std::string py_strip(const std::string & s, const value & chars, bool left, bool right) {
    auto                  cps = utf8_decode(s);
    std::vector<uint32_t> set;
    bool                  ws = chars.is_none() || chars.is_undefined();
    if (!ws) {
        if (!chars.is_string()) {
            throw error("strip arg must be None or str");
        }
        set = utf8_decode(chars.s);
    }
    auto strip_it = [&](uint32_t c) { return ws ? py_isspace(c) : std::find(set.begin(), set.end(), c) != set.end(); };
    size_t b = 0, e = cps.size();
    if (left) {
        while (b < e && strip_it(cps[b])) {
            ++b;
        }
    }
    if (right) {
        while (e > b && strip_it(cps[e - 1])) {
            --e;
        }
    }
    return utf8_encode(cps, b, e);
}

std::vector<std::string> py_split(const std::string & s, const value & sep, int64_t maxsplit) {
    std::vector<std::string> out;
    if (sep.is_none() || sep.is_undefined()) {
        auto   cps = utf8_decode(s);
        size_t j   = 0;
        while (true) {
            while (j < cps.size() && py_isspace(cps[j])) {
                ++j;
            }
            if (j >= cps.size()) {
                break;
            }
            if (maxsplit >= 0 && (int64_t) out.size() >= maxsplit) {
                size_t e = cps.size();
                while (e > j && py_isspace(cps[e - 1])) {
                    --e;
                }
                out.push_back(utf8_encode(cps, j, e));
                break;
            }
            size_t k = j;
            while (k < cps.size() && !py_isspace(cps[k])) {
                ++k;
            }
            out.push_back(utf8_encode(cps, j, k));
            j = k;
        }
        return out;
    }
    if (!sep.is_string()) {
        throw error("split: the separator must be a string");
    }
    if (sep.s.empty()) {
        throw error("empty separator");
    }
    size_t start = 0;
    while (true) {
        size_t at = s.find(sep.s, start);
        if (at == std::string::npos || (maxsplit >= 0 && (int64_t) out.size() >= maxsplit)) {
            out.push_back(s.substr(start));
            return out;
        }
        out.push_back(s.substr(start, at - start));
        start = at + sep.s.size();
    }
}

static std::vector<std::string> py_rsplit(const std::string & s, const value & sep, int64_t maxsplit) {
    if (maxsplit < 0 || sep.is_none() || sep.is_undefined()) {
        if (maxsplit < 0) {
            return py_split(s, sep, -1);
        }
        // whitespace rsplit with a limit: split from the right
        auto                     cps = utf8_decode(s);
        std::vector<std::string> out;
        int64_t                  e = (int64_t) cps.size();
        while (true) {
            while (e > 0 && py_isspace(cps[(size_t) e - 1])) {
                --e;
            }
            if (e <= 0) {
                break;
            }
            if ((int64_t) out.size() >= maxsplit) {
                size_t b = 0;
                while ((int64_t) b < e && py_isspace(cps[b])) {
                    ++b;
                }
                out.push_back(utf8_encode(cps, b, (size_t) e));
                break;
            }
            int64_t k = e;
            while (k > 0 && !py_isspace(cps[(size_t) k - 1])) {
                --k;
            }
            out.push_back(utf8_encode(cps, (size_t) k, (size_t) e));
            e = k;
        }
        std::reverse(out.begin(), out.end());
        return out;
    }
    if (!sep.is_string() || sep.s.empty()) {
        throw error("rsplit: the separator must be a non-empty string");
    }
    std::vector<std::string> out;
    size_t                   end = s.size();
    while ((int64_t) out.size() < maxsplit) {
        if (end < sep.s.size()) {
            break;
        }
        size_t at = s.rfind(sep.s, end - sep.s.size());
        if (at == std::string::npos) {
            break;
        }
        out.push_back(s.substr(at + sep.s.size(), end - at - sep.s.size()));
        end = at;
    }
    out.push_back(s.substr(0, end));
    std::reverse(out.begin(), out.end());
    return out;
}

std::vector<std::string> py_splitlines(const std::string & s, bool keepends) {
    auto                     cps = utf8_decode(s);
    std::vector<std::string> out;
    size_t                   start = 0;
    for (size_t j = 0; j < cps.size(); ++j) {
        uint32_t c        = cps[j];
        bool     is_break = c == '\n' || c == '\r' || c == 0x0b || c == 0x0c || (c >= 0x1c && c <= 0x1e) || c == 0x85 ||
                        c == 0x2028 || c == 0x2029;
        if (!is_break) {
            continue;
        }
        size_t end = j + 1;
        if (c == '\r' && j + 1 < cps.size() && cps[j + 1] == '\n') {
            end = j + 2;
        }
        out.push_back(utf8_encode(cps, start, keepends ? end : j));
        start = end;
        j     = end - 1;
    }
    if (start < cps.size()) {
        out.push_back(utf8_encode(cps, start, cps.size()));
    }
    return out;
}

std::string py_replace(const std::string & s, const std::string & old, const std::string & rep, int64_t count) {
    std::string out;
    if (old.empty()) {  // Python inserts rep around every character
        auto    cps = utf8_decode(s);
        int64_t n   = 0;
        for (size_t j = 0; j <= cps.size(); ++j) {
            if (count < 0 || n < count) {
                out += rep;
                ++n;
            }
            if (j < cps.size()) {
                utf8_append(out, cps[j]);
            }
        }
        return out;
    }
    size_t  start = 0;
    int64_t n     = 0;
    while (count < 0 || n < count) {
        size_t at = s.find(old, start);
        if (at == std::string::npos) {
            break;
        }
        out += s.substr(start, at - start);
        out += rep;
        start = at + old.size();
        ++n;
    }
    out += s.substr(start);
    return out;
}

std::string html_escape(const std::string & s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&#34;";
                break;
            case '\'':
                out += "&#39;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

static value str_list(const std::vector<std::string> & parts) {
    list_t l;
    for (const auto & p : parts) {
        l.emplace_back(p);
    }
    return value::make_list(std::move(l));
}

static int64_t cp_index(const std::string & s, size_t byte_pos) {
    return (int64_t) utf8_length(std::string_view(s).substr(0, byte_pos));
}

// s[start:end] for the optional start / end arguments (positions 1 and 2) of find, count,
// startswith, ...: Python's slice bounds, in code points; off gets start.
static std::string str_window(const std::string & s, call_args & a, int64_t & off) {
    value vs = a.get(1, "start", value::null()), ve = a.get(2, "end", value::null());
    off = 0;
    if ((vs.is_none() || vs.is_undefined()) && (ve.is_none() || ve.is_undefined())) {
        return s;
    }
    auto    cps   = utf8_decode(s);
    int64_t n     = (int64_t) cps.size();
    auto    bound = [n](const value & v, int64_t def) {
        if (v.is_none() || v.is_undefined()) {
            return def;
        }
        int64_t x = v.as_int();
        if (x < 0) {
            x = std::max<int64_t>(0, x + n);
        }
        return std::min(x, n);
    };
    int64_t b = bound(vs, 0), e = bound(ve, n);
    off = b;
    return e > b ? utf8_encode(cps, (size_t) b, (size_t) e) : std::string();
}

static bool affix_match(const value & affix, const std::string & s, bool prefix) {
    auto one = [&](const value & a) {
        if (!a.is_string()) {
            throw error("startswith/endswith: expected a string or a tuple of strings");
        }
        if (a.s.size() > s.size()) {
            return false;
        }
        return prefix ? s.compare(0, a.s.size(), a.s) == 0 : s.compare(s.size() - a.s.size(), a.s.size(), a.s) == 0;
    };
    if (affix.is_list()) {
        for (const auto & a : *affix.l) {
            if (one(a)) {
                return true;
            }
        }
        return false;
    }
    return one(affix);
}

static value str_method(render_state & st, const std::string & s, const std::string & name) {
    using fn = std::function<value(call_args &)>;
    fn f;
    if (name == "strip" || name == "lstrip" || name == "rstrip") {
        bool l = name != "rstrip", r = name != "lstrip";
        f = [s, l, r](call_args & a) { return value(py_strip(s, a.get(0, "chars", value::null()), l, r)); };
    } else if (name == "split" || name == "rsplit") {
        bool rs = name == "rsplit";
        f       = [s, rs](call_args & a) {
            value   sep = a.get(0, "sep", value::null());
            int64_t max = a.get(1, "maxsplit", value(-1)).as_int();
            return str_list(rs ? py_rsplit(s, sep, max) : py_split(s, sep, max));
        };
    } else if (name == "splitlines") {
        f = [s](call_args & a) { return str_list(py_splitlines(s, a.get(0, "keepends", value(false)).truthy())); };
    } else if (name == "startswith" || name == "endswith") {
        bool pre = name == "startswith";
        f        = [s, pre](call_args & a) {
            int64_t off = 0;
            return value(affix_match(a.get(0, "prefix"), str_window(s, a, off), pre));
        };
    } else if (name == "upper") {
        f = [s](call_args &) { return value(py_upper(s)); };
    } else if (name == "lower") {
        f = [s](call_args &) { return value(py_lower(s)); };
    } else if (name == "title") {
        f = [s](call_args &) {
            std::string out;
            bool        prev_cased = false;
            for (uint32_t c : utf8_decode(s)) {
                utf8_append(out, prev_cased ? py_lower(c) : py_upper(c));
                prev_cased = is_cased(c);
            }
            return value(out);
        };
    } else if (name == "capitalize") {
        f = [s](call_args &) {
            auto        cps = utf8_decode(s);
            std::string out;
            for (size_t j = 0; j < cps.size(); ++j) {
                utf8_append(out, j == 0 ? py_upper(cps[j]) : py_lower(cps[j]));
            }
            return value(out);
        };
    } else if (name == "replace") {
        render_state * stp = &st;
        f                  = [s, stp](call_args & a) {
            value o = a.get(0, "old"), r = a.get(1, "new");
            if (!o.is_string() || !r.is_string()) {
                throw error("replace() arguments must be strings");
            }
            std::string out = py_replace(s, o.s, r.s, a.get(2, "count", value(-1)).as_int());
            stp->check_size(out.size());
            return value(out);
        };
    } else if (name == "find" || name == "rfind" || name == "index" || name == "rindex" || name == "count") {
        f = [whole = s, name](call_args & a) {
            value sub = a.get(0, "sub");
            if (!sub.is_string()) {
                throw error(name + "() argument must be a string");
            }
            int64_t           off = 0;  // code points before the window
            const std::string s   = str_window(whole, a, off);
            if (name == "count") {
                if (sub.s.empty()) {
                    return value((int64_t) utf8_length(s) + 1);
                }
                int64_t n = 0;
                for (size_t at = s.find(sub.s); at != std::string::npos; at = s.find(sub.s, at + sub.s.size())) {
                    ++n;
                }
                return value(n);
            }
            size_t at = name[0] == 'r' ? s.rfind(sub.s) : s.find(sub.s);
            if (at == std::string::npos) {
                if (name == "index" || name == "rindex") {
                    throw error("substring not found");
                }
                return value((int64_t) -1);
            }
            return value(off + cp_index(s, at));
        };
    } else if (name == "join") {
        render_state * stp = &st;
        f                  = [s, stp](call_args & a) {
            std::string out;
            bool        first = true;
            for (const auto & e : iterate(a.get(0, "iterable"))) {
                if (!e.is_string()) {
                    throw error(std::string("sequence item: expected str instance, ") + e.type_name() + " found");
                }
                if (!first) {
                    out += s;
                }
                first = false;
                out += e.s;
                stp->check_size(out.size());
            }
            return value(out);
        };
    } else if (name == "isdigit" || name == "isdecimal" || name == "isnumeric" || name == "isalpha" ||
               name == "isalnum" || name == "isspace" || name == "islower" || name == "isupper") {
        f = [s, name](call_args &) {
            auto cps = utf8_decode(s);
            if (cps.empty()) {
                return value(false);
            }
            if (name == "islower" || name == "isupper") {
                bool any = false;
                for (uint32_t c : cps) {
                    if (is_cased(c)) {
                        any = true;
                        if ((name == "islower") ? py_lower(c) != c : py_upper(c) != c) {
                            return value(false);
                        }
                    }
                }
                return value(any);
            }
            for (uint32_t c : cps) {
                const uint16_t fl    = llama_unicode_flags(c);
                const bool     alpha = (fl & LLAMA_UNICODE_LETTER) != 0;
                const bool     num   = (fl & LLAMA_UNICODE_NUMBER) != 0;
                bool           ok;
                if (name == "isspace") {
                    ok = py_isspace(c);
                } else if (name == "isalpha") {
                    ok = alpha;
                } else if (name == "isalnum") {
                    ok = alpha || num;
                } else if (name == "isnumeric") {
                    ok = num;
                } else if (name == "isdigit") {
                    ok = num && (!not_decimal(c) || digit_like(c));
                } else {  // isdecimal
                    ok = num && !not_decimal(c);
                }
                if (!ok) {
                    return value(false);
                }
            }
            return value(true);
        };
    } else if (name == "removeprefix" || name == "removesuffix") {
        bool pre = name == "removeprefix";
        f        = [s, pre](call_args & a) {
            value x = a.get(0, "prefix");
            if (!x.is_string()) {
                throw error("removeprefix/removesuffix expect a string");
            }
            if (affix_match(x, s, pre)) {
                return value(pre ? s.substr(x.s.size()) : s.substr(0, s.size() - x.s.size()));
            }
            return value(s);
        };
    } else if (name == "partition" || name == "rpartition") {
        bool r = name == "rpartition";
        f      = [s, r](call_args & a) {
            value sep = a.get(0, "sep");
            if (!sep.is_string() || sep.s.empty()) {
                throw error("partition expects a non-empty string");
            }
            size_t at = r ? s.rfind(sep.s) : s.find(sep.s);
            if (at == std::string::npos) {
                return value::make_list(
                         r ? list_t{value(""), value(""), value(s)} : list_t{value(s), value(""), value("")}, true);
            }
            return value::make_list({value(s.substr(0, at)), sep, value(s.substr(at + sep.s.size()))}, true);
        };
    } else if (name == "format") {
        f = [s](call_args & a) {
            std::string out;
            size_t      auto_idx = 0;
            for (size_t j = 0; j < s.size(); ++j) {
                char c = s[j];
                if (c == '{' && j + 1 < s.size() && s[j + 1] == '{') {
                    out += '{';
                    ++j;
                } else if (c == '}' && j + 1 < s.size() && s[j + 1] == '}') {
                    out += '}';
                    ++j;
                } else if (c == '{') {
                    size_t close = s.find('}', j);
                    if (close == std::string::npos) {
                        throw error("single '{' encountered in format string");
                    }
                    std::string field = s.substr(j + 1, close - j - 1);
                    if (field.find(':') != std::string::npos || field.find('!') != std::string::npos) {
                        throw error("format specifications are not supported in str.format");
                    }
                    value v;
                    if (field.empty()) {
                        v = auto_idx < a.pos.size() ? a.pos[auto_idx] : value::undef();
                        ++auto_idx;
                    } else if (isdigit((unsigned char) field[0])) {
                        size_t k = (size_t) atoi(field.c_str());
                        v        = k < a.pos.size() ? a.pos[k] : value::undef();
                    } else {
                        v = a.get(SIZE_MAX, field.c_str());
                    }
                    if (v.is_undefined()) {
                        throw error("str.format: missing argument '" + field + "'");
                    }
                    out += v.str();
                    j = close;
                } else {
                    out += c;
                }
            }
            return value(out);
        };
    } else {
        return value::undef();
    }
    return value::make_function("str." + name, std::move(f));
}

value method_of(render_state & st, const value & obj, const std::string & name) {
    if (obj.is_string()) {
        return str_method(st, obj.s, name);
    }
    if (obj.is_list()) {
        static const char * unsafe[] = {"append", "extend", "insert", "pop", "remove", "reverse", "sort", "clear"};
        for (const char * u : unsafe) {
            if (name == u) {
                return value::undef("access to attribute '" + name + "' of '" + obj.type_name() + "' object is unsafe");
            }
        }
        value self = obj;
        if (name == "index" || name == "count") {
            bool idx = name == "index";
            return value::make_function("list." + name, [self, idx](call_args & a) {
                value   x = a.get(0, "value");
                int64_t n = 0;
                for (size_t j = 0; j < self.l->size(); ++j) {
                    if (equals((*self.l)[j], x)) {
                        if (idx) {
                            return value((int64_t) j);
                        }
                        ++n;
                    }
                }
                if (idx) {
                    throw error(x.repr() + " is not in list");
                }
                return value(n);
            });
        }
        return value::undef();
    }
    if (obj.is_dict()) {
        static const char * unsafe[] = {"clear", "pop", "popitem", "setdefault", "update"};
        for (const char * u : unsafe) {
            if (name == u) {
                return value::undef("access to attribute '" + name + "' of 'dict' object is unsafe");
            }
        }
        value self = obj;
        if (name == "items") {
            return value::make_function("dict.items", [self](call_args &) {
                list_t out;
                for (const auto & kv : self.d->items) {
                    out.push_back(value::make_list({kv.first, kv.second}, true));
                }
                return value::make_list(std::move(out));
            });
        }
        if (name == "keys" || name == "values") {
            bool keys = name == "keys";
            return value::make_function("dict." + name, [self, keys](call_args &) {
                list_t out;
                for (const auto & kv : self.d->items) {
                    out.push_back(keys ? kv.first : kv.second);
                }
                return value::make_list(std::move(out));
            });
        }
        if (name == "get") {
            return value::make_function("dict.get", [self](call_args & a) {
                const value * v = self.d->find(a.get(0, "key"));
                return v ? *v : a.get(1, "default", value::null());
            });
        }
        if (name == "copy") {
            return value::make_function("dict.copy", [self](call_args &) {
                value d           = value::make_dict();
                *d.d              = *self.d;
                d.d->is_namespace = false;
                return d;
            });
        }
    }
    return value::undef();
}

}  // namespace jinja
