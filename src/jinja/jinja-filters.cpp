// The filters (`x | name(args)`), as Jinja2 3.x defines them; `tojson` as transformers defines it
// for chat templates (json.dumps, non-ASCII kept, insertion order).
#include "jinja-builtins.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace jinja {

namespace {

using filter_fn = value (*)(render_state &, const value &, call_args &);

// attribute="a.b" or "0" as Jinja2's make_attrgetter: dotted path, digits index lists
value attr_path(render_state & st, const value & v, const value & attr) {
    if (attr.k == kind::integer) {
        return get_item(st, v, attr);
    }
    value cur = v;
    for (const auto & part : py_split(attr.str(), value("."), -1)) {
        bool digits =
            !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
        cur = digits ? get_item(st, cur, value((int64_t) atoll(part.c_str()))) : get_item(st, cur, value(part));
    }
    return cur;
}

value sort_key(const value & v, bool case_sensitive) {
    if (!case_sensitive && v.is_string()) {
        return value(py_lower(v.s));
    }
    return v;
}

value f_tojson(render_state &, const value & v, call_args & a) {
    json_style st;
    value      indent = a.get(0, "indent", value::null());
    if (a.has(SIZE_MAX, "ensure_ascii")) {
        st.ensure_ascii = a.get(SIZE_MAX, "ensure_ascii").truthy();
    }
    if (!indent.is_none() && !indent.is_undefined()) {
        if (indent.is_string()) {
            throw error("tojson: a string indent is not supported");
        }
        st.indent   = (int) std::max<int64_t>(0, std::min<int64_t>(indent.as_int(), 64));
        st.item_sep = ",";
    }
    value seps = a.get(SIZE_MAX, "separators", value::null());
    if (seps.is_list() && seps.l->size() == 2) {
        st.item_sep = (*seps.l)[0].str();
        st.key_sep  = (*seps.l)[1].str();
    }
    st.sort_keys = a.get(SIZE_MAX, "sort_keys", value(false)).truthy();
    return value(to_json(v, st));
}

value f_trim(render_state &, const value & v, call_args & a) {
    return value(py_strip(v.str(), a.get(0, "chars", value::null()), true, true));
}

value f_length(render_state &, const value & v, call_args &) {
    switch (v.k) {
        case kind::undefined:
            return value((int64_t) 0);
        case kind::string:
            return value((int64_t) utf8_length(v.s));
        case kind::list:
            return value((int64_t) v.l->size());
        case kind::dict:
            return value((int64_t) v.d->size());
        default:
            throw error(std::string("object of type '") + v.type_name() + "' has no len()");
    }
}

value f_join(render_state & st, const value & v, call_args & a) {
    std::string sep  = a.get(0, "d", value("")).str();
    value       attr = a.get(1, "attribute", value::null());
    std::string out;
    bool        first = true;
    for (const auto & e : iterate(v)) {
        if (!first) {
            out += sep;
        }
        first = false;
        out += (attr.is_none() ? e : attr_path(st, e, attr)).str();
        st.check_size(out.size());
    }
    return value(out);
}

value f_default(render_state &, const value & v, call_args & a) {
    value def     = a.get(0, "default_value", value(""));
    bool  boolean = a.get(1, "boolean", value(false)).truthy();
    if (v.is_undefined() || (boolean && !v.truthy())) {
        return def;
    }
    return v;
}

value f_first(render_state &, const value & v, call_args &) {
    list_t items = iterate(v);
    return items.empty() ? value::undef("first() of an empty sequence") : items.front();
}

value f_last(render_state &, const value & v, call_args &) {
    list_t items = iterate(v);
    return items.empty() ? value::undef("last() of an empty sequence") : items.back();
}

value f_upper(render_state &, const value & v, call_args &) {
    return value(py_upper(v.str()));
}

value f_lower(render_state &, const value & v, call_args &) {
    return value(py_lower(v.str()));
}

value f_capitalize(render_state &, const value & v, call_args &) {
    auto        cps = utf8_decode(v.str());
    std::string out;
    for (size_t j = 0; j < cps.size(); ++j) {
        utf8_append(out, j == 0 ? py_upper(cps[j]) : py_lower(cps[j]));
    }
    return value(out);
}

value f_title(render_state &, const value & v, call_args &) {
    // Jinja2: words start after '-', whitespace, '(', '{', '[' or '<'
    std::string out;
    bool        start = true;
    for (uint32_t c : utf8_decode(v.str())) {
        bool sep = c == '-' || py_isspace(c) || c == '(' || c == '{' || c == '[' || c == '<';
        utf8_append(out, sep ? c : (start ? py_upper(c) : py_lower(c)));
        start = sep;
    }
    return value(out);
}

value f_replace(render_state & st, const value & v, call_args & a) {
    std::string out = py_replace(v.str(), a.get(0, "old").str(), a.get(1, "new").str(),
                                 a.get(2, "count", value::null()).is_none() ? -1 : a.get(2, "count").as_int());
    st.check_size(out.size());
    return value(out);
}

value f_safe(render_state &, const value & v, call_args &) {
    value r  = v.is_string() ? v : value(v.str());
    r.markup = true;
    return r;
}

value f_string(render_state &, const value & v, call_args &) {
    return value(v.str());
}

value f_escape(render_state &, const value & v, call_args &) {
    if (v.is_string() && v.markup) {
        return v;
    }
    value r(html_escape(v.str()));
    r.markup = true;
    return r;
}

value f_list(render_state &, const value & v, call_args &) {
    if (v.is_none() || v.is_number()) {
        throw error(std::string("'") + v.type_name() + "' object is not iterable");
    }
    return value::make_list(iterate(v));
}

value f_int(render_state &, const value & v, call_args & a) {
    value   def  = a.get(0, "default", value((int64_t) 0));
    int64_t base = a.get(1, "base", value((int64_t) 10)).as_int();
    if (v.k == kind::integer || v.k == kind::boolean) {
        return value(v.as_int());
    }
    if (v.k == kind::floating) {
        return std::isfinite(v.f) && std::fabs(v.f) < 9.2e18 ? value((int64_t) v.f) : def;
    }
    if (v.is_string()) {
        std::string s = py_strip(v.s, value::null(), true, true);
        if (s.empty()) {
            return def;
        }
        char * end  = nullptr;
        errno       = 0;
        long long r = strtoll(s.c_str(), &end, (int) base);
        if (errno == 0 && end && *end == 0) {
            return value((int64_t) r);
        }
        double d = strtod(s.c_str(), &end);
        if (end && *end == 0 && std::isfinite(d) && std::fabs(d) < 9.2e18) {
            return value((int64_t) d);
        }
    }
    return def;
}

value f_float(render_state &, const value & v, call_args & a) {
    value def = a.get(0, "default", value(0.0));
    if (v.is_number()) {
        return value(v.as_double());
    }
    if (v.is_string()) {
        std::string s   = py_strip(v.s, value::null(), true, true);
        char *      end = nullptr;
        double      d   = strtod(s.c_str(), &end);
        if (!s.empty() && end && *end == 0) {
            return value(d);
        }
    }
    return def;
}

value f_abs(render_state &, const value & v, call_args &) {
    if (v.k == kind::floating) {
        return value(std::fabs(v.f));
    }
    int64_t i = v.as_int();
    if (i == INT64_MIN) {
        throw error("integer overflow");
    }
    return value(i < 0 ? -i : i);
}

value f_round(render_state &, const value & v, call_args & a) {
    int64_t     prec   = a.get(0, "precision", value((int64_t) 0)).as_int();
    std::string method = a.get(1, "method", value("common")).str();
    prec               = std::max<int64_t>(-300, std::min<int64_t>(prec, 300));
    if (method == "common") {
        // Python's round(): an int stays an int; a float is rounded from its exact binary value to
        // the nearest decimal, ties to even (printf does exactly that), so 2.675 -> 2.67
        if (v.k == kind::integer || v.k == kind::boolean) {
            int64_t i = v.as_int();
            if (prec >= 0) {
                return value(i);
            }
            if (prec < -18) {
                return value((int64_t) 0);
            }
            int64_t m = 1;
            for (int64_t e = 0; e < -prec; ++e) {
                m *= 10;
            }
            int64_t q = i / m, r = i % m;
            if (r < 0) {
                r += m;
                q -= 1;
            }
            if (r > m - r || (r == m - r && (q % 2 != 0))) {
                q += 1;
            }
            int64_t out;
            if (__builtin_mul_overflow(q, m, &out)) {
                throw error("integer overflow");
            }
            return value(out);
        }
        double x = v.as_double();
        if (!std::isfinite(x)) {
            return value(x);
        }
        if (prec >= 0) {
            char buf[400];
            snprintf(buf, sizeof buf, "%.*f", (int) std::min<int64_t>(prec, 340), x);
            return value(strtod(buf, nullptr));
        }
        double m = std::pow(10.0, (double) -prec);
        return value(std::nearbyint(x / m) * m);
    }
    double x = v.as_double();
    double m = std::pow(10.0, (double) prec);
    if (method == "ceil") {
        return value(std::ceil(x * m) / m);
    }
    if (method == "floor") {
        return value(std::floor(x * m) / m);
    }
    throw error("method must be common, ceil or floor");
}

// Jinja2's slice: n columns, the first (len % n) one longer; fill_with pads the short ones.
value f_slice(render_state &, const value & v, call_args & a) {
    int64_t n = a.get(0, "slices").as_int();
    if (n <= 0 || n > 1000000) {
        throw error("slice: the number of slices must be between 1 and 1000000");
    }
    value   fill   = a.get(1, "fill_with", value::null());
    list_t  items  = iterate(v);
    int64_t len    = (int64_t) items.size();
    int64_t per    = len / n;
    int64_t extra  = len % n;
    int64_t offset = 0;
    list_t  out;
    for (int64_t k = 0; k < n; ++k) {
        int64_t start = offset + k * per;
        if (k < extra) {
            offset += 1;
        }
        int64_t end = offset + (k + 1) * per;
        list_t  col(items.begin() + start, items.begin() + end);
        if (!fill.is_none() && k >= extra && extra > 0) {
            col.push_back(fill);
        }
        out.push_back(value::make_list(std::move(col)));
    }
    return value::make_list(std::move(out));
}

value f_sum(render_state & st, const value & v, call_args & a) {
    value attr  = a.get(0, "attribute", value::null());
    value total = a.get(1, "start", value((int64_t) 0));
    for (const auto & e : iterate(v)) {
        value x = attr.is_none() ? e : attr_path(st, e, attr);
        if (total.is_list() && x.is_list()) {  // sum(start=[]) concatenates, as Python's sum
            list_t joined = *total.l;
            joined.insert(joined.end(), x.l->begin(), x.l->end());
            st.check_size(joined.size() * sizeof(value));
            total = value::make_list(std::move(joined));
            continue;
        }
        if (!x.is_number() || !total.is_number()) {
            throw error(std::string("unsupported operand type(s) for +: '") + total.type_name() + "' and '" +
                        x.type_name() + "'");
        }
        if (x.k == kind::floating || total.k == kind::floating) {
            total = value(total.as_double() + x.as_double());
        } else {
            int64_t r;
            if (__builtin_add_overflow(total.as_int(), x.as_int(), &r)) {
                throw error("integer overflow");
            }
            total = value(r);
        }
    }
    return total;
}

value min_max(render_state & st, const value & v, call_args & a, bool want_max) {
    bool   cs    = a.get(0, "case_sensitive", value(false)).truthy();
    value  attr  = a.get(1, "attribute", value::null());
    list_t items = iterate(v);
    if (items.empty()) {
        return value::undef("no items for min/max");
    }
    size_t best = 0;
    for (size_t j = 1; j < items.size(); ++j) {
        value kj = sort_key(attr.is_none() ? items[j] : attr_path(st, items[j], attr), cs);
        value kb = sort_key(attr.is_none() ? items[best] : attr_path(st, items[best], attr), cs);
        if (want_max ? less(kb, kj) : less(kj, kb)) {
            best = j;
        }
    }
    return items[best];
}

value f_min(render_state & st, const value & v, call_args & a) {
    return min_max(st, v, a, false);
}

value f_max(render_state & st, const value & v, call_args & a) {
    return min_max(st, v, a, true);
}

value f_sort(render_state & st, const value & v, call_args & a) {
    bool                                 reverse = a.get(0, "reverse", value(false)).truthy();
    bool                                 cs      = a.get(1, "case_sensitive", value(false)).truthy();
    value                                attr    = a.get(2, "attribute", value::null());
    list_t                               items   = iterate(v);
    std::vector<std::pair<value, value>> keyed;
    for (auto & e : items) {
        keyed.emplace_back(sort_key(attr.is_none() ? e : attr_path(st, e, attr), cs), e);
    }
    std::stable_sort(keyed.begin(), keyed.end(), [reverse](const auto & x, const auto & y) {
        return reverse ? less(y.first, x.first) : less(x.first, y.first);
    });
    list_t out;
    for (auto & kv : keyed) {
        out.push_back(kv.second);
    }
    return value::make_list(std::move(out));
}

value f_reverse(render_state &, const value & v, call_args &) {
    if (v.is_string()) {
        auto cps = utf8_decode(v.s);
        std::reverse(cps.begin(), cps.end());
        return value(utf8_encode(cps));
    }
    list_t items = iterate(v);
    std::reverse(items.begin(), items.end());
    return value::make_list(std::move(items));
}

value f_unique(render_state & st, const value & v, call_args & a) {
    bool   cs   = a.get(0, "case_sensitive", value(false)).truthy();
    value  attr = a.get(1, "attribute", value::null());
    list_t seen, out;
    for (const auto & e : iterate(v)) {
        value k     = sort_key(attr.is_none() ? e : attr_path(st, e, attr), cs);
        bool  found = false;
        for (const auto & s : seen) {
            if (equals(s, k)) {
                found = true;
                break;
            }
        }
        if (!found) {
            seen.push_back(k);
            out.push_back(e);
        }
    }
    return value::make_list(std::move(out));
}

value f_items(render_state &, const value & v, call_args &) {
    if (v.is_undefined()) {
        return value::make_list();
    }
    if (!v.is_dict()) {
        throw error("items: expected a mapping");
    }
    list_t out;
    for (const auto & kv : v.d->items) {
        out.push_back(value::make_list({kv.first, kv.second}, true));
    }
    return value::make_list(std::move(out));
}

value f_dictsort(render_state &, const value & v, call_args & a) {
    if (!v.is_dict()) {
        throw error("dictsort: expected a mapping");
    }
    bool        cs      = a.get(0, "case_sensitive", value(false)).truthy();
    std::string by      = a.get(1, "by", value("key")).str();
    bool        reverse = a.get(2, "reverse", value(false)).truthy();
    size_t      pos     = by == "value" ? 1 : 0;
    list_t      pairs;
    for (const auto & kv : v.d->items) {
        pairs.push_back(value::make_list({kv.first, kv.second}, true));
    }
    std::stable_sort(pairs.begin(), pairs.end(), [&](const value & x, const value & y) {
        value kx = sort_key((*x.l)[pos], cs), ky = sort_key((*y.l)[pos], cs);
        return reverse ? less(ky, kx) : less(kx, ky);
    });
    return value::make_list(std::move(pairs));
}

value f_indent(render_state & st, const value & v, call_args & a) {
    value       w = a.get(0, "width", value((int64_t) 4));
    std::string ind;
    if (w.is_string()) {
        ind = w.s;
    } else {
        int64_t n = w.as_int();
        st.check_size((size_t) std::max<int64_t>(0, n));
        ind.assign((size_t) std::max<int64_t>(0, n), ' ');
    }
    bool        first = a.get(1, "first", value(false)).truthy();
    bool        blank = a.get(2, "blank", value(false)).truthy();
    std::string s     = v.str() + "\n";  // Jinja2 appends a newline so splitlines keeps a final empty line
    auto        lines = py_splitlines(s, false);
    std::string rv;
    if (blank) {
        for (size_t j = 0; j < lines.size(); ++j) {
            if (j) {
                rv += "\n" + ind;
            }
            rv += lines[j];
        }
    } else if (!lines.empty()) {
        rv = lines[0];
        if (lines.size() > 1) {
            rv += "\n";
            for (size_t j = 1; j < lines.size(); ++j) {
                if (j > 1) {
                    rv += "\n";
                }
                rv += lines[j].empty() ? lines[j] : ind + lines[j];
            }
        }
    }
    if (first) {
        rv = ind + rv;
    }
    st.check_size(rv.size());
    return value(rv);
}

value f_batch(render_state &, const value & v, call_args & a) {
    int64_t n = a.get(0, "linecount").as_int();
    if (n <= 0) {
        throw error("batch: the count must be positive");
    }
    value  fill = a.get(1, "fill_with", value::null());
    list_t out, cur;
    for (const auto & e : iterate(v)) {
        cur.push_back(e);
        if ((int64_t) cur.size() == n) {
            out.push_back(value::make_list(std::move(cur)));
            cur.clear();
        }
    }
    if (!cur.empty()) {
        if (!fill.is_none()) {
            while ((int64_t) cur.size() < n) {
                cur.push_back(fill);
            }
        }
        out.push_back(value::make_list(std::move(cur)));
    }
    return value::make_list(std::move(out));
}

value f_wordcount(render_state &, const value & v, call_args &) {
    int64_t n      = 0;
    bool    inword = false;
    for (uint32_t c : utf8_decode(v.str())) {
        bool w = (c < 0x80 && (isalnum((int) c) || c == '_')) || (c >= 0x80 && !py_isspace(c));
        if (w && !inword) {
            ++n;
        }
        inword = w;
    }
    return value(n);
}

value f_format(render_state &, const value & v, call_args & a) {
    if (!a.kw.empty()) {
        value d = value::make_dict();
        for (auto & kv : a.kw) {
            d.d->set(kv.first, kv.second);
        }
        return value(percent_format(v.str(), d));
    }
    return value(percent_format(v.str(), value::make_list(a.pos, true)));
}

value f_center(render_state & st, const value & v, call_args & a) {
    int64_t     w   = a.get(0, "width", value((int64_t) 80)).as_int();
    std::string s   = v.str();
    int64_t     len = (int64_t) utf8_length(s);
    if (w <= len) {
        return value(s);
    }
    st.check_size((size_t) w);
    int64_t left = (w - len) / 2 + ((w - len) & w & 1);  // CPython's str.center
    return value(std::string((size_t) left, ' ') + s + std::string((size_t) (w - len - left), ' '));
}

value f_attr(render_state & st, const value & v, call_args & a) {
    return get_attr(st, v, a.get(0, "name").str());
}

// map / select / reject / selectattr / rejectattr take a filter or test name and its arguments
call_args rest_args(const call_args & a, size_t skip) {
    call_args r;
    for (size_t j = skip; j < a.pos.size(); ++j) {
        r.pos.push_back(a.pos[j]);
    }
    r.kw = a.kw;
    return r;
}

value f_map(render_state & st, const value & v, call_args & a) {
    list_t out;
    if (!v.truthy()) {
        return value::make_list();  // as select: none maps to nothing
    }
    value attr = a.get(SIZE_MAX, "attribute");
    if (!attr.is_undefined()) {
        value def = a.get(SIZE_MAX, "default");
        for (const auto & e : iterate(v)) {
            value x = attr_path(st, e, attr);
            out.push_back(x.is_undefined() && !def.is_undefined() ? def : x);
        }
        return value::make_list(std::move(out));
    }
    if (a.pos.empty()) {
        throw error("map: expected a filter name or attribute=");
    }
    std::string name = a.pos[0].str();
    call_args   rest = rest_args(a, 1);
    for (const auto & e : iterate(v)) {
        call_args copy = rest;
        out.push_back(apply_filter(st, name, e, copy));
    }
    return value::make_list(std::move(out));
}

value select_impl(render_state & st, const value & v, call_args & a, bool by_attr, bool keep) {
    list_t out;
    if (!v.truthy()) {
        return value::make_list();  // Jinja2 iterates only a truthy sequence (none gives nothing)
    }
    size_t      first_test = by_attr ? 1 : 0;
    value       attr       = by_attr ? a.get(0, "attribute") : value::undef();
    bool        has_test   = a.pos.size() > first_test;
    std::string test       = has_test ? a.pos[first_test].str() : "";
    call_args   rest       = rest_args(a, first_test + 1);
    for (const auto & e : iterate(v)) {
        value x = by_attr ? attr_path(st, e, attr) : e;
        bool  r;
        if (has_test) {
            call_args copy = rest;
            r              = apply_test(st, test, x, copy);
        } else {
            r = x.truthy();
        }
        if (r == keep) {
            out.push_back(e);
        }
    }
    return value::make_list(std::move(out));
}

value f_select(render_state & st, const value & v, call_args & a) {
    return select_impl(st, v, a, false, true);
}

value f_reject(render_state & st, const value & v, call_args & a) {
    return select_impl(st, v, a, false, false);
}

value f_selectattr(render_state & st, const value & v, call_args & a) {
    return select_impl(st, v, a, true, true);
}

value f_rejectattr(render_state & st, const value & v, call_args & a) {
    return select_impl(st, v, a, true, false);
}

const std::pair<const char *, filter_fn> k_filters[] = {
    {"tojson", f_tojson},
    {"trim", f_trim},
    {"length", f_length},
    {"count", f_length},
    {"join", f_join},
    {"default", f_default},
    {"d", f_default},
    {"first", f_first},
    {"last", f_last},
    {"upper", f_upper},
    {"lower", f_lower},
    {"capitalize", f_capitalize},
    {"title", f_title},
    {"replace", f_replace},
    {"safe", f_safe},
    {"string", f_string},
    {"escape", f_escape},
    {"e", f_escape},
    {"forceescape", f_escape},
    {"list", f_list},
    {"int", f_int},
    {"float", f_float},
    {"abs", f_abs},
    {"round", f_round},
    {"sum", f_sum},
    {"min", f_min},
    {"max", f_max},
    {"sort", f_sort},
    {"reverse", f_reverse},
    {"unique", f_unique},
    {"items", f_items},
    {"dictsort", f_dictsort},
    {"indent", f_indent},
    {"batch", f_batch},
    {"wordcount", f_wordcount},
    {"format", f_format},
    {"center", f_center},
    {"attr", f_attr},
    {"map", f_map},
    {"select", f_select},
    {"reject", f_reject},
    {"selectattr", f_selectattr},
    {"rejectattr", f_rejectattr},
    {"slice", f_slice},
};

}  // namespace

bool has_filter(const std::string & name) {
    for (const auto & f : k_filters) {
        if (name == f.first) {
            return true;
        }
    }
    return false;
}

value apply_filter(render_state & st, const std::string & name, const value & operand, call_args & args) {
    for (const auto & f : k_filters) {
        if (name == f.first) {
            // an undefined operand reads as "" or as an empty sequence, except where Jinja2 does
            // arithmetic or serialization on it
            if (operand.is_undefined() &&
                (name == "tojson" || name == "abs" || name == "round" || name == "dictsort" || name == "attr")) {
                require_defined(operand);
            }
            return f.second(st, operand, args);
        }
    }
    throw error("no filter named '" + name + "'");
}

std::string percent_format(const std::string & fmt, const value & args) {
    list_t      pos  = args.is_list() && args.tuple ? *args.l : list_t{args};
    size_t      next = 0;
    std::string out;
    for (size_t j = 0; j < fmt.size(); ++j) {
        if (fmt[j] != '%') {
            out += fmt[j];
            continue;
        }
        if (++j >= fmt.size()) {
            throw error("incomplete format");
        }
        if (fmt[j] == '%') {
            out += '%';
            continue;
        }
        value arg;
        if (fmt[j] == '(') {
            size_t close = fmt.find(')', j);
            if (close == std::string::npos || !args.is_dict()) {
                throw error("format requires a mapping");
            }
            const value * v = args.d->find(fmt.substr(j + 1, close - j - 1));
            if (!v) {
                throw error("format: missing key " + fmt.substr(j + 1, close - j - 1));
            }
            arg = *v;
            j   = close + 1;
        } else {
            if (next >= pos.size()) {
                throw error("not enough arguments for format string");
            }
            arg = pos[next++];
        }
        std::string spec = "%";
        while (j < fmt.size() && strchr("-+ #0123456789.", fmt[j])) {
            spec += fmt[j++];
        }
        if (j >= fmt.size() || spec.size() > 12) {
            throw error("unsupported format");
        }
        char conv = fmt[j];
        char buf[512];
        switch (conv) {
            case 's':
            case 'r': {
                // flags, width and precision count code points, as Python's
                std::string text  = conv == 's' ? arg.str() : arg.repr();
                bool        left  = spec.find('-') != std::string::npos;
                size_t      dot   = spec.find('.');
                size_t      wpos  = spec.find_first_of("123456789");
                int64_t     width = 0;
                if (wpos != std::string::npos && (dot == std::string::npos || wpos < dot)) {
                    width = atoll(spec.c_str() + wpos);
                }
                if (dot != std::string::npos) {
                    text = utf8_encode(utf8_decode(text), 0, (size_t) atoll(spec.c_str() + dot + 1));
                }
                int64_t pad = width - (int64_t) utf8_length(text);
                if (pad > 0 && !left) {
                    out.append((size_t) pad, ' ');
                }
                out += text;
                if (pad > 0 && left) {
                    out.append((size_t) pad, ' ');
                }
                break;
            }
            case 'd':
            case 'i':
                snprintf(buf, sizeof buf, (spec + "lld").c_str(),
                         (long long) (arg.k == kind::floating ? (int64_t) arg.f : arg.as_int()));
                out += buf;
                break;
            case 'x':
            case 'X':
            case 'o':
                snprintf(buf, sizeof buf, (spec + "ll" + conv).c_str(), (long long) arg.as_int());
                out += buf;
                break;
            case 'f':
            case 'F':
            case 'e':
            case 'E':
            case 'g':
            case 'G':
                snprintf(buf, sizeof buf, (spec + conv).c_str(), arg.as_double());
                out += buf;
                break;
            default:
                throw error(std::string("unsupported format character '") + conv + "'");
        }
    }
    return out;
}

}  // namespace jinja
