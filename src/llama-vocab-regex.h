// A small backtracking regex engine for the split expressions of BPE pre-tokenizers, over decoded
// code points and their Unicode flags. It knows exactly the syntax those expressions use:
//   alternation, groups (capturing ones act as (?:...)), (?:...), (?i:...) (ASCII case folding),
//   lookahead (?=...) (?!...), $ (end of the piece), \b (Unicode word boundary);
//   classes [...] [^...] with ranges, escapes \r \n \t \s, \p{L N P S M Lu Ll Lt Lm Lo Han} and
//   the intersection [...&&[^...]]; outside classes also \s \S;
//   greedy quantifiers ? * + {n} {n,} {n,m}.
// Alternatives are tried leftmost-first, as in PCRE, Oniguruma and std::regex (ECMAScript), so a
// match is the one those engines find. Nothing else is accepted: an expression outside the subset
// is refused when compiled, never misread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

class llama_pt_regex {
public:
    // Throws std::invalid_argument naming the expression when it is outside the subset.
    explicit llama_pt_regex(const std::string & pattern);

    // Code points of the leftmost-first match that starts at pos, 0 when none (empty matches count
    // as none). cpt/flags hold the piece being split, [begin, end); \b and $ see only that piece.
    size_t match(const uint32_t * cpt, const uint16_t * flags, size_t begin, size_t pos, size_t end) const;

    struct cls {
        bool                                       neg = false;
        std::vector<std::pair<uint32_t, uint32_t>> ranges;
        uint32_t                                   props = 0;   // any of these property bits
        int                                        sub   = -1;  // && with this class, -1 when none
    };

    enum node_kind { CLS, SEQ, ALT, REP, LOOK, END, WORDB };

    struct node {
        node_kind        kind = SEQ;
        int              arg  = 0;      // CLS: class index; REP, LOOK: child node
        int              min  = 0;      // REP
        int              max  = 0;      // REP; -1: unbounded
        bool             neg  = false;  // LOOK: (?!...)
        std::vector<int> kids;          // SEQ, ALT
        // derived once compiled, so that repeats need no recursion per code point of the input:
        bool nullable = false;  // can match the empty string
        bool one_cpt  = false;  // always consumes exactly one code point, in one way only
        bool tail     = false;  // REP: what follows always succeeds, so iterations are never given back
    };

private:
    friend struct llama_pt_regex_matcher;

    void analyze();
    void mark_tail(int ni, bool tail);

    std::vector<cls>  classes;
    std::vector<node> nodes;
    int               root = 0;
};
