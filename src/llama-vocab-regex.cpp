#include "llama-vocab-regex.h"

#include "llama-unicode.h"

#include <stdexcept>

namespace {

// property bits past the 16 flag bits of llama-unicode.h, derived per code point when matching
constexpr uint32_t P_LO  = 1u << 16;  // Lo: a letter with no subcategory bit
constexpr uint32_t P_HAN = 1u << 17;  // \p{Han}

constexpr uint32_t F_L_SUB = LLAMA_UNICODE_LETTER_UPPER | LLAMA_UNICODE_LETTER_LOWER | LLAMA_UNICODE_LETTER_TITLE |
                             LLAMA_UNICODE_LETTER_MODIFIER;

// The Han ranges upstream llama.cpp uses for kimi-k2 (unicode_cpt_is_han): CJK unified ideographs,
// extensions A-F and the compatibility ideographs. Kept the same so the split is the same.
bool is_han(uint32_t c) {
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2EBEF) || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

uint32_t props_of(uint32_t c, uint16_t f) {
    uint32_t p = f;
    if ((f & LLAMA_UNICODE_LETTER) && !(f & F_L_SUB)) {
        p |= P_LO;
    }
    if (is_han(c)) {
        p |= P_HAN;
    }
    return p;
}

uint32_t prop_bits(const std::string & name) {
    static const struct {
        const char * name;
        uint32_t     bits;
    } props[] = {
        {"L", LLAMA_UNICODE_LETTER},
        {"N", LLAMA_UNICODE_NUMBER},
        {"P", LLAMA_UNICODE_PUNCTUATION},
        {"S", LLAMA_UNICODE_SYMBOL},
        {"M", LLAMA_UNICODE_MARK},
        {"Lu", LLAMA_UNICODE_LETTER_UPPER},
        {"Ll", LLAMA_UNICODE_LETTER_LOWER},
        {"Lt", LLAMA_UNICODE_LETTER_TITLE},
        {"Lm", LLAMA_UNICODE_LETTER_MODIFIER},
        {"Lo", P_LO},
        {"Han", P_HAN},
    };
    for (const auto & p : props) {
        if (name == p.name) {
            return p.bits;
        }
    }
    return 0;
}

using cls  = llama_pt_regex::cls;
using node = llama_pt_regex::node;
using rx   = llama_pt_regex;

// recursive descent over the pattern's code points; every error names the pattern
struct parser {
    const std::string &   src;
    std::vector<uint32_t> p;
    size_t                i = 0;
    std::vector<cls> &    classes;
    std::vector<node> &   nodes;
    bool                  icase = false;

    [[noreturn]] void fail(const char * why) const {
        throw std::invalid_argument("pre-tokenizer regex '" + src + "': " + why + " at " + std::to_string(i));
    }

    bool more() const { return i < p.size(); }

    bool eat(uint32_t c) {
        if (more() && p[i] == c) {
            ++i;
            return true;
        }
        return false;
    }

    int add(node n) {
        nodes.push_back(std::move(n));
        return (int) nodes.size() - 1;
    }

    int add_cls(cls c) {
        classes.push_back(std::move(c));
        node n;
        n.kind = rx::CLS;
        n.arg  = (int) classes.size() - 1;
        return add(n);
    }

    // one literal code point; under (?i:) an ASCII letter stands for both cases
    int literal(uint32_t c) {
        cls k;
        k.ranges.push_back({c, c});
        if (icase && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
            const uint32_t o = c ^ 0x20;
            k.ranges.push_back({o, o});
        }
        return add_cls(k);
    }

    uint32_t escaped_char(uint32_t c) const {
        switch (c) {
            case 'r':
                return '\r';
            case 'n':
                return '\n';
            case 't':
                return '\t';
            default:
                break;
        }
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
            fail("unsupported escape");
        }
        return c;  // an escaped punctuation character is itself
    }

    // after "\p": {Name}
    uint32_t property() {
        if (!eat('{')) {
            fail("expected { after \\p");
        }
        std::string name;
        while (more() && p[i] != '}') {
            name += (char) p[i++];
        }
        if (!eat('}')) {
            fail("unterminated \\p{");
        }
        const uint32_t bits = prop_bits(name);
        if (!bits) {
            fail("unknown Unicode property");
        }
        return bits;
    }

    // after '[': the class up to and including ']'
    cls parse_class() {
        cls k;
        k.neg      = eat('^');
        bool first = true;
        while (more() && (p[i] != ']' || first)) {
            first = false;
            if (p[i] == '&' && i + 2 < p.size() && p[i + 1] == '&' && p[i + 2] == '[') {
                i += 3;
                cls sub = parse_class();
                classes.push_back(std::move(sub));
                k.sub = (int) classes.size() - 1;
                continue;
            }
            uint32_t lo;
            if (eat('\\')) {
                if (!more()) {
                    fail("trailing \\");
                }
                const uint32_t e = p[i++];
                if (e == 'p') {
                    k.props |= property();
                    continue;
                }
                if (e == 's') {
                    k.props |= LLAMA_UNICODE_WHITESPACE;
                    continue;
                }
                lo = escaped_char(e);
            } else {
                lo = p[i++];
            }
            uint32_t hi = lo;
            if (more() && p[i] == '-' && i + 1 < p.size() && p[i + 1] != ']') {
                ++i;
                if (eat('\\')) {
                    if (!more()) {
                        fail("trailing \\");
                    }
                    hi = escaped_char(p[i++]);
                } else {
                    hi = p[i++];
                }
                if (hi < lo) {
                    fail("reversed range");
                }
            }
            k.ranges.push_back({lo, hi});
            if (icase) {
                fail("classes inside (?i:) are not supported");
            }
        }
        if (!eat(']')) {
            fail("unterminated class");
        }
        return k;
    }

    int parse_atom() {
        const uint32_t c = p[i++];
        if (c == '(') {
            node n;
            bool saved = icase;
            if (eat('?')) {
                if (eat(':')) {
                } else if (eat('i')) {
                    if (!eat(':')) {
                        fail("expected (?i:");
                    }
                    icase = true;
                } else if (more() && (p[i] == '=' || p[i] == '!')) {
                    n.kind = rx::LOOK;
                    n.neg  = p[i++] == '!';
                } else {
                    fail("unsupported group");
                }
            }
            const int inner = parse_alt();
            icase           = saved;
            if (!eat(')')) {
                fail("unbalanced (");
            }
            if (n.kind == rx::LOOK) {
                n.arg = inner;
                return add(n);
            }
            return inner;
        }
        if (c == '[') {
            return add_cls(parse_class());
        }
        if (c == '$') {
            node n;
            n.kind = rx::END;
            return add(n);
        }
        if (c == '.' || c == '^' || c == ')' || c == '*' || c == '+' || c == '?' || c == '{') {
            fail("unsupported or misplaced metacharacter");
        }
        if (c == '\\') {
            if (!more()) {
                fail("trailing \\");
            }
            const uint32_t e = p[i++];
            cls            k;
            if (e == 'p') {
                k.props = property();
                return add_cls(k);
            }
            if (e == 's' || e == 'S') {
                k.props = LLAMA_UNICODE_WHITESPACE;
                k.neg   = e == 'S';
                return add_cls(k);
            }
            if (e == 'b') {
                node n;
                n.kind = rx::WORDB;
                return add(n);
            }
            return literal(escaped_char(e));
        }
        return literal(c);
    }

    int number() {
        if (!more() || p[i] < '0' || p[i] > '9') {
            fail("expected a number");
        }
        int v = 0;
        while (more() && p[i] >= '0' && p[i] <= '9' && v < 100000) {
            v = v * 10 + (int) (p[i++] - '0');
        }
        return v;
    }

    int parse_seq() {
        node seq;
        seq.kind = rx::SEQ;
        while (more() && p[i] != '|' && p[i] != ')') {
            int  a = parse_atom();
            node r;
            r.kind   = rx::REP;
            bool rep = true;
            if (eat('?')) {
                r.min = 0, r.max = 1;
            } else if (eat('*')) {
                r.min = 0, r.max = -1;
            } else if (eat('+')) {
                r.min = 1, r.max = -1;
            } else if (eat('{')) {
                r.min = number();
                r.max = r.min;
                if (eat(',')) {
                    r.max = (more() && p[i] == '}') ? -1 : number();
                }
                if (!eat('}') || (r.max >= 0 && r.max < r.min)) {
                    fail("bad {n,m}");
                }
            } else {
                rep = false;
            }
            if (rep) {
                if (more() && (p[i] == '?' || p[i] == '+')) {
                    fail("lazy and possessive quantifiers are not supported");
                }
                r.arg = a;
                a     = add(r);
            }
            seq.kids.push_back(a);
        }
        return add(seq);
    }

    int parse_alt() {
        node alt;
        alt.kind = rx::ALT;
        alt.kids.push_back(parse_seq());
        while (eat('|')) {
            alt.kids.push_back(parse_seq());
        }
        if (alt.kids.size() == 1) {
            return alt.kids[0];
        }
        return add(alt);
    }
};

// A continuation: what must still match after a node, given the position it ended at.
struct kref {
    const void * obj;
    bool (*fn)(const void *, size_t);

    bool operator()(size_t p) const { return fn(obj, p); }
};

template <typename F>
kref make_k(const F & f) {
    return {&f, [](const void * o, size_t p) { return (*static_cast<const F *>(o))(p); }};
}

}  // namespace

struct llama_pt_regex_matcher {
    const llama_pt_regex & re;
    const uint32_t *       cpt;
    const uint16_t *       flags;
    size_t                 begin;
    size_t                 end;
    mutable size_t         depth = 0;

    // hostile input must not exhaust the stack: past this nesting a path simply fails
    // (repeats iterate instead of recursing wherever that gives the same match, so the depth follows
    // the expression's nesting, not the input's length, for every expression in the tables)
    static constexpr size_t max_depth = 2000;

    bool test(int ci, size_t pos) const {
        const cls &    k  = re.classes[ci];
        const uint32_t c  = cpt[pos];
        bool           in = (props_of(c, flags[pos]) & k.props) != 0;
        for (size_t r = 0; !in && r < k.ranges.size(); ++r) {
            in = c >= k.ranges[r].first && c <= k.ranges[r].second;
        }
        if (in && k.sub >= 0) {
            in = test(k.sub, pos);
        }
        return in != k.neg;
    }

    // a one_cpt node at pos, without recursion through continuations
    bool one(int ni, size_t pos) const {
        const node & n = re.nodes[ni];
        if (n.kind == rx::CLS) {
            return pos < end && test(n.arg, pos);
        }
        if (n.kind == rx::ALT) {
            for (int kid : n.kids) {
                if (one(kid, pos)) {
                    return true;
                }
            }
            return false;
        }
        for (int kid : n.kids) {  // SEQ: lookaheads at pos, then the code point itself
            const node & c  = re.nodes[kid];
            const bool   ok = c.kind == rx::LOOK ? one(c.arg, pos) != c.neg : one(kid, pos);
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    // \w as Oniguruma has it: letters, marks, numbers and connector punctuation (only '_' here)
    bool word(size_t pos) const {
        if (pos < begin || pos >= end) {
            return false;
        }
        return (flags[pos] & (LLAMA_UNICODE_LETTER | LLAMA_UNICODE_MARK | LLAMA_UNICODE_NUMBER)) || cpt[pos] == '_';
    }

    bool match(int ni, size_t pos, kref k) const {
        if (++depth > max_depth) {
            --depth;
            return false;
        }
        const bool ok = step(ni, pos, k);
        --depth;
        return ok;
    }

    bool step(int ni, size_t pos, kref k) const {
        const node & n = re.nodes[ni];
        switch (n.kind) {
            case rx::CLS:
                return pos < end && test(n.arg, pos) && k(pos + 1);
            case rx::SEQ:
                return seq(n, 0, pos, k);
            case rx::ALT:
                for (int kid : n.kids) {
                    if (match(kid, pos, k)) {
                        return true;
                    }
                }
                return false;
            case rx::REP:
                if (re.nodes[n.arg].one_cpt) {
                    // one code point per iteration: take the longest run, then give back
                    size_t r = 0;
                    while ((n.max < 0 || (int) r < n.max) && one(n.arg, pos + r)) {
                        ++r;
                    }
                    for (size_t j = r + 1; j-- > (size_t) n.min;) {
                        if (k(pos + j)) {
                            return true;
                        }
                    }
                    return false;
                }
                if (n.tail) {
                    // nothing after can fail, so each iteration's first match stands
                    size_t p   = pos;
                    int    cnt = 0;
                    auto   at  = [&](size_t q) {
                        p = q;
                        return true;
                    };
                    for (size_t from = p; (n.max < 0 || cnt < n.max) && match(n.arg, from, make_k(at)); from = p) {
                        ++cnt;
                    }
                    return cnt >= n.min && k(p);
                }
                return rep(n, 0, pos, k);
            case rx::LOOK: {
                auto       yes   = [](size_t) { return true; };
                const bool found = match(n.arg, pos, make_k(yes));
                return found != n.neg && k(pos);
            }
            case rx::END:
                return pos == end && k(pos);
            case rx::WORDB:
                return (pos > begin && word(pos - 1)) != word(pos) && k(pos);
        }
        return false;
    }

    bool seq(const node & n, size_t idx, size_t pos, kref k) const {
        if (idx == n.kids.size()) {
            return k(pos);
        }
        auto next = [&](size_t q) { return seq(n, idx + 1, q, k); };
        return match(n.kids[idx], pos, make_k(next));
    }

    // greedy: one more iteration first (never an empty one), then what follows
    bool rep(const node & n, int count, size_t pos, kref k) const {
        if (n.max < 0 || count < n.max) {
            auto more = [&](size_t q) { return q != pos && rep(n, count + 1, q, k); };
            if (match(n.arg, pos, make_k(more))) {
                return true;
            }
        }
        return count >= n.min && k(pos);
    }
};

llama_pt_regex::llama_pt_regex(const std::string & pattern) {
    parser ps{pattern, llama_unicode_cpts_from_utf8(pattern), 0, classes, nodes};
    root = ps.parse_alt();
    if (ps.more()) {
        ps.fail("unbalanced )");
    }
    analyze();
    mark_tail(root, true);
}

// children are created before their parents, so one pass in index order sees them first
void llama_pt_regex::analyze() {
    for (auto & n : nodes) {
        switch (n.kind) {
            case CLS:
                n.one_cpt = true;
                break;
            case SEQ:
                n.nullable = true;
                n.one_cpt  = !n.kids.empty();
                for (size_t i = 0; i < n.kids.size(); ++i) {
                    const node & c    = nodes[n.kids[i]];
                    const bool   last = i + 1 == n.kids.size();
                    n.nullable        = n.nullable && c.nullable;
                    n.one_cpt         = n.one_cpt && (last ? c.one_cpt : c.kind == LOOK && nodes[c.arg].one_cpt);
                }
                break;
            case ALT:
                n.one_cpt = true;
                for (int k : n.kids) {
                    n.nullable = n.nullable || nodes[k].nullable;
                    n.one_cpt  = n.one_cpt && nodes[k].one_cpt;
                }
                break;
            case REP:
                n.nullable = n.min == 0 || nodes[n.arg].nullable;
                break;
            case LOOK:
            case END:
            case WORDB:
                n.nullable = true;
                break;
        }
    }
}

// A node is in tail position when what follows it always succeeds: the whole match, the inside of a
// lookahead, the last element of a tail sequence, any branch of a tail alternation. A tail repeat
// keeps each iteration's first match (with a body that never matches empty and min <= 1, giving an
// iteration back cannot lead to a match found earlier), so its body is in tail position too.
void llama_pt_regex::mark_tail(int ni, bool tail) {
    node & n = nodes[ni];
    switch (n.kind) {
        case SEQ:
            for (size_t i = 0; i < n.kids.size(); ++i) {
                mark_tail(n.kids[i], tail && i + 1 == n.kids.size());
            }
            break;
        case ALT:
            for (int k : n.kids) {
                mark_tail(k, tail);
            }
            break;
        case REP:
            n.tail = tail && n.min <= 1 && !nodes[n.arg].nullable && !nodes[n.arg].one_cpt;
            mark_tail(n.arg, n.tail);
            break;
        case LOOK:
            mark_tail(n.arg, true);
            break;
        default:
            break;
    }
}

size_t llama_pt_regex::match(const uint32_t * cpt, const uint16_t * flags, size_t begin, size_t pos, size_t end) const {
    llama_pt_regex_matcher m{*this, cpt, flags, begin, end};
    size_t                 found = pos;
    auto                   done  = [&](size_t q) {
        found = q;
        return true;
    };
    if (!m.match(root, pos, make_k(done))) {
        return 0;
    }
    return found - pos;
}
