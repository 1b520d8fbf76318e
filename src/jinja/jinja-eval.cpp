// Evaluation of expressions and execution of statements, with Python's semantics for operators
// and Jinja2's for scopes, loops, macros and undefined values.
#include "jinja-builtins.h"

#include <cmath>

namespace jinja {

const value * scope::lookup(const std::string & name) const {
    for (const scope * s = this; s; s = s->parent.get()) {
        if (const value * v = s->vars.find(name)) {
            return v;
        }
    }
    return nullptr;
}

void render_state::release() {
    for (auto & s : captured_scopes) {
        s->vars.clear();
    }
    for (auto & d : namespaces) {
        d->items.clear();
        d->index.clear();
    }
    captured_scopes.clear();
    namespaces.clear();
}

// ---- expressions ----

value e_name::eval(render_state &, scope & sc) const {
    if (const value * v = sc.lookup(name)) {
        return *v;
    }
    return value::undef("'" + name + "' is undefined");
}

value e_list::eval(render_state & st, scope & sc) const {
    list_t items_v;
    items_v.reserve(items.size());
    for (const auto & e : items) {
        items_v.push_back(e->eval(st, sc));
    }
    return value::make_list(std::move(items_v), tuple);
}

value e_dict::eval(render_state & st, scope & sc) const {
    value d = value::make_dict();
    for (const auto & kv : items) {
        value k = kv.first->eval(st, sc);
        d.d->set(k, kv.second->eval(st, sc));
    }
    return d;
}

value e_getattr::eval(render_state & st, scope & sc) const {
    value o = obj->eval(st, sc);
    require_defined(o);
    return get_attr(st, o, name);
}

value e_getitem::eval(render_state & st, scope & sc) const {
    value o = obj->eval(st, sc);
    require_defined(o);
    return get_item(st, o, index->eval(st, sc));
}

static int64_t slice_index(const value & v, const char * what) {
    if (v.k != kind::integer && v.k != kind::boolean) {
        throw error(std::string("slice ") + what + " must be an integer or None");
    }
    return v.as_int();
}

value e_slice::eval(render_state & st, scope & sc) const {
    value o = obj->eval(st, sc);
    require_defined(o);
    value   vstart = start ? start->eval(st, sc) : value::null();
    value   vstop  = stop ? stop->eval(st, sc) : value::null();
    value   vstep  = step ? step->eval(st, sc) : value::null();
    int64_t s      = vstep.is_none() ? 1 : slice_index(vstep, "step");
    if (s == 0) {
        throw error("slice step cannot be zero");
    }
    std::vector<uint32_t> cps;
    int64_t               n;
    if (o.is_string()) {
        cps = utf8_decode(o.s);
        n   = (int64_t) cps.size();
    } else if (o.is_list()) {
        n = (int64_t) o.l->size();
    } else {
        throw error(std::string("'") + o.type_name() + "' object is not subscriptable");
    }
    // CPython's PySlice_AdjustIndices
    int64_t lo, hi;
    auto    adjust = [&](const value & v, int64_t def, const char * what) {
        if (v.is_none()) {
            return def;
        }
        int64_t x = slice_index(v, what);
        if (x < 0) {
            x += n;
            if (x < 0) {
                x = s < 0 ? -1 : 0;
            }
        } else if (x >= n) {
            x = s < 0 ? n - 1 : n;
        }
        return x;
    };
    lo = adjust(vstart, s < 0 ? n - 1 : 0, "start");
    hi = adjust(vstop, s < 0 ? -1 : n, "stop");
    std::vector<int64_t> idx;
    if (s > 0) {
        for (int64_t j = lo; j < hi; j += s) {
            idx.push_back(j);
        }
    } else {
        for (int64_t j = lo; j > hi; j += s) {
            idx.push_back(j);
        }
    }
    if (o.is_string()) {
        std::string out;
        for (int64_t j : idx) {
            utf8_append(out, cps[(size_t) j]);
        }
        return value(out);
    }
    list_t out;
    for (int64_t j : idx) {
        out.push_back((*o.l)[(size_t) j]);
    }
    return value::make_list(std::move(out), o.tuple);
}

call_args arg_list::eval(render_state & st, scope & sc) const {
    call_args a;
    for (const auto & e : pos) {
        a.pos.push_back(e->eval(st, sc));
    }
    if (star) {
        value v = star->eval(st, sc);
        for (auto & x : iterate(v)) {
            a.pos.push_back(x);
        }
    }
    for (const auto & kv : kw) {
        a.kw.emplace_back(kv.first, kv.second->eval(st, sc));
    }
    if (star2) {
        value v = star2->eval(st, sc);
        if (!v.is_dict()) {
            throw error("argument after ** must be a mapping");
        }
        for (const auto & kv : v.d->items) {
            a.kw.emplace_back(kv.first.str(), kv.second);
        }
    }
    return a;
}

value e_call::eval(render_state & st, scope & sc) const {
    value f = fn->eval(st, sc);
    require_defined(f);
    if (f.is_dict()) {  // loop(...) of a recursive for loop
        if (const value * c = f.d->find("__call__"); c && c->is_callable()) {
            f = *c;
        }
    }
    if (!f.is_callable()) {
        throw error(std::string("'") + f.type_name() + "' object is not callable");
    }
    call_args a = args.eval(st, sc);
    st.step();
    if (++st.depth > st.lim.max_depth) {
        throw error("calls nested deeper than " + std::to_string(st.lim.max_depth));
    }
    auto  fref = f.fn;  // keep the function alive while it runs
    value r    = fref->call(a);
    --st.depth;
    return r;
}

value e_filter::apply(render_state & st, scope & sc, value operand) const {
    call_args a = args.eval(st, sc);
    st.step();
    return apply_filter(st, name, operand, a);
}

value e_filter::eval(render_state & st, scope & sc) const {
    return apply(st, sc, obj->eval(st, sc));
}

value e_test::eval(render_state & st, scope & sc) const {
    value     v = obj->eval(st, sc);
    call_args a = args.eval(st, sc);
    st.step();
    bool r = apply_test(st, name, v, a);
    return value(negated ? !r : r);
}

value e_unary::eval(render_state & st, scope & sc) const {
    value v = x->eval(st, sc);
    if (op == '!') {
        return value(!v.truthy());
    }
    require_defined(v);
    if (v.k == kind::floating) {
        return value(op == '-' ? -v.f : v.f);
    }
    if (v.k == kind::integer || v.k == kind::boolean) {
        int64_t i = v.as_int();
        if (op == '-' && i == INT64_MIN) {
            throw error("integer overflow");
        }
        return value(op == '-' ? -i : i);
    }
    throw error(std::string("bad operand type for unary ") + op + ": '" + v.type_name() + "'");
}

static value arith(render_state & st, const std::string & op, const value & a, const value & b) {
    require_defined(a);
    require_defined(b);
    auto bad = [&]() -> value {
        throw error("unsupported operand type(s) for " + op + ": '" + a.type_name() + "' and '" + b.type_name() + "'");
    };
    if (op == "+") {
        if (a.is_string() && b.is_string()) {
            st.check_size(a.s.size() + b.s.size());
            if (a.markup != b.markup) {  // markupsafe: the plain side is escaped
                value r(a.markup ? a.s + html_escape(b.s) : html_escape(a.s) + b.s);
                r.markup = true;
                return r;
            }
            value r(a.s + b.s);
            r.markup = a.markup;
            return r;
        }
        if (a.is_list() && b.is_list()) {
            list_t out = *a.l;
            out.insert(out.end(), b.l->begin(), b.l->end());
            return value::make_list(std::move(out), a.tuple && b.tuple);
        }
    }
    if (op == "*" && ((a.is_string() || a.is_list()) != (b.is_string() || b.is_list()))) {
        const value & seq = (a.is_string() || a.is_list()) ? a : b;
        const value & cnt = (a.is_string() || a.is_list()) ? b : a;
        if (cnt.k != kind::integer && cnt.k != kind::boolean) {
            return bad();
        }
        int64_t n    = std::max<int64_t>(0, cnt.as_int());
        size_t  unit = seq.is_string() ? seq.s.size() : seq.l->size() * sizeof(value);
        if (unit && (uint64_t) n > st.lim.max_output / unit) {
            st.check_size(st.lim.max_output + 1);
        }
        if (seq.is_string()) {
            std::string out;
            for (int64_t j = 0; j < n; ++j) {
                out += seq.s;
            }
            return value(out);
        }
        list_t out;
        for (int64_t j = 0; j < n; ++j) {
            out.insert(out.end(), seq.l->begin(), seq.l->end());
        }
        return value::make_list(std::move(out), seq.tuple);
    }
    if (op == "%" && a.is_string()) {
        return value(percent_format(a.s, b));
    }
    if (!a.is_number() || !b.is_number()) {
        return bad();
    }
    bool fl = a.k == kind::floating || b.k == kind::floating || op == "/";
    if (op == "**" && !fl && b.as_int() < 0) {
        fl = true;
    }
    if (fl) {
        double x = a.as_double(), y = b.as_double();
        if (op == "+") {
            return value(x + y);
        }
        if (op == "-") {
            return value(x - y);
        }
        if (op == "*") {
            return value(x * y);
        }
        if (op == "**") {
            return value(std::pow(x, y));
        }
        if (y == 0.0) {
            throw error("division by zero");
        }
        if (op == "/") {
            return value(x / y);
        }
        if (op == "//") {
            return value(std::floor(x / y));
        }
        double m = std::fmod(x, y);  // Python: the result has the divisor's sign
        if (m != 0.0 && ((m < 0) != (y < 0))) {
            m += y;
        }
        return value(m);
    }
    int64_t x = a.as_int(), y = b.as_int(), r = 0;
    if (op == "+") {
        if (__builtin_add_overflow(x, y, &r)) {
            throw error("integer overflow");
        }
        return value(r);
    }
    if (op == "-") {
        if (__builtin_sub_overflow(x, y, &r)) {
            throw error("integer overflow");
        }
        return value(r);
    }
    if (op == "*") {
        if (__builtin_mul_overflow(x, y, &r)) {
            throw error("integer overflow");
        }
        return value(r);
    }
    if (op == "**") {
        r = 1;
        for (int64_t e = 0; e < y; ++e) {
            if (__builtin_mul_overflow(r, x, &r)) {
                throw error("integer overflow");
            }
            if (r == 0 || r == 1) {
                break;
            }
        }
        if (r == -1 && x == -1) {
            r = (y % 2) ? -1 : 1;
        }
        return value(r);
    }
    if (y == 0) {
        throw error("integer division or modulo by zero");
    }
    if (x == INT64_MIN && y == -1) {
        throw error("integer overflow");
    }
    int64_t q = x / y, m = x % y;
    if (m != 0 && ((m < 0) != (y < 0))) {
        q -= 1;
        m += y;
    }
    return value(op == "//" ? q : m);
}

value e_binary::eval(render_state & st, scope & sc) const {
    if (op == "and") {
        value l = a->eval(st, sc);
        return l.truthy() ? b->eval(st, sc) : l;
    }
    if (op == "or") {
        value l = a->eval(st, sc);
        return l.truthy() ? l : b->eval(st, sc);
    }
    value l = a->eval(st, sc);
    value r = b->eval(st, sc);
    if (op == "~") {
        std::string s = l.str() + r.str();
        st.check_size(s.size());
        return value(s);
    }
    return arith(st, op, l, r);
}

static bool contains(const value & item, const value & container) {
    switch (container.k) {
        case kind::undefined:
            return false;
        case kind::string:
            if (!item.is_string()) {
                throw error(std::string("'in <string>' requires string as left operand, not ") + item.type_name());
            }
            return container.s.find(item.s) != std::string::npos;
        case kind::list:
            for (const auto & e : *container.l) {
                if (equals(e, item)) {
                    return true;
                }
            }
            return false;
        case kind::dict:
            return container.d->find(item) != nullptr;
        default:
            throw error(std::string("argument of type '") + container.type_name() + "' is not iterable");
    }
}

value e_compare::eval(render_state & st, scope & sc) const {
    value l = first->eval(st, sc);
    for (const auto & step : rest) {
        value        r  = step.second->eval(st, sc);
        const auto & op = step.first;
        bool         ok;
        if (op == "==") {
            ok = equals(l, r);
        } else if (op == "!=") {
            ok = !equals(l, r);
        } else if (op == "in") {
            ok = contains(l, r);
        } else if (op == "notin") {
            ok = !contains(l, r);
        } else {
            require_defined(l);
            require_defined(r);
            if (op == "<") {
                ok = less(l, r);
            } else if (op == ">") {
                ok = less(r, l);
            } else if (op == "<=") {
                ok = !less(r, l);
            } else {
                ok = !less(l, r);
            }
        }
        if (!ok) {
            return value(false);
        }
        l = std::move(r);
    }
    return value(true);
}

value e_cond::eval(render_state & st, scope & sc) const {
    if (test->eval(st, sc).truthy()) {
        return yes->eval(st, sc);
    }
    return no ? no->eval(st, sc) : value::undef("the inline if had no else");
}

// ---- statements ----

static flow exec_body(const body_t & body, render_state & st, scope & sc) {
    for (const auto & s : body) {
        st.step();
        flow f = s->exec(st, sc);
        if (f != flow::normal) {
            return f;
        }
    }
    return flow::normal;
}

// Renders body into a string (block set, macro and caller bodies, filter blocks).
static std::string capture(const body_t & body, render_state & st, scope & sc) {
    std::string   buf;
    std::string * saved = st.out;
    st.out              = &buf;
    try {
        exec_body(body, st, sc);
    } catch (...) {
        st.out = saved;
        throw;
    }
    st.out = saved;
    return buf;
}

flow s_text::exec(render_state & st, scope &) const {
    st.write(text);
    return flow::normal;
}

flow s_output::exec(render_state & st, scope & sc) const {
    st.write(e->eval(st, sc).str());
    return flow::normal;
}

flow s_if::exec(render_state & st, scope & sc) const {
    for (const auto & br : branches) {
        if (br.first->eval(st, sc).truthy()) {
            return exec_body(br.second, st, sc);
        }
    }
    return exec_body(otherwise, st, sc);
}

static void bind_targets(scope & sc, const std::vector<std::string> & names, bool unpack, const value & v) {
    if (!unpack) {
        sc.vars[names[0]] = v;
        return;
    }
    list_t items = iterate(v);
    if (items.size() != names.size()) {
        throw error("cannot unpack " + std::to_string(items.size()) + " values into " + std::to_string(names.size()) +
                    " names");
    }
    for (size_t j = 0; j < names.size(); ++j) {
        sc.vars[names[j]] = items[j];
    }
}

flow s_for::exec(render_state & st, scope & sc) const {
    return run(st, sc, iter->eval(st, sc), 0);
}

flow s_for::run(render_state & st, scope & sc, value seq, int depth) const {
    if (seq.is_none() || seq.is_number() || seq.is_callable()) {
        throw error(std::string("'") + seq.type_name() + "' object is not iterable");
    }
    // a list is iterated in place (lists cannot change while a template runs)
    std::shared_ptr<list_t> owned = seq.is_list() ? seq.l : std::make_shared<list_t>(iterate(seq));
    if (cond) {
        auto   kept_list = std::make_shared<list_t>();
        auto & kept      = *kept_list;
        for (auto & it : *owned) {
            auto fs = std::make_shared<scope>(sc.shared_from_this());
            bind_targets(*fs, targets, unpack, it);
            st.step();
            if (cond->eval(st, *fs).truthy()) {
                kept.push_back(it);
            }
        }
        owned = kept_list;
    }
    const list_t & items = *owned;
    if (items.empty()) {
        auto es = std::make_shared<scope>(sc.shared_from_this());
        exec_body(otherwise, st, *es);
        return flow::normal;
    }
    // one loop object per loop, updated in place each iteration (building a dict per iteration
    // would dominate the cost of long loops)
    const int64_t n      = (int64_t) items.size();
    auto          index  = std::make_shared<int64_t>(0);
    value         loop   = value::make_dict();
    auto &        d      = *loop.d;
    const char *  keys[] = {"index", "index0", "revindex", "revindex0", "first", "last", "previtem", "nextitem"};
    for (const char * k : keys) {
        d.set(k, value::undef());
    }
    d.set("length", value(n));
    d.set("depth", value((int64_t) depth + 1));
    d.set("depth0", value((int64_t) depth));
    auto last_changed = std::make_shared<value>();
    d.set("changed", value::make_function("changed", [last_changed](call_args & a) {
              value now = value::make_list(a.pos);
              if (!last_changed->is_undefined() && equals(*last_changed, now)) {
                  return value(false);
              }
              *last_changed = now;
              return value(true);
          }));
    if (recursive) {
        render_state *         stp   = &st;
        std::shared_ptr<scope> outer = sc.shared_from_this();
        d.set("__call__", value::make_function("loop", [stp, outer, this, depth](call_args & a) {
                  std::string   buf;
                  std::string * saved = stp->out;
                  stp->out            = &buf;
                  try {
                      run(*stp, *outer, a.get(0, "iterable"), depth + 1);
                  } catch (...) {
                      stp->out = saved;
                      throw;
                  }
                  stp->out = saved;
                  return value(buf);
              }));
        st.captured_scopes.push_back(outer);
    }
    d.set("cycle", value::make_function("cycle", [index](call_args & a) {
              if (a.pos.empty()) {
                  throw error("no items for cycling given");
              }
              return a.pos[(size_t) (*index % (int64_t) a.pos.size())];
          }));
    auto is = std::make_shared<scope>(sc.shared_from_this());
    for (int64_t j = 0; j < n; ++j) {
        // each iteration starts from an empty scope; a scope a macro captured stays with it
        if (is.use_count() > 1) {
            is = std::make_shared<scope>(sc.shared_from_this());
        } else {
            is->vars.clear();
        }
        bind_targets(*is, targets, unpack, items[(size_t) j]);
        *index           = j;
        auto & it        = d.items;  // in the order of keys[] above
        it[0].second     = value(j + 1);
        it[1].second     = value(j);
        it[2].second     = value(n - j);
        it[3].second     = value(n - j - 1);
        it[4].second     = value(j == 0);
        it[5].second     = value(j == n - 1);
        it[6].second     = j > 0 ? items[(size_t) j - 1] : value::undef("there is no previous item");
        it[7].second     = j + 1 < n ? items[(size_t) j + 1] : value::undef("there is no next item");
        is->vars["loop"] = loop;
        st.step();
        flow f = exec_body(body, st, *is);
        if (f == flow::brk) {
            break;
        }
    }
    return flow::normal;
}

static bool contains_ref(const value & v, const dict_t * target, int depth) {
    if (depth > 64) {
        return true;  // too deep to tell: refuse rather than risk a cycle
    }
    if (v.is_dict()) {
        if (v.d.get() == target) {
            return true;
        }
        for (const auto & kv : v.d->items) {
            if (contains_ref(kv.second, target, depth + 1)) {
                return true;
            }
        }
    } else if (v.is_list()) {
        for (const auto & e : *v.l) {
            if (contains_ref(e, target, depth + 1)) {
                return true;
            }
        }
    }
    return false;
}

static void assign(render_state & st, scope & sc, const assign_target & tg, const value & v) {
    (void) st;
    if (!tg.attr.empty()) {
        const value * ns = sc.lookup(tg.names[0]);
        if (!ns || !ns->is_dict() || !ns->d->is_namespace) {
            throw error("cannot assign attribute on non-namespace object");
        }
        if (contains_ref(v, ns->d.get(), 0)) {
            throw error("a namespace cannot contain itself");
        }
        ns->d->set(tg.attr, v);
        return;
    }
    bind_targets(sc, tg.names, tg.unpack, v);
}

flow s_set::exec(render_state & st, scope & sc) const {
    if (e) {
        assign(st, sc, target, e->eval(st, sc));
        return flow::normal;
    }
    value v(capture(body, st, sc));
    for (const auto & f : filters) {
        v = f->apply(st, sc, v);
    }
    assign(st, sc, target, v);
    return flow::normal;
}

// A callable running a body in a new scope under `parent` with params bound from the call.
// strict: extra positional / keyword arguments are errors unless the body reads varargs / kwargs.
static value make_body_function(render_state & st, const std::string & name, const std::vector<param> & params,
                                const body_t & body, std::shared_ptr<scope> parent, bool strict_pos = false,
                                bool strict_kw = false) {
    st.captured_scopes.push_back(parent);
    render_state * stp = &st;
    return value::make_function(
        name, [stp, &params, &body, parent, name, strict_pos, strict_kw](call_args & a) -> value {
            if (strict_pos && a.pos.size() > params.size()) {
                throw error("macro '" + name + "' takes not more than " + std::to_string(params.size()) +
                            " argument(s)");
            }
            render_state & st2 = *stp;
            auto           sc  = std::make_shared<scope>(parent);
            list_t         extra_pos;
            for (size_t j = 0; j < a.pos.size(); ++j) {
                if (j < params.size()) {
                    sc->vars[params[j].name] = a.pos[j];
                } else {
                    extra_pos.push_back(a.pos[j]);
                }
            }
            value kwargs = value::make_dict();
            for (auto & kv : a.kw) {
                bool is_param = false;
                for (const auto & p : params) {
                    if (p.name == kv.first) {
                        is_param = true;
                    }
                }
                if (is_param || kv.first == "caller") {
                    sc->vars[kv.first] = kv.second;
                } else if (strict_kw) {
                    throw error("macro '" + name + "' takes no keyword argument '" + kv.first + "'");
                } else {
                    kwargs.d->set(kv.first, kv.second);
                }
            }
            for (const auto & p : params) {
                if (sc->vars.count(p.name) == 0) {
                    sc->vars[p.name] = p.def
                                           ? p.def->eval(st2, *sc)
                                           : value::undef("parameter '" + p.name + "' of '" + name + "' was not given");
                }
            }
            sc->vars["varargs"] = value::make_list(std::move(extra_pos), true);
            sc->vars["kwargs"]  = kwargs;
            return value(capture(body, st2, *sc));
        });
}

flow s_macro::exec(render_state & st, scope & sc) const {
    sc.vars[name] = make_body_function(st, name, params, body, sc.shared_from_this(), !uses_varargs, !uses_kwargs);
    return flow::normal;
}

flow s_call_block::exec(render_state & st, scope & sc) const {
    value caller = make_body_function(st, "caller", params, body, sc.shared_from_this());
    value f      = call->fn->eval(st, sc);
    require_defined(f);
    if (!f.is_callable()) {
        throw error(std::string("'") + f.type_name() + "' object is not callable");
    }
    call_args a = call->args.eval(st, sc);
    a.kw.emplace_back("caller", caller);
    if (++st.depth > st.lim.max_depth) {
        throw error("calls nested deeper than " + std::to_string(st.lim.max_depth));
    }
    auto  fref = f.fn;
    value r    = fref->call(a);
    --st.depth;
    st.write(r.str());
    return flow::normal;
}

flow s_filter_block::exec(render_state & st, scope & sc) const {
    value v(capture(body, st, sc));
    for (const auto & f : filters) {
        v = f->apply(st, sc, v);
    }
    st.write(v.str());
    return flow::normal;
}

flow s_with::exec(render_state & st, scope & sc) const {
    auto ws = std::make_shared<scope>(sc.shared_from_this());
    for (const auto & kv : vars) {
        ws->vars[kv.first] = kv.second->eval(st, sc);
    }
    return exec_body(body, st, *ws);
}

flow s_block::exec(render_state & st, scope & sc) const {
    return exec_body(body, st, sc);
}

}  // namespace jinja
