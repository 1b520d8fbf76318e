// Attribute and item access, the global functions and the tests of the template language.
// Filters are in jinja-filters.cpp, str/list/dict methods in jinja-methods.cpp.
#include "jinja-builtins.h"

#include <cmath>
#include <cstdio>
#include <ctime>

namespace jinja {

void require_defined(const value & v) {
    if (v.is_undefined()) {
        throw error(v.s.empty() ? std::string("a value is undefined") : v.s);
    }
}

list_t iterate(const value & v) {
    switch (v.k) {
        case kind::undefined: return {};
        case kind::list: return *v.l;
        case kind::dict: {
            list_t keys;
            for (const auto & kv : v.d->items) {
                keys.push_back(kv.first);
            }
            return keys;
        }
        case kind::string: {
            list_t chars;
            for (uint32_t cp : utf8_decode(v.s)) {
                std::string c;
                utf8_append(c, cp);
                chars.emplace_back(c);
            }
            return chars;
        }
        default: throw error(std::string("'") + v.type_name() + "' object is not iterable");
    }
}

value get_attr(render_state & st, const value & obj, const std::string & name) {
    if (obj.is_dict()) {
        if (!obj.d->is_namespace) {
            value m = method_of(st, obj, name);
            if (!m.is_undefined() || !m.s.empty()) {  // a method, or the refusal of an unsafe one
                return m;
            }
        }
        if (const value * v = obj.d->find(name)) {
            return *v;
        }
        return value::undef("'" + std::string(obj.type_name()) + " object' has no attribute '" + name + "'");
    }
    value m = method_of(st, obj, name);
    if (!m.is_undefined() || !m.s.empty()) {
        return m;
    }
    return value::undef("'" + std::string(obj.type_name()) + " object' has no attribute '" + name + "'");
}

value get_item(render_state & st, const value & obj, const value & index) {
    if (obj.is_dict()) {
        if (const value * v = obj.d->find(index)) {
            return *v;
        }
        if (index.is_string()) {
            return get_attr(st, obj, index.s);
        }
        return value::undef("'dict object' has no attribute " + index.repr());
    }
    if ((obj.is_list() || obj.is_string()) && (index.k == kind::integer || index.k == kind::boolean)) {
        int64_t i = index.as_int();
        if (obj.is_list()) {
            int64_t n = (int64_t) obj.l->size();
            if (i < 0) {
                i += n;
            }
            if (i < 0 || i >= n) {
                return value::undef(std::string(obj.type_name()) + " object has no element " + index.repr());
            }
            return (*obj.l)[(size_t) i];
        }
        auto    cps = utf8_decode(obj.s);
        int64_t n   = (int64_t) cps.size();
        if (i < 0) {
            i += n;
        }
        if (i < 0 || i >= n) {
            return value::undef("str object has no element " + index.repr());
        }
        std::string c;
        utf8_append(c, cps[(size_t) i]);
        return value(c);
    }
    if (index.is_string()) {
        return get_attr(st, obj, index.s);
    }
    return value::undef(std::string(obj.type_name()) + " object has no element " + index.repr());
}

// ---- tests ----

static bool test_impl(render_state & st, const std::string & name, const value & v, call_args & a, bool & known) {
    known     = true;
    auto arg0 = [&]() { return a.get(0, "value"); };
    if (name == "defined") {
        return !v.is_undefined();
    }
    if (name == "undefined") {
        return v.is_undefined();
    }
    if (name == "none") {
        return v.is_none();
    }
    if (name == "boolean") {
        return v.k == kind::boolean;
    }
    if (name == "true") {
        return v.k == kind::boolean && v.b;
    }
    if (name == "false") {
        return v.k == kind::boolean && !v.b;
    }
    if (name == "integer") {
        return v.k == kind::integer;
    }
    if (name == "float") {
        return v.k == kind::floating;
    }
    if (name == "number") {
        return v.is_number();
    }
    if (name == "string") {
        return v.is_string();
    }
    if (name == "mapping") {
        return v.is_dict();
    }
    if (name == "iterable") {
        return v.is_undefined() || v.is_string() || v.is_list() || v.is_dict();
    }
    if (name == "sequence") {
        return v.is_undefined() || v.is_string() || v.is_list() || v.is_dict();
    }
    if (name == "callable") {
        return v.is_callable();
    }
    if (name == "odd" || name == "even") {
        require_defined(v);
        int64_t i = v.as_int();
        return (i % 2 != 0) == (name == "odd");
    }
    if (name == "divisibleby") {
        int64_t d = arg0().as_int();
        if (d == 0) {
            throw error("integer division or modulo by zero");
        }
        return v.as_int() % d == 0;
    }
    if (name == "lower" || name == "upper") {
        if (!v.is_string()) {
            return false;
        }
        bool has_cased = false;
        for (char c : v.s) {
            if ((name == "lower" && c >= 'A' && c <= 'Z') || (name == "upper" && c >= 'a' && c <= 'z')) {
                return false;
            }
            has_cased |= (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
        }
        return has_cased;
    }
    if (name == "eq" || name == "equalto" || name == "==") {
        return equals(v, arg0());
    }
    if (name == "ne" || name == "!=") {
        return !equals(v, arg0());
    }
    if (name == "lt" || name == "lessthan" || name == "<") {
        return less(v, arg0());
    }
    if (name == "le" || name == "<=") {
        return !less(arg0(), v);
    }
    if (name == "gt" || name == "greaterthan" || name == ">") {
        return less(arg0(), v);
    }
    if (name == "ge" || name == ">=") {
        return !less(v, arg0());
    }
    if (name == "in") {
        value c = arg0();
        if (c.is_string()) {
            return v.is_string() && c.s.find(v.s) != std::string::npos;
        }
        for (const auto & e : iterate(c)) {
            if (equals(e, v)) {
                return true;
            }
        }
        return false;
    }
    if (name == "sameas") {
        value o = arg0();
        if (v.k != o.k) {
            return false;
        }
        switch (v.k) {
            case kind::list: return v.l == o.l;
            case kind::dict: return v.d == o.d;
            case kind::function: return v.fn == o.fn;
            default: return equals(v, o);
        }
    }
    if (name == "escaped") {
        return false;
    }
    if (name == "filter") {
        return arg0().is_string() && has_filter(arg0().s);
    }
    if (name == "test") {
        return arg0().is_string() && has_test(arg0().s);
    }
    (void) st;
    known = false;
    return false;
}

bool has_test(const std::string & name) {
    static const char * names[] = { "defined", "undefined", "none", "boolean", "true", "false", "integer", "float",
                                    "number", "string", "mapping", "iterable", "sequence", "callable", "odd",
                                    "even", "divisibleby", "lower", "upper", "eq", "equalto", "==", "ne", "!=",
                                    "lt", "lessthan", "<", "le", "<=", "gt", "greaterthan", ">", "ge", ">=", "in",
                                    "sameas", "escaped", "filter", "test" };
    for (const char * n : names) {
        if (name == n) {
            return true;
        }
    }
    return false;
}

bool apply_test(render_state & st, const std::string & name, const value & v, call_args & args) {
    bool known = false;
    bool r     = test_impl(st, name, v, args, known);
    if (!known) {
        throw error("no test named '" + name + "'");
    }
    return r;
}

// ---- globals ----

// Civil date from days since 1970-01-01 (Howard Hinnant's algorithm), so formatting needs no
// OS time functions.
static void civil_from_days(int64_t z, int & y, int & m, int & d) {
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t yy  = yoe + era * 400;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp  = (5 * doy + 2) / 153;
    d           = (int) (doy - (153 * mp + 2) / 5 + 1);
    m           = (int) (mp < 10 ? mp + 3 : mp - 9);
    y           = (int) (yy + (m <= 2));
}

std::string format_time(const std::string & fmt, int64_t t) {
    static const char * months[] = { "January", "February", "March",     "April",   "May",      "June",
                                     "July",    "August",   "September", "October", "November", "December" };
    static const char * days[]   = { "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday" };
    int64_t days_since = t >= 0 ? t / 86400 : -((-t + 86399) / 86400);
    int64_t secs       = t - days_since * 86400;
    int     y, m, d;
    civil_from_days(days_since, y, m, d);
    int wday = (int) (((days_since % 7) + 7 + 4) % 7);  // 1970-01-01 was a Thursday
    int H = (int) (secs / 3600), M = (int) (secs / 60 % 60), S = (int) (secs % 60);
    static const int cum[] = { 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334 };
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    int  yday = cum[m - 1] + d + (leap && m > 2 ? 1 : 0);
    std::string out;
    char        buf[32];
    for (size_t j = 0; j < fmt.size(); ++j) {
        if (fmt[j] != '%' || j + 1 >= fmt.size()) {
            out += fmt[j];
            continue;
        }
        char c = fmt[++j];
        if (c == '-' && j + 1 < fmt.size()) {  // glibc's no-padding flag (%-d)
            char c2 = fmt[++j];
            int  vv = c2 == 'd' ? d : c2 == 'm' ? m : c2 == 'H' ? H : c2 == 'M' ? M : c2 == 'S' ? S
                    : c2 == 'I' ? (H % 12 == 0 ? 12 : H % 12) : c2 == 'j' ? yday : -1;
            if (vv < 0) {
                out += "%-";
                out += c2;
            } else {
                out += std::to_string(vv);
            }
            continue;
        }
        switch (c) {
            case 'Y': snprintf(buf, sizeof buf, "%d", y); break;
            case 'y': snprintf(buf, sizeof buf, "%02d", ((y % 100) + 100) % 100); break;
            case 'm': snprintf(buf, sizeof buf, "%02d", m); break;
            case 'd': snprintf(buf, sizeof buf, "%02d", d); break;
            case 'e': snprintf(buf, sizeof buf, "%2d", d); break;
            case 'H': snprintf(buf, sizeof buf, "%02d", H); break;
            case 'I': snprintf(buf, sizeof buf, "%02d", H % 12 == 0 ? 12 : H % 12); break;
            case 'M': snprintf(buf, sizeof buf, "%02d", M); break;
            case 'S': snprintf(buf, sizeof buf, "%02d", S); break;
            case 'p': snprintf(buf, sizeof buf, "%s", H < 12 ? "AM" : "PM"); break;
            case 'j': snprintf(buf, sizeof buf, "%03d", yday); break;
            case 'B': snprintf(buf, sizeof buf, "%s", months[m - 1]); break;
            case 'b':
            case 'h': snprintf(buf, sizeof buf, "%.3s", months[m - 1]); break;
            case 'A': snprintf(buf, sizeof buf, "%s", days[wday]); break;
            case 'a': snprintf(buf, sizeof buf, "%.3s", days[wday]); break;
            case 'w': snprintf(buf, sizeof buf, "%d", wday); break;
            case 'F': snprintf(buf, sizeof buf, "%d-%02d-%02d", y, m, d); break;
            case 'T': snprintf(buf, sizeof buf, "%02d:%02d:%02d", H, M, S); break;
            case 'Z': snprintf(buf, sizeof buf, "UTC"); break;
            case 'z': snprintf(buf, sizeof buf, "+0000"); break;
            case '%': snprintf(buf, sizeof buf, "%%"); break;
            default: snprintf(buf, sizeof buf, "%%%c", c); break;
        }
        out += buf;
    }
    return out;
}

void add_globals(render_state & st, scope & sc) {
    render_state * stp = &st;
    sc.vars["range"]   = value::make_function("range", [stp](call_args & a) {
        int64_t start = 0, stop, stp_v = 1;
        if (a.pos.empty()) {
            throw error("range expected at least 1 argument, got 0");
        }
        if (a.pos.size() == 1) {
            stop = a.pos[0].as_int();
        } else {
            start = a.pos[0].as_int();
            stop  = a.pos[1].as_int();
            if (a.pos.size() > 2) {
                stp_v = a.pos[2].as_int();
            }
        }
        if (stp_v == 0) {
            throw error("range() arg 3 must not be zero");
        }
        double count = std::ceil(((double) stop - (double) start) / (double) stp_v);
        if (count > 1e7 || count * sizeof(value) > (double) stp->lim.max_output) {
            throw error("range() is too large for a template");
        }
        list_t out;
        for (int64_t j = start; stp_v > 0 ? j < stop : j > stop; j += stp_v) {
            out.emplace_back(j);
        }
        return value::make_list(std::move(out));
    });
    sc.vars["dict"] = value::make_function("dict", [](call_args & a) {
        value d = value::make_dict();
        if (!a.pos.empty()) {
            if (a.pos[0].is_dict()) {
                for (const auto & kv : a.pos[0].d->items) {
                    d.d->set(kv.first, kv.second);
                }
            } else {
                for (const auto & pair : iterate(a.pos[0])) {
                    list_t kv = iterate(pair);
                    if (kv.size() != 2) {
                        throw error("dictionary update sequence element has the wrong length");
                    }
                    d.d->set(kv[0], kv[1]);
                }
            }
        }
        for (auto & kv : a.kw) {
            d.d->set(kv.first, kv.second);
        }
        return d;
    });
    sc.vars["namespace"] = value::make_function("namespace", [stp](call_args & a) {
        value d           = value::make_dict();
        d.d->is_namespace = true;
        if (!a.pos.empty() && a.pos[0].is_dict()) {
            for (const auto & kv : a.pos[0].d->items) {
                d.d->set(kv.first, kv.second);
            }
        }
        for (auto & kv : a.kw) {
            d.d->set(kv.first, kv.second);
        }
        stp->namespaces.push_back(d.d);
        return d;
    });
    sc.vars["raise_exception"] = value::make_function("raise_exception", [](call_args & a) -> value {
        throw error("raise_exception: " + a.get(0, "message", value("")).str());
    });
    sc.vars["strftime_now"] = value::make_function("strftime_now", [stp](call_args & a) {
        value f = a.get(0, "format");
        if (!f.is_string()) {
            throw error("strftime_now expects a format string");
        }
        return value(format_time(f.s, stp->now));
    });
    sc.vars["joiner"] = value::make_function("joiner", [](call_args & a) {
        std::string sep   = a.get(0, "sep", value(", ")).str();
        auto        first = std::make_shared<bool>(true);
        return value::make_function("joiner", [sep, first](call_args &) {
            if (*first) {
                *first = false;
                return value("");
            }
            return value(sep);
        });
    });
}

}  // namespace jinja
