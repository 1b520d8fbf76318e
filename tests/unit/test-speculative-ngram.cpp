// The n-gram drafter of speculative decoding (src/llama-speculative-draft.cpp): the longest tail
// n-gram that occurred before proposes what followed its latest occurrence, continued through the
// draft itself for periodic text; nothing when no n-gram of the allowed sizes recurs.
#include <gtest/gtest.h>

#include <vector>

#include "llama-speculative-impl.h"

namespace {

std::vector<llama_token> draft(const std::vector<llama_token> & seq, int n_min, int n_max, int n_draft) {
    std::vector<llama_token> out = {99};  // the drafter clears what it is given
    llama_spec_draft_ngram(seq, n_min, n_max, n_draft, out);
    return out;
}

TEST(SpeculativeNgram, PeriodicTextContinuesThroughTheDraft) {
    EXPECT_EQ(draft({1, 2, 3, 4, 1, 2, 3}, 2, 4, 5), (std::vector<llama_token>{4, 1, 2, 3, 4}));
}

TEST(SpeculativeNgram, LatestOccurrenceWins) {
    EXPECT_EQ(draft({5, 6, 1, 5, 6, 2, 5, 6}, 2, 2, 3), (std::vector<llama_token>{2, 5, 6}));
}

TEST(SpeculativeNgram, LongestNgramFirst) {
    // the 2-gram (8, 9) last occurred before 4, the 3-gram (7, 8, 9) before 3
    EXPECT_EQ(draft({7, 8, 9, 3, 8, 9, 4, 7, 8, 9}, 2, 3, 1), (std::vector<llama_token>{3}));
    EXPECT_EQ(draft({7, 8, 9, 3, 8, 9, 4, 7, 8, 9}, 2, 2, 1), (std::vector<llama_token>{4}));
}

TEST(SpeculativeNgram, NothingWithoutARecurringNgram) {
    EXPECT_TRUE(draft({7, 8, 7}, 2, 4, 4).empty());
    EXPECT_EQ(draft({7, 8, 7}, 1, 4, 3), (std::vector<llama_token>{8, 7, 8}));
    EXPECT_TRUE(draft({}, 1, 4, 4).empty());
    EXPECT_TRUE(draft({1}, 1, 1, 4).empty());
}

}  // namespace
