// WPM: WordPiece (BERT). Normalize like BERT's basic tokenizer -- drop NUL/U+FFFD/control characters,
// whitespace to word breaks, NFD then drop nonspacing marks (accent stripping), lowercase, punctuation
// and CJK ideographs as single-character words -- then split each word greedily into the longest
// vocab entries. GGUF WordPiece vocabs store word-initial pieces as "\u2581piece" and continuations
// ("##piece" in BERT) as plain "piece".
#include "llama-unicode.h"
#include "llama-vocab-impl.h"

namespace {

constexpr size_t wpm_max_word_chars = 100;  // longer words are [UNK], as in BERT

bool bert_punct(uint32_t c, uint16_t flags) {
    const bool ascii_punct =
        (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
    return ascii_punct || (flags & LLAMA_UNICODE_PUNCTUATION);
}

struct llama_tokenizer_wpm : llama_tokenizer {
    const llama_vocab::impl & vocab;

    explicit llama_tokenizer_wpm(const llama_vocab::impl & v) : vocab(v) {}

    // words as code point sequences
    static std::vector<std::vector<uint32_t>> preprocess(const std::string & text) {
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
            const uint16_t f     = llama_unicode_flags(c);
            const bool     is_ws = c == '\t' || c == '\n' || c == '\r' || c == ' ' || (f & LLAMA_UNICODE_SEPARATOR);
            if (c == 0 || c == LLAMA_UNICODE_REPLACEMENT || (!is_ws && (f & LLAMA_UNICODE_CONTROL))) {
                continue;
            }
            if (is_ws || (f & LLAMA_UNICODE_WHITESPACE)) {
                break_word();
                continue;
            }
            nfd.clear();
            llama_unicode_nfd_append(c, nfd);
            for (uint32_t d : nfd) {
                const uint16_t df = llama_unicode_flags(d);
                if (df & LLAMA_UNICODE_MARK_NONSPACING) {
                    continue;
                }
                const uint32_t lc = llama_unicode_tolower(d);
                if (bert_punct(d, df) || llama_unicode_is_cjk_ideograph(d)) {
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
        for (const auto & w : preprocess(text)) {
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
            if (w.size() > wpm_max_word_chars) {
                out.push_back(vocab.unk);
                continue;
            }
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
