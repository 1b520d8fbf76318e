#include "jinja-value.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace jinja {

value value::make_list(list_t items, bool is_tuple) {
    value v;
    v.k     = kind::list;
    v.l     = std::make_shared<list_t>(std::move(items));
    v.tuple = is_tuple;
    return v;
}

value value::make_dict() {
    value v;
    v.k = kind::dict;
    v.d = std::make_shared<dict_t>();
    return v;
}

value value::make_function(std::string name, std::function<value(call_args &)> call) {
    value v;
    v.k  = kind::function;
    v.fn = std::make_shared<function_t>(function_t{ std::move(name), std::move(call) });
    return v;
}

bool value::truthy() const {
    switch (k) {
        case kind::undefined:
        case kind::none: return false;
        case kind::boolean: return b;
        case kind::integer: return i != 0;
        case kind::floating: return f != 0.0;
        case kind::string: return !s.empty();
        case kind::list: return !l->empty();
        case kind::dict: return d->size() != 0;
        case kind::function: return true;
    }
    return false;
}

double value::as_double() const {
    switch (k) {
        case kind::boolean: return b ? 1.0 : 0.0;
        case kind::integer: return (double) i;
        case kind::floating: return f;
        default: throw error(std::string("expected a number, got ") + type_name());
    }
}

int64_t value::as_int() const {
    switch (k) {
        case kind::boolean: return b ? 1 : 0;
        case kind::integer: return i;
        default: throw error(std::string("expected an integer, got ") + type_name());
    }
}

const char * value::type_name() const {
    switch (k) {
        case kind::undefined: return "undefined";
        case kind::none: return "NoneType";
        case kind::boolean: return "bool";
        case kind::integer: return "int";
        case kind::floating: return "float";
        case kind::string: return "str";
        case kind::list: return tuple ? "tuple" : "list";
        case kind::dict: return d->is_namespace ? "Namespace" : "dict";
        case kind::function: return "function";
    }
    return "?";
}

std::string float_repr(double d) {
    if (std::isnan(d)) {
        return "nan";
    }
    if (std::isinf(d)) {
        return d < 0 ? "-inf" : "inf";
    }
    // shortest precision that round-trips, as Python's repr
    char buf[40];
    int  prec = 1;
    for (; prec <= 17; ++prec) {
        snprintf(buf, sizeof buf, "%.*e", prec - 1, d);
        if (strtod(buf, nullptr) == d) {
            break;
        }
    }
    // buf = "[-]D.DDDDe[+-]XX": split into digits and decimal exponent
    std::string m(buf);
    size_t      epos     = m.find('e');
    int         exp10    = atoi(m.c_str() + epos + 1);
    bool        neg      = m[0] == '-';
    std::string digits;
    for (size_t j = neg ? 1 : 0; j < epos; ++j) {
        if (m[j] != '.') {
            digits += m[j];
        }
    }
    while (digits.size() > 1 && digits.back() == '0') {
        digits.pop_back();
    }
    std::string out = neg ? "-" : "";
    if (exp10 < -4 || exp10 >= 16) {
        out += digits[0];
        if (digits.size() > 1) {
            out += '.';
            out += digits.substr(1);
        }
        char e[16];
        snprintf(e, sizeof e, "e%c%02d", exp10 < 0 ? '-' : '+', std::abs(exp10));
        out += e;
    } else if (exp10 < 0) {
        out += "0.";
        out += std::string((size_t) (-exp10 - 1), '0');
        out += digits;
    } else {
        size_t int_len = (size_t) exp10 + 1;
        if (digits.size() <= int_len) {
            out += digits + std::string(int_len - digits.size(), '0') + ".0";
        } else {
            out += digits.substr(0, int_len) + "." + digits.substr(int_len);
        }
    }
    return out;
}

static bool py_printable(uint32_t cp) {
    // Python's str.isprintable() for the code points templates meet: controls and separators are not
    if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0) || cp == 0xad) {
        return false;
    }
    if (cp == 0x2028 || cp == 0x2029 || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e) ||
        (cp >= 0x2060 && cp <= 0x2064) || cp == 0xfeff || (cp >= 0xd800 && cp <= 0xdfff)) {
        return false;
    }
    return true;
}

static std::string string_repr(const std::string & s) {
    bool has_single = s.find('\'') != std::string::npos;
    bool has_double = s.find('"') != std::string::npos;
    char q          = (has_single && !has_double) ? '"' : '\'';
    std::string out(1, q);
    for (uint32_t cp : utf8_decode(s)) {
        if (cp == (uint32_t) q || cp == '\\') {
            out += '\\';
            out += (char) cp;
        } else if (cp == '\n') {
            out += "\\n";
        } else if (cp == '\r') {
            out += "\\r";
        } else if (cp == '\t') {
            out += "\\t";
        } else if (!py_printable(cp)) {
            char buf[12];
            if (cp < 0x100) {
                snprintf(buf, sizeof buf, "\\x%02x", cp);
            } else if (cp < 0x10000) {
                snprintf(buf, sizeof buf, "\\u%04x", cp);
            } else {
                snprintf(buf, sizeof buf, "\\U%08x", cp);
            }
            out += buf;
        } else {
            utf8_append(out, cp);
        }
    }
    out += q;
    return out;
}

std::string value::str() const {
    switch (k) {
        case kind::undefined: return "";
        case kind::string: return s;
        default: return repr();
    }
}

std::string value::repr() const {
    switch (k) {
        case kind::undefined: return "";
        case kind::none: return "None";
        case kind::boolean: return b ? "True" : "False";
        case kind::integer: return std::to_string(i);
        case kind::floating: return float_repr(f);
        case kind::string: return string_repr(s);
        case kind::list: {
            std::string out = tuple ? "(" : "[";
            for (size_t j = 0; j < l->size(); ++j) {
                if (j) {
                    out += ", ";
                }
                out += (*l)[j].repr();
            }
            if (tuple && l->size() == 1) {
                out += ",";
            }
            return out + (tuple ? ")" : "]");
        }
        case kind::dict: {
            std::string out = d->is_namespace ? "<Namespace {" : "{";
            bool        first = true;
            for (const auto & kv : d->items) {
                if (!first) {
                    out += ", ";
                }
                first = false;
                out += kv.first.repr() + ": " + kv.second.repr();
            }
            return out + (d->is_namespace ? "}>" : "}");
        }
        case kind::function: return "<function " + fn->name + ">";
    }
    return "";
}

// ---- dict ----

std::string dict_t::key_of(const value & k) {
    switch (k.k) {
        case kind::string: return "s" + k.s;
        // 1, 1.0 and True are one key in Python
        case kind::boolean: return "n" + std::to_string(k.b ? 1 : 0);
        case kind::integer: return "n" + std::to_string(k.i);
        case kind::floating:
            if (k.f == std::floor(k.f) && std::fabs(k.f) < 9e15) {
                return "n" + std::to_string((int64_t) k.f);
            }
            return "f" + float_repr(k.f);
        case kind::none: return "N";
        case kind::list:
            if (k.tuple) {
                std::string out = "t";
                for (const auto & e : *k.l) {
                    out += key_of(e) + '\x1f';
                }
                return out;
            }
            break;
        default: break;
    }
    throw error(std::string("unhashable type: '") + k.type_name() + "'");
}

const value * dict_t::find(const value & k) const {
    std::string key;
    try {
        key = key_of(k);
    } catch (const error &) {
        return nullptr;
    }
    auto it = index.find(key);
    return it == index.end() ? nullptr : &items[it->second].second;
}

void dict_t::set(const value & k, value v) {
    std::string key = key_of(k);
    auto        it  = index.find(key);
    if (it != index.end()) {
        items[it->second].second = std::move(v);
        return;
    }
    index.emplace(std::move(key), items.size());
    items.emplace_back(k, std::move(v));
}

// ---- call args ----

bool call_args::has(size_t i, const char * name) const {
    if (i < pos.size()) {
        return true;
    }
    for (const auto & kv : kw) {
        if (kv.first == name) {
            return true;
        }
    }
    return false;
}

value call_args::get(size_t i, const char * name, value def) {
    if (i < pos.size()) {
        return pos[i];
    }
    for (const auto & kv : kw) {
        if (kv.first == name) {
            return kv.second;
        }
    }
    return def;
}

// ---- comparison ----

bool equals(const value & a, const value & b) {
    if (a.is_number() && b.is_number()) {
        if (a.k == kind::floating || b.k == kind::floating) {
            return a.as_double() == b.as_double();
        }
        return a.as_int() == b.as_int();
    }
    if (a.k != b.k) {
        return false;
    }
    switch (a.k) {
        case kind::undefined:
        case kind::none: return true;
        case kind::string: return a.s == b.s;
        case kind::list:
            if (a.l->size() != b.l->size()) {
                return false;
            }
            for (size_t j = 0; j < a.l->size(); ++j) {
                if (!equals((*a.l)[j], (*b.l)[j])) {
                    return false;
                }
            }
            return true;
        case kind::dict:
            if (a.d->size() != b.d->size()) {
                return false;
            }
            for (const auto & kv : a.d->items) {
                const value * o = b.d->find(kv.first);
                if (!o || !equals(kv.second, *o)) {
                    return false;
                }
            }
            return true;
        case kind::function: return a.fn == b.fn;
        default: return false;
    }
}

bool less(const value & a, const value & b) {
    if (a.is_number() && b.is_number()) {
        if (a.k == kind::floating || b.k == kind::floating) {
            return a.as_double() < b.as_double();
        }
        return a.as_int() < b.as_int();
    }
    if (a.is_string() && b.is_string()) {
        return a.s < b.s;  // UTF-8 byte order is code point order
    }
    if (a.is_list() && b.is_list()) {
        size_t n = std::min(a.l->size(), b.l->size());
        for (size_t j = 0; j < n; ++j) {
            if (!equals((*a.l)[j], (*b.l)[j])) {
                return less((*a.l)[j], (*b.l)[j]);
            }
        }
        return a.l->size() < b.l->size();
    }
    throw error(std::string("'<' not supported between instances of '") + a.type_name() + "' and '" +
                b.type_name() + "'");
}

// ---- UTF-8 ----

std::vector<uint32_t> utf8_decode(std::string_view s) {
    std::vector<uint32_t> out;
    out.reserve(s.size());
    size_t j = 0;
    while (j < s.size()) {
        unsigned char c = (unsigned char) s[j];
        uint32_t      cp;
        size_t        n;
        if (c < 0x80) {
            cp = c;
            n  = 1;
        } else if ((c >> 5) == 6) {
            cp = c & 0x1f;
            n  = 2;
        } else if ((c >> 4) == 14) {
            cp = c & 0x0f;
            n  = 3;
        } else if ((c >> 3) == 30) {
            cp = c & 0x07;
            n  = 4;
        } else {
            // invalid lead byte: keep it as a code point of its own so nothing is lost
            out.push_back(0xDC00 | c);
            ++j;
            continue;
        }
        if (j + n > s.size()) {
            out.push_back(0xDC00 | c);
            ++j;
            continue;
        }
        bool ok = true;
        for (size_t t = 1; t < n; ++t) {
            unsigned char cc = (unsigned char) s[j + t];
            if ((cc >> 6) != 2) {
                ok = false;
                break;
            }
            cp = (cp << 6) | (cc & 0x3f);
        }
        if (!ok) {
            out.push_back(0xDC00 | c);
            ++j;
            continue;
        }
        out.push_back(cp);
        j += n;
    }
    return out;
}

void utf8_append(std::string & out, uint32_t cp) {
    if (cp >= 0xDC80 && cp <= 0xDCFF) {
        out += (char) (cp & 0xff);  // an invalid byte kept by utf8_decode
    } else if (cp < 0x80) {
        out += (char) cp;
    } else if (cp < 0x800) {
        out += (char) (0xc0 | (cp >> 6));
        out += (char) (0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        out += (char) (0xe0 | (cp >> 12));
        out += (char) (0x80 | ((cp >> 6) & 0x3f));
        out += (char) (0x80 | (cp & 0x3f));
    } else {
        out += (char) (0xf0 | (cp >> 18));
        out += (char) (0x80 | ((cp >> 12) & 0x3f));
        out += (char) (0x80 | ((cp >> 6) & 0x3f));
        out += (char) (0x80 | (cp & 0x3f));
    }
}

std::string utf8_encode(const std::vector<uint32_t> & cps, size_t from, size_t to) {
    std::string out;
    to = std::min(to, cps.size());
    for (size_t j = from; j < to; ++j) {
        utf8_append(out, cps[j]);
    }
    return out;
}

size_t utf8_length(std::string_view s) {
    for (unsigned char c : s) {
        if (c >= 0x80) {
            return utf8_decode(s).size();  // counts invalid bytes as utf8_decode keeps them
        }
    }
    return s.size();
}

}  // namespace jinja
