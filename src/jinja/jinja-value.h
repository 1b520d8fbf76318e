// Values of the Jinja engine: the data model of Python as Jinja2 templates see it (None, bools,
// ints, floats, str, list/tuple, dict with insertion order, callables) plus Jinja2's Undefined.
// Containers are shared by reference like Python objects (a namespace assigned in a loop is seen
// after it). Printing follows Python's str()/repr(), JSON follows json.dumps, so rendered text is
// byte-identical to Jinja2's.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace jinja {

// Every failure of parsing or rendering: a message for the user, never a crash.
struct error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class kind : uint8_t { undefined, none, boolean, integer, floating, string, list, dict, function };

struct value;
struct call_args;
using list_t = std::vector<value>;

struct dict_t;
struct function_t;

struct value {
    kind        k = kind::undefined;
    bool        b = false;
    int64_t     i = 0;
    double      f = 0.0;
    std::string s;  // string value; for undefined the name used in the "is undefined" message
    std::shared_ptr<list_t>     l;
    std::shared_ptr<dict_t>     d;
    std::shared_ptr<function_t> fn;
    bool                        tuple  = false;  // a list printed as (a, b)
    bool                        markup = false;  // a string marked |safe: what is added to it is escaped

    value() = default;
    static value undef(std::string name = {}) {
        value v;
        v.s = std::move(name);
        return v;
    }
    static value null() {
        value v;
        v.k = kind::none;
        return v;
    }
    value(bool x) : k(kind::boolean), b(x) {}
    value(int x) : k(kind::integer), i(x) {}
    value(int64_t x) : k(kind::integer), i(x) {}
    value(double x) : k(kind::floating), f(x) {}
    value(std::string x) : k(kind::string), s(std::move(x)) {}
    value(const char * x) : k(kind::string), s(x) {}
    static value make_list(list_t items = {}, bool is_tuple = false);
    static value make_dict();
    static value make_function(std::string name, std::function<value(call_args &)> call);

    bool is_undefined() const { return k == kind::undefined; }
    bool is_none() const { return k == kind::none; }
    bool is_string() const { return k == kind::string; }
    bool is_list() const { return k == kind::list; }
    bool is_dict() const { return k == kind::dict; }
    bool is_number() const { return k == kind::integer || k == kind::floating || k == kind::boolean; }
    bool is_callable() const { return k == kind::function; }

    bool truthy() const;
    double as_double() const;  // numbers and bools
    int64_t as_int() const;    // ints and bools; throws otherwise

    // Python's str() and repr().
    std::string str() const;
    std::string repr() const;
    const char * type_name() const;
};

// A dict keyed by str/int/bool/None values in insertion order (Python 3.7+ dicts).
struct dict_t {
    std::vector<std::pair<value, value>>    items;
    std::unordered_map<std::string, size_t> index;
    bool                                    is_namespace = false;  // jinja2 namespace(): attributes assignable

    static std::string key_of(const value & k);  // throws for unhashable keys
    const value * find(const value & k) const;
    const value * find(const char * k) const { return find(value(k)); }
    const value * find(const std::string & k) const { return find(value(k)); }
    void set(const value & k, value v);
    void set(const char * k, value v) { set(value(k), std::move(v)); }
    void set(const std::string & k, value v) { set(value(k), std::move(v)); }
    size_t size() const { return items.size(); }
};

struct call_args {
    std::vector<value>                         pos;
    std::vector<std::pair<std::string, value>> kw;

    // The argument at position i or keyword name, else def; marks it used.
    value get(size_t i, const char * name, value def = value::undef());
    bool has(size_t i, const char * name) const;
};

struct function_t {
    std::string                          name;
    std::function<value(call_args &)>    call;
};

// Equality as Python's == (1 == 1.0 == True; containers deep).
bool equals(const value & a, const value & b);
// Ordering as Python's < for numbers, strings and lists; throws for other pairs.
bool less(const value & a, const value & b);

// JSON (json.dumps / json.loads). dump: indent < 0 = one line; item_sep/key_sep as Python's
// separators (defaults ", " / ": ", or "," / ": " with an indent); non-serializable values throw.
struct json_style {
    int         indent   = -1;
    std::string item_sep = ", ";
    std::string key_sep  = ": ";
    bool        ensure_ascii = false;
    bool        sort_keys    = false;
};
std::string to_json(const value & v, const json_style & style = {});
value       from_json(std::string_view text);  // throws error with the offset

// UTF-8 helpers (strings index and measure by code point, as Python's str does).
std::vector<uint32_t> utf8_decode(std::string_view s);
std::string           utf8_encode(const std::vector<uint32_t> & cps, size_t from = 0, size_t to = SIZE_MAX);
void                  utf8_append(std::string & out, uint32_t cp);
size_t                utf8_length(std::string_view s);

// Python float repr (shortest round-trip, '1e+16', '1.0').
std::string float_repr(double d);

}  // namespace jinja
