// The syntax tree of a parsed template and the lexer's tokens. Nodes evaluate themselves
// (jinja-eval.cpp); the parser (jinja-parser.cpp) builds them from the tokens.
#pragma once

#include "jinja-value.h"

#include <memory>
#include <string>
#include <vector>

namespace jinja {

// ---- tokens ----

enum class tok : uint8_t { text, var_begin, var_end, block_begin, block_end, name, string, integer, floating, op, eof };

struct token {
    tok         type;
    std::string text;  // text data, name, operator, unescaped string literal, number spelling
    int         line;
    int         col;
};

// Splits a template into tokens with Jinja2's whitespace rules (trim_blocks, lstrip_blocks,
// '-' and '+' signs, the final newline dropped, raw blocks as text). Throws error.
std::vector<token> tokenize(const std::string & source);

// ---- evaluation state ----

struct scope;
struct render_state;

struct expr {
    int line                                                = 0;
    virtual ~expr()                                         = default;
    virtual value eval(render_state & st, scope & sc) const = 0;
};
using expr_ptr = std::unique_ptr<expr>;

enum class flow : uint8_t { normal, brk, cont };

struct stmt {
    int line                                               = 0;
    virtual ~stmt()                                        = default;
    virtual flow exec(render_state & st, scope & sc) const = 0;
};
using stmt_ptr = std::unique_ptr<stmt>;
using body_t   = std::vector<stmt_ptr>;

// ---- expressions ----

struct e_literal : expr {
    value v;
    value eval(render_state &, scope &) const override { return v; }
};
struct e_name : expr {
    std::string name;
    value       eval(render_state & st, scope & sc) const override;
};
struct e_list : expr {
    std::vector<expr_ptr> items;
    bool                  tuple = false;
    value                 eval(render_state & st, scope & sc) const override;
};
struct e_dict : expr {
    std::vector<std::pair<expr_ptr, expr_ptr>> items;
    value                                      eval(render_state & st, scope & sc) const override;
};
struct e_getattr : expr {
    expr_ptr    obj;
    std::string name;
    value       eval(render_state & st, scope & sc) const override;
};
struct e_getitem : expr {
    expr_ptr obj, index;
    value    eval(render_state & st, scope & sc) const override;
};
struct e_slice : expr {
    expr_ptr obj, start, stop, step;  // any of the last three may be null
    value    eval(render_state & st, scope & sc) const override;
};
struct arg_list {
    std::vector<expr_ptr>                         pos;
    std::vector<std::pair<std::string, expr_ptr>> kw;
    expr_ptr                                      star, star2;  // *args, **kwargs
    call_args                                     eval(render_state & st, scope & sc) const;
};
struct e_call : expr {
    expr_ptr fn;
    arg_list args;
    value    eval(render_state & st, scope & sc) const override;
};
struct e_filter : expr {
    expr_ptr    obj;  // null inside a {% filter %} block (the body is the operand)
    std::string name;
    arg_list    args;
    value       eval(render_state & st, scope & sc) const override;
    value       apply(render_state & st, scope & sc, value operand) const;
};
struct e_test : expr {
    expr_ptr    obj;
    std::string name;
    arg_list    args;
    bool        negated = false;
    value       eval(render_state & st, scope & sc) const override;
};
struct e_unary : expr {
    char     op;  // '!' (not), '-', '+'
    expr_ptr x;
    value    eval(render_state & st, scope & sc) const override;
};
struct e_binary : expr {
    std::string op;  // + - * / // % ** ~ and or
    expr_ptr    a, b;
    value       eval(render_state & st, scope & sc) const override;
};
struct e_compare : expr {
    expr_ptr                                      first;
    std::vector<std::pair<std::string, expr_ptr>> rest;  // == != < <= > >= in notin
    value                                         eval(render_state & st, scope & sc) const override;
};
struct e_cond : expr {
    expr_ptr test, yes, no;  // no may be null (undefined)
    value    eval(render_state & st, scope & sc) const override;
};

// ---- statements ----

struct s_text : stmt {
    std::string text;
    flow        exec(render_state & st, scope & sc) const override;
};
struct s_output : stmt {
    expr_ptr e;
    flow     exec(render_state & st, scope & sc) const override;
};
struct s_if : stmt {
    std::vector<std::pair<expr_ptr, body_t>> branches;
    body_t                                   otherwise;
    flow                                     exec(render_state & st, scope & sc) const override;
};
struct s_for : stmt {
    std::vector<std::string> targets;
    bool                     unpack = false;  // targets came as a tuple (`for k, v in`)
    expr_ptr                 iter, cond;
    body_t                   body, otherwise;
    bool                     recursive = false;
    flow                     exec(render_state & st, scope & sc) const override;
    flow                     run(render_state & st, scope & sc, value seq, int depth) const;
};
// A target of set: a name, a namespace attribute (ns.attr) or a tuple of names.
struct assign_target {
    std::vector<std::string> names;
    bool                     unpack = false;
    std::string              attr;  // non-empty: names[0].attr
};
struct s_set : stmt {
    assign_target                          target;
    expr_ptr                               e;        // null: block set
    body_t                                 body;     // block set
    std::vector<std::unique_ptr<e_filter>> filters;  // block set with filters
    flow                                   exec(render_state & st, scope & sc) const override;
};
struct param {
    std::string name;
    expr_ptr    def;
};
struct s_macro : stmt {
    std::string        name;
    std::vector<param> params;
    body_t             body;
    bool               uses_varargs = false;  // extra positional / keyword arguments are errors unless
    bool               uses_kwargs  = false;  // the body reads varargs / kwargs (as Jinja2)
    flow               exec(render_state & st, scope & sc) const override;
};
struct s_call_block : stmt {
    std::unique_ptr<e_call> call;
    std::vector<param>      params;  // of caller()
    body_t                  body;
    flow                    exec(render_state & st, scope & sc) const override;
};
struct s_filter_block : stmt {
    std::vector<std::unique_ptr<e_filter>> filters;
    body_t                                 body;
    flow                                   exec(render_state & st, scope & sc) const override;
};
struct s_with : stmt {
    std::vector<std::pair<std::string, expr_ptr>> vars;
    body_t                                        body;
    flow                                          exec(render_state & st, scope & sc) const override;
};
struct s_loop_control : stmt {
    flow f;
    flow exec(render_state &, scope &) const override { return f; }
};
struct s_block : stmt {  // {% generation %} and other pass-through blocks
    body_t body;
    flow   exec(render_state & st, scope & sc) const override;
};

// Parses tokens into a body. Throws error "line L: ...".
body_t parse(const std::vector<token> & tokens);

}  // namespace jinja
