// The pre-tokenizer regex engine on its own: each construct the split expressions use, matched the
// way PCRE / Oniguruma / std::regex match it (leftmost-first alternatives, greedy repeats that give
// back), and every construct outside the subset refused when compiled, naming the expression.
#include "llama-unicode.h"
#include "llama-vocab-regex.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace {

// code points matched at the start of text (0: no match)
size_t match(const char * re, const std::string & text) {
    const llama_pt_regex  r(re);
    std::vector<uint32_t> cpt = llama_unicode_cpts_from_utf8(text);
    std::vector<uint16_t> flags;
    for (uint32_t c : cpt) {
        flags.push_back(llama_unicode_flags(c));
    }
    return r.match(cpt.data(), flags.data(), 0, 0, cpt.size());
}

}  // namespace

TEST(PretokRegex, Constructs) {
    EXPECT_EQ(match("a|ab", "ab"), 1u);  // leftmost-first, not longest
    EXPECT_EQ(match("ab|a", "ab"), 2u);
    EXPECT_EQ(match("a*ab", "aaab"), 4u);  // greedy gives back
    EXPECT_EQ(match("a{2,3}", "aaaa"), 3u);
    EXPECT_EQ(match("a{2}", "a"), 0u);
    EXPECT_EQ(match("a{2,}", "aaaaa"), 5u);
    EXPECT_EQ(match("\\s+(?!\\S)", "   x"), 2u);  // the run minus the space before x
    EXPECT_EQ(match("\\s+(?!\\S)", "   "), 3u);
    EXPECT_EQ(match("a(?=b)", "ab"), 1u);
    EXPECT_EQ(match("a(?=b)", "ac"), 0u);
    EXPECT_EQ(match("\\s+$", "  "), 2u);
    EXPECT_EQ(match("\\s+$", "  x"), 0u);
    EXPECT_EQ(match("(?i:'s)", "'S"), 2u);
    EXPECT_EQ(match("'[sS]", "'S"), 2u);
    EXPECT_EQ(match("[^\\s\\p{L}\\p{N}]+", "!?x"), 2u);
    EXPECT_EQ(match("\\p{Lu}+", "ÉCOLEs"), 5u);
    EXPECT_EQ(match("\\p{Ll}+", "école"), 5u);
    EXPECT_EQ(match("\\p{Lt}", "ǅ"), 1u);
    EXPECT_EQ(match("\\p{Lm}", "ʰ"), 1u);
    EXPECT_EQ(match("\\p{Lo}+", "中文あ"), 3u);
    EXPECT_EQ(match("\\p{M}", "\xCC\x81"), 1u);
    EXPECT_EQ(match("[\\p{L}&&[^\\p{Han}]]+", "ab中"), 2u);
    EXPECT_EQ(match("\\p{Han}+", "中文あ"), 2u);
    EXPECT_EQ(match("[一-龥]+", "中文a"), 2u);
    EXPECT_EQ(match("[\\[-`]+", "[\\]^_`a"), 6u);  // escaped range ends
    EXPECT_EQ(match("[\\-x]+", "-x-y"), 3u);
    EXPECT_EQ(match("(IMGIMG)((A|B){1,4})Z", "IMGIMGABZ"), 9u);
    EXPECT_EQ(match("((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+", "ÉCOLE"), 1u);  // as upstream's gpt-4o rewrite
    EXPECT_EQ(match("((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+", "HELLOworld"), 10u);
    EXPECT_EQ(match("(?:\\p{L}\\p{M}*(?: \\p{L}\\p{M}*)*)+", "ab c  d"), 4u);
    EXPECT_EQ(match("x\\b", "x y"), 1u);
    EXPECT_EQ(match("x\\b", "xy"), 0u);
}

TEST(PretokRegex, RefusesWhatItDoesNotKnow) {
    for (const char * re : {"a+?", "a*+", ".", "^a", "\\d", "\\w", "(?<=a)b", "(?P<n>a)", "[a", "(a", "a)", "\\p{Xx}",
                            "a{2", "a{3,2}", "[b-a]", "\\"}) {
        try {
            llama_pt_regex r(re);
            ADD_FAILURE() << "accepted: " << re;
        } catch (const std::invalid_argument & e) {
            EXPECT_NE(std::string(e.what()).find(re), std::string::npos) << e.what();
        }
    }
}
