// Special tokens (parse_special, user-defined tokens, BOS/EOS/SEP, no doubled BOS, RSTRIP), the llama.h
// return conventions of tokenize / token_to_piece / detokenize, and errors on bad vocab metadata.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>

#include "test-tokenizer-vocab-util.h"

using tokens = std::vector<llama_token>;

static bool contains(const tokens & v, llama_token t) {
    return std::find(v.begin(), v.end(), t) != v.end();
}

static tokens cat(tokens a, const tokens & b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

TEST(TokenizerSpecial, ParseSpecialOnOff) {
    const auto &      v     = shared_vocab("llama-bpe");
    const llama_token bos   = v.token_bos();
    const tokens      hello = v.tokenize("Hello", false, false);
    ASSERT_EQ(v.text_to_token("<|begin_of_text|>"), bos);
    EXPECT_EQ(v.tokenize("<|begin_of_text|>Hello", false, true), cat({bos}, hello));
    const tokens plain = v.tokenize("<|begin_of_text|>Hello", false, false);
    EXPECT_FALSE(contains(plain, bos));
    EXPECT_GT(plain.size(), 2u);
    EXPECT_EQ(v.detokenize(plain, false, false), "<|begin_of_text|>Hello");
}

TEST(TokenizerSpecial, NoDoubledBos) {
    const auto & v = shared_vocab("llama-bpe");
    ASSERT_TRUE(v.get_add_bos());
    const tokens t = v.tokenize("<|begin_of_text|>Hi", true, true);
    ASSERT_GE(t.size(), 2u);
    EXPECT_EQ(t[0], v.token_bos());
    EXPECT_NE(t[1], v.token_bos());
    EXPECT_EQ(v.tokenize("Hi", true, true), t);
}

TEST(TokenizerSpecial, AddSpecialPerVocab) {
    const auto & spm = shared_vocab("llama-spm");
    EXPECT_EQ(spm.tokenize("Hello", true, false), (tokens{1, 15043}));
    EXPECT_EQ(spm.tokenize("", true, false), (tokens{1}));
    EXPECT_EQ(spm.tokenize("", false, false), tokens{});
    const auto & bert = shared_vocab("bert-bge");
    EXPECT_EQ(bert.tokenize("Hello", true, false), (tokens{101, 7592, 102}));
    const auto & qwen = shared_vocab("qwen2");
    EXPECT_FALSE(qwen.get_add_bos());
    EXPECT_EQ(qwen.tokenize("Hello", true, false), qwen.tokenize("Hello", false, false));
}

TEST(TokenizerSpecial, UserDefinedAlwaysMatched) {
    const auto &      q     = shared_vocab("qwen2");
    const llama_token think = q.text_to_token("<think>");
    ASSERT_NE(think, LLAMA_TOKEN_NULL);
    EXPECT_EQ(q.tokenize("<think>", false, false), (tokens{think}));
    EXPECT_EQ(q.tokenize("<think>", false, true), (tokens{think}));
    // a control token is text unless parse_special
    const llama_token im_start = q.text_to_token("<|im_start|>");
    EXPECT_FALSE(contains(q.tokenize("<|im_start|>user", false, false), im_start));
    EXPECT_EQ(q.tokenize("<|im_start|>user", false, true)[0], im_start);
    // deepseek-coder declares single characters as user-defined tokens
    const auto & ds = shared_vocab("deepseek-coder");
    EXPECT_TRUE(contains(ds.tokenize("F\xC3\xBChrer", false, false), 32009));
}

TEST(TokenizerSpecial, SpmSpacePrefixAfterSpecial) {
    const auto & v = shared_vocab("llama-spm");
    EXPECT_EQ(v.tokenize("<s>Hello", false, true), (tokens{1, 15043}));
    // phi-3: special tokens swallow the whitespace after them (RSTRIP)
    const auto &      p    = shared_vocab("phi-3");
    const llama_token user = p.text_to_token("<|user|>");
    ASSERT_NE(user, LLAMA_TOKEN_NULL);
    EXPECT_EQ(p.tokenize("<|user|>\nHello", false, true), (tokens{user, 15043}));
}

TEST(TokenizerSpecial, EndOfGeneration) {
    const auto & l = shared_vocab("llama-bpe");
    EXPECT_TRUE(l.is_eog(l.token_eos()));
    EXPECT_TRUE(l.is_eog(l.text_to_token("<|eot_id|>")));
    EXPECT_FALSE(l.is_eog(l.token_bos()));
    EXPECT_FALSE(l.is_eog(LLAMA_TOKEN_NULL));
    const auto & q = shared_vocab("qwen2");
    EXPECT_TRUE(q.is_eog(q.text_to_token("<|im_end|>")));
    EXPECT_TRUE(q.is_eog(q.text_to_token("<|endoftext|>")));
    EXPECT_EQ(q.token_fim_pre(), q.text_to_token("<|fim_prefix|>"));
    EXPECT_TRUE(l.is_control(l.token_bos()));
}

TEST(TokenizerApi, TokenizeReturnConventions) {
    const auto & v = shared_vocab("llama-spm");
    llama_token  buf[8];
    const char * text = "Hello world";
    EXPECT_EQ(v.tokenize(text, 11, buf, 8, false, false), 2);
    EXPECT_EQ(buf[0], 15043);
    EXPECT_EQ(buf[1], 3186);
    EXPECT_EQ(v.tokenize(text, 11, buf, 1, false, false), -2);
    EXPECT_EQ(v.tokenize(text, 11, nullptr, 0, true, false), -3);
    EXPECT_EQ(v.tokenize(text, -1, buf, 8, false, false), INT32_MIN);
    EXPECT_EQ(v.tokenize(nullptr, 5, buf, 8, false, false), INT32_MIN);
    EXPECT_EQ(v.tokenize(text, 5, nullptr, 8, false, false), INT32_MIN);
    EXPECT_EQ(v.tokenize(nullptr, 0, buf, 8, false, false), 0);
    EXPECT_EQ(v.tokenize(nullptr, 0, buf, 8, true, false), 1);
    // the length is honoured: no terminator needed, embedded NULs are text
    EXPECT_EQ(v.tokenize("Hello world", 5, buf, 8, false, false), 1);
    EXPECT_GT(v.tokenize("a\0b", 3, buf, 8, false, false), 2);
}

TEST(TokenizerApi, TokenToPiece) {
    const auto & v = shared_vocab("llama-spm");
    char         buf[16];
    EXPECT_EQ(v.token_to_piece(15043, buf, sizeof(buf), 0, false), 6);
    EXPECT_EQ(std::string(buf, 6), " Hello");
    EXPECT_EQ(v.token_to_piece(15043, buf, sizeof(buf), 1, false), 5);
    EXPECT_EQ(std::string(buf, 5), "Hello");
    EXPECT_EQ(v.token_to_piece(15043, buf, 3, 0, false), -6);
    EXPECT_EQ(v.token_to_piece(1, buf, sizeof(buf), 0, false), 0);  // control, not rendered
    EXPECT_EQ(v.token_to_piece(1, buf, sizeof(buf), 0, true), 3);
    EXPECT_EQ(std::string(buf, 3), "<s>");
    EXPECT_EQ(v.token_to_piece(3 + 0x41, buf, sizeof(buf), 0, false), 1);  // <0x41>
    EXPECT_EQ(buf[0], 'A');
    EXPECT_EQ(v.token_to_piece(-1, buf, sizeof(buf), 0, true), INT32_MIN);
    EXPECT_EQ(v.token_to_piece(v.n_tokens(), buf, sizeof(buf), 0, true), INT32_MIN);
    EXPECT_EQ(v.token_to_piece(15043, nullptr, 4, 0, true), INT32_MIN);
    EXPECT_EQ(v.token_to_piece(15043, nullptr, 0, 0, true), -6);
}

TEST(TokenizerApi, Detokenize) {
    const auto &      v   = shared_vocab("llama-spm");
    const llama_token t[] = {1, 15043, 3186, 2};
    char              buf[32];
    // llama.cpp's spacing: only the first token's leading space is stripped, so after a BOS (kept
    // or removed) the text keeps the space SPM prefixed to it
    EXPECT_EQ(v.detokenize(t, 4, buf, sizeof(buf), true, false), 12);
    EXPECT_EQ(std::string(buf, 12), " Hello world");
    EXPECT_EQ(v.detokenize(t + 1, 2, buf, sizeof(buf), true, false), 11);
    EXPECT_EQ(std::string(buf, 11), "Hello world");
    const int32_t n = v.detokenize(t, 4, buf, sizeof(buf), false, true);
    ASSERT_GT(n, 0);
    EXPECT_EQ(std::string(buf, n), "<s> Hello world</s>");
    EXPECT_EQ(v.detokenize(t, 4, buf, 4, true, false), -12);
    const llama_token bad[] = {15043, 99999};
    EXPECT_EQ(v.detokenize(bad, 2, buf, sizeof(buf), false, false), INT32_MIN);
    EXPECT_EQ(v.detokenize(nullptr, 2, buf, sizeof(buf), false, false), INT32_MIN);
    EXPECT_EQ(v.detokenize(t, -1, buf, sizeof(buf), false, false), INT32_MIN);
    EXPECT_EQ(v.detokenize(nullptr, 0, nullptr, 0, false, false), 0);
    // WordPiece joins continuations and cleans spaces before punctuation
    const auto & b = shared_vocab("bert-bge");
    EXPECT_EQ(b.detokenize(b.tokenize("Hello, world! unaffable", true, false), true, false), "hello, world! unaffable");
}

TEST(TokenizerApi, AccessorsOutOfRange) {
    const auto & v = shared_vocab("gpt-2");
    EXPECT_EQ(v.token_get_text(-1), nullptr);
    EXPECT_EQ(v.token_get_text(v.n_tokens()), nullptr);
    EXPECT_EQ(v.token_get_score(1 << 30), 0.0f);
    EXPECT_EQ(v.token_get_attr(-7), LLAMA_TOKEN_ATTR_UNDEFINED);
    EXPECT_FALSE(v.is_control(-3));
    EXPECT_FALSE(v.is_eog(1 << 30));
    EXPECT_STREQ(v.token_get_text(0), "!");
    EXPECT_EQ(v.token_get_attr(0), LLAMA_TOKEN_ATTR_NORMAL);
    EXPECT_EQ(v.type_name(), "BPE");
    EXPECT_EQ(v.token_to_piece(-1), "");
}

TEST(TokenizerLoad, OtherSharedVocabs) {
    const auto & b = shared_vocab("baichuan");
    EXPECT_EQ(b.get_type(), LLAMA_VOCAB_TYPE_SPM);
    EXPECT_EQ(b.detokenize(b.tokenize("Hello world\n\tx", false, false), false, false), "Hello world\n\tx");
    const auto & n = shared_vocab("gpt-neox");
    EXPECT_EQ(n.get_type(), LLAMA_VOCAB_TYPE_BPE);
    EXPECT_EQ(n.pre_name(), "default");  // the file has no tokenizer.ggml.pre
    EXPECT_EQ(n.detokenize(n.tokenize("Hello, world! 12345", false, false), false, false), "Hello, world! 12345");
}

static llama_vocab_data tiny_bpe(const std::string & pre) {
    llama_vocab_data d;
    d.model  = "gpt2";
    d.pre    = pre;
    d.tokens = {"a", "b", "ab"};
    d.merges = {"a b"};
    return d;
}

TEST(TokenizerLoad, Errors) {
    llama_vocab v;
    try {
        v.load(tiny_bpe("no-such-pre"));
        FAIL() << "expected an error";
    } catch (const std::runtime_error & e) {
        EXPECT_NE(std::string(e.what()).find("no-such-pre"), std::string::npos) << e.what();
    }
    llama_vocab_data d = tiny_bpe("gpt-2");
    d.model            = "no-such-model";
    EXPECT_THROW(v.load(d), std::runtime_error);
    d        = tiny_bpe("gpt-2");
    d.scores = {1.0f};  // wrong length
    EXPECT_THROW(v.load(d), std::runtime_error);
    d        = tiny_bpe("gpt-2");
    d.merges = {"ab"};  // no separator
    EXPECT_THROW(v.load(d), std::runtime_error);
    d        = tiny_bpe("gpt-2");
    d.tokens = {};
    EXPECT_THROW(v.load(d), std::runtime_error);
    // a BPE vocab without merges (tokenizer.ggml.merges absent or empty) is refused, naming the key
    for (const char * pre : {"gpt-2", "llama-bpe"}) {
        d        = tiny_bpe(pre);
        d.merges = {};
        try {
            v.load(d);
            ADD_FAILURE() << "expected an error for " << pre;
        } catch (const std::runtime_error & e) {
            EXPECT_NE(std::string(e.what()).find("tokenizer.ggml.merges"), std::string::npos) << e.what();
        }
    }
    EXPECT_THROW(v.load(static_cast<const gguf_context *>(nullptr)), std::runtime_error);

    // a valid tiny vocab: out-of-range special ids are dropped, not trusted
    d     = tiny_bpe("gpt-2");
    d.bos = 1000;
    ASSERT_NO_THROW(v.load(d));
    EXPECT_EQ(v.token_bos(), LLAMA_TOKEN_NULL);
    EXPECT_EQ(v.tokenize("abab", false, false), (tokens{2, 2}));
    EXPECT_EQ(v.tokenize("abab", true, false), (tokens{2, 2}));  // no BOS to add
}
