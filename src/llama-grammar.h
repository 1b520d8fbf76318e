// GBNF grammars (internal): the parsed rule set and the pushdown matcher that runs it over text.
//
//   llama-grammar-parser.cpp  GBNF text -> gram_rules, with validation (undefined rules, left
//                             recursion, size limits); errors are thrown as gram_error
//   llama-grammar.cpp         the matcher: stacks of positions, accepting code points and tokens,
//                             and pruning the candidates that cannot continue the grammar
//   llama-sampler-grammar.cpp the grammar samplers of llama.h (plain and lazy)
//
// A rule is a list of alternatives; an alternative is a flat array of elements ended by END.
// Repetitions, groups and optional parts are rewritten into generated rules by the parser, so the
// matcher knows only terminals (a character set, a token) and rule references. A matcher position
// is a pointer to the next element of an alternative; a stack holds the positions still to match,
// innermost (next) at the back. Stacks are always "expanded": their top is a terminal, or they are
// empty (the grammar is complete on that path).
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "llama.h"

enum class gram_type : uint8_t {
    END,        // end of an alternative
    RULE_REF,   // value: rule index
    CHARS,      // value: index in gram_rules::sets; matches a code point in the set
    CHARS_NOT,  // value: index in gram_rules::sets; matches a code point not in the set ('.' = empty set)
    TOKEN,      // value: token id; matches exactly that token, at a token boundary
    TOKEN_NOT,  // value: token id; matches any one token but that one
};

struct gram_elem {
    gram_type type;
    uint32_t  value;
};

// a set of code points as inclusive ranges
using gram_set = std::vector<std::pair<uint32_t, uint32_t>>;

struct gram_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct gram_rules {
    std::vector<std::string>                         names;  // per rule (generated ones are "<parent>_<n>")
    std::vector<std::vector<std::vector<gram_elem>>> alts;   // per rule: its alternatives, each ended by END
    std::vector<gram_set>                            sets;
    uint32_t                                         root = 0;
};

// Parses GBNF text. root_name is the start rule. vocab (may be NULL) resolves <name> tokens and
// bounds <[id]> ids. Throws gram_error with "line:col: message" on any malformed input.
std::shared_ptr<const gram_rules> gram_parse(const std::string & text, const std::string & root_name,
                                             const llama_vocab * vocab);

using gram_stack  = std::vector<const gram_elem *>;
using gram_stacks = std::vector<gram_stack>;

// Incomplete UTF-8 sequence left at the end of a token: value so far, continuation bytes still due.
struct gram_partial {
    uint32_t value    = 0;
    int      n_remain = 0;  // -1: the bytes so far are invalid UTF-8
};

// Decodes bytes as UTF-8 continuing partial; appends the complete code points to out and returns
// the state after the last byte. A NUL byte counts as invalid (it ends a token's text).
gram_partial gram_decode_utf8(const std::string & bytes, gram_partial partial, std::vector<uint32_t> & out);

// One match in progress: shares the immutable rules with its clones.
struct gram_state {
    std::shared_ptr<const gram_rules> rules;
    gram_stacks                       stacks;
    gram_partial                      partial;

    // the start of the root rule
    explicit gram_state(std::shared_ptr<const gram_rules> r);

    // an empty stack means the whole input so far is a complete sentence of the grammar
    bool complete() const;

    // Feeds one token (its id and text). Returns false and leaves the state unchanged when the
    // grammar cannot accept it.
    bool accept_token(llama_token id, const std::string & text);

    // Feeds text (no token boundaries: token elements cannot match). Returns false and leaves the
    // state unchanged when the grammar cannot accept it.
    bool accept_text(const std::string & text);
};

// A candidate for pruning: its code points (0-terminated, decoded after the state's partial) and
// the partial sequence its text ends with.
struct gram_cand {
    size_t           index;  // caller's index
    llama_token      id;
    const uint32_t * cps;
    gram_partial     partial;
};

// Indices (gram_cand::index) of the candidates the grammar rejects in its current state.
std::vector<size_t> gram_reject(const gram_state & st, const std::vector<gram_cand> & cands);
