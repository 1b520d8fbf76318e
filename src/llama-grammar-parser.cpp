// GBNF parser: text -> gram_rules. The dialect is documented in docs/sampling.md. Every malformed
// input ends in a gram_error naming the line and column; the size limits below keep hostile
// grammars (huge repetitions, deep nesting) from exhausting memory or the stack.
#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <map>

#include "llama-grammar.h"
#include "llama-log.h"

namespace {

constexpr uint32_t GRAM_MAX_REPEAT  = 2000;        // m and n of x{m,n}
constexpr size_t   GRAM_MAX_ELEMS   = 1u << 22;    // elements over all rules
constexpr int      GRAM_MAX_NESTING = 200;         // nested parentheses
constexpr uint32_t GRAM_INF         = UINT32_MAX;  // x{m,}

bool is_name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

struct gram_parser {
    const std::string & src;
    const llama_vocab * vocab;
    size_t              pos = 0;

    gram_rules                      g;
    std::map<std::string, uint32_t> ids;
    std::vector<char>               defined;
    std::vector<size_t>             first_ref;  // where each rule was first referenced
    std::map<uint32_t, uint32_t>    single_char_set;
    size_t                          n_elems = 0;
    int                             depth   = 0;

    gram_parser(const std::string & s, const llama_vocab * v) : src(s), vocab(v) {}

    [[noreturn]] void fail(const std::string & msg, size_t at) const {
        size_t line = 1;
        size_t col  = 1;
        for (size_t i = 0; i < at && i < src.size(); ++i) {
            if (src[i] == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        throw gram_error(std::to_string(line) + ":" + std::to_string(col) + ": " + msg);
    }

    [[noreturn]] void fail(const std::string & msg) const { fail(msg, pos); }

    bool at_end() const { return pos >= src.size(); }

    char peek(size_t ahead = 0) const { return pos + ahead < src.size() ? src[pos + ahead] : '\0'; }

    uint32_t add_rule(const std::string & name) {
        const auto id = (uint32_t) g.names.size();
        g.names.push_back(name);
        g.alts.emplace_back();
        defined.push_back(0);
        first_ref.push_back(std::string::npos);
        return id;
    }

    uint32_t rule_id(const std::string & name) {
        auto it = ids.find(name);
        if (it != ids.end()) {
            return it->second;
        }
        const uint32_t id = add_rule(name);
        ids[name]         = id;
        return id;
    }

    // a rule made up by the parser for a group or a repetition
    uint32_t generated_rule(const std::string & parent) {
        std::string name;
        for (uint32_t n = (uint32_t) g.names.size();; ++n) {
            name = parent + "_" + std::to_string(n);
            if (ids.find(name) == ids.end()) {
                break;
            }
        }
        return rule_id(name);
    }

    void count_elems(size_t n) {
        n_elems += n;
        if (n_elems > GRAM_MAX_ELEMS) {
            fail("grammar too large (more than " + std::to_string(GRAM_MAX_ELEMS) + " elements after expansion)");
        }
    }

    void define(uint32_t id, std::vector<std::vector<gram_elem>> && alts) {
        for (const auto & a : alts) {
            count_elems(a.size());
        }
        if (defined[id]) {
            LLAMA_LOG_WARN("%s: rule '%s' is defined again; the last definition wins\n", __func__, g.names[id].c_str());
        }
        g.alts[id]  = std::move(alts);
        defined[id] = 1;
    }

    void skip_space(bool newline_ok) {
        while (!at_end()) {
            const char c = peek();
            if (c == ' ' || c == '\t') {
                pos++;
            } else if (c == '#') {
                while (!at_end() && peek() != '\n' && peek() != '\r') {
                    pos++;
                }
            } else if (newline_ok && (c == '\n' || c == '\r')) {
                pos++;
            } else {
                break;
            }
        }
    }

    std::string parse_name() {
        const size_t start = pos;
        while (!at_end() && is_name_char(peek())) {
            pos++;
        }
        if (pos == start) {
            fail("expected a rule name");
        }
        return src.substr(start, pos - start);
    }

    uint32_t parse_hex(int n_digits) {
        uint32_t v = 0;
        for (int i = 0; i < n_digits; ++i) {
            const int d = hex_value(peek());
            if (d < 0) {
                fail("expected " + std::to_string(n_digits) + " hex digits");
            }
            v = v * 16 + (uint32_t) d;
            pos++;
        }
        return v;
    }

    // one character of a literal or a class: an escape or one UTF-8 sequence (already validated)
    uint32_t parse_char() {
        if (at_end()) {
            fail("unexpected end of grammar");
        }
        const size_t start = pos;
        if (peek() == '\\') {
            pos++;
            const char e = peek();
            pos++;
            uint32_t cp = 0;
            switch (e) {
                case 'x':
                    cp = parse_hex(2);
                    break;
                case 'u':
                    cp = parse_hex(4);
                    break;
                case 'U':
                    cp = parse_hex(8);
                    break;
                case 't':
                    return '\t';
                case 'r':
                    return '\r';
                case 'n':
                    return '\n';
                case '\\':
                case '"':
                case '[':
                case ']':
                case '-':
                case '^':
                    return (uint32_t) e;
                default:
                    fail(e == '\0' ? std::string("unexpected end of grammar in an escape")
                                   : std::string("unknown escape '\\") + e + "'",
                         start);
            }
            if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
                fail("escape is not a Unicode scalar value", start);
            }
            return cp;
        }
        const auto            b   = (unsigned char) peek();
        const size_t          len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : 4;
        std::vector<uint32_t> cps;
        gram_decode_utf8(src.substr(pos, len), {}, cps);
        pos += len;
        if (cps.size() != 1) {
            fail("invalid UTF-8", start);
        }
        return cps[0];
    }

    uint32_t set_of(gram_set && s) {
        g.sets.push_back(std::move(s));
        return (uint32_t) g.sets.size() - 1;
    }

    uint32_t single_char(uint32_t c) {
        auto it = single_char_set.find(c);
        if (it != single_char_set.end()) {
            return it->second;
        }
        const uint32_t id  = set_of({{c, c}});
        single_char_set[c] = id;
        return id;
    }

    void parse_literal(std::vector<gram_elem> & seq) {
        pos++;  // opening quote
        while (peek() != '"') {
            if (at_end() || peek() == '\n' || peek() == '\r') {
                fail("unterminated string literal");
            }
            seq.push_back({gram_type::CHARS, single_char(parse_char())});
        }
        pos++;
    }

    gram_elem parse_class() {
        const size_t start = pos;
        pos++;  // [
        bool negated = false;
        if (peek() == '^') {
            negated = true;
            pos++;
        }
        gram_set set;
        while (peek() != ']') {
            if (at_end()) {
                fail("unterminated character class", start);
            }
            const uint32_t lo = parse_char();
            uint32_t       hi = lo;
            if (peek() == '-' && peek(1) != ']' && peek(1) != '\0') {
                pos++;
                hi = parse_char();
                if (hi < lo) {
                    fail("character range is reversed");
                }
            }
            set.emplace_back(lo, hi);
        }
        pos++;
        return {negated ? gram_type::CHARS_NOT : gram_type::CHARS, set_of(std::move(set))};
    }

    gram_elem parse_token() {
        const size_t start   = pos;
        const bool   negated = peek() == '!';
        if (negated) {
            pos++;
        }
        if (peek() != '<') {
            fail("expected '<' after '!'");
        }
        const size_t open = pos;
        pos++;
        const gram_type type = negated ? gram_type::TOKEN_NOT : gram_type::TOKEN;
        if (peek() == '[') {
            pos++;
            uint64_t id       = 0;
            size_t   n_digits = 0;
            while (peek() >= '0' && peek() <= '9') {
                id = id * 10 + (uint64_t) (peek() - '0');
                if (id > INT32_MAX) {
                    fail("token id out of range", start);
                }
                pos++;
                n_digits++;
            }
            if (n_digits == 0 || peek() != ']' || peek(1) != '>') {
                fail("expected <[number]>", start);
            }
            pos += 2;
            if (vocab != nullptr && (int64_t) id >= llama_vocab_n_tokens(vocab)) {
                fail("token id " + std::to_string(id) + " is not in the vocabulary", start);
            }
            return {type, (uint32_t) id};
        }
        while (!at_end() && peek() != '>' && peek() != '\n') {
            pos++;
        }
        if (peek() != '>') {
            fail("unterminated token reference", start);
        }
        pos++;
        if (vocab == nullptr) {
            fail("token references by text need a vocab", start);
        }
        const std::string text = src.substr(open, pos - open);
        llama_token       toks[2];
        const int32_t     n = llama_tokenize(vocab, text.data(), (int32_t) text.size(), toks, 2, false, true);
        if (n != 1) {
            fail("'" + text + "' is not a single token", start);
        }
        return {type, (uint32_t) toks[0]};
    }

    // x{min,max}: min copies of x, then an optional tail; x made one element (a rule) first
    void repeat(std::vector<gram_elem> & seq, size_t start, uint32_t min, uint32_t max, const std::string & rule) {
        if (max != GRAM_INF && max < min) {
            fail("repetition {m,n} with n < m");
        }
        if (min > GRAM_MAX_REPEAT || (max != GRAM_INF && max > GRAM_MAX_REPEAT)) {
            fail("repetition count above " + std::to_string(GRAM_MAX_REPEAT));
        }
        std::vector<gram_elem> frag(seq.begin() + (ptrdiff_t) start, seq.end());
        seq.resize(start);
        if (frag.empty()) {
            return;  // repeating nothing is nothing
        }
        gram_elem unit = frag[0];
        if (frag.size() > 1) {
            const uint32_t r = generated_rule(rule);
            frag.push_back({gram_type::END, 0});
            define(r, {frag});
            unit = {gram_type::RULE_REF, r};
        }
        count_elems(min);
        seq.insert(seq.end(), min, unit);
        const gram_elem end = {gram_type::END, 0};
        if (max == GRAM_INF) {
            const uint32_t r = generated_rule(rule);
            define(r, {{unit, {gram_type::RULE_REF, r}, end}, {end}});
            seq.push_back({gram_type::RULE_REF, r});
        } else if (max > min) {
            // nested optionals: t_1 ::= x | "" ; t_k ::= x t_(k-1) | ""
            uint32_t prev = UINT32_MAX;
            for (uint32_t k = 0; k < max - min; ++k) {
                const uint32_t         r = generated_rule(rule);
                std::vector<gram_elem> a = {unit};
                if (prev != UINT32_MAX) {
                    a.push_back({gram_type::RULE_REF, prev});
                }
                a.push_back(end);
                define(r, {a, {end}});
                prev = r;
            }
            seq.push_back({gram_type::RULE_REF, prev});
        }
    }

    uint32_t parse_count() {
        uint64_t v = 0;
        size_t   n = 0;
        while (peek() >= '0' && peek() <= '9') {
            v = std::min<uint64_t>(v * 10 + (uint64_t) (peek() - '0'), UINT32_MAX - 1);
            pos++;
            n++;
        }
        if (n == 0) {
            fail("expected a number in {m,n}");
        }
        return (uint32_t) v;
    }

    std::vector<gram_elem> parse_sequence(const std::string & rule, bool nested) {
        std::vector<gram_elem> seq;
        size_t                 last = std::string::npos;  // start of the last item (what a repetition repeats)
        while (!at_end()) {
            const char c = peek();
            if (c == '"') {
                last = seq.size();
                parse_literal(seq);
            } else if (c == '[') {
                last = seq.size();
                seq.push_back(parse_class());
            } else if (c == '.') {
                last = seq.size();
                pos++;
                seq.push_back({gram_type::CHARS_NOT, set_of({})});
            } else if (c == '<' || (c == '!' && peek(1) == '<')) {
                last = seq.size();
                seq.push_back(parse_token());
            } else if (is_name_char(c)) {
                last              = seq.size();
                const size_t   at = pos;
                const uint32_t r  = rule_id(parse_name());
                if (first_ref[r] == std::string::npos) {
                    first_ref[r] = at;
                }
                seq.push_back({gram_type::RULE_REF, r});
            } else if (c == '(') {
                if (++depth > GRAM_MAX_NESTING) {
                    fail("parentheses nested too deeply");
                }
                const size_t open = pos;
                pos++;
                skip_space(true);
                const uint32_t r    = generated_rule(rule);
                auto           alts = parse_alternates(rule, true);
                if (peek() != ')') {
                    fail("unbalanced '(': no matching ')'", open);
                }
                pos++;
                depth--;
                define(r, std::move(alts));
                last = seq.size();
                seq.push_back({gram_type::RULE_REF, r});
            } else if (c == '*' || c == '+' || c == '?' || c == '{') {
                if (last == std::string::npos) {
                    fail(std::string("'") + c + "' has nothing to repeat");
                }
                pos++;
                uint32_t min = 0;
                uint32_t max = GRAM_INF;
                if (c == '+') {
                    min = 1;
                } else if (c == '?') {
                    max = 1;
                } else if (c == '{') {
                    skip_space(nested);
                    min = max = parse_count();
                    skip_space(nested);
                    if (peek() == ',') {
                        pos++;
                        skip_space(nested);
                        max = (peek() >= '0' && peek() <= '9') ? parse_count() : GRAM_INF;
                        skip_space(nested);
                    }
                    if (peek() != '}') {
                        fail("expected '}'");
                    }
                    pos++;
                }
                repeat(seq, last, min, max, rule);
                last = std::string::npos;
            } else {
                break;
            }
            skip_space(nested);
        }
        seq.push_back({gram_type::END, 0});
        return seq;
    }

    std::vector<std::vector<gram_elem>> parse_alternates(const std::string & rule, bool nested) {
        std::vector<std::vector<gram_elem>> alts;
        alts.push_back(parse_sequence(rule, nested));
        while (peek() == '|') {
            pos++;
            skip_space(true);
            alts.push_back(parse_sequence(rule, nested));
        }
        return alts;
    }

    void parse_rule() {
        const std::string name = parse_name();
        skip_space(false);
        if (src.compare(pos, 3, "::=") != 0) {
            fail("expected '::=' after rule name '" + name + "'");
        }
        pos += 3;
        skip_space(true);
        const uint32_t id   = rule_id(name);
        auto           alts = parse_alternates(name, false);
        if (!at_end() && peek() != '\n' && peek() != '\r') {
            fail(peek() == ')' ? std::string("unbalanced ')'") : std::string("unexpected '") + peek() + "'");
        }
        define(id, std::move(alts));
    }

    // Left recursion would make the matcher expand a rule into itself forever.
    void check_left_recursion() {
        const size_t      n = g.alts.size();
        std::vector<char> nullable(n, 0);
        for (bool changed = true; changed;) {
            changed = false;
            for (size_t r = 0; r < n; ++r) {
                if (nullable[r]) {
                    continue;
                }
                for (const auto & a : g.alts[r]) {
                    bool all = true;
                    for (const auto & e : a) {
                        if (e.type == gram_type::END) {
                            break;
                        }
                        if (e.type != gram_type::RULE_REF || !nullable[e.value]) {
                            all = false;
                            break;
                        }
                    }
                    if (all) {
                        nullable[r] = 1;
                        changed     = true;
                        break;
                    }
                }
            }
        }
        std::vector<std::vector<uint32_t>> left(n);
        for (size_t r = 0; r < n; ++r) {
            for (const auto & a : g.alts[r]) {
                for (const auto & e : a) {
                    if (e.type != gram_type::RULE_REF) {
                        break;
                    }
                    left[r].push_back(e.value);
                    if (!nullable[e.value]) {
                        break;
                    }
                }
            }
        }
        // iterative DFS: 0 new, 1 on the path, 2 done
        std::vector<char>                        color(n, 0);
        std::vector<std::pair<uint32_t, size_t>> path;
        for (uint32_t s = 0; s < n; ++s) {
            if (color[s] != 0) {
                continue;
            }
            path.emplace_back(s, 0);
            color[s] = 1;
            while (!path.empty()) {
                auto & top = path.back();
                if (top.second == left[top.first].size()) {
                    color[top.first] = 2;
                    path.pop_back();
                    continue;
                }
                const uint32_t next = left[top.first][top.second++];
                if (color[next] == 1) {
                    throw gram_error("rule '" + g.names[next] + "' is left-recursive");
                }
                if (color[next] == 0) {
                    color[next] = 1;
                    path.emplace_back(next, 0);
                }
            }
        }
    }

    void parse(const std::string & root_name) {
        std::vector<uint32_t> cps;
        const gram_partial    st = gram_decode_utf8(src, {}, cps);
        if (st.n_remain != 0) {
            throw gram_error("grammar text is not valid UTF-8");
        }
        skip_space(true);
        while (!at_end()) {
            parse_rule();
            skip_space(true);
        }
        if (ids.empty()) {
            throw gram_error("grammar has no rules");
        }
        for (size_t r = 0; r < g.alts.size(); ++r) {
            if (!defined[r]) {
                fail("undefined rule '" + g.names[r] + "'", first_ref[r]);
            }
        }
        auto it = ids.find(root_name);
        if (it == ids.end()) {
            throw gram_error("grammar has no rule named '" + root_name + "'");
        }
        g.root = it->second;
        check_left_recursion();
    }
};

}  // namespace

std::shared_ptr<const gram_rules> gram_parse(const std::string & text, const std::string & root_name,
                                             const llama_vocab * vocab) {
    gram_parser p(text, vocab);
    p.parse(root_name);
    return std::make_shared<const gram_rules>(std::move(p.g));
}
