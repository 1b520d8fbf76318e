// The "pattern" subset of json-schema-grammar.h: a regex to one GBNF expression over the
// characters of a JSON string. Characters that JSON must escape are only matched where the regex
// names them literally; '.', negated classes and \s never produce them (a narrower, still valid,
// set of strings).
#include <cstdio>
#include <string>

#include "json-schema-grammar.h"

namespace llama_tools {

namespace {

// JSON encoding of one byte inside a string, as a GBNF literal.
std::string char_literal(unsigned char c) {
    std::string enc;
    if (c == '"') {
        enc = "\\\"";
    } else if (c == '\\') {
        enc = "\\\\";
    } else if (c < 0x20) {
        char buf[8];
        snprintf(buf, sizeof(buf), "\\u%04x", c);
        enc = buf;
    } else {
        enc = std::string(1, (char) c);
    }
    std::string out = "\"";
    for (char e : enc) {
        if (e == '"' || e == '\\') {
            out += '\\';
        }
        out += e;
    }
    return out + "\"";
}

// What may appear unescaped inside a JSON string (GBNF class body): the complement of these.
const char * const k_plain_excluded = "\"\\\\\\x00-\\x1F\\x7F";

class regex_parser {
public:
    explicit regex_parser(const std::string & p) : p_(p) {}

    std::string parse() {
        // JSON Schema patterns search: without ^ (or $) any text may come before (or after)
        const bool head = !p_.empty() && p_.front() == '^';
        size_t     n_bs = 0;  // backslashes before a final '$': an odd count escapes it
        while (p_.size() >= n_bs + 2 && p_[p_.size() - 2 - n_bs] == '\\') {
            n_bs++;
        }
        const bool tail = p_.size() >= (head ? 2u : 1u) && p_.back() == '$' && n_bs % 2 == 0;
        pos_            = head ? 1 : 0;
        end_            = p_.size() - (tail ? 1 : 0);
        std::string out = alternation(0);
        if (pos_ != end_) {
            fail("unbalanced ')'");
        }
        return std::string(head ? "" : "char* ") + "(" + out + ")" + (tail ? "" : " char*");
    }

private:
    const std::string & p_;
    size_t              pos_ = 0;
    size_t              end_ = 0;

    [[noreturn]] void fail(const std::string & why) const {
        throw schema_error("pattern '" + p_ + "': " + why + " (at offset " + std::to_string(pos_) + ")");
    }

    std::string alternation(int depth) {
        if (depth > 50) {
            fail("groups nested too deep");
        }
        std::string out = sequence(depth);
        bool        alt = false;
        while (pos_ < end_ && p_[pos_] == '|') {
            pos_++;
            out += " | " + sequence(depth);
            alt = true;
        }
        return alt ? "(" + out + ")" : out;
    }

    std::string sequence(int depth) {
        std::string out;
        while (pos_ < end_ && p_[pos_] != '|' && p_[pos_] != ')') {
            std::string item = atom(depth);
            item += quantifier();
            out += (out.empty() ? "" : " ") + item;
        }
        return out.empty() ? "\"\"" : out;
    }

    std::string atom(int depth) {
        const char c = p_[pos_++];
        switch (c) {
            case '(': {
                if (p_.compare(pos_, 2, "?:") == 0) {
                    pos_ += 2;
                } else if (pos_ < end_ && p_[pos_] == '?') {
                    fail("lookaround and named groups are not supported");
                }
                std::string inner = alternation(depth + 1);
                if (pos_ >= end_ || p_[pos_] != ')') {
                    fail("unbalanced '('");
                }
                pos_++;
                return "(" + inner + ")";
            }
            case '[':
                return char_class();
            case '.':
                return std::string("[^") + k_plain_excluded + "]";
            case '\\':
                return escape(false);
            case '*':
            case '+':
            case '?':
            case '{':
            case '}':
            case ']':
            case '^':
            case '$':
                pos_--;
                fail(std::string("unexpected '") + c + "'");
            default:
                return char_literal((unsigned char) c);
        }
    }

    // After a '\': a class shorthand or an escaped punctuation character. In a class, the
    // shorthand's ranges are returned bare.
    std::string escape(bool in_class) {
        if (pos_ >= end_) {
            fail("dangling '\\'");
        }
        const char   c   = p_[pos_++];
        const char * cls = c == 'd' ? "0-9" : c == 'w' ? "a-zA-Z0-9_" : c == 's' ? " " : nullptr;
        if (cls != nullptr) {
            return in_class ? std::string(cls) : "[" + std::string(cls) + "]";
        }
        if (std::string(".^$|?*+()[]{}-/").find(c) == std::string::npos) {
            pos_--;
            fail(std::string("escape '\\") + c + "' is not supported");
        }
        if (in_class) {
            return (c == ']' || c == '^' || c == '-' || c == '[') ? std::string("\\") + c : std::string(1, c);
        }
        return char_literal((unsigned char) c);
    }

    std::string char_class() {
        bool negated = false;
        if (pos_ < end_ && p_[pos_] == '^') {
            negated = true;
            pos_++;
        }
        std::string body;
        bool        first = true;
        while (pos_ < end_ && (p_[pos_] != ']' || first)) {
            const char c = p_[pos_++];
            first        = false;
            if (c == '\\') {
                body += escape(true);
            } else if (c == '"' || (unsigned char) c < 0x20) {
                pos_--;
                fail("quotes and control characters in a class are not supported");
            } else if (c == ']' || c == '[') {
                body += std::string("\\") + c;
            } else {
                body += c;
            }
        }
        if (pos_ >= end_) {
            fail("unterminated class");
        }
        pos_++;  // ']'
        if (negated) {
            return "[^" + body + k_plain_excluded + "]";
        }
        return "[" + body + "]";
    }

    int number() {
        int  v   = 0;
        bool any = false;
        while (pos_ < end_ && p_[pos_] >= '0' && p_[pos_] <= '9') {
            v = v * 10 + (p_[pos_++] - '0');
            if (v > 2000) {
                fail("repetition counts above 2000 are not supported");
            }
            any = true;
        }
        return any ? v : -1;
    }

    std::string quantifier() {
        if (pos_ >= end_) {
            return "";
        }
        const char c = p_[pos_];
        if (c == '*' || c == '+' || c == '?') {
            pos_++;
            if (pos_ < end_ && (p_[pos_] == '?' || p_[pos_] == '+')) {
                fail("lazy and possessive quantifiers are not supported");
            }
            return std::string(1, c);
        }
        if (c != '{') {
            return "";
        }
        pos_++;
        const int lo = number();
        if (lo < 0) {
            fail("malformed '{m,n}'");
        }
        std::string out = "{" + std::to_string(lo);
        if (pos_ < end_ && p_[pos_] == ',') {
            pos_++;
            const int hi = number();
            if (hi >= 0 && hi < lo) {
                fail("'{m,n}' with n < m");
            }
            out += "," + (hi >= 0 ? std::to_string(hi) : std::string());
        }
        if (pos_ >= end_ || p_[pos_] != '}') {
            fail("malformed '{m,n}'");
        }
        pos_++;
        return out + "}";
    }
};

}  // namespace

std::string regex_to_gbnf(const std::string & pattern) {
    return regex_parser(pattern).parse();
}

}  // namespace llama_tools
