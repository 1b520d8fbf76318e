#include "llama-vocab-pretok.h"

#include "llama-unicode.h"

#include <cstdint>
#include <cstring>

namespace {

// the text of one split call, decoded once
struct pt_text {
    std::vector<uint32_t> cpt;
    std::vector<uint16_t> flags;
    std::vector<size_t>   offs;  // byte offset of each code point, plus the end
};

// A matcher returns the length (in code points) of its match at pos within [pos, end), or 0.
// On 0 it may raise `skip` to say no match can start before pos + skip (avoids quadratic rescans).
using matcher = size_t (*)(const pt_text & t, size_t pos, size_t end, size_t & skip);

constexpr uint16_t F_WS = LLAMA_UNICODE_WHITESPACE;
constexpr uint16_t F_L  = LLAMA_UNICODE_LETTER;
constexpr uint16_t F_N  = LLAMA_UNICODE_NUMBER;
constexpr uint16_t F_P  = LLAMA_UNICODE_PUNCTUATION;

inline bool is_nl(uint32_t c) {
    return c == '\r' || c == '\n';
}

// extends from pos while the predicate on flags holds; returns the end index
template <typename Pred>
inline size_t run(const pt_text & t, size_t pos, size_t end, Pred pred) {
    while (pos < end && pred(t.cpt[pos], t.flags[pos])) {
        ++pos;
    }
    return pos;
}

inline bool other(uint16_t f) {
    return !(f & (F_WS | F_L | F_N));
}  // [^\s\p{L}\p{N}]

// 's|'t|'re|'ve|'m|'ll|'d, optionally case-insensitive (ASCII)
size_t contraction(const pt_text & t, size_t pos, size_t end, bool icase) {
    if (t.cpt[pos] != '\'' || pos + 1 >= end) {
        return 0;
    }
    auto lc = [&](size_t i) {
        const uint32_t c = t.cpt[i];
        return (icase && c >= 'A' && c <= 'Z') ? c + 32 : c;
    };
    const uint32_t c1 = lc(pos + 1);
    if (c1 == 's' || c1 == 't' || c1 == 'm' || c1 == 'd') {
        return 2;
    }
    if (pos + 2 < end) {
        const uint32_t c2 = lc(pos + 2);
        if ((c1 == 'r' && c2 == 'e') || (c1 == 'v' && c2 == 'e') || (c1 == 'l' && c2 == 'l')) {
            return 3;
        }
    }
    return 0;
}

// \s+(?!\S)|\s+ at a whitespace code point: the run minus its last code point when a non-space follows
size_t trailing_ws(const pt_text & t, size_t pos, size_t end) {
    const size_t r = run(t, pos, end, [](uint32_t, uint16_t f) { return f & F_WS; });
    if (r == end || r - pos == 1) {
        return r - pos;
    }
    return r - 1 - pos;
}

// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
size_t m_gpt2(const pt_text & t, size_t pos, size_t end, size_t &) {
    if (size_t n = contraction(t, pos, end, false)) {
        return n;
    }
    const size_t q = pos + (t.cpt[pos] == ' ' ? 1 : 0);
    if (q < end) {
        const uint16_t f = t.flags[q];
        if (f & F_L) {
            return run(t, q, end, [](uint32_t, uint16_t g) { return g & F_L; }) - pos;
        }
        if (f & F_N) {
            return run(t, q, end, [](uint32_t, uint16_t g) { return g & F_N; }) - pos;
        }
        if (other(f)) {
            return run(t, q, end, [](uint32_t, uint16_t g) { return other(g); }) - pos;
        }
    }
    if (t.flags[pos] & F_WS) {
        return trailing_ws(t, pos, end);
    }
    return 0;
}

// (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,D}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
template <size_t max_digits>
size_t m_llama3(const pt_text & t, size_t pos, size_t end, size_t &) {
    if (size_t n = contraction(t, pos, end, true)) {
        return n;
    }
    const uint32_t c       = t.cpt[pos];
    const uint16_t f       = t.flags[pos];
    auto           letters = [](uint32_t, uint16_t g) { return g & F_L; };
    if (f & F_L) {
        return run(t, pos, end, letters) - pos;
    }
    if (!is_nl(c) && !(f & F_N) && pos + 1 < end && (t.flags[pos + 1] & F_L)) {
        return run(t, pos + 1, end, letters) - pos;
    }
    if (f & F_N) {
        size_t n = 1;
        while (n < max_digits && pos + n < end && (t.flags[pos + n] & F_N)) {
            ++n;
        }
        return n;
    }
    const size_t q = pos + (c == ' ' ? 1 : 0);
    if (q < end && other(t.flags[q])) {
        size_t r = run(t, q, end, [](uint32_t, uint16_t g) { return other(g); });
        r        = run(t, r, end, [](uint32_t d, uint16_t) { return is_nl(d); });
        return r - pos;
    }
    if (f & F_WS) {
        const size_t r = run(t, pos, end, [](uint32_t, uint16_t g) { return g & F_WS; });
        for (size_t k = r; k > pos; --k) {
            if (is_nl(t.cpt[k - 1])) {
                return k - pos;  // \s*[\r\n]+ ends at the run's last newline
            }
        }
        return trailing_ws(t, pos, end);
    }
    return 0;
}

// \p{N}
size_t m_digit(const pt_text & t, size_t pos, size_t, size_t &) {
    return (t.flags[pos] & F_N) ? 1 : 0;
}

// \p{N}+
size_t m_digits(const pt_text & t, size_t pos, size_t end, size_t &) {
    return run(t, pos, end, [](uint32_t, uint16_t g) { return g & F_N; }) - pos;
}

// [0-9][0-9][0-9]
size_t m_ascii_digits3(const pt_text & t, size_t pos, size_t end, size_t &) {
    if (pos + 3 > end) {
        return 0;
    }
    for (size_t i = pos; i < pos + 3; ++i) {
        if (t.cpt[i] < '0' || t.cpt[i] > '9') {
            return 0;
        }
    }
    return 3;
}

// [\p{P}\$\+<=>\^~\|`]+  (falcon) and the same without the backtick (default)
template <bool backtick>
size_t m_punct_run(const pt_text & t, size_t pos, size_t end, size_t &) {
    return run(t, pos, end,
               [](uint32_t c, uint16_t g) {
                   return (g & F_P) || c == '$' || c == '+' || c == '<' || c == '=' || c == '>' || c == '^' ||
                          c == '~' || c == '|' || (backtick && c == '`');
               }) -
           pos;
}

// [\r\n]
size_t m_newline(const pt_text & t, size_t pos, size_t, size_t &) {
    return is_nl(t.cpt[pos]) ? 1 : 0;
}

// \s?X+ for a class X
template <typename Pred>
size_t opt_ws_then_run(const pt_text & t, size_t pos, size_t end, Pred pred) {
    size_t q = pos;
    if ((t.flags[pos] & F_WS) && pos + 1 < end && pred(t.cpt[pos + 1], t.flags[pos + 1])) {
        q = pos + 1;
    }
    return run(t, q, end, pred) - pos;
}

size_t m_ws_letters(const pt_text & t, size_t pos, size_t end, size_t &) {
    return opt_ws_then_run(t, pos, end, [](uint32_t, uint16_t g) { return g & F_L; });
}

size_t m_ws_punct(const pt_text & t, size_t pos, size_t end, size_t &) {
    return opt_ws_then_run(t, pos, end, [](uint32_t, uint16_t g) { return g & F_P; });
}

// [一-龥ࠀ-一가-퟿]+
inline bool deepseek_cjk(uint32_t c) {
    return (c >= 0x4E00 && c <= 0x9FA5) || (c >= 0x0800 && c <= 0x4E00) || (c >= 0xAC00 && c <= 0xD7FF);
}

size_t m_cjk(const pt_text & t, size_t pos, size_t end, size_t &) {
    return run(t, pos, end, [](uint32_t c, uint16_t) { return deepseek_cjk(c); }) - pos;
}

// the cased-letter class of deepseek-llm's second expression, as code point ranges
const uint32_t deepseek_letters[][2] = {
    {0x0041, 0x005A},   {0x0061, 0x007A},   {0x00B5, 0x00B5},   {0x00C0, 0x00D6},   {0x00D8, 0x00F6},
    {0x00F8, 0x01BA},   {0x01BC, 0x01BF},   {0x01C4, 0x0293},   {0x0295, 0x02AF},   {0x0370, 0x0373},
    {0x0376, 0x0377},   {0x037B, 0x037D},   {0x037F, 0x037F},   {0x0386, 0x0386},   {0x0388, 0x038A},
    {0x038C, 0x038C},   {0x038E, 0x03A1},   {0x03A3, 0x03F5},   {0x03F7, 0x0481},   {0x048A, 0x052F},
    {0x0531, 0x0556},   {0x10A0, 0x10C5},   {0x13A0, 0x13F5},   {0x13F8, 0x13FD},   {0x1C90, 0x1CBA},
    {0x1CBD, 0x1CBF},   {0x1D00, 0x1D2B},   {0x1D6B, 0x1D77},   {0x1D79, 0x1D9A},   {0x1E00, 0x1F15},
    {0x1F18, 0x1F1D},   {0x1F20, 0x1F45},   {0x1F48, 0x1F4D},   {0x1F50, 0x1F57},   {0x1F59, 0x1F59},
    {0x1F5B, 0x1F5B},   {0x1F5D, 0x1F5D},   {0x1F5F, 0x1F7D},   {0x1F80, 0x1FB4},   {0x1FB6, 0x1FBC},
    {0x1FBE, 0x1FBE},   {0x1FC2, 0x1FC4},   {0x1FC6, 0x1FCC},   {0x1FD0, 0x1FD3},   {0x1FD6, 0x1FDB},
    {0x1FE0, 0x1FEC},   {0x1FF2, 0x1FF4},   {0x1FF6, 0x1FFC},   {0x2102, 0x2102},   {0x2107, 0x2107},
    {0x210A, 0x2113},   {0x2115, 0x2115},   {0x2119, 0x211D},   {0x2124, 0x2124},   {0x2126, 0x2126},
    {0x2128, 0x2128},   {0x212A, 0x212D},   {0x212F, 0x2134},   {0x2139, 0x2139},   {0x213C, 0x213F},
    {0x2145, 0x2149},   {0x214E, 0x214E},   {0x2183, 0x2184},   {0x2C00, 0x2C7B},   {0x2C7E, 0x2CE4},
    {0x2CEB, 0x2CEE},   {0x2CF2, 0x2CF3},   {0xA640, 0xA66D},   {0xA680, 0xA69B},   {0xA722, 0xA76F},
    {0xA771, 0xA787},   {0xA78B, 0xA78E},   {0xAB70, 0xABBF},   {0xFB00, 0xFB06},   {0xFB13, 0xFB17},
    {0xFF21, 0xFF3A},   {0xFF41, 0xFF5A},   {0x10400, 0x1044F}, {0x104B0, 0x104D3}, {0x104D8, 0x104FB},
    {0x10C80, 0x10CB2}, {0x10CC0, 0x10CF2}, {0x118A0, 0x118DF}, {0x1E900, 0x1E943},
};

bool deepseek_letter(uint32_t c) {
    if (c < 0x80) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    }
    size_t lo = 0;
    size_t hi = sizeof(deepseek_letters) / sizeof(deepseek_letters[0]);
    while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (c < deepseek_letters[mid][0]) {
            hi = mid;
        } else if (c > deepseek_letters[mid][1]) {
            lo = mid + 1;
        } else {
            return true;
        }
    }
    return false;
}

size_t m_ds_letters(const pt_text & t, size_t pos, size_t end, size_t &) {
    return opt_ws_then_run(t, pos, end, [](uint32_t c, uint16_t) { return deepseek_letter(c); });
}

// \s?[!-/:-~！-／：-～‘-‟　-。]+
size_t m_ds_punct(const pt_text & t, size_t pos, size_t end, size_t &) {
    return opt_ws_then_run(t, pos, end, [](uint32_t c, uint16_t) {
        return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x7E) || (c >= 0xFF01 && c <= 0xFF0F) ||
               (c >= 0xFF1A && c <= 0xFF5E) || (c >= 0x2018 && c <= 0x201F) || (c >= 0x3000 && c <= 0x3002);
    });
}

// \s+$
size_t m_ws_at_end(const pt_text & t, size_t pos, size_t end, size_t & skip) {
    const size_t r = run(t, pos, end, [](uint32_t, uint16_t g) { return g & F_WS; });
    if (r == end && r > pos) {
        return r - pos;
    }
    skip = r > pos ? r - pos : 1;  // no start inside this run can reach the end either
    return 0;
}

// findall: matches and the gaps between them, both as pieces
void split_stage(const pt_text & t, matcher m, size_t begin, size_t end, std::vector<std::pair<size_t, size_t>> & out) {
    size_t gap = begin;
    size_t pos = begin;
    while (pos < end) {
        size_t       skip = 1;
        const size_t n    = m(t, pos, end, skip);
        if (n > 0) {
            if (gap < pos) {
                out.emplace_back(gap, pos);
            }
            out.emplace_back(pos, pos + n);
            pos += n;
            gap = pos;
        } else {
            pos += skip;
        }
    }
    if (gap < end) {
        out.emplace_back(gap, end);
    }
}

struct pretok_def {
    const char *         name;  // canonical name
    llama_pretok_type    type;
    std::vector<matcher> stages;
};

const std::vector<pretok_def> & pretok_defs() {
    static const std::vector<pretok_def> defs = {
        {"default", llama_pretok_type::DEFAULT, {m_punct_run<false>, m_gpt2, m_digits, m_ascii_digits3}},
        {"gpt-2", llama_pretok_type::GPT2, {m_gpt2}},
        {"llama-bpe", llama_pretok_type::LLAMA3, {m_llama3<3>}},
        {"qwen2", llama_pretok_type::QWEN2, {m_llama3<1>}},
        {"deepseek-llm",
         llama_pretok_type::DEEPSEEK_LLM,
         {m_newline, m_ds_letters, m_ds_punct, m_ws_at_end, m_cjk, m_digits}},
        {"deepseek-coder", llama_pretok_type::DEEPSEEK_CODER, {m_newline, m_ws_letters, m_ws_punct, m_cjk, m_digit}},
        {"falcon", llama_pretok_type::FALCON, {m_punct_run<true>, m_gpt2, m_ascii_digits3}},
        {"starcoder", llama_pretok_type::STARCODER, {m_digit, m_gpt2}},
    };
    return defs;
}

}  // namespace

bool llama_pretok_from_name(const std::string & name, llama_pretok_type & type) {
    // names of tokenizer.ggml.pre that share an expression sequence
    static const struct {
        const char *      name;
        llama_pretok_type type;
    } aliases[] = {
        {"default", llama_pretok_type::DEFAULT},
        {"gpt-2", llama_pretok_type::GPT2},
        {"phi-2", llama_pretok_type::GPT2},
        {"mpt", llama_pretok_type::GPT2},
        {"olmo", llama_pretok_type::GPT2},
        {"jais", llama_pretok_type::GPT2},
        {"jina-es", llama_pretok_type::GPT2},
        {"jina-de", llama_pretok_type::GPT2},
        {"gigachat", llama_pretok_type::GPT2},
        {"roberta-bpe", llama_pretok_type::GPT2},
        {"trillion", llama_pretok_type::GPT2},
        {"llama-bpe", llama_pretok_type::LLAMA3},
        {"llama3", llama_pretok_type::LLAMA3},
        {"llama-v3", llama_pretok_type::LLAMA3},
        {"falcon3", llama_pretok_type::LLAMA3},
        {"pixtral", llama_pretok_type::LLAMA3},
        {"dbrx", llama_pretok_type::LLAMA3},
        {"smaug-bpe", llama_pretok_type::LLAMA3},
        {"qwen2", llama_pretok_type::QWEN2},
        {"deepseek-r1-qwen", llama_pretok_type::QWEN2},
        {"stablelm2", llama_pretok_type::QWEN2},
        {"megrez", llama_pretok_type::QWEN2},
        {"deepseek-llm", llama_pretok_type::DEEPSEEK_LLM},
        {"deepseek-coder", llama_pretok_type::DEEPSEEK_CODER},
        {"falcon", llama_pretok_type::FALCON},
        {"starcoder", llama_pretok_type::STARCODER},
        {"refact", llama_pretok_type::STARCODER},
        {"command-r", llama_pretok_type::STARCODER},
        {"smollm", llama_pretok_type::STARCODER},
        {"codeshell", llama_pretok_type::STARCODER},
        {"exaone", llama_pretok_type::STARCODER},
        {"minerva-7b", llama_pretok_type::STARCODER},
    };
    for (const auto & a : aliases) {
        if (name == a.name) {
            type = a.type;
            return true;
        }
    }
    return false;
}

const char * llama_pretok_name(llama_pretok_type type) {
    for (const auto & d : pretok_defs()) {
        if (d.type == type) {
            return d.name;
        }
    }
    return "?";
}

void llama_pretok_split(llama_pretok_type type, const std::string & text,
                        std::vector<std::pair<size_t, size_t>> & pieces) {
    pieces.clear();
    if (text.empty()) {
        return;
    }
    const pretok_def * def = nullptr;
    for (const auto & d : pretok_defs()) {
        if (d.type == type) {
            def = &d;
        }
    }
    pt_text t;
    t.cpt.reserve(text.size());
    t.flags.reserve(text.size());
    t.offs.reserve(text.size() + 1);
    for (size_t i = 0; i < text.size();) {
        size_t         len = 1;
        const uint32_t c   = llama_unicode_decode(text.data() + i, text.size() - i, len);
        t.cpt.push_back(c);
        t.flags.push_back(llama_unicode_flags(c));
        t.offs.push_back(i);
        i += len;
    }
    t.offs.push_back(text.size());

    std::vector<std::pair<size_t, size_t>> cur = {{0, t.cpt.size()}};
    std::vector<std::pair<size_t, size_t>> next;
    for (matcher m : def->stages) {
        next.clear();
        for (const auto & p : cur) {
            split_stage(t, m, p.first, p.second, next);
        }
        cur.swap(next);
    }
    pieces.reserve(cur.size());
    for (const auto & p : cur) {
        pieces.emplace_back(t.offs[p.first], t.offs[p.second]);
    }
}
