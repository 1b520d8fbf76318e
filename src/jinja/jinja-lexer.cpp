// Template text -> tokens, with the whitespace rules of the environment chat templates are written
// for (Jinja2 with trim_blocks and lstrip_blocks, keep_trailing_newline off).
#include "jinja-ast.h"

#include <cctype>
#include <cstring>

namespace jinja {

namespace {

struct lexer {
    std::string        src;
    size_t             pos           = 0;
    bool               line_starting = true;
    std::vector<token> out;

    // line numbers for messages; tokens come in source order, so counting resumes where it stopped
    mutable size_t lc_pos  = 0;
    mutable int    lc_line = 1;
    int line_at(size_t p) const {
        if (p < lc_pos) {
            lc_pos  = 0;
            lc_line = 1;
        }
        for (; lc_pos < p && lc_pos < src.size(); ++lc_pos) {
            lc_line += src[lc_pos] == '\n';
        }
        return lc_line;
    }
    [[noreturn]] void fail(size_t p, const std::string & msg) const {
        throw error("line " + std::to_string(line_at(p)) + ": " + msg);
    }
    void emit(tok t, std::string text, size_t p) { out.push_back(token{ t, std::move(text), line_at(p), 0 }); }

    static bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
    static std::string rstrip(const std::string & s) {
        size_t n = s.size();
        while (n > 0 && is_ws(s[n - 1])) {
            --n;
        }
        return s.substr(0, n);
    }
    size_t skip_ws(size_t p) const {
        while (p < src.size() && is_ws(src[p])) {
            ++p;
        }
        return p;
    }
    // The data before a tag, with the tag's strip sign and lstrip_blocks applied.
    std::string leading_text(std::string text, char sign, bool is_var) const {
        if (sign == '-') {
            return rstrip(text);
        }
        if (sign != '+' && !is_var) {
            size_t l_pos = text.rfind('\n');
            l_pos        = l_pos == std::string::npos ? 0 : l_pos + 1;
            if (l_pos > 0 || line_starting) {
                bool only_blank = true;
                for (size_t j = l_pos; j < text.size(); ++j) {
                    if (text[j] != ' ' && text[j] != '\t') {
                        only_blank = false;
                        break;
                    }
                }
                if (only_blank) {
                    text.resize(l_pos);
                }
            }
        }
        return text;
    }
    // After a tag end at p (just past "}}" / "%}" / "#}"): strip sign '-' eats all whitespace,
    // trim_blocks eats one newline after block and comment tags unless the sign is '+'.
    void after_tag(size_t p, char sign, bool is_var) {
        if (sign == '-') {
            p = skip_ws(p);
        } else if (!is_var && sign != '+' && p < src.size() && src[p] == '\n') {
            ++p;
        }
        line_starting = p > 0 && src[p - 1] == '\n';
        pos           = p;
    }

    // "{% raw %}" at p? Returns the position after the tag and its end sign.
    bool raw_begin(size_t p, size_t & after, char & end_sign) const {
        size_t q = p + 2;
        if (q < src.size() && (src[q] == '-' || src[q] == '+')) {
            ++q;
        }
        q = skip_ws(q);
        if (src.compare(q, 3, "raw") != 0) {
            return false;
        }
        q = skip_ws(q + 3);
        end_sign = 0;
        if (q < src.size() && (src[q] == '-' || src[q] == '+')) {
            end_sign = src[q++];
        }
        if (src.compare(q, 2, "%}") != 0) {
            return false;
        }
        after = q + 2;
        return true;
    }
    void lex_raw(size_t begin_tag, size_t after, char end_sign) {
        after_tag(after, end_sign, false);
        size_t search = pos;
        while (true) {
            size_t at = src.find("{%", search);
            if (at == std::string::npos) {
                fail(begin_tag, "raw block not closed by {% endraw %}");
            }
            size_t q    = at + 2;
            char   sign = 0;
            if (q < src.size() && (src[q] == '-' || src[q] == '+')) {
                sign = src[q++];
            }
            q = skip_ws(q);
            if (src.compare(q, 6, "endraw") == 0) {
                q          = skip_ws(q + 6);
                char esign = 0;
                if (q < src.size() && (src[q] == '-' || src[q] == '+')) {
                    esign = src[q++];
                }
                if (src.compare(q, 2, "%}") == 0) {
                    std::string text = src.substr(pos, at - pos);
                    if (sign == '-') {
                        text = rstrip(text);
                    }
                    if (!text.empty()) {
                        emit(tok::text, text, pos);
                    }
                    after_tag(q + 2, esign, false);
                    return;
                }
            }
            search = at + 2;
        }
    }

    void lex_string(size_t & p, char quote) {
        size_t      start = p++;
        std::string s;
        while (true) {
            if (p >= src.size()) {
                fail(start, "unterminated string literal");
            }
            char c = src[p++];
            if (c == quote) {
                break;
            }
            if (c != '\\') {
                s += c;
                continue;
            }
            if (p >= src.size()) {
                fail(start, "unterminated string literal");
            }
            char e = src[p++];
            auto hex = [&](int n) {
                uint32_t v = 0;
                for (int j = 0; j < n; ++j) {
                    if (p >= src.size() || !isxdigit((unsigned char) src[p])) {
                        fail(start, "bad escape in string literal");
                    }
                    char h = src[p++];
                    v      = v * 16 + (uint32_t) (isdigit((unsigned char) h) ? h - '0' : (tolower(h) - 'a' + 10));
                }
                return v;
            };
            switch (e) {
                case 'n': s += '\n'; break;
                case 't': s += '\t'; break;
                case 'r': s += '\r'; break;
                case '\\': s += '\\'; break;
                case '\'': s += '\''; break;
                case '"': s += '"'; break;
                case 'a': s += '\a'; break;
                case 'b': s += '\b'; break;
                case 'f': s += '\f'; break;
                case 'v': s += '\v'; break;
                case '0': s += '\0'; break;
                case '\n': break;  // line continuation
                case 'x': utf8_append(s, hex(2)); break;
                case 'u': utf8_append(s, hex(4)); break;
                case 'U': {
                    uint32_t cp = hex(8);
                    if (cp > 0x10FFFF) {
                        fail(start, "bad \\U escape");
                    }
                    utf8_append(s, cp);
                    break;
                }
                default:  // Python keeps unknown escapes as written
                    s += '\\';
                    s += e;
            }
        }
        emit(tok::string, s, start);
    }

    // Tokens of one tag's expression up to its end marker; returns the end's strip sign.
    char lex_tag(size_t p, const char * end, bool is_var) {
        int depth = 0;  // open brackets: "}}" inside {'a': {'b': 1}} does not end the tag (as Jinja2)
        while (true) {
            p = skip_ws(p);
            if (p >= src.size()) {
                fail(p, std::string("tag not closed by ") + end);
            }
            char c = src[p];
            // end marker, with an optional sign right before it
            if (depth == 0 && (c == '-' || c == '+') && src.compare(p + 1, 2, end) == 0) {
                emit(is_var ? tok::var_end : tok::block_end, end, p);
                after_tag(p + 3, c, is_var);
                return c;
            }
            if (depth == 0 && src.compare(p, 2, end) == 0) {
                emit(is_var ? tok::var_end : tok::block_end, end, p);
                after_tag(p + 2, 0, is_var);
                return 0;
            }
            if (c == '\'' || c == '"') {
                lex_string(p, c);
                continue;
            }
            if (isalpha((unsigned char) c) || c == '_') {
                size_t s = p;
                while (p < src.size() && (isalnum((unsigned char) src[p]) || src[p] == '_')) {
                    ++p;
                }
                emit(tok::name, src.substr(s, p - s), s);
                continue;
            }
            if (isdigit((unsigned char) c)) {
                size_t s           = p;
                bool   after_dot   = s > 0 && src[s - 1] == '.';
                bool   is_float    = false;
                auto   digits      = [&]() {
                    while (p < src.size() && (isdigit((unsigned char) src[p]) ||
                                              (src[p] == '_' && p + 1 < src.size() && isdigit((unsigned char) src[p + 1])))) {
                        ++p;
                    }
                };
                digits();
                if (!after_dot && p + 1 < src.size() && src[p] == '.' && isdigit((unsigned char) src[p + 1])) {
                    is_float = true;
                    ++p;
                    digits();
                }
                if (!after_dot && p < src.size() && (src[p] == 'e' || src[p] == 'E')) {
                    size_t q = p + 1;
                    if (q < src.size() && (src[q] == '+' || src[q] == '-')) {
                        ++q;
                    }
                    if (q < src.size() && isdigit((unsigned char) src[q])) {
                        is_float = true;
                        p        = q;
                        digits();
                    }
                }
                std::string num;
                for (size_t j = s; j < p; ++j) {
                    if (src[j] != '_') {
                        num += src[j];
                    }
                }
                emit(is_float ? tok::floating : tok::integer, num, s);
                continue;
            }
            static const char * ops2[] = { "//", "**", "==", "!=", "<=", ">=" };
            bool                two    = false;
            for (const char * o : ops2) {
                if (src.compare(p, 2, o) == 0) {
                    emit(tok::op, o, p);
                    p += 2;
                    two = true;
                    break;
                }
            }
            if (two) {
                continue;
            }
            if (strchr("+-*/%~<>=()[]{},.:|", c)) {
                if (c == '(' || c == '[' || c == '{') {
                    ++depth;
                } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
                    --depth;
                }
                emit(tok::op, std::string(1, c), p);
                ++p;
                continue;
            }
            fail(p, std::string("unexpected character '") + c + "'");
        }
    }

    void run() {
        while (pos <= src.size()) {
            size_t at = pos;
            while (true) {
                at = src.find('{', at);
                if (at == std::string::npos || at + 1 >= src.size()) {
                    at = std::string::npos;
                    break;
                }
                char n = src[at + 1];
                if (n == '{' || n == '%' || n == '#') {
                    break;
                }
                ++at;
            }
            if (at == std::string::npos) {
                if (pos < src.size()) {
                    emit(tok::text, src.substr(pos), pos);
                }
                return;
            }
            char        kind   = src[at + 1];
            char        sign   = (at + 2 < src.size() && (src[at + 2] == '-' || src[at + 2] == '+')) ? src[at + 2] : 0;
            bool        is_var = kind == '{';
            std::string text   = leading_text(src.substr(pos, at - pos), sign, is_var);
            if (!text.empty()) {
                emit(tok::text, text, pos);
            }
            size_t body = at + 2 + (sign ? 1 : 0);
            if (kind == '#') {
                size_t close = src.find("#}", body);
                if (close == std::string::npos) {
                    fail(at, "comment not closed by #}");
                }
                char esign = (close > body && (src[close - 1] == '-' || src[close - 1] == '+')) ? src[close - 1] : 0;
                after_tag(close + 2, esign, false);
                continue;
            }
            size_t after;
            char   raw_sign;
            if (kind == '%' && raw_begin(at, after, raw_sign)) {
                lex_raw(at, after, raw_sign);
                continue;
            }
            emit(is_var ? tok::var_begin : tok::block_begin, is_var ? "{{" : "{%", at);
            lex_tag(body, is_var ? "}}" : "%}", is_var);
        }
    }
};

}  // namespace

std::vector<token> tokenize(const std::string & source) {
    lexer lx;
    // newlines normalised to \n and one final newline dropped, as Jinja2 does
    lx.src.reserve(source.size());
    for (size_t j = 0; j < source.size(); ++j) {
        if (source[j] == '\r') {
            lx.src += '\n';
            if (j + 1 < source.size() && source[j + 1] == '\n') {
                ++j;
            }
        } else {
            lx.src += source[j];
        }
    }
    if (!lx.src.empty() && lx.src.back() == '\n') {
        lx.src.pop_back();
    }
    lx.run();
    lx.out.push_back(token{ tok::eof, "", lx.line_at(lx.src.size()), 0 });
    return std::move(lx.out);
}

}  // namespace jinja
