// Rendering state shared by the evaluator (jinja-eval.cpp) and the built-in filters, tests,
// methods and globals (jinja-builtins.cpp).
#pragma once

#include "jinja-ast.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace jinja {

// Variables of one scope. Jinja2's rules: the template body is one scope, a for loop gives every
// iteration a new one, macros and call blocks a new one per call, `if` none.
// A scope's variables: a handful of names, so a flat vector beats a hash map (no node per name,
// capacity kept when a loop reuses the scope).
struct var_map {
    std::vector<std::pair<std::string, value>> items;

    value & operator[](const std::string & name) {
        for (auto & kv : items) {
            if (kv.first == name) {
                return kv.second;
            }
        }
        items.emplace_back(name, value());
        return items.back().second;
    }
    const value * find(const std::string & name) const {
        for (const auto & kv : items) {
            if (kv.first == name) {
                return &kv.second;
            }
        }
        return nullptr;
    }
    size_t count(const std::string & name) const { return find(name) ? 1 : 0; }
    void   clear() { items.clear(); }
};

struct scope : std::enable_shared_from_this<scope> {
    var_map vars;
    std::shared_ptr<scope>                 parent;

    explicit scope(std::shared_ptr<scope> p = nullptr) : parent(std::move(p)) {}
    const value * lookup(const std::string & name) const;
};

struct limits {
    size_t   max_output = 64u << 20;
    uint64_t max_steps  = 2000000;
    int      max_depth  = 256;
};

struct render_state {
    std::string * out = nullptr;
    limits        lim;
    uint64_t      steps = 0;
    int           depth = 0;
    int64_t       now   = 0;
    // objects that can close a reference cycle (scopes captured by macros, namespaces); emptied
    // when rendering ends so shared_ptr cycles are freed
    std::vector<std::shared_ptr<scope>>  captured_scopes;
    std::vector<std::shared_ptr<dict_t>> namespaces;

    void step() {
        if (++steps > lim.max_steps) {
            throw error("the template ran for more than " + std::to_string(lim.max_steps) + " steps");
        }
    }
    void write(const std::string & s) {
        if (out->size() + s.size() > lim.max_output) {
            throw error("the output exceeds " + std::to_string(lim.max_output) + " bytes");
        }
        out->append(s);
    }
    void check_size(size_t n) const {
        if (n > lim.max_output) {
            throw error("a value exceeds " + std::to_string(lim.max_output) + " bytes");
        }
    }
    void release();
};

// Built-ins (jinja-builtins.cpp).
bool  has_filter(const std::string & name);
bool  has_test(const std::string & name);
value apply_filter(render_state & st, const std::string & name, const value & operand, call_args & args);
bool  apply_test(render_state & st, const std::string & name, const value & v, call_args & args);
// obj.name: a bound method, a dict member or undefined (never throws for a missing name)
value get_attr(render_state & st, const value & obj, const std::string & name);
// obj[index]: a dict member, a list/string element or undefined
value get_item(render_state & st, const value & obj, const value & index);
// The global functions (range, dict, namespace, raise_exception, strftime_now, ...).
void  add_globals(render_state & st, scope & sc);
// Items a for loop or a filter iterates: list elements, dict keys, string characters.
list_t iterate(const value & v);
// A value used where a defined one is required throws "'x' is undefined".
void require_defined(const value & v);
// Python's str % args.
std::string percent_format(const std::string & fmt, const value & args);

}  // namespace jinja
