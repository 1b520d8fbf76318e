// WordPiece (BERT) normalisation beyond the public vectors: accents stripped after NFD (precomposed
// letters and combining marks alike, any \p{M} as llama.cpp does), lowercase, CJK ideographs and
// punctuation as single-character words, invisible format characters dropped. Expected ids are
// looked up piece by piece in the bert-bge vocab, from the segmentation BERT's rules give.
// The lowercase / strip_accents switches of tokenizer.ggml.normalizer.* on a small in-memory vocab.
#include "llama-vocab.h"
#include "test-tokenizer-vocab-util.h"

#include <gtest/gtest.h>

#include <string>
#include <unordered_map>
#include <vector>

namespace {

struct wpm_case {
    const char *             text;
    std::vector<std::string> pieces;  // "[UNK]" for an unknown word
};

std::vector<llama_token> ids_of(const llama_vocab & v, const std::vector<std::string> & pieces) {
    std::unordered_map<std::string, llama_token> id;
    for (llama_token i = 0; i < v.n_tokens(); i++) {
        id[v.token_get_text(i)] = i;
    }
    std::vector<llama_token> out;
    for (const auto & p : pieces) {
        auto it = id.find(p);
        EXPECT_NE(it, id.end()) << "piece '" << p << "' is not in the vocab";
        out.push_back(it == id.end() ? -1 : it->second);
    }
    return out;
}

#define W "\xE2\x96\x81"  // U+2581, the word-start marker of GGUF WordPiece vocabs

}  // namespace

TEST(TokenizerWpm, BertNormalisation) {
    const llama_vocab &         v     = shared_vocab("bert-bge");
    const std::vector<wpm_case> cases = {
        {"Caf\xC3\xA9", {W "cafe"}},                                     // precomposed é -> e
        {"na\xC3\xAFve R\xC3\xA9sum\xC3\xA9", {W "naive", W "resume"}},  // ï, É: lowercase + strip
        {"e\xCC\x81"
         "cole",
         {W "ecole"}},  // e + U+0301 combining acute
        {"\xC3\x9C"
         "BER",
         {W "uber"}},  // Ü
        {"a \xCC\x81"
         "b",
         {W "a", W "b"}},                                     // a lone combining mark vanishes
        {"\xE0\xA4\x95\xE0\xA4\xBE", {W "\xE0\xA4\x95"}},     // KA + AA sign (Mc): \p{M} dropped
        {"\xE5\x8C\x97\xE4\xBA\xAC\xE5\xA4\xA7\xE5\xAD\xA6",  // 北京大学: one word per ideograph
         {W "\xE5\x8C\x97", W "\xE4\xBA\xAC", W "\xE5\xA4\xA7", W "\xE5\xAD\xA6"}},
        {"hello\xE4\xB8\x96\xE7\x95\x8C!", {W "hello", W "\xE4\xB8\x96", "[UNK]", W "!"}},  // 界 alone is unknown
        {"\xE6\x9D\xB1\xE4\xBA\xAC, $5", {W "\xE6\x9D\xB1", W "\xE4\xBA\xAC", W ",", W "$", W "5"}},
        {"a\xE2\x80\x8B"
         "bc",
         {W "abc"}},                   // U+200B (Cf) is dropped
        {"\xC3\x9F", {W "\xC3\x9F"}},  // ß has no decomposition
    };
    for (const auto & c : cases) {
        EXPECT_EQ(v.tokenize(c.text, false, false), ids_of(v, c.pieces)) << "text: " << c.text;
    }
}

TEST(TokenizerWpm, NormaliserSwitches) {
    auto make = [](std::optional<bool> lower, std::optional<bool> strip) {
        llama_vocab_data d;
        d.model                    = "bert";
        d.tokens                   = {"[UNK]", W "Caf\xC3\xA9", W "Cafe", W "caf\xC3\xA9", W "cafe"};
        d.unk                      = 0;
        d.normalizer_lowercase     = lower;
        d.normalizer_strip_accents = strip;
        auto v                     = std::make_unique<llama_vocab>();
        v->load(d);
        return v;
    };
    const std::string text = "Caf\xC3\xA9";
    EXPECT_EQ(make({}, {})->tokenize(text, false, false), std::vector<llama_token>{4});     // defaults: both on
    EXPECT_EQ(make(false, {})->tokenize(text, false, false), std::vector<llama_token>{1});  // strip follows
    EXPECT_EQ(make(false, true)->tokenize(text, false, false), std::vector<llama_token>{2});
    EXPECT_EQ(make(true, false)->tokenize(text, false, false), std::vector<llama_token>{3});
}
