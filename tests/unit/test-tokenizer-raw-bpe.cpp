// BPE over raw UTF-8 (upstream's byte_encode = false) on small vocabs built here: the pre-tokenizers
// gemma4, granite-embed-multi-311m, sarvam-moe (newline runs; spaces escaped as U+2581) and whitespace
// (\S+), and the tokenizer models "gemma4" and "whitespace". The merges are chosen so that what differs
// from byte-level BPE shows: multi-byte characters merge as characters, "▁" tokens, newline runs, byte
// fallback to <0xNN>, whitespace dropped and lowercased. Expected ids are derived by hand from the rules.
#include "gguf.h"
#include "llama-vocab.h"

#include <gtest/gtest.h>

#include <random>

using tokens = std::vector<llama_token>;

namespace {

#define SP "\xE2\x96\x81"  // U+2581, the escaped space

// ids: 0 <pad>, 1 <eos>, 2 <bos>, 3 <unk>, 4 ▁, 5 h, 6 i, 7 hi, 8 ▁hi, 9 é, 10 hé, 11 \n, 12 \n\n,
// 13-15 the bytes of 中 (E4 B8 AD), which has no token of its own
const char * const escaped_tokens[] = {
    "<pad>", "<eos>",    "<bos>",     "<unk>", SP,     "h",      "i",      "hi",
    SP "hi", "\xC3\xA9", "h\xC3\xA9", "\n",    "\n\n", "<0xE4>", "<0xB8>", "<0xAD>",
};

llama_vocab_data escaped_data(const char * pre) {
    llama_vocab_data d;
    d.model  = "gpt2";
    d.pre    = pre;
    d.tokens = std::vector<std::string>(std::begin(escaped_tokens), std::end(escaped_tokens));
    // "h é" is a merge of two characters: over the byte alphabet é would be the two symbols Ã ©
    d.merges = {"h i", SP " hi", "h \xC3\xA9"};
    d.token_types.assign(d.tokens.size(), LLAMA_TOKEN_TYPE_NORMAL);
    for (int id : {0, 1, 2}) {
        d.token_types[id] = LLAMA_TOKEN_TYPE_CONTROL;
    }
    d.token_types[3] = LLAMA_TOKEN_TYPE_UNKNOWN;
    for (int id : {13, 14, 15}) {
        d.token_types[id] = LLAMA_TOKEN_TYPE_BYTE;
    }
    d.pad = 0;
    d.eos = 1;
    d.bos = 2;
    d.unk = 3;
    return d;
}

// random text over characters every one of which the vocab can spell
std::string random_text(std::mt19937 & rng, const std::vector<std::string> & alphabet, size_t len) {
    std::uniform_int_distribution<size_t> pick(0, alphabet.size() - 1);
    std::string                           s;
    for (size_t i = 0; i < len; ++i) {
        s += alphabet[pick(rng)];
    }
    return s;
}

}  // namespace

TEST(TokenizerRawBpe, Gemma4EscapesSpacesAndMergesCharacters) {
    for (const char * pre : {"gemma4", "granite-embed-multi-311m"}) {
        SCOPED_TRACE(pre);
        llama_vocab v;
        ASSERT_NO_THROW(v.load(escaped_data(pre)));
        EXPECT_EQ(v.type_name(), "BPE");
        // "hi▁hi": h i ▁ h i; "h i" (rank 0) merges twice, leftmost first, then "▁ hi" (rank 1)
        EXPECT_EQ(v.tokenize("hi hi", false, false), (tokens{7, 8}));
        // "▁▁hi": the first ▁ has no merge with ▁hi's ▁, so it stays alone
        EXPECT_EQ(v.tokenize("  hi", false, false), (tokens{4, 8}));
        // i h é: "h é" merges characters, not bytes
        EXPECT_EQ(v.tokenize("ih\xC3\xA9", false, false), (tokens{6, 10}));
        // pieces "hé" "\n\n" "hi": the newline run is a token, taken whole (no merge builds it)
        EXPECT_EQ(v.tokenize("h\xC3\xA9\n\nhi", false, false), (tokens{10, 12, 7}));
        // "\n\n\n" is no token: three symbols without merges
        EXPECT_EQ(v.tokenize("\n\n\n", false, false), (tokens{11, 11, 11}));
        // 中 is no token: its bytes as <0xNN>; z has neither a token nor a byte token: dropped
        EXPECT_EQ(v.tokenize("\xE4\xB8\xAD", false, false), (tokens{13, 14, 15}));
        EXPECT_EQ(v.tokenize("z", false, false), tokens{});
        // a lead byte of three with one byte after it: one symbol of both bytes (as upstream), not a
        // token, so <0xE4> and the h, which has no byte token, is lost
        EXPECT_EQ(v.tokenize("\xE4h", false, false), (tokens{13}));
        // BOS is added although the vocab has no add_bos_token key, and even when it says false
        EXPECT_TRUE(v.get_add_bos());
        EXPECT_EQ(v.tokenize("hi", true, false), (tokens{2, 7}));
        llama_vocab_data d = escaped_data(pre);
        d.add_bos          = false;
        ASSERT_NO_THROW(v.load(d));
        EXPECT_EQ(v.tokenize("hi", true, false), (tokens{2, 7}));
        EXPECT_EQ(v.tokenize("<bos>hi", true, true), (tokens{2, 7}));  // no second BOS
        EXPECT_EQ(v.token_nl(), 11);
        // pieces: ▁ back to a space, byte tokens to their byte
        EXPECT_EQ(v.token_to_piece(8), " hi");
        EXPECT_EQ(v.token_to_piece(4), " ");
        EXPECT_EQ(v.token_to_piece(10), "h\xC3\xA9");
        EXPECT_EQ(v.token_to_piece(13), "\xE4");
        EXPECT_EQ(v.detokenize(tokens{2, 7, 8}, true, false), "hi hi");
        EXPECT_EQ(v.detokenize(tokens{2, 7, 8}, false, true), "<bos>hi hi");
        EXPECT_EQ(v.detokenize(tokens{10, 12, 7, 13, 14, 15}, false, false), "h\xC3\xA9\n\nhi\xE4\xB8\xAD");
    }
}

TEST(TokenizerRawBpe, SarvamEscapesSpacesWithoutGemmaRules) {
    llama_vocab v;
    ASSERT_NO_THROW(v.load(escaped_data("sarvam-moe")));
    EXPECT_EQ(v.tokenize("hi hi", false, false), (tokens{7, 8}));
    EXPECT_EQ(v.tokenize(" hi", false, false), (tokens{8}));
    // no whole-newline-run rule: "\n\n" is two symbols and no merge joins them
    EXPECT_EQ(v.tokenize("h\xC3\xA9\n\nhi", false, false), (tokens{10, 11, 11, 7}));
    // no forced BOS: the name's default (none) holds
    EXPECT_FALSE(v.get_add_bos());
    EXPECT_EQ(v.tokenize("hi", true, false), (tokens{7}));
    EXPECT_EQ(v.detokenize(tokens{7, 8, 11, 4}, false, false), "hi hi\n ");
}

TEST(TokenizerRawBpe, Gemma4TokenizerModel) {
    llama_vocab_data d = escaped_data("llama-bpe");  // the model forces the gemma4 pre-tokenizer
    d.model            = "gemma4";
    llama_vocab v;
    ASSERT_NO_THROW(v.load(d));
    EXPECT_EQ(v.type_name(), "BPE");
    EXPECT_EQ(v.pre_name(), "gemma4");
    EXPECT_EQ(v.tokenize("hi hi\n\n", true, false), (tokens{2, 7, 8, 12}));
    EXPECT_EQ(v.detokenize(tokens{2, 7, 8, 12}, true, false), "hi hi\n\n");
    // no default special ids (gpt2's 11 would be "\n" here)
    d.bos.reset();
    d.eos.reset();
    ASSERT_NO_THROW(v.load(d));
    EXPECT_EQ(v.token_bos(), LLAMA_TOKEN_NULL);
    EXPECT_EQ(v.token_eos(), LLAMA_TOKEN_NULL);
    EXPECT_EQ(v.tokenize("hi", true, false), (tokens{7}));  // BOS asked for, but there is none
    d.merges.clear();
    EXPECT_THROW(v.load(d), std::runtime_error);  // BPE needs merges
}

TEST(TokenizerRawBpe, EscapedRoundTrips) {
    std::mt19937                   rng(1234);
    const std::vector<std::string> alphabet = {"h", "i", "\xC3\xA9", " ", "\n", "\xE4\xB8\xAD"};
    for (const char * pre : {"gemma4", "granite-embed-multi-311m", "sarvam-moe"}) {
        llama_vocab v;
        ASSERT_NO_THROW(v.load(escaped_data(pre)));
        for (int i = 0; i < 300; ++i) {
            const std::string text = random_text(rng, alphabet, 1 + i % 40);
            const tokens      ids  = v.tokenize(text, true, false);
            EXPECT_EQ(v.detokenize(ids, true, false), text) << pre << " '" << text << "'";
        }
    }
}

namespace {

// ids: 0 <s>, 1 </s>, 2 a, 3 b, 4 ab, 5 中, 6 文, 7 中文, 8 A, 9 space
const char * const ws_tokens[] = {
    "<s>", "</s>", "a", "b", "ab", "\xE4\xB8\xAD", "\xE6\x96\x87", "\xE4\xB8\xAD\xE6\x96\x87", "A", " "};

llama_vocab_data ws_data(const char * model) {
    llama_vocab_data d;
    d.model  = model;
    d.pre    = "whitespace";
    d.tokens = std::vector<std::string>(std::begin(ws_tokens), std::end(ws_tokens));
    // "中 文" merges two three-byte characters (six symbols over the byte alphabet)
    d.merges = {"a b", "\xE4\xB8\xAD \xE6\x96\x87"};
    d.token_types.assign(d.tokens.size(), LLAMA_TOKEN_TYPE_NORMAL);
    d.token_types[0] = LLAMA_TOKEN_TYPE_CONTROL;
    d.token_types[1] = LLAMA_TOKEN_TYPE_CONTROL;
    d.bos            = 0;
    d.eos            = 1;
    return d;
}

}  // namespace

TEST(TokenizerRawBpe, WhitespaceModelDropsWhitespace) {
    llama_vocab v;
    ASSERT_NO_THROW(v.load(ws_data("whitespace")));
    EXPECT_EQ(v.type_name(), "BPE");
    EXPECT_EQ(v.pre_name(), "whitespace");
    // runs "ab" "中文" "A"; the whitespace pre-tokenizer keeps the case unless the normalizer says so
    EXPECT_EQ(v.tokenize("ab \xE4\xB8\xAD\xE6\x96\x87\tA\n", false, false), (tokens{4, 7, 8}));
    // U+3000 (ideographic space) ends a run too: a and b are not merged across it
    EXPECT_EQ(v.tokenize("a\xE3\x80\x80"
                         "b",
                         false, false),
              (tokens{2, 3}));
    EXPECT_EQ(v.tokenize("   ", false, false), tokens{});
    EXPECT_EQ(v.token_nl(), LLAMA_TOKEN_NULL);  // "\n" tokenizes to nothing
    // pieces as upstream: the byte-alphabet decoding (ASCII and CJK come out unchanged)
    EXPECT_EQ(v.detokenize(tokens{4, 7, 8}, false, false),
              "ab\xE4\xB8\xAD\xE6\x96\x87"
              "A");

    llama_vocab_data d     = ws_data("whitespace");
    d.normalizer_lowercase = true;
    ASSERT_NO_THROW(v.load(d));
    EXPECT_EQ(v.tokenize("AB \xE4\xB8\xAD\xE6\x96\x87 A", false, false), (tokens{4, 7, 2}));

    // the same vocab as tokenizer.ggml.model "gpt2": the pre-tokenizer keeps the gaps (here a space
    // token) and nothing is lowercased
    ASSERT_NO_THROW(v.load(ws_data("gpt2")));
    EXPECT_EQ(v.tokenize("ab \xE4\xB8\xAD\xE6\x96\x87", false, false), (tokens{4, 9, 7}));
    EXPECT_EQ(v.detokenize(tokens{4, 9, 7}, false, false), "ab \xE4\xB8\xAD\xE6\x96\x87");
}

TEST(TokenizerRawBpe, WhitespaceRoundTrips) {
    std::mt19937                   rng(99);
    const std::vector<std::string> alphabet = {"a", "b", "A", "\xE4\xB8\xAD", "\xE6\x96\x87", " ", "\t", "\n"};
    llama_vocab                    v;
    ASSERT_NO_THROW(v.load(ws_data("whitespace")));
    llama_vocab g;
    ASSERT_NO_THROW(g.load(ws_data("gpt2")));
    for (int i = 0; i < 300; ++i) {
        const std::string text = random_text(rng, alphabet, 1 + i % 40);
        std::string       kept;
        for (char c : text) {
            if (c != ' ' && c != '\t' && c != '\n') {
                kept.push_back(c);
            }
        }
        EXPECT_EQ(v.detokenize(v.tokenize(text, false, false), false, false), kept) << "'" << text << "'";
        // as "gpt2", tab and newline have no token and are lost; the space is kept
        std::string spaced;
        for (char c : text) {
            if (c != '\t' && c != '\n') {
                spaced.push_back(c);
            }
        }
        EXPECT_EQ(g.detokenize(g.tokenize(text, false, false), false, false), spaced) << "'" << text << "'";
    }
}

TEST(TokenizerRawBpe, WhitespaceModelFromGguf) {
    gguf_context * g = gguf_init_empty();
    ASSERT_NE(g, nullptr);
    ASSERT_TRUE(gguf_set_val_str(g, "tokenizer.ggml.model", "whitespace"));
    ASSERT_TRUE(gguf_set_val_str(g, "tokenizer.ggml.pre", "whitespace"));
    std::vector<const char *> toks(std::begin(ws_tokens), std::end(ws_tokens));
    ASSERT_TRUE(gguf_set_arr_str(g, "tokenizer.ggml.tokens", toks.data(), toks.size()));
    const char * merges[] = {"a b", "\xE4\xB8\xAD \xE6\x96\x87"};
    ASSERT_TRUE(gguf_set_arr_str(g, "tokenizer.ggml.merges", merges, 2));
    ASSERT_TRUE(gguf_set_val_bool(g, "tokenizer.ggml.normalizer.lowercase", true));
    llama_vocab v;
    ASSERT_NO_THROW(v.load(g));
    EXPECT_EQ(v.tokenize("A B\nAB", false, false), (tokens{2, 3, 4}));
    gguf_free(g);
}
