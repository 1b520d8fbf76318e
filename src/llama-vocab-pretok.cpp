#include "llama-vocab-pretok.h"

#include "llama-unicode.h"
#include "llama-vocab-regex.h"

#include <cstdint>
#include <cstring>
#include <memory>

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

// Digit runs cut into groups of three from the right (1234567 -> 1 234 567): upstream's hand-written
// splitter for afmoe and tiny_aya (\p{N}), and superbpe's (?=(\d{3})+(?!\d)) (ASCII digits).
template <bool ascii>
size_t m_digit_groups(const pt_text & t, size_t pos, size_t end, size_t &) {
    auto         digit = [](uint32_t c, uint16_t g) { return ascii ? (c >= '0' && c <= '9') : (g & F_N) != 0; };
    const size_t r     = run(t, pos, end, digit) - pos;
    return r % 3 ? r % 3 : (r ? 3 : 0);
}

// One step of a rule set: a hand-written matcher, or an expression for the regex engine.
struct stage_def {
    matcher      fn;
    const char * re;
};

stage_def M(matcher fn) {
    return {fn, nullptr};
}

stage_def R(const char * re) {
    return {nullptr, re};
}

struct stage {
    matcher                         fn = nullptr;
    std::shared_ptr<llama_pt_regex> re;
};

// findall: matches and the gaps between them, both as pieces
void split_stage(const pt_text & t, const stage & st, size_t begin, size_t end,
                 std::vector<std::pair<size_t, size_t>> & out) {
    size_t gap = begin;
    size_t pos = begin;
    while (pos < end) {
        size_t       skip = 1;
        const size_t n = st.fn ? st.fn(t, pos, end, skip) : st.re->match(t.cpt.data(), t.flags.data(), begin, pos, end);
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

// Expressions shared by several rule sets. The strings are upstream llama.cpp's (4df29be4), which are
// the tokenizer.json ones, some rewritten there for std::regex: (?i:...) spelled out as [sS] pairs,
// and gpt-4o's \p{Lu}... classes as lookaheads, with a letter outside ASCII counting as both cases.
#define CONTRACTIONS "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])"
#define BLOOM_RE     " ?[^(\\s|.,!?…。，、।۔،)]+"
#define NEWLINES_RE  "[^\\n]+|[\\n]+"
#define WORDS_AFTER_PUNCT                                                                                 \
    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\\r\\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| " \
    "?[\\p{P}\\p{S}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
#define CASED_TAIL "\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"

struct pretok_def {
    llama_pretok_type      type;
    const char *           name;  // canonical name
    bool                   byte_encode;
    std::vector<stage_def> stages;
};

// One row per rule set, in llama_pretok_type order.
const std::vector<pretok_def> & pretok_table() {
    static const std::vector<pretok_def> defs = {
        {llama_pretok_type::DEFAULT,
         "default",
         true,
         {M(m_punct_run<false>), M(m_gpt2), M(m_digits), M(m_ascii_digits3)}},
        {llama_pretok_type::GPT2, "gpt-2", true, {M(m_gpt2)}},
        {llama_pretok_type::LLAMA3, "llama-bpe", true, {M(m_llama3<3>)}},
        {llama_pretok_type::QWEN2, "qwen2", true, {M(m_llama3<1>)}},
        {llama_pretok_type::DEEPSEEK_LLM,
         "deepseek-llm",
         true,
         {M(m_newline), M(m_ds_letters), M(m_ds_punct), M(m_ws_at_end), M(m_cjk), M(m_digits)}},
        {llama_pretok_type::DEEPSEEK_CODER,
         "deepseek-coder",
         true,
         {M(m_newline), M(m_ws_letters), M(m_ws_punct), M(m_cjk), M(m_digit)}},
        {llama_pretok_type::FALCON, "falcon", true, {M(m_punct_run<true>), M(m_gpt2), M(m_ascii_digits3)}},
        {llama_pretok_type::STARCODER, "starcoder", true, {M(m_digit), M(m_gpt2)}},
        {llama_pretok_type::JAIS2,
         "jais-2",
         true,
         {R(CONTRACTIONS "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|"
                         "\\s{512}(?!\\S)|\\s{256}(?!\\S)|\\s{128}(?!\\S)|\\s{64}(?!\\S)|\\s{32}(?!\\S)|\\s{16}(?!\\S)|"
                         "\\s{8}(?!\\S)|\\s{4}(?!\\S)|\\s{1,2}(?!\\S)|\\s{1}")}},
        {llama_pretok_type::DEEPSEEK3,
         "deepseek-v3",
         true,
         {R("\\p{N}{1,3}"), R("[一-龥぀-ゟ゠-ヿ]+"), R(WORDS_AFTER_PUNCT)}},
        {llama_pretok_type::YOUTU,
         "youtu",
         true,
         {R("[가-힣ㄱ-ㆎ]+|[！…“”‘’—：；，、-〿︰-﹏]+|[ㄅ-ㄯ]+|[一-龥぀-ゟ゠-ヿ]+"),
          R("[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+" CONTRACTIONS
            "?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*" CONTRACTIONS
            "?|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+")}},
        {llama_pretok_type::QWEN35,
         "qwen35",
         true,
         {R(CONTRACTIONS
            "|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]+|\\p{N}| ?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|"
            "\\s+(?!\\S)|\\s+")}},
        {llama_pretok_type::BLOOM, "bloom", true, {R(BLOOM_RE)}},
        {llama_pretok_type::VIKING, "viking", true, {R(BLOOM_RE), M(m_digit)}},
        {llama_pretok_type::TEKKEN,
         "tekken",
         true,
         {R("[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])(["
            "^"
            "a-z]))+((?=[\\p{L}])([^A-Z]))*|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+")}},
        {llama_pretok_type::CHAMELEON,
         "chameleon",
         true,
         {R("<sentinel:[0-9]+>"), R("(IMGIMG)((A|B|C|D|E|F|G|H|I){1,4})Z"), R("([\\t\\n]|    |  )"), M(m_digit),
          R("[\\p{P}!-/:-@\\[-`{-~]"), M(m_gpt2)}},
        {llama_pretok_type::GPT4O,
         "gpt-4o",
         true,
         {R("[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+" CONTRACTIONS
            "?|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))+((?=[\\p{L}])([^A-Z]))*" CONTRACTIONS "?|" CASED_TAIL)}},
        {llama_pretok_type::GRANITE_EMB_MULTI,
         "granite-embed-multi-97m",
         true,
         {R("[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}\\p{M}])([^a-z]))*((?=[\\p{L}\\p{M}])([^A-Z]))+" CONTRACTIONS
            "?|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}\\p{M}])([^a-z]))+((?=[\\p{L}\\p{M}])([^A-Z]))*" CONTRACTIONS
            "?|" CASED_TAIL)}},
        {llama_pretok_type::TINY_AYA,
         "tiny_aya",
         true,
         {M(m_digit_groups<false>),
          R("[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+" CONTRACTIONS
            "?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*" CONTRACTIONS
            "?|" CASED_TAIL)}},
        // upstream's hand-written kimi-k2 splitter, as an expression: Han runs, then words of other
        // letters (case runs not split, marks not joined), contractions, \p{N}{1,3}, llama3's rest
        {llama_pretok_type::KIMI_K2,
         "kimi-k2",
         true,
         {R("\\p{Han}+|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}&&[^\\p{Han}]]+" CONTRACTIONS
            "?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+")}},
        {llama_pretok_type::SUPERBPE, "superbpe", true, {M(m_digits), M(m_digit_groups<true>)}},
        {llama_pretok_type::BAILINGMOE,
         "bailingmoe",
         true,
         {R("'(?:[sSdDmMtT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| "
            "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
            "\\s*[\\r\\n]|\\s+(?!\\S)|\\s+")}},
        {llama_pretok_type::SEED_CODER,
         "seed-coder",
         true,
         {R(CONTRACTIONS
            "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1}| ?[^\\s\\p{L}\\p{N}\\r\\n]+|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+")}},
        {llama_pretok_type::AFMOE,
         "afmoe",
         true,
         {M(m_digit_groups<false>),
          R("[一-鿿㐀-䶿豈-﫿぀-ゟ゠-ヿ･-ﾟ⼀-⿟เ-๿຀-໿ក-៿က-႟ꩠ-ꩿꧠ-꧿가-힯ᄀ-"
            "ᇿ]"
            "+"),
          R(WORDS_AFTER_PUNCT)}},
        {llama_pretok_type::LAGUNA, "laguna", true, {R(NEWLINES_RE), M(m_llama3<1>)}},
        {llama_pretok_type::EXAONE_MOE,
         "exaone-moe",
         true,
         {R(CONTRACTIONS
            "|[^\\r\\n\\p{L}\\p{N}]?(?:\\p{L}\\p{M}*(?: \\p{L}\\p{M}*)*)+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]?|"
            "\\s*[\\r\\n]|\\s+(?!\\S)|\\s+")}},
        {llama_pretok_type::NEWLINES, "gemma4", false, {R(NEWLINES_RE)}},
        {llama_pretok_type::MINICPM5,
         "minicpm5",
         true,
         {R("\\p{N}{1,3}"),
          R(CONTRACTIONS "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}+| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|"
                         "\\s+(?!\\S)|\\s+")}},
        {llama_pretok_type::WHITESPACE, "whitespace", false, {R("\\S+")}},
    };
    static_assert((int) llama_pretok_type::COUNT == 29, "one row per llama_pretok_type");
    return defs;
}

// the table with its expressions compiled, built once (thread-safe static initialization)
const std::vector<std::vector<stage>> & pretok_stages() {
    static const std::vector<std::vector<stage>> all = [] {
        std::vector<std::vector<stage>> v(pretok_table().size());
        for (const auto & d : pretok_table()) {
            auto & st = v[(size_t) d.type];
            for (const auto & s : d.stages) {
                stage x;
                x.fn = s.fn;
                if (s.re) {
                    x.re = std::make_shared<llama_pt_regex>(s.re);
                }
                st.push_back(std::move(x));
            }
        }
        return v;
    }();
    return all;
}

const pretok_def * find_def(llama_pretok_type type) {
    for (const auto & d : pretok_table()) {
        if (d.type == type) {
            return &d;
        }
    }
    return nullptr;
}

}  // namespace

const char * llama_pretok_name(llama_pretok_type type) {
    const pretok_def * d = find_def(type);
    return d ? d->name : "?";
}

bool llama_pretok_byte_encode(llama_pretok_type type) {
    const pretok_def * d = find_def(type);
    return d ? d->byte_encode : true;
}

void llama_pretok_split(llama_pretok_type type, const std::string & text,
                        std::vector<std::pair<size_t, size_t>> & pieces) {
    pieces.clear();
    if (text.empty()) {
        return;
    }
    const auto & all = pretok_stages();
    const size_t ti  = (size_t) type < all.size() ? (size_t) type : 0;
    pt_text      t;
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
    for (const stage & st : all[ti]) {
        next.clear();
        for (const auto & p : cur) {
            split_stage(t, st, p.first, p.second, next);
        }
        cur.swap(next);
    }
    pieces.reserve(cur.size());
    for (const auto & p : cur) {
        pieces.emplace_back(t.offs[p.first], t.offs[p.second]);
    }
}
