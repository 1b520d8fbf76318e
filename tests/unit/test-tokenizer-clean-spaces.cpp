// llama_detokenize's space cleanup as upstream (4df29be4) does it per tokenizer.ggml.pre name: BPE
// vocabs drop the space before . , ? ! and before 's 'm 're 've and around a lone ', except the
// names upstream lists as keeping them (qwen2, deepseek-*, gpt-4o, tekken, ...); token_to_piece never
// cleans. The vocab is a byte-level one whose tokens are single characters, so each test text
// detokenizes back to itself before the cleanup.
#include "llama-vocab.h"

#include <gtest/gtest.h>

#include <string>

namespace {

// GPT-2's byte alphabet writes a space as U+0120 "Ġ"; other printable ASCII stands for itself
llama_vocab_data char_vocab(const char * pre) {
    llama_vocab_data d;
    d.model = "gpt2";
    d.pre   = pre;
    d.tokens.push_back("<|endoftext|>");
    d.tokens.push_back("\xC4\xA0");  // space
    for (char c = '!'; c <= '~'; ++c) {
        d.tokens.push_back(std::string(1, c));
    }
    d.tokens.push_back("{}");  // a BPE vocab needs merges: one the test texts never meet
    d.merges = {"{ }"};
    d.token_types.assign(d.tokens.size(), LLAMA_TOKEN_TYPE_NORMAL);
    d.token_types[0] = LLAMA_TOKEN_TYPE_CONTROL;
    d.bos = d.eos = 0;
    return d;
}

std::string round_trip(const llama_vocab & v, const std::string & text) {
    return v.detokenize(v.tokenize(text, false, false), false, false);
}

TEST(TokenizerCleanSpaces, CleaningNamesFollowUpstreamsPasses) {
    for (const char * pre : {"default", "llama-bpe", "gpt-2", "olmo", "falcon", "glm4"}) {
        SCOPED_TRACE(pre);
        llama_vocab v;
        ASSERT_NO_THROW(v.load(char_vocab(pre)));
        EXPECT_EQ(round_trip(v, "Hello , world . Really ? Yes !"), "Hello, world. Really? Yes!");
        EXPECT_EQ(round_trip(v, "a  . b"), "a . b");  // one space per pass goes
        EXPECT_EQ(round_trip(v, "it ' s"), "it's");   // " ' " first, then nothing left to join
        EXPECT_EQ(round_trip(v, "he 's she 'm we 're they 've"), "he's she'm we're they've");
        EXPECT_EQ(round_trip(v, "don 't I 'd we 'll"), "don 't I 'd we 'll");  // upstream keeps these
        EXPECT_EQ(round_trip(v, " ."), ".");  // the first byte goes too when a dot follows it
        EXPECT_EQ(round_trip(v, "x ' y"), "x'y");
        // token_to_piece does not clean
        EXPECT_EQ(v.token_to_piece(v.tokenize(" ", false, false)[0]), " ");
    }
}

TEST(TokenizerCleanSpaces, KeepingNamesLeaveTheText) {
    for (const char * pre : {"qwen2", "deepseek-v3", "gpt-4o", "tekken", "llama4", "kimi-k2", "smollm"}) {
        SCOPED_TRACE(pre);
        llama_vocab v;
        ASSERT_NO_THROW(v.load(char_vocab(pre)));
        EXPECT_EQ(round_trip(v, "Hello , world . he 's it ' s"), "Hello , world . he 's it ' s");
    }
}

}  // namespace
