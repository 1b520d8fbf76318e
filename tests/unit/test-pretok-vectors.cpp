// Every BPE pre-tokenizer rule set against tests/data/pretok-vectors.txt: the pieces upstream
// llama.cpp's split expressions give for a set of probe texts (digit groups, CJK, contractions in
// both cases, whitespace runs, newlines, emoji, marks, punctuation), computed by a separate reference
// in Python (scripts/gen-pretok-vectors.py). Missing data fails the test.
#include "llama-vocab-pretok.h"
#include "test-common.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

namespace {

std::string from_hex(const std::string & h) {
    std::string s;
    for (size_t i = 0; i + 1 < h.size(); i += 2) {
        s += (char) std::stoi(h.substr(i, 2), nullptr, 16);
    }
    return s;
}

// the pieces as quoted text, so a failure shows where the cuts differ
std::string show(const std::string & text, const std::vector<size_t> & lens) {
    std::string out;
    size_t      at = 0;
    for (size_t n : lens) {
        out += "[" + text.substr(at, n) + "]";
        at += n;
    }
    return out;
}

}  // namespace

TEST(PretokVectors, EveryRuleSetMatchesTheReference) {
    const std::string path = std::string(LLAMA_TEST_DATA_DIR) + "/pretok-vectors.txt";
    std::ifstream     in(path);
    ASSERT_TRUE(in.good()) << "missing " << path;

    std::map<std::string, int> checked;
    std::string                line;
    std::string                text;
    while (std::getline(in, line)) {
        if (line.rfind("T ", 0) == 0) {
            text = from_hex(line.substr(2));
            continue;
        }
        ASSERT_EQ(line.rfind("S ", 0), 0u) << line;
        std::istringstream ss(line.substr(2));
        std::string        name;
        std::string        lens_s;
        ss >> name >> lens_s;
        std::vector<size_t> want;
        std::istringstream  ls(lens_s);
        for (std::string n; std::getline(ls, n, ',');) {
            want.push_back(std::stoul(n));
        }
        llama_pretok_type type;
        ASSERT_TRUE(llama_pretok_from_name(name, type)) << name;
        EXPECT_STREQ(llama_pretok_name(type), name.c_str());

        std::vector<std::pair<size_t, size_t>> pieces;
        llama_pretok_split(type, text, pieces);
        std::vector<size_t> got;
        for (const auto & p : pieces) {
            got.push_back(p.second - p.first);
        }
        EXPECT_EQ(show(text, got), show(text, want)) << name;
        ++checked[name];
    }
    // every rule set has vectors
    for (int t = 0; t < (int) llama_pretok_type::COUNT; ++t) {
        const char * name = llama_pretok_name((llama_pretok_type) t);
        EXPECT_GT(checked[name], 20) << name;
    }
}

// Input the probe texts do not cover: invalid UTF-8, long runs (the regex engine must neither recurse
// per code point without bound nor go quadratic) and empty text.
TEST(PretokVectors, HostileInput) {
    const std::string long_word(200000, 'a');
    const std::string long_spaces(200000, ' ');
    std::string       marks_s;
    for (int i = 0; i < 50000; ++i) {
        marks_s += "a\xCC\x81 ";  // a + U+0301, a space: exaone-moe's letter groups continue over it
    }
    const std::string & marks = marks_s;
    for (int t = 0; t < (int) llama_pretok_type::COUNT; ++t) {
        const auto                             type = (llama_pretok_type) t;
        std::vector<std::pair<size_t, size_t>> pieces;
        for (const std::string * s : {&long_word, &long_spaces, &marks}) {
            llama_pretok_split(type, *s, pieces);
            ASSERT_FALSE(pieces.empty()) << llama_pretok_name(type);
            EXPECT_EQ(pieces.front().first, 0u);
            EXPECT_EQ(pieces.back().second, s->size());
            for (size_t i = 1; i < pieces.size(); ++i) {
                ASSERT_EQ(pieces[i].first, pieces[i - 1].second) << llama_pretok_name(type);
            }
        }
        llama_pretok_split(type, "\xFF\xFE a\xC3", pieces);
        ASSERT_FALSE(pieces.empty());
        EXPECT_EQ(pieces.back().second, 5u) << llama_pretok_name(type);
        llama_pretok_split(type, "", pieces);
        EXPECT_TRUE(pieces.empty());
    }
}
