// SPM: SentencePiece BPE. Start from one symbol per UTF-8 character, repeatedly merge the adjacent pair
// whose concatenation is the highest-scoring token (ties: leftmost), then emit each symbol's token or,
// for characters with no token, their bytes as <0xNN> tokens. A max-heap of candidate pairs keeps the
// merge loop O(n log n); stale candidates are skipped when popped.
#include "llama-unicode.h"
#include "llama-vocab-impl.h"

#include <queue>

namespace {

struct spm_symbol {
    int    prev;
    int    next;
    size_t offs;  // bytes [offs, offs + n) of the text; n == 0 once merged away
    size_t n;
};

struct spm_bigram {
    float  score;
    int    left;
    int    right;
    size_t size;  // byte length of the pair when queued: detects stale entries

    bool operator<(const spm_bigram & o) const {  // priority_queue pops the largest
        return score < o.score || (score == o.score && left > o.left);
    }
};

struct llama_tokenizer_spm : llama_tokenizer {
    const llama_vocab::impl & vocab;

    explicit llama_tokenizer_spm(const llama_vocab::impl & v) : vocab(v) {}

    void tokenize(const std::string & text, std::vector<llama_token> & out) const override {
        if (text.empty()) {
            return;
        }
        std::vector<spm_symbol> symbols;
        symbols.reserve(text.size());
        for (size_t offs = 0; offs < text.size();) {
            // invalid UTF-8 makes one-byte symbols, so a bad lead byte cannot swallow the next character
            size_t n = 1;
            llama_unicode_decode(text.data() + offs, text.size() - offs, n);
            const int id = static_cast<int>(symbols.size());
            symbols.push_back({id - 1, offs + n == text.size() ? -1 : id + 1, offs, n});
            offs += n;
        }

        std::priority_queue<spm_bigram> queue;
        auto                            try_add = [&](int left, int right) {
            if (left < 0 || right < 0) {
                return;
            }
            const size_t      size = symbols[left].n + symbols[right].n;
            const llama_token id = vocab.find(std::string_view(text.data() + symbols[left].offs, size));
            if (id == LLAMA_TOKEN_NULL) {
                return;
            }
            queue.push({vocab.id_to_token[id].score, left, right, size});
        };
        for (int i = 1; i < static_cast<int>(symbols.size()); ++i) {
            try_add(i - 1, i);
        }

        while (!queue.empty()) {
            const spm_bigram b = queue.top();
            queue.pop();
            spm_symbol & l = symbols[b.left];
            spm_symbol & r = symbols[b.right];
            if (l.n == 0 || r.n == 0 || l.n + r.n != b.size) {
                continue;  // one side was merged into something else since this pair was queued
            }
            l.n += r.n;
            r.n    = 0;
            l.next = r.next;
            if (r.next >= 0) {
                symbols[r.next].prev = b.left;
            }
            try_add(l.prev, b.left);
            try_add(b.left, l.next);
        }

        for (int i = 0; i != -1; i = symbols[i].next) {
            const spm_symbol & s  = symbols[i];
            const llama_token  id = vocab.find(std::string_view(text.data() + s.offs, s.n));
            if (id != LLAMA_TOKEN_NULL) {
                out.push_back(id);
                continue;
            }
            // only single characters can lack a token (merges always form tokens): byte fallback
            for (size_t j = 0; j < s.n; ++j) {
                const llama_token bt = vocab.byte_tokens[static_cast<uint8_t>(text[s.offs + j])];
                if (bt != LLAMA_TOKEN_NULL || vocab.unk != LLAMA_TOKEN_NULL) {
                    out.push_back(bt != LLAMA_TOKEN_NULL ? bt : vocab.unk);
                }
            }
        }
    }
};

}  // namespace

std::unique_ptr<llama_tokenizer> llama_tokenizer_spm_init(const llama_vocab::impl & vocab) {
    return std::make_unique<llama_tokenizer_spm>(vocab);
}
