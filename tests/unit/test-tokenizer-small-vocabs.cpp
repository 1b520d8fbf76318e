// UGM (Unigram) and RWKV (greedy trie) on small vocabs built here, loading through both entry points
// (llama_vocab_data and an in-memory GGUF), plus the Unicode tables and pre-tokenizer splits directly.
#include "gguf.h"
#include "llama-unicode.h"
#include "llama-vocab-pretok.h"
#include "llama-vocab.h"

#include <gtest/gtest.h>

using tokens = std::vector<llama_token>;

namespace {

const char * const ugm_tokens[] = {
    "<pad>",
    "</s>",
    "<unk>",
    "\xE2\x96\x81",
    "\xE2\x96\x81hello",
    "\xE2\x96\x81he",
    "llo",
    "\xE2\x96\x81world",
    "h",
    "e",
    "l",
    "o",
    "w",
    "r",
    "d",
    "<user>",
    "\xE2\x96\x81wor",
    "ld",
};

llama_vocab_data ugm_data() {
    llama_vocab_data d;
    d.model  = "t5";
    d.tokens = std::vector<std::string>(std::begin(ugm_tokens), std::end(ugm_tokens));
    d.scores = {0, 0, 0, -2, -1, -3, -3, -1.5f, -5, -5, -5, -5, -5, -5, -5, 0, -2, -2};
    d.token_types.assign(d.tokens.size(), LLAMA_TOKEN_TYPE_NORMAL);
    d.token_types[0]  = LLAMA_TOKEN_TYPE_CONTROL;
    d.token_types[1]  = LLAMA_TOKEN_TYPE_CONTROL;
    d.token_types[2]  = LLAMA_TOKEN_TYPE_UNKNOWN;
    d.token_types[15] = LLAMA_TOKEN_TYPE_USER_DEFINED;
    return d;
}

}  // namespace

TEST(TokenizerUgm, BestSegmentation) {
    llama_vocab v;
    ASSERT_NO_THROW(v.load(ugm_data()));
    EXPECT_EQ(v.type_name(), "UGM");
    EXPECT_EQ(v.tokenize("hello world", false, false), (tokens{4, 7}));       // not ▁he+llo, not ▁wor+ld
    EXPECT_EQ(v.tokenize("hello world", true, false), (tokens{4, 7, 1}));     // T5 appends </s>
    EXPECT_EQ(v.tokenize("  hello   world ", false, false), (tokens{4, 7}));  // extra spaces removed
    EXPECT_EQ(v.tokenize("hello xyz", false, false), (tokens{4, 3, 2}));      // unknown run -> one <unk>
    EXPECT_EQ(v.tokenize("hello<user>", false, false), (tokens{4, 15}));      // user-defined always matched
    EXPECT_EQ(v.tokenize("", true, false), (tokens{1}));
    EXPECT_EQ(v.tokenize("\xFF", false, false), (tokens{3, 2}));  // invalid byte -> U+FFFD -> <unk>
    EXPECT_EQ(v.detokenize(tokens{4, 7, 1}, true, false), "hello world");
    EXPECT_EQ(v.token_eos(), 1);
    EXPECT_EQ(v.token_unk(), 2);
}

TEST(TokenizerUgm, WhitespaceOptions) {
    llama_vocab_data d         = ugm_data();
    d.remove_extra_whitespaces = false;
    llama_vocab v;
    ASSERT_NO_THROW(v.load(d));
    // every space is kept as U+2581: "▁hello" "▁" "▁world"
    EXPECT_EQ(v.tokenize("hello  world", false, false), (tokens{4, 3, 7}));
    d.add_space_prefix = false;
    ASSERT_NO_THROW(v.load(d));
    EXPECT_EQ(v.tokenize("hello", false, false), (tokens{8, 9, 6}));  // h e llo beats h e l l o
}

TEST(TokenizerUgm, BadCharsmap) {
    llama_vocab_data d     = ugm_data();
    d.precompiled_charsmap = {1, 2};
    llama_vocab v;
    EXPECT_THROW(v.load(d), std::runtime_error);
    d.precompiled_charsmap = {0xFF, 0xFF, 0, 0, 1, 2, 3};  // XCDA size past the end
    EXPECT_THROW(v.load(d), std::runtime_error);
    d.precompiled_charsmap = {4, 0, 0, 0, 0, 0, 0, 0, 'x', 0};  // one empty node: matches nothing
    ASSERT_NO_THROW(v.load(d));
    EXPECT_EQ(v.tokenize("hello", false, false), (tokens{4}));
}

namespace {

const char * const rwkv_tokens[] = {"a",     "b", "ab",    "abc",  "\\n",  "\\x00",
                                    "\\xff", " ", "hello", "hell", "\\\\", "\\'"};

}  // namespace

TEST(TokenizerRwkv, GreedyLongestMatch) {
    llama_vocab_data d;
    d.model  = "rwkv";
    d.tokens = std::vector<std::string>(std::begin(rwkv_tokens), std::end(rwkv_tokens));
    llama_vocab v;
    ASSERT_NO_THROW(v.load(d));
    EXPECT_EQ(v.type_name(), "RWKV");
    EXPECT_EQ(v.tokenize("abcab\nhello hel", false, false), (tokens{3, 2, 4, 8, 7}));  // "hel": no token
    EXPECT_EQ(v.tokenize("abcab\nhello", false, false), (tokens{3, 2, 4, 8}));
    EXPECT_EQ(v.tokenize(std::string("\0\xFF", 2), false, false), (tokens{5, 6}));
    EXPECT_EQ(v.tokenize("a\\'", false, false), (tokens{0, 10, 11}));  // escaped backslash and quote
    EXPECT_EQ(v.tokenize("hellx", false, false), (tokens{9}));         // 'x' has no token and no <unk>: dropped
    EXPECT_EQ(v.tokenize("ab", true, false), (tokens{2}));             // RWKV adds no BOS/EOS
    EXPECT_EQ(v.token_to_piece(4), "\n");
    EXPECT_EQ(v.token_to_piece(10), "\\");
    EXPECT_EQ(v.detokenize(v.tokenize("abcab\nhello", false, false), false, false), "abcab\nhello");
    EXPECT_EQ(v.token_nl(), 4);
}

TEST(TokenizerLoad, FromInMemoryGguf) {
    gguf_context * g = gguf_init_empty();
    ASSERT_NE(g, nullptr);
    ASSERT_TRUE(gguf_set_val_str(g, "tokenizer.ggml.model", "rwkv"));
    std::vector<const char *> toks(std::begin(rwkv_tokens), std::end(rwkv_tokens));
    ASSERT_TRUE(gguf_set_arr_str(g, "tokenizer.ggml.tokens", toks.data(), toks.size()));
    ASSERT_TRUE(gguf_set_val_u32(g, "tokenizer.ggml.unknown_token_id", 7));
    llama_vocab v;
    ASSERT_NO_THROW(v.load(g));
    EXPECT_EQ(v.n_tokens(), static_cast<int32_t>(toks.size()));
    EXPECT_EQ(v.tokenize("abx", false, false), (tokens{2, 7}));  // now 'x' is <unk>
    // wrong value types are errors, not crashes
    ASSERT_TRUE(gguf_set_val_str(g, "tokenizer.ggml.bos_token_id", "one"));
    EXPECT_THROW(v.load(g), std::runtime_error);
    gguf_remove_key(g, "tokenizer.ggml.bos_token_id");
    ASSERT_TRUE(gguf_set_val_u32(g, "tokenizer.ggml.scores", 3));
    EXPECT_THROW(v.load(g), std::runtime_error);
    gguf_remove_key(g, "tokenizer.ggml.scores");
    ASSERT_TRUE(gguf_set_val_str(g, "tokenizer.ggml.model", "gpt2"));
    ASSERT_TRUE(gguf_set_val_str(g, "tokenizer.ggml.pre", "mystery-pre"));
    try {
        v.load(g);
        ADD_FAILURE() << "expected an error";
    } catch (const std::runtime_error & e) {
        EXPECT_NE(std::string(e.what()).find("mystery-pre"), std::string::npos);
    }
    gguf_free(g);
}

TEST(Unicode, Flags) {
    EXPECT_TRUE(llama_unicode_flags('A') & LLAMA_UNICODE_LETTER);
    EXPECT_TRUE(llama_unicode_flags('5') & LLAMA_UNICODE_NUMBER);
    EXPECT_TRUE(llama_unicode_flags(' ') & LLAMA_UNICODE_WHITESPACE);
    EXPECT_TRUE(llama_unicode_flags('\n') & LLAMA_UNICODE_WHITESPACE);
    EXPECT_TRUE(llama_unicode_flags('\n') & LLAMA_UNICODE_CONTROL);
    EXPECT_TRUE(llama_unicode_flags('!') & LLAMA_UNICODE_PUNCTUATION);
    EXPECT_TRUE(llama_unicode_flags('$') & LLAMA_UNICODE_SYMBOL);
    EXPECT_TRUE(llama_unicode_flags(0x0301) & LLAMA_UNICODE_MARK_NONSPACING);
    EXPECT_TRUE(llama_unicode_flags(0x4E2D) & LLAMA_UNICODE_LETTER);
    EXPECT_TRUE(llama_unicode_flags(0x1F999) & LLAMA_UNICODE_SYMBOL);  // 🦙
    EXPECT_TRUE(llama_unicode_flags(0x20000) & LLAMA_UNICODE_LETTER);  // CJK Ext. B (a range in the UCD)
    EXPECT_TRUE(llama_unicode_flags(0x3000) & LLAMA_UNICODE_WHITESPACE);
    EXPECT_TRUE(llama_unicode_flags(0x200D) & LLAMA_UNICODE_CC_OR_CF);  // ZWJ
    EXPECT_TRUE(llama_unicode_flags(0xE0080) & LLAMA_UNICODE_CONTROL);  // unassigned
    EXPECT_EQ(llama_unicode_flags(0x110000), LLAMA_UNICODE_CONTROL);
    EXPECT_TRUE(llama_unicode_flags(0x0663) & LLAMA_UNICODE_NUMBER);  // Arabic-Indic 3
}

TEST(Unicode, LowerAndNfd) {
    EXPECT_EQ(llama_unicode_tolower('A'), static_cast<uint32_t>('a'));
    EXPECT_EQ(llama_unicode_tolower('a'), static_cast<uint32_t>('a'));
    EXPECT_EQ(llama_unicode_tolower(0x0416), 0x0436u);  // Ж
    EXPECT_EQ(llama_unicode_tolower(0x0100), 0x0101u);  // stride-2 run
    EXPECT_EQ(llama_unicode_tolower(0x0101), 0x0101u);
    EXPECT_EQ(llama_unicode_tolower(0x1E9E), 0x00DFu);  // ẞ
    EXPECT_EQ(llama_unicode_tolower(0x10400), 0x10428u);
    std::vector<uint32_t> d;
    llama_unicode_nfd_append(0x00E9, d);
    EXPECT_EQ(d, (std::vector<uint32_t>{0x65, 0x301}));
    d.clear();
    llama_unicode_nfd_append(0x1EA5, d);  // ấ decomposes in two steps
    EXPECT_EQ(d, (std::vector<uint32_t>{0x61, 0x302, 0x301}));
    d.clear();
    llama_unicode_nfd_append(0xD7A3, d);  // last Hangul syllable
    EXPECT_EQ(d, (std::vector<uint32_t>{0x1112, 0x1175, 0x11C2}));
    d.clear();
    llama_unicode_nfd_append('x', d);
    EXPECT_EQ(d, (std::vector<uint32_t>{'x'}));
}

TEST(Unicode, Utf8AndByteAlphabet) {
    size_t len   = 0;
    bool   valid = true;
    EXPECT_EQ(llama_unicode_decode("\xC0\x80", 2, len, &valid), LLAMA_UNICODE_REPLACEMENT);  // overlong
    EXPECT_FALSE(valid);
    EXPECT_EQ(len, 1u);
    EXPECT_EQ(llama_unicode_decode("\xED\xA0\x80", 3, len), LLAMA_UNICODE_REPLACEMENT);      // surrogate
    EXPECT_EQ(llama_unicode_decode("\xF4\x90\x80\x80", 4, len), LLAMA_UNICODE_REPLACEMENT);  // > U+10FFFF
    EXPECT_EQ(llama_unicode_decode("\xE4\xB8", 2, len), LLAMA_UNICODE_REPLACEMENT);          // truncated
    EXPECT_EQ(llama_unicode_decode("\xF0\x9F\xA6\x99", 4, len, &valid), 0x1F999u);
    EXPECT_TRUE(valid);
    EXPECT_EQ(len, 4u);
    EXPECT_EQ(llama_unicode_cpt_to_utf8(0x1F999), "\xF0\x9F\xA6\x99");
    EXPECT_EQ(llama_unicode_byte_to_utf8(' '), "\xC4\xA0");   // Ġ
    EXPECT_EQ(llama_unicode_byte_to_utf8('\n'), "\xC4\x8A");  // Ċ
    EXPECT_EQ(llama_unicode_byte_to_utf8('a'), "a");
    for (int b = 0; b < 256; ++b) {
        const std::string s   = llama_unicode_byte_to_utf8(static_cast<uint8_t>(b));
        size_t            l   = 0;
        const uint32_t    cpt = llama_unicode_decode(s.data(), s.size(), l);
        EXPECT_EQ(llama_unicode_utf8_to_byte(cpt), b);
    }
    EXPECT_EQ(llama_unicode_utf8_to_byte(0x4E2D), -1);
}

static std::vector<std::string> split(llama_pretok_type t, const std::string & s) {
    std::vector<std::pair<size_t, size_t>> p;
    llama_pretok_split(t, s, p);
    std::vector<std::string> out;
    for (const auto & r : p) {
        out.push_back(s.substr(r.first, r.second - r.first));
    }
    return out;
}

TEST(Pretokenizer, Splits) {
    using v = std::vector<std::string>;
    EXPECT_EQ(split(llama_pretok_type::GPT2, "Hello world's  x\n"), (v{"Hello", " world", "'s", " ", " x", "\n"}));
    EXPECT_EQ(split(llama_pretok_type::LLAMA3, "1234567 THEY'LL\n\n  go"),
              (v{"123", "456", "7", " THEY", "'LL", "\n\n", " ", " go"}));
    EXPECT_EQ(split(llama_pretok_type::QWEN2, "x=123"), (v{"x", "=", "1", "2", "3"}));
    EXPECT_EQ(split(llama_pretok_type::STARCODER, "ab 12"), (v{"ab", " ", "1", "2"}));
    EXPECT_EQ(split(llama_pretok_type::DEEPSEEK_CODER, "int x;\n"), (v{"int", " x", ";", "\n"}));
    EXPECT_EQ(split(llama_pretok_type::GPT2, ""), v{});
    EXPECT_EQ(split(llama_pretok_type::GPT2, "\xFF\xFE a"), (v{"\xFF\xFE", " a"}));  // bytes kept
    llama_pretok_type t;
    EXPECT_TRUE(llama_pretok_from_name("refact", t));
    EXPECT_EQ(t, llama_pretok_type::STARCODER);
    EXPECT_FALSE(llama_pretok_from_name("no-such-pre", t));
}
