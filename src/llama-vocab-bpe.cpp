// BPE: byte-level BPE (GPT-2 family). The pre-tokenizer splits the text into pieces; each piece's bytes
// are mapped to the GPT-2 alphabet and merged by rank (lowest rank first, ties leftmost) with a min-heap
// of candidate pairs. Symbols carry interned ids so that a merge is one hash lookup on an id pair, with
// no string building in the loop. Strings that occur in merges but are not tokens get ids past n_tokens.
#include "llama-unicode.h"
#include "llama-vocab-impl.h"

#include <queue>
#include <stdexcept>

namespace {

struct bpe_symbol {
    int     prev;
    int     next;
    int32_t id;    // interned string id (a token id when < n_tokens)
    size_t  offs;  // bytes [offs, offs + n) of the original piece; n == 0 once merged away
    size_t  n;
};

struct bpe_bigram {
    int32_t rank;
    int     left;
    int     right;
    int32_t left_id;
    int32_t right_id;

    bool operator<(const bpe_bigram & o) const {  // priority_queue pops the largest: invert for min rank
        return rank > o.rank || (rank == o.rank && left > o.left);
    }
};

struct merge_result {
    int32_t rank;
    int32_t id;
};

struct llama_tokenizer_bpe : llama_tokenizer {
    const llama_vocab::impl &                  vocab;
    std::vector<std::string>                   extra;  // interned non-token strings
    std::unordered_map<std::string, int32_t>   extra_ids;
    std::unordered_map<uint64_t, merge_result> merges;      // (left id, right id) -> rank, result id
    std::array<int32_t, 256>                   byte_ids{};  // interned id of each byte's alphabet char

    explicit llama_tokenizer_bpe(const llama_vocab::impl & v) : vocab(v) {
        merges.reserve(v.merges.size() * 2);
        for (size_t rank = 0; rank < v.merges.size(); ++rank) {
            const std::string & m   = v.merges[rank];
            const size_t        pos = m.find(' ', 1);
            if (pos == std::string::npos) {
                throw std::runtime_error("invalid BPE merge '" + m + "' (expected 'left right')");
            }
            const int32_t l   = intern(m.substr(0, pos));
            const int32_t r   = intern(m.substr(pos + 1));
            const int32_t res = intern(m.substr(0, pos) + m.substr(pos + 1));
            // the first (lowest-rank) occurrence of a pair wins
            merges.emplace(key(l, r), merge_result{static_cast<int32_t>(rank), res});
        }
        for (int b = 0; b < 256; ++b) {
            byte_ids[b] = intern(llama_unicode_byte_to_utf8(static_cast<uint8_t>(b)));
        }
    }

    static uint64_t key(int32_t l, int32_t r) {
        return (static_cast<uint64_t>(static_cast<uint32_t>(l)) << 32) | static_cast<uint32_t>(r);
    }

    int32_t intern(const std::string & s) {
        const llama_token id = vocab.find(s);
        if (id != LLAMA_TOKEN_NULL) {
            return id;
        }
        const auto it = extra_ids.find(s);
        if (it != extra_ids.end()) {
            return it->second;
        }
        const int32_t nid = static_cast<int32_t>(vocab.id_to_token.size() + extra.size());
        extra.push_back(s);
        extra_ids.emplace(s, nid);
        return nid;
    }

    void tokenize(const std::string & text, std::vector<llama_token> & out) const override {
        std::vector<std::pair<size_t, size_t>> pieces;
        llama_pretok_split(vocab.pre_type, text, pieces);
        std::vector<bpe_symbol> symbols;
        std::string             encoded;
        for (const auto & p : pieces) {
            tokenize_piece(text.data() + p.first, p.second - p.first, symbols, encoded, out);
        }
    }

    void tokenize_piece(const char * s, size_t n, std::vector<bpe_symbol> & symbols, std::string & encoded,
                        std::vector<llama_token> & out) const {
        if (vocab.ignore_merges || n == 1) {
            encoded.clear();
            for (size_t i = 0; i < n; ++i) {
                encoded += llama_unicode_byte_to_utf8(static_cast<uint8_t>(s[i]));
            }
            const llama_token id = vocab.find(encoded);
            if (id != LLAMA_TOKEN_NULL) {
                out.push_back(id);
                return;
            }
        }
        symbols.clear();
        for (size_t i = 0; i < n; ++i) {
            const int k = static_cast<int>(i);
            symbols.push_back({k - 1, i + 1 == n ? -1 : k + 1, byte_ids[static_cast<uint8_t>(s[i])], i, 1});
        }
        std::priority_queue<bpe_bigram> queue;
        auto                            try_add = [&](int left, int right) {
            if (left < 0 || right < 0) {
                return;
            }
            const auto it = merges.find(key(symbols[left].id, symbols[right].id));
            if (it == merges.end()) {
                return;
            }
            queue.push({it->second.rank, left, right, symbols[left].id, symbols[right].id});
        };
        for (int i = 1; i < static_cast<int>(symbols.size()); ++i) {
            try_add(i - 1, i);
        }
        while (!queue.empty()) {
            const bpe_bigram b = queue.top();
            queue.pop();
            bpe_symbol & l = symbols[b.left];
            bpe_symbol & r = symbols[b.right];
            if (l.n == 0 || r.n == 0 || l.id != b.left_id || r.id != b.right_id) {
                continue;  // stale: a side changed since the pair was queued
            }
            l.id = merges.find(key(l.id, r.id))->second.id;
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
            const bpe_symbol & sym = symbols[i];
            if (static_cast<size_t>(sym.id) < vocab.id_to_token.size()) {
                out.push_back(sym.id);
                continue;
            }
            // a merge produced a string that is not a token (malformed vocab): fall back to the
            // single-byte tokens of its encoded text, as the reference implementation does
            const std::string & str = extra[sym.id - vocab.id_to_token.size()];
            for (char c : str) {
                const llama_token id = vocab.find(std::string_view(&c, 1));
                if (id != LLAMA_TOKEN_NULL) {
                    out.push_back(id);
                }
            }
        }
    }
};

}  // namespace

std::unique_ptr<llama_tokenizer> llama_tokenizer_bpe_init(const llama_vocab::impl & vocab) {
    return std::make_unique<llama_tokenizer_bpe>(vocab);
}
