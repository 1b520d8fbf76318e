// Deterministic random inputs (valid and invalid UTF-8) on every vocab in tests/data: tokenization never fails,
// every id is in range, and detokenize(tokenize(x)) == x where the vocab can express x:
//   byte-level BPE: always (invalid UTF-8 included) when every byte of x has a normal token (several
//   vocabs lack bytes that never occur in valid UTF-8, or declare them user-defined);
//   SPM: whenever x holds no U+2581 (SPM's own space mark, which reads back as ' ');
//   WordPiece lowercases and drops accents, so only the ids are checked.
#include "llama-unicode.h"
#include "test-tokenizer-vocab-util.h"

#include <gtest/gtest.h>

#include "test-common.h"

#include <random>

namespace {

const char * const atoms[] = {
    "a",
    "b",
    "Z",
    "the",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "0",
    "7",
    "123",
    "'s",
    "'LL",
    ".",
    ",",
    "!",
    "?",
    "(",
    ")",
    "{",
    "}",
    "<",
    ">",
    "=",
    "_",
    "-",
    "+",
    "$",
    "`",
    "~",
    "|",
    "\\",
    "\"",
    "\xC3\xA9" /* é */,
    "\xC3\xBC" /* ü */,
    "\xD0\x96" /* Ж */,
    "\xE4\xB8\xAD" /* 中 */,
    "\xE1\x9E\x80" /* Khmer ka */,
    "\xF0\x9F\xA6\x99" /* 🦙 */,
    "\xE2\x80\x8D" /* ZWJ */,
    "\xCC\x81" /* combining acute */,
    "\xE3\x80\x80" /* ideographic space */,
    "\xC2\xA0" /* nbsp */,
    "\xEF\xBD\x9E" /* fullwidth tilde */,
    "\xD9\xA3" /* Arabic-Indic 3 */,
    "<think>",
    "<s>",
    "<|endoftext|>",
    "[UNK]",
    "##",
    "\xE0\xA4\x95\xE0\xA5\x8D" /* Devanagari */,
};

std::string random_text(std::mt19937 & rng, bool raw_bytes) {
    std::string  s;
    const size_t n = rng() % 24;
    for (size_t i = 0; i < n; ++i) {
        if (raw_bytes && rng() % 3 == 0) {
            s.push_back(static_cast<char>(rng() & 0xFF));
        } else {
            s += atoms[rng() % (sizeof(atoms) / sizeof(atoms[0]))];
        }
    }
    return s;
}

// every byte of s maps to a normal token of a byte-level vocab
bool bytes_expressible(const llama_vocab & v, const std::string & s) {
    for (char c : s) {
        const llama_token id = v.text_to_token(llama_unicode_byte_to_utf8(static_cast<uint8_t>(c)));
        if (id == LLAMA_TOKEN_NULL || v.token_get_attr(id) != LLAMA_TOKEN_ATTR_NORMAL) {
            return false;
        }
    }
    return true;
}

class VocabRandom : public ::testing::TestWithParam<const char *> {};

TEST_P(VocabRandom, NeverFailsAndRoundTrips) {
    const auto &  v = shared_vocab(GetParam());
    std::mt19937  rng(1234);
    const int32_t n_vocab = v.n_tokens();
    for (int iter = 0; iter < 400; ++iter) {
        const bool        raw  = iter % 2 == 1;
        const std::string text = random_text(rng, raw);
        for (int mode = 0; mode < 4; ++mode) {
            const bool    add_special = mode & 1, parse_special = mode & 2;
            llama_token   buf[512];
            const int32_t n =
                v.tokenize(text.data(), static_cast<int32_t>(text.size()), buf, 512, add_special, parse_special);
            ASSERT_GE(n, 0) << "'" << text << "'";
            for (int32_t i = 0; i < n; ++i) {
                ASSERT_GE(buf[i], 0);
                ASSERT_LT(buf[i], n_vocab);
            }
            char          out[4096];
            const int32_t m = v.detokenize(buf, n, out, sizeof(out), add_special, parse_special);
            ASSERT_GE(m, 0);
            if (mode != 0) {
                continue;
            }
            const std::string back(out, m);
            if (v.get_type() == LLAMA_VOCAB_TYPE_BPE && (!raw || bytes_expressible(v, text))) {
                EXPECT_EQ(back, v.get_clean_spaces() ? testing_util::upstream_clean_spaces(text) : text) << GetParam();
            } else if (v.get_type() == LLAMA_VOCAB_TYPE_SPM && text.find("\xE2\x96\x81") == std::string::npos) {
                EXPECT_EQ(back, text) << GetParam();
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Shared, VocabRandom,
                         ::testing::Values("llama-spm", "phi-3", "baichuan", "bert-bge", "gpt-2", "gpt-neox",
                                           "llama-bpe", "qwen2", "deepseek-coder", "deepseek-llm", "falcon",
                                           "starcoder", "refact", "mpt"),
                         [](const ::testing::TestParamInfo<const char *> & info) {
                             std::string s = info.param;
                             for (char & c : s) {
                                 c = c == '-' ? '_' : c;
                             }
                             return s;
                         });

TEST(TokenizerRandom, LongInputs) {
    // long runs stress the merge queues and the pre-tokenizers' whitespace handling
    const std::string spaces(20000, ' ');
    const std::string digits(20000, '7');
    const std::string mixed = std::string(5000, '\n') + spaces + "x" + digits;
    for (const char * name : {"llama-spm", "llama-bpe", "qwen2", "deepseek-llm", "bert-bge", "falcon"}) {
        const auto & v = shared_vocab(name);
        for (const std::string * s : {&spaces, &digits, &mixed}) {
            const auto t = v.tokenize(*s, false, false);
            EXPECT_TRUE(!t.empty() || (s == &spaces && v.get_type() == LLAMA_VOCAB_TYPE_WPM)) << name;
            if (v.get_type() == LLAMA_VOCAB_TYPE_BPE) {
                EXPECT_EQ(v.detokenize(t, false, false),
                          v.get_clean_spaces() ? testing_util::upstream_clean_spaces(*s) : *s)
                    << name;
            }
        }
    }
}

}  // namespace
