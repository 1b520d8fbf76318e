// The "pattern" subset of json-schema-grammar.h: a regex to one GBNF expression over the
// characters of a JSON string. Characters that JSON must escape are only matched where the regex
// names them literally; '.', negated classes and \s never produce them (a narrower, still valid,
// set of strings).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

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
            default: {
                // a whole code point, so that a quantifier repeats all of its bytes
                pos_--;
                const size_t from = pos_;
                code_point();
                std::string bytes;
                for (size_t i = from; i < pos_; i++) {
                    bytes += char_literal((unsigned char) p_[i]).substr(1, std::string::npos);
                    bytes.pop_back();
                }
                return "\"" + bytes + "\"";
            }
        }
    }

    // After a '\': a class shorthand ("[...]" of ranges) or an escaped punctuation character (its
    // literal, or the code point itself when `cp` asks for it, inside a class).
    std::string escape(bool in_class, std::vector<std::pair<uint32_t, uint32_t>> * ranges = nullptr) {
        if (pos_ >= end_) {
            fail("dangling '\\'");
        }
        const char                                 c = p_[pos_++];
        std::vector<std::pair<uint32_t, uint32_t>> cls;
        if (c == 'd') {
            cls = {{'0', '9'}};
        } else if (c == 'w') {
            cls = {{'a', 'z'}, {'A', 'Z'}, {'0', '9'}, {'_', '_'}};
        } else if (c == 's') {
            cls = {{' ', ' '}};  // of the white space, the only one JSON leaves unescaped
        }
        if (!cls.empty()) {
            if (in_class) {
                ranges->insert(ranges->end(), cls.begin(), cls.end());
                return "";
            }
            return class_gbnf(cls, false);
        }
        if (std::string(".^$|?*+()[]{}-/").find(c) == std::string::npos) {
            pos_--;
            fail(std::string("escape '\\") + c + "' is not supported");
        }
        if (in_class) {
            ranges->push_back({(uint32_t) (unsigned char) c, (uint32_t) (unsigned char) c});
            return "";
        }
        return char_literal((unsigned char) c);
    }

    // One UTF-8 code point of the pattern at pos_.
    uint32_t code_point() {
        const unsigned char c   = (unsigned char) p_[pos_];
        const int           len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (len == 0 || pos_ + len > end_) {
            fail("invalid UTF-8");
        }
        uint32_t cp = len == 1 ? c : (c & (0x7F >> len));
        for (int i = 1; i < len; i++) {
            const unsigned char x = (unsigned char) p_[pos_ + i];
            if ((x & 0xC0) != 0x80) {
                fail("invalid UTF-8");
            }
            cp = (cp << 6) | (x & 0x3F);
        }
        pos_ += len;
        return cp;
    }

    // GBNF class of the ranges, without the characters JSON must escape (a range across '"' or
    // '\\' is split around them: a raw '"' would end the JSON string). Negated: besides those.
    static std::string class_gbnf(const std::vector<std::pair<uint32_t, uint32_t>> & ranges, bool negated) {
        auto hex = [](uint32_t cp) {
            char buf[16];
            snprintf(buf, sizeof(buf), cp > 0xFFFF ? "\\U%08X" : "\\u%04X", (unsigned) cp);
            return std::string(buf);
        };
        std::string body;
        auto        add = [&](uint32_t lo, uint32_t hi) {
            if (lo <= hi) {
                body += lo == hi ? hex(lo) : hex(lo) + "-" + hex(hi);
            }
        };
        for (auto [lo, hi] : ranges) {
            if (negated) {
                add(lo, hi);
                continue;
            }
            // the excluded points: 0x00-0x1F, '"' (0x22), '\\' (0x5C), 0x7F
            lo = std::max<uint32_t>(lo, 0x20);
            for (uint32_t cut : {0x22u, 0x5Cu, 0x7Fu}) {
                if (lo <= cut && cut <= hi) {
                    add(lo, cut - 1);
                    lo = cut + 1;
                }
            }
            add(lo, hi);
        }
        if (negated) {
            return "[^" + body + k_plain_excluded + "]";
        }
        if (body.empty()) {
            return "[^\\x00-\\U0010FFFF]";  // nothing: the class named only characters JSON escapes
        }
        return "[" + body + "]";
    }

    std::string char_class() {
        bool negated = false;
        if (pos_ < end_ && p_[pos_] == '^') {
            negated = true;
            pos_++;
        }
        if (pos_ < end_ && p_[pos_] == ']') {
            fail("empty classes '[]' and '[^]' are not supported");
        }
        std::vector<std::pair<uint32_t, uint32_t>> ranges;
        while (pos_ < end_ && p_[pos_] != ']') {
            uint32_t lo;
            if (p_[pos_] == '\\') {
                pos_++;
                const size_t before = ranges.size();
                escape(true, &ranges);
                const bool single = ranges.size() == before + 1 && ranges.back().first == ranges.back().second &&
                                    std::string("dws").find(p_[pos_ - 1]) == std::string::npos;
                if (!single) {
                    continue;  // a shorthand: no range from it
                }
                lo = ranges.back().first;
                ranges.pop_back();
            } else if (p_[pos_] == '[') {
                fail("'[' inside a class must be escaped");
            } else {
                lo = code_point();
            }
            uint32_t hi = lo;
            if (pos_ + 1 < end_ && p_[pos_] == '-' && p_[pos_ + 1] != ']') {
                pos_++;
                if (p_[pos_] == '\\') {
                    pos_++;
                    const size_t before = ranges.size();
                    escape(true, &ranges);
                    if (ranges.size() != before + 1 || std::string("dws").find(p_[pos_ - 1]) != std::string::npos) {
                        fail("a class shorthand cannot end a range");
                    }
                    hi = ranges.back().first;
                    ranges.pop_back();
                } else {
                    hi = code_point();
                }
                if (hi < lo) {
                    fail("a class range out of order");
                }
            }
            ranges.push_back({lo, hi});
        }
        if (pos_ >= end_) {
            fail("unterminated class");
        }
        pos_++;  // ']'
        return class_gbnf(ranges, negated);
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
