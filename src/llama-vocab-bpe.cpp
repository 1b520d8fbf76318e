// BPE: byte-level BPE (GPT-2 family). The pre-tokenizer splits the text into pieces; each piece's bytes
// are mapped to the GPT-2 alphabet and merged by rank (lowest rank first, ties leftmost) with a min-heap
// of candidate pairs. Symbols carry interned ids so that a merge is one hash lookup on an id pair, with
// no string building in the loop. Strings that occur in merges but are not tokens get ids past n_tokens.
// Raw-UTF-8 BPE (gemma4, sarvam-moe, granite-embed-multi-311m, whitespace: upstream's byte_encode =
// false) starts from the piece's UTF-8 characters instead, and a symbol left that is not a token falls
// back to the <0xNN> byte tokens. The "whitespace" model drops whitespace and runs BPE on each run.
#include "llama-unicode.h"
#include "llama-vocab-impl.h"

#include <algorithm>
#include <cstdio>
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

// the id of a raw character that no token or merge has: it never takes part in a merge
constexpr int32_t NO_ID = -1;

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
        if (v.byte_encode) {
            for (int b = 0; b < 256; ++b) {
                byte_ids[b] = intern(llama_unicode_byte_to_utf8(static_cast<uint8_t>(b)));
            }
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

    // the interned id of a character of raw text, or NO_ID when no token or merge has it
    int32_t char_id(const char * s, size_t n) const {
        const llama_token id = vocab.find(std::string_view(s, n));
        if (id != LLAMA_TOKEN_NULL) {
            return id;
        }
        const auto it = extra_ids.find(std::string(s, n));  // at most 4 bytes: no allocation
        return it == extra_ids.end() ? NO_ID : it->second;
    }

    void tokenize(const std::string & text, std::vector<llama_token> & out) const override {
        if (!vocab.drop_ws) {
            tokenize_text(text, out);
            return;
        }
        // whitespace ends a run and is dropped (upstream's whitespace session); the runs are
        // lowercased code point by code point when the normalizer says so
        std::string run;
        for (size_t i = 0; i < text.size();) {
            size_t         len = 1;
            const uint32_t cpt = llama_unicode_decode(text.data() + i, text.size() - i, len);
            i += len;
            if (llama_unicode_flags(cpt) & LLAMA_UNICODE_WHITESPACE) {
                tokenize_text(run, out);
                run.clear();
            } else {
                run += llama_unicode_cpt_to_utf8(vocab.drop_ws_lowercase ? llama_unicode_tolower(cpt) : cpt);
            }
        }
        tokenize_text(run, out);
    }

    void tokenize_text(const std::string & text, std::vector<llama_token> & out) const {
        std::vector<std::pair<size_t, size_t>> pieces;
        llama_pretok_split(vocab.pre_type, text, pieces);
        std::vector<bpe_symbol> symbols;
        std::string             encoded;
        for (const auto & p : pieces) {
            const char * s = text.data() + p.first;
            const size_t n = p.second - p.first;
            if (n == 0) {
                continue;
            }
            if (vocab.byte_encode) {
                tokenize_piece(s, n, symbols, encoded, out);
            } else {
                tokenize_raw_piece(s, n, symbols, out);
            }
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
            symbols.push_back({0, 0, byte_ids[static_cast<uint8_t>(s[i])], i, 1});
        }
        merge(symbols);
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

    void tokenize_raw_piece(const char * s, size_t n, std::vector<bpe_symbol> & symbols,
                            std::vector<llama_token> & out) const {
        // gemma4 keeps a newline run whole when the vocab has it (its merges never build one)
        const bool newlines = vocab.newline_words && std::all_of(s, s + n, [](char c) { return c == '\n'; });
        if (vocab.ignore_merges || newlines) {
            const llama_token id = vocab.find(std::string_view(s, n));
            if (id != LLAMA_TOKEN_NULL) {
                out.push_back(id);
                return;
            }
        }
        symbols.clear();
        for (size_t i = 0; i < n;) {
            // a character's length from its lead byte alone, clipped to the piece, as upstream: an
            // invalid byte is a symbol of its own (or swallows what follows it) and ends up as <0xNN>
            const size_t len = std::min(n - i, utf8_len(static_cast<uint8_t>(s[i])));
            symbols.push_back({0, 0, char_id(s + i, len), i, len});
            i += len;
        }
        merge(symbols);
        for (int i = 0; i != -1; i = symbols[i].next) {
            const bpe_symbol & sym = symbols[i];
            if (sym.id >= 0 && static_cast<size_t>(sym.id) < vocab.id_to_token.size()) {
                out.push_back(sym.id);
                continue;
            }
            // not a token: its bytes as <0xNN> tokens; bytes the vocab has no token for are dropped
            for (size_t k = 0; k < sym.n; ++k) {
                char hex[8];
                snprintf(hex, sizeof(hex), "<0x%02X>", static_cast<uint8_t>(s[sym.offs + k]));
                const llama_token id = vocab.find(hex);
                if (id != LLAMA_TOKEN_NULL) {
                    out.push_back(id);
                }
            }
        }
    }

    static size_t utf8_len(uint8_t lead) {
        static const uint8_t len[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
        return len[lead >> 4];
    }

    // Links the (non-empty) symbols into a list and merges them by rank; merged-away symbols stay in
    // the vector with n == 0, so the result is the list from symbols[0] on.
    void merge(std::vector<bpe_symbol> & symbols) const {
        const int count = static_cast<int>(symbols.size());
        for (int k = 0; k < count; ++k) {
            symbols[k].prev = k - 1;
            symbols[k].next = k + 1 == count ? -1 : k + 1;
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
        for (int i = 1; i < count; ++i) {
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
    }
};

}  // namespace

std::unique_ptr<llama_tokenizer> llama_tokenizer_bpe_init(const llama_vocab::impl & vocab) {
    return std::make_unique<llama_tokenizer_bpe>(vocab);
}
