// WPM: WordPiece (BERT), with llama.cpp's normalisation (llm_tokenizer_wpm): drop NUL/U+FFFD/control
// characters, whitespace to word breaks; when stripping accents, NFD then drop combining marks (\p{M});
// lowercase (tokenizer.ggml.normalizer.lowercase, default on; strip_accents follows it unless given);
// punctuation, ASCII symbols and CJK ideographs become single-character words -- then each word is
// split greedily into the longest vocab entries (a word that cannot be covered is one [UNK]).
// GGUF WordPiece vocabs store word-initial pieces as "\u2581piece" and continuations ("##piece" in
// BERT) as plain "piece".
#include "llama-unicode.h"
#include "llama-vocab-impl.h"

namespace {

bool bert_punct(uint32_t c, uint16_t flags) {
    return (flags & LLAMA_UNICODE_PUNCTUATION) || (c < 0x7F && (flags & LLAMA_UNICODE_SYMBOL));
}

// BERT's _is_chinese_char with the ranges of the Hugging Face Rust tokenizer that llama.cpp copies
// (Extension E starts at 0x2B920 there, not at 0x2B820).
bool bert_cjk(uint32_t c) {
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

struct llama_tokenizer_wpm : llama_tokenizer {
    const llama_vocab::impl & vocab;

    explicit llama_tokenizer_wpm(const llama_vocab::impl & v) : vocab(v) {}

    // words as code point sequences
    static std::vector<std::vector<uint32_t>> preprocess(const std::string & text, bool lowercase, bool strip_accents) {
        std::vector<std::vector<uint32_t>> words(1);
        std::vector<uint32_t>              nfd;
        auto                               break_word = [&]() {
            if (!words.back().empty()) {
                words.emplace_back();
            }
        };
        for (size_t i = 0; i < text.size();) {
            size_t         len = 1;
            const uint32_t c   = llama_unicode_decode(text.data() + i, text.size() - i, len);
            i += len;
            nfd.clear();
            if (strip_accents) {
                llama_unicode_nfd_append(c, nfd);
            } else {
                nfd.push_back(c);
            }
            for (uint32_t d : nfd) {
                const uint16_t f = llama_unicode_flags(d);
                if (f & (LLAMA_UNICODE_WHITESPACE | LLAMA_UNICODE_SEPARATOR)) {
                    break_word();
                    continue;
                }
                if (d == 0 || d == LLAMA_UNICODE_REPLACEMENT || (f & LLAMA_UNICODE_CONTROL)) {
                    continue;
                }
                if (strip_accents && (f & LLAMA_UNICODE_MARK)) {
                    continue;
                }
                const uint32_t lc = lowercase ? llama_unicode_tolower(d) : d;
                if (bert_punct(d, f) || bert_cjk(d)) {
                    break_word();
                    words.back().push_back(lc);
                    words.emplace_back();
                } else {
                    words.back().push_back(lc);
                }
            }
        }
        if (words.back().empty()) {
            words.pop_back();
        }
        return words;
    }

    void tokenize(const std::string & text, std::vector<llama_token> & out) const override {
        std::string         word;
        std::vector<size_t> bounds;  // byte offsets of character boundaries in word
        for (const auto & w : preprocess(text, vocab.wpm_lowercase, vocab.wpm_strip_accents)) {
            word = "\xE2\x96\x81";  // U+2581 marks the word start
            bounds.assign(1, 0);
            for (uint32_t c : w) {
                bounds.push_back(word.size());
                llama_unicode_append_utf8(word, c);
            }
            bounds.push_back(word.size());
            // bounds[0] = 0 and bounds[1] = 3 both precede the first character; drop the inner one so
            // a piece always starts with the marker or on a character boundary after it
            bounds.erase(bounds.begin() + 1);
            const size_t start = out.size();
            bool         ok    = true;
            for (size_t i = 0; i + 1 < bounds.size() && ok;) {
                ok = false;
                for (size_t j = bounds.size() - 1; j > i; --j) {
                    if (bounds[j] - bounds[i] > vocab.max_token_len) {
                        continue;
                    }
                    const llama_token id = vocab.find(std::string_view(word.data() + bounds[i], bounds[j] - bounds[i]));
                    if (id != LLAMA_TOKEN_NULL) {
                        out.push_back(id);
                        i  = j;
                        ok = true;
                        break;
                    }
                }
            }
            if (!ok) {
                out.resize(start);  // a word that cannot be covered is one [UNK]
                if (vocab.unk != LLAMA_TOKEN_NULL) {
                    out.push_back(vocab.unk);
                }
            }
        }
    }
};

}  // namespace

std::unique_ptr<llama_tokenizer> llama_tokenizer_wpm_init(const llama_vocab::impl & vocab) {
    return std::make_unique<llama_tokenizer_wpm>(vocab);
}
