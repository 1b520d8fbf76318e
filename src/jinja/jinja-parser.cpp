// Tokens -> syntax tree, with Jinja2's grammar and operator precedence:
// ternary < or < and < not < comparisons < + - < ~ < * / // % < ** < unary - + < postfix/filters/tests.
#include "jinja-ast.h"

#include <cerrno>
#include <cstdlib>

namespace jinja {

namespace {

constexpr int k_max_nesting = 200;  // deeper expressions or blocks are refused, not a stack overflow

struct parser {
    const std::vector<token> & t;
    size_t                     p          = 0;
    int                        depth      = 0;
    int                        loop_depth = 0;  // for bodies around the statement (break / continue)
    std::vector<s_macro *>     macros;          // macros being parsed (their use of varargs / kwargs)

    struct guard {
        parser & ps;
        explicit guard(parser & x) : ps(x) {
            if (++ps.depth > k_max_nesting) {
                ps.fail("nesting deeper than " + std::to_string(k_max_nesting));
            }
        }
        ~guard() { --ps.depth; }
    };

    const token &     cur() const { return t[p]; }
    const token &     next() { return t[p < t.size() - 1 ? p++ : p]; }
    [[noreturn]] void fail(const std::string & msg) const {
        throw error("line " + std::to_string(cur().line) + ": " + msg);
    }
    bool is_op(const char * o) const { return cur().type == tok::op && cur().text == o; }
    bool is_name(const char * n) const { return cur().type == tok::name && cur().text == n; }
    bool accept_op(const char * o) {
        if (is_op(o)) {
            ++p;
            return true;
        }
        return false;
    }
    bool accept_name(const char * n) {
        if (is_name(n)) {
            ++p;
            return true;
        }
        return false;
    }
    void expect_op(const char * o) {
        if (!accept_op(o)) {
            fail(std::string("expected '") + o + "', got '" + describe(cur()) + "'");
        }
    }
    static std::string describe(const token & k) {
        switch (k.type) {
            case tok::eof:
                return "end of template";
            case tok::block_end:
                return "%}";
            case tok::var_end:
                return "}}";
            case tok::text:
                return "text";
            default:
                return k.text;
        }
    }
    std::string expect_name() {
        if (cur().type != tok::name) {
            fail("expected a name, got '" + describe(cur()) + "'");
        }
        return next().text;
    }
    void expect_block_end() {
        if (cur().type != tok::block_end) {
            fail("expected end of statement '%}', got '" + describe(cur()) + "'");
        }
        ++p;
    }
    template <class N>
    std::unique_ptr<N> node() {
        auto n  = std::make_unique<N>();
        n->line = cur().line;
        return n;
    }

    // ---- expressions ----

    expr_ptr expression(bool with_cond = true) {
        guard    g(*this);
        expr_ptr e = or_expr();
        if (with_cond && is_name("if")) {
            auto c = node<e_cond>();
            ++p;
            c->yes  = std::move(e);
            c->test = or_expr();
            if (accept_name("else")) {
                c->no = expression();
            }
            return c;
        }
        return e;
    }
    // expression or a bare tuple "a, b" (for {{ }} and set / for sources)
    expr_ptr tuple_or_expression(bool with_cond = true) {
        expr_ptr first = expression(with_cond);
        if (!is_op(",")) {
            return first;
        }
        auto l   = node<e_list>();
        l->tuple = true;
        l->items.push_back(std::move(first));
        while (accept_op(",")) {
            if (cur().type == tok::block_end || cur().type == tok::var_end || is_op(")")) {
                break;
            }
            l->items.push_back(expression(with_cond));
        }
        return l;
    }
    expr_ptr binary(expr_ptr a, const std::string & op, expr_ptr b) {
        auto n = node<e_binary>();
        n->op  = op;
        n->a   = std::move(a);
        n->b   = std::move(b);
        return n;
    }
    expr_ptr or_expr() {
        expr_ptr e = and_expr();
        while (accept_name("or")) {
            e = binary(std::move(e), "or", and_expr());
        }
        return e;
    }
    expr_ptr and_expr() {
        expr_ptr e = not_expr();
        while (accept_name("and")) {
            e = binary(std::move(e), "and", not_expr());
        }
        return e;
    }
    expr_ptr not_expr() {
        if (is_name("not")) {
            guard g(*this);
            auto  n = node<e_unary>();
            ++p;
            n->op = '!';
            n->x  = not_expr();
            return n;
        }
        return compare();
    }
    expr_ptr compare() {
        expr_ptr                                      first = math1();
        std::vector<std::pair<std::string, expr_ptr>> rest;
        while (true) {
            std::string op;
            if (cur().type == tok::op && (cur().text == "==" || cur().text == "!=" || cur().text == "<" ||
                                          cur().text == "<=" || cur().text == ">" || cur().text == ">=")) {
                op = next().text;
            } else if (accept_name("in")) {
                op = "in";
            } else if (is_name("not") && p + 1 < t.size() && t[p + 1].type == tok::name && t[p + 1].text == "in") {
                p += 2;
                op = "notin";
            } else {
                break;
            }
            rest.emplace_back(op, math1());
        }
        if (rest.empty()) {
            return first;
        }
        auto c   = node<e_compare>();
        c->first = std::move(first);
        c->rest  = std::move(rest);
        return c;
    }
    expr_ptr math1() {
        expr_ptr e = concat();
        while (is_op("+") || is_op("-")) {
            std::string op = next().text;
            e              = binary(std::move(e), op, concat());
        }
        return e;
    }
    expr_ptr concat() {
        expr_ptr e = math2();
        while (accept_op("~")) {
            e = binary(std::move(e), "~", math2());
        }
        return e;
    }
    expr_ptr math2() {
        expr_ptr e = power();
        while (is_op("*") || is_op("/") || is_op("//") || is_op("%")) {
            std::string op = next().text;
            e              = binary(std::move(e), op, power());
        }
        return e;
    }
    expr_ptr power() {
        expr_ptr e = unary(true);
        while (accept_op("**")) {
            e = binary(std::move(e), "**", unary(true));
        }
        return e;
    }
    expr_ptr unary(bool with_filter) {
        guard    g(*this);
        expr_ptr e;
        if (is_op("-") || is_op("+")) {
            auto n = node<e_unary>();
            n->op  = next().text[0];
            n->x   = unary(false);
            e      = std::move(n);
        } else {
            e = primary();
        }
        e = postfix(std::move(e));
        if (with_filter) {
            e = filter_expr(std::move(e));
        }
        return e;
    }
    expr_ptr primary() {
        const token & k = cur();
        switch (k.type) {
            case tok::name: {
                ++p;
                auto lit = node<e_literal>();
                if (k.text == "true" || k.text == "True") {
                    lit->v = value(true);
                } else if (k.text == "false" || k.text == "False") {
                    lit->v = value(false);
                } else if (k.text == "none" || k.text == "None") {
                    lit->v = value::null();
                } else {
                    auto n  = node<e_name>();
                    n->name = k.text;
                    for (s_macro * m : macros) {
                        m->uses_varargs = m->uses_varargs || k.text == "varargs";
                        m->uses_kwargs  = m->uses_kwargs || k.text == "kwargs";
                    }
                    return n;
                }
                return lit;
            }
            case tok::string: {
                auto        lit = node<e_literal>();
                std::string s;
                while (cur().type == tok::string) {  // adjacent literals concatenate
                    s += next().text;
                }
                lit->v = value(s);
                return lit;
            }
            case tok::integer: {
                ++p;
                auto lit    = node<e_literal>();
                errno       = 0;
                long long v = strtoll(k.text.c_str(), nullptr, 10);
                lit->v      = errno == 0 ? value((int64_t) v) : value(strtod(k.text.c_str(), nullptr));
                return lit;
            }
            case tok::floating: {
                ++p;
                auto lit = node<e_literal>();
                lit->v   = value(strtod(k.text.c_str(), nullptr));
                return lit;
            }
            case tok::op:
                if (k.text == "(") {
                    ++p;
                    if (accept_op(")")) {
                        auto l   = node<e_list>();
                        l->tuple = true;
                        return l;
                    }
                    expr_ptr e = tuple_or_expression();
                    expect_op(")");
                    return e;
                }
                if (k.text == "[") {
                    ++p;
                    auto l = node<e_list>();
                    while (!is_op("]")) {
                        l->items.push_back(expression());
                        if (!accept_op(",")) {
                            break;
                        }
                    }
                    expect_op("]");
                    return l;
                }
                if (k.text == "{") {
                    ++p;
                    auto d = node<e_dict>();
                    while (!is_op("}")) {
                        expr_ptr key = expression();
                        expect_op(":");
                        d->items.emplace_back(std::move(key), expression());
                        if (!accept_op(",")) {
                            break;
                        }
                    }
                    expect_op("}");
                    return d;
                }
                break;
            default:
                break;
        }
        fail("unexpected '" + describe(k) + "'");
    }
    void call_args_into(arg_list & a) {
        // after '('
        while (!is_op(")")) {
            if (accept_op("**")) {
                a.star2 = expression();
            } else if (accept_op("*")) {
                a.star = expression();
            } else if (cur().type == tok::name && p + 1 < t.size() && t[p + 1].type == tok::op &&
                       t[p + 1].text == "=") {
                std::string name = next().text;
                ++p;
                a.kw.emplace_back(name, expression());
            } else {
                if (!a.kw.empty()) {
                    fail("positional argument after keyword argument");
                }
                a.pos.push_back(expression());
            }
            if (!accept_op(",")) {
                break;
            }
        }
        expect_op(")");
    }
    expr_ptr postfix(expr_ptr e) {
        while (true) {
            if (is_op(".")) {
                ++p;
                if (cur().type == tok::integer) {
                    auto g   = node<e_getitem>();
                    auto lit = node<e_literal>();
                    lit->v   = value((int64_t) strtoll(next().text.c_str(), nullptr, 10));
                    g->obj   = std::move(e);
                    g->index = std::move(lit);
                    e        = std::move(g);
                    continue;
                }
                auto g  = node<e_getattr>();
                g->name = expect_name();
                g->obj  = std::move(e);
                e       = std::move(g);
            } else if (is_op("[")) {
                ++p;
                expr_ptr start, stop, step;
                bool     is_slice = false;
                if (!is_op(":")) {
                    start = expression();
                }
                if (accept_op(":")) {
                    is_slice = true;
                    if (!is_op("]") && !is_op(":")) {
                        stop = expression();
                    }
                    if (accept_op(":") && !is_op("]")) {
                        step = expression();
                    }
                } else if (is_op(",")) {
                    // d[a, b] indexes with a tuple
                    auto l   = node<e_list>();
                    l->tuple = true;
                    l->items.push_back(std::move(start));
                    while (accept_op(",") && !is_op("]")) {
                        l->items.push_back(expression());
                    }
                    start = std::move(l);
                }
                expect_op("]");
                if (is_slice) {
                    auto s   = node<e_slice>();
                    s->obj   = std::move(e);
                    s->start = std::move(start);
                    s->stop  = std::move(stop);
                    s->step  = std::move(step);
                    e        = std::move(s);
                } else {
                    auto g   = node<e_getitem>();
                    g->obj   = std::move(e);
                    g->index = std::move(start);
                    e        = std::move(g);
                }
            } else if (is_op("(")) {
                ++p;
                auto c = node<e_call>();
                c->fn  = std::move(e);
                call_args_into(c->args);
                e = std::move(c);
            } else {
                return e;
            }
        }
    }
    std::unique_ptr<e_filter> filter_call(expr_ptr operand) {
        auto f  = node<e_filter>();
        f->obj  = std::move(operand);
        f->name = expect_name();
        while (accept_op(".")) {  // dotted filter names exist in Jinja2's grammar
            f->name += "." + expect_name();
        }
        if (accept_op("(")) {
            call_args_into(f->args);
        }
        return f;
    }
    expr_ptr filter_expr(expr_ptr e) {
        while (true) {
            if (accept_op("|")) {
                e = filter_call(std::move(e));
            } else if (is_name("is")) {
                ++p;
                auto tst     = node<e_test>();
                tst->negated = accept_name("not");
                tst->name    = expect_name();
                while (accept_op(".")) {
                    tst->name += "." + expect_name();
                }
                tst->obj = std::move(e);
                if (accept_op("(")) {
                    call_args_into(tst->args);
                } else if ((cur().type == tok::name || cur().type == tok::string || cur().type == tok::integer ||
                            cur().type == tok::floating || is_op("(") || is_op("[") || is_op("{")) &&
                           !is_name("else") && !is_name("or") && !is_name("and")) {
                    expr_ptr arg = postfix(primary());
                    tst->args.pos.push_back(std::move(arg));
                }
                e = std::move(tst);
            } else if (is_op("(")) {
                ++p;
                auto c = node<e_call>();
                c->fn  = std::move(e);
                call_args_into(c->args);
                e = std::move(c);
            } else {
                return e;
            }
        }
    }

    // ---- statements ----

    bool at_block(const char * name) const {
        return cur().type == tok::block_begin && p + 1 < t.size() && t[p + 1].type == tok::name &&
               t[p + 1].text == name;
    }
    // Parses statements until a block whose keyword is one of ends (left unconsumed: p at "{%").
    body_t body(std::initializer_list<const char *> ends) {
        guard  g(*this);
        body_t out;
        while (true) {
            const token & k = cur();
            if (k.type == tok::eof) {
                if (ends.size() == 0) {
                    return out;
                }
                fail(std::string("unexpected end of template, expected '") + *ends.begin() + "'");
            }
            if (k.type == tok::text) {
                auto s  = node<s_text>();
                s->text = next().text;
                out.push_back(std::move(s));
                continue;
            }
            if (k.type == tok::var_begin) {
                ++p;
                auto s = node<s_output>();
                s->e   = tuple_or_expression();
                if (cur().type != tok::var_end) {
                    fail("expected '}}', got '" + describe(cur()) + "'");
                }
                ++p;
                out.push_back(std::move(s));
                continue;
            }
            if (k.type != tok::block_begin) {
                fail("unexpected '" + describe(k) + "'");
            }
            for (const char * e : ends) {
                if (at_block(e)) {
                    return out;
                }
            }
            ++p;
            out.push_back(statement());
        }
    }
    void end_block(const char * name) {
        // at "{%" of the end tag
        ++p;
        if (!accept_name(name)) {
            fail(std::string("expected '") + name + "'");
        }
        expect_block_end();
    }
    assign_target target(bool allow_attr) {
        assign_target tg;
        tg.names.push_back(expect_name());
        if (allow_attr && accept_op(".")) {
            tg.attr = expect_name();
            return tg;
        }
        if (is_op(",")) {
            tg.unpack = true;
            while (accept_op(",")) {
                if (cur().type != tok::name) {
                    break;
                }
                tg.names.push_back(expect_name());
            }
        } else if (accept_op("(")) {
            fail("parenthesized targets are not supported");
        }
        return tg;
    }
    std::vector<param> params() {
        std::vector<param> ps;
        expect_op("(");
        while (!is_op(")")) {
            param pr;
            pr.name = expect_name();
            if (accept_op("=")) {
                pr.def = expression();
            }
            ps.push_back(std::move(pr));
            if (!accept_op(",")) {
                break;
            }
        }
        expect_op(")");
        return ps;
    }
    stmt_ptr statement() {
        std::string kw = expect_name();
        if (kw == "if") {
            auto     s = node<s_if>();
            expr_ptr c = tuple_or_expression();
            expect_block_end();
            s->branches.emplace_back(std::move(c), body({"elif", "else", "endif"}));
            while (true) {
                if (at_block("elif")) {
                    p += 2;
                    expr_ptr c2 = tuple_or_expression();
                    expect_block_end();
                    s->branches.emplace_back(std::move(c2), body({"elif", "else", "endif"}));
                } else if (at_block("else")) {
                    p += 2;
                    expect_block_end();
                    s->otherwise = body({"endif"});
                } else {
                    end_block("endif");
                    return s;
                }
            }
        }
        if (kw == "for") {
            auto          s  = node<s_for>();
            assign_target tg = target(false);
            s->targets       = tg.names;
            s->unpack        = tg.unpack;
            if (!accept_name("in")) {
                fail("expected 'in' in for loop");
            }
            s->iter = tuple_or_expression(false);
            if (accept_name("if")) {
                s->cond = expression();
            }
            s->recursive = accept_name("recursive");
            expect_block_end();
            ++loop_depth;
            s->body = body({"else", "endfor"});
            --loop_depth;
            if (at_block("else")) {
                p += 2;
                expect_block_end();
                s->otherwise = body({"endfor"});
            }
            end_block("endfor");
            return s;
        }
        if (kw == "set") {
            auto s    = node<s_set>();
            s->target = target(true);
            if (accept_op("=")) {
                s->e = tuple_or_expression();
                expect_block_end();
                return s;
            }
            if (s->target.unpack || !s->target.attr.empty()) {
                fail("a block set assigns one name");
            }
            while (accept_op("|")) {
                s->filters.push_back(filter_call(nullptr));
            }
            expect_block_end();
            s->body = body({"endset"});
            end_block("endset");
            return s;
        }
        if (kw == "macro") {
            auto s    = node<s_macro>();
            s->name   = expect_name();
            s->params = params();
            expect_block_end();
            macros.push_back(s.get());
            const int saved_loops = loop_depth;  // a macro body is not inside the loop around it
            loop_depth            = 0;
            s->body               = body({"endmacro"});
            loop_depth            = saved_loops;
            macros.pop_back();
            ++p;
            accept_name("endmacro");
            if (cur().type == tok::name) {
                ++p;  // {% endmacro name %}
            }
            expect_block_end();
            return s;
        }
        if (kw == "call") {
            auto s = node<s_call_block>();
            if (is_op("(")) {
                s->params = params();
            }
            expr_ptr c    = expression();
            auto *   call = dynamic_cast<e_call *>(c.get());
            if (!call) {
                fail("expected a macro call after 'call'");
            }
            c.release();
            s->call.reset(call);
            expect_block_end();
            s->body = body({"endcall"});
            end_block("endcall");
            return s;
        }
        if (kw == "filter") {
            auto s = node<s_filter_block>();
            s->filters.push_back(filter_call(nullptr));
            while (accept_op("|")) {
                s->filters.push_back(filter_call(nullptr));
            }
            expect_block_end();
            s->body = body({"endfilter"});
            end_block("endfilter");
            return s;
        }
        if (kw == "with") {
            auto s = node<s_with>();
            while (cur().type == tok::name) {
                std::string name = expect_name();
                expect_op("=");
                s->vars.emplace_back(name, expression());
                if (!accept_op(",")) {
                    break;
                }
            }
            expect_block_end();
            s->body = body({"endwith"});
            end_block("endwith");
            return s;
        }
        if (kw == "break" || kw == "continue") {
            if (loop_depth == 0) {
                fail("'" + kw + "' outside of a loop");
            }
            auto s = node<s_loop_control>();
            s->f   = kw == "break" ? flow::brk : flow::cont;
            expect_block_end();
            return s;
        }
        if (kw == "generation") {  // transformers' assistant-mask marker: renders its body
            auto s = node<s_block>();
            expect_block_end();
            s->body = body({"endgeneration"});
            end_block("endgeneration");
            return s;
        }
        if (kw == "include" || kw == "import" || kw == "from" || kw == "extends" || kw == "block") {
            fail("'" + kw + "' is not available: chat templates have no other templates to load");
        }
        fail("unknown statement '" + kw + "'");
    }
};

}  // namespace

body_t parse(const std::vector<token> & tokens) {
    parser ps{tokens, 0, 0, 0, {}};
    body_t b = ps.body({});
    return b;
}

}  // namespace jinja
