// UGM: Unigram (T5 / SentencePiece unigram). Normalize the text (precompiled charsmap replacements,
// whitespace escaping and merging), then pick the segmentation with the highest total score by dynamic
// programming over byte positions; characters no token covers become <unk> (runs merged into one).
#include "llama-unicode.h"
#include "llama-vocab-impl.h"

#include <cfloat>
#include <cstring>
#include <map>
#include <stdexcept>

namespace {

// byte trie of token texts
struct byte_trie {
    struct node {
        std::map<uint8_t, int> next;
        llama_token            value = LLAMA_TOKEN_NULL;
    };
    std::vector<node> nodes = std::vector<node>(1);

    void insert(const std::string & s, llama_token id) {
        int cur = 0;
        for (char ch : s) {
            const uint8_t c  = static_cast<uint8_t>(ch);
            auto          it = nodes[cur].next.find(c);
            if (it == nodes[cur].next.end()) {
                nodes.emplace_back();
                it = nodes[cur].next.emplace(c, static_cast<int>(nodes.size() - 1)).first;
            }
            cur = it->second;
        }
        nodes[cur].value = id;
    }

    int step(int cur, char ch) const {
        const auto it = nodes[cur].next.find(static_cast<uint8_t>(ch));
        return it == nodes[cur].next.end() ? -1 : it->second;
    }

    // length of the longest token that prefixes s[0..n), 0 if none
    size_t longest_prefix(const char * s, size_t n) const {
        size_t best = 0;
        int    cur  = 0;
        for (size_t i = 0; i < n; ++i) {
            cur = step(cur, s[i]);
            if (cur < 0) {
                break;
            }
            if (nodes[cur].value != LLAMA_TOKEN_NULL) {
                best = i + 1;
            }
        }
        return best;
    }
};

struct llama_tokenizer_ugm : llama_tokenizer {
    const llama_vocab::impl & vocab;
    byte_trie                 tokens;
    byte_trie                 user_defined;
    double                    unk_score = 0.0;
    // precompiled charsmap: a darts-clone double array (XCDA) over input bytes, then the
    // NUL-terminated replacement strings it points into
    const uint32_t * xcda              = nullptr;
    size_t           xcda_size         = 0;
    const char *     replacements      = nullptr;
    size_t           replacements_size = 0;

    explicit llama_tokenizer_ugm(const llama_vocab::impl & v) : vocab(v) {
        if (!v.charsmap.empty()) {
            if (v.charsmap.size() < 4) {
                throw std::runtime_error("precompiled charsmap too small");
            }
            uint32_t blob = 0;
            std::memcpy(&blob, v.charsmap.data(), 4);
            if (blob % 4 != 0 || blob > v.charsmap.size() - 4) {
                throw std::runtime_error("precompiled charsmap: bad XCDA size");
            }
            xcda              = reinterpret_cast<const uint32_t *>(v.charsmap.data() + 4);
            xcda_size         = blob / 4;
            replacements      = reinterpret_cast<const char *>(v.charsmap.data() + 4 + blob);
            replacements_size = v.charsmap.size() - 4 - blob;
        }
        float min_score = FLT_MAX;
        for (size_t id = 0; id < v.id_to_token.size(); ++id) {
            const auto & t = v.id_to_token[id];
            if (t.attr & LLAMA_TOKEN_ATTR_NORMAL) {
                min_score = std::min(min_score, t.score);
            }
            if ((t.attr & (LLAMA_TOKEN_ATTR_NORMAL | LLAMA_TOKEN_ATTR_USER_DEFINED | LLAMA_TOKEN_ATTR_UNUSED)) &&
                !t.text.empty()) {
                tokens.insert(t.text, static_cast<llama_token>(id));
            }
            if ((t.attr & LLAMA_TOKEN_ATTR_USER_DEFINED) && !t.text.empty()) {
                user_defined.insert(t.text, static_cast<llama_token>(id));
            }
        }
        // unknown pieces cost more than any real token (SentencePiece's kUnkPenalty)
        unk_score = (min_score == FLT_MAX ? 0.0 : min_score) - 10.0;
    }

    uint32_t xcda_node(size_t i) const { return i < xcda_size ? xcda[i] : 0; }

    // longest charsmap match at s[0..n): returns matched length and sets repl
    size_t charsmap_match(const char * s, size_t n, const char *& repl, size_t & repl_len) const {
        if (!xcda_size) {
            return 0;
        }
        auto   base = [](uint32_t u) { return (u >> 10) << ((u & (1U << 9)) >> 6); };
        size_t best = 0;
        size_t idx  = base(xcda_node(0));
        for (size_t i = 0; i < n; ++i) {
            const uint8_t c = static_cast<uint8_t>(s[i]);
            if (c == 0) {
                break;
            }
            idx ^= c;
            const uint32_t u = xcda_node(idx);
            if ((u & ((1U << 31) | 0xFF)) != c) {  // LCHECK: not a child of the previous node
                break;
            }
            const bool leaf = (u >> 8) & 1;
            idx ^= base(u);
            if (leaf) {
                const uint32_t value = xcda_node(idx) & ((1U << 31) - 1);
                if (value < replacements_size) {
                    best     = i + 1;
                    repl     = replacements + value;
                    repl_len = strnlen(repl, replacements_size - value);
                }
            }
        }
        return best;
    }

    std::string normalize(const std::string & text) const {
        std::string out;
        out.reserve(text.size() * 2);
        const std::string space     = vocab.escape_ws ? "\xE2\x96\x81" : " ";
        const bool        prepend   = vocab.add_space_prefix;
        const bool        merge_ws  = vocab.remove_extra_ws;
        bool              prepended = false;
        bool              in_word   = false;
        auto              emit      = [&](const char * s, size_t n) {
            for (size_t i = 0; i < n; ++i) {
                if (s[i] != ' ') {
                    if (!in_word) {
                        in_word = true;
                        if ((prepend && !prepended) || merge_ws) {
                            // merging keeps one space before each word; leading spaces are dropped
                            if (!(merge_ws && out.empty() && !prepend)) {
                                out += space;
                            }
                            prepended = true;
                        }
                    }
                    out.push_back(s[i]);
                } else {
                    in_word = false;
                    if (!merge_ws) {
                        out += space;
                    }
                }
            }
        };
        for (size_t i = 0; i < text.size();) {
            const size_t ud = user_defined.longest_prefix(text.data() + i, text.size() - i);
            if (ud > 0) {
                emit(text.data() + i, ud);
                i += ud;
                continue;
            }
            const char * repl     = nullptr;
            size_t       repl_len = 0;
            const size_t m        = charsmap_match(text.data() + i, text.size() - i, repl, repl_len);
            if (m > 0) {
                emit(repl, repl_len);
                i += m;
                continue;
            }
            size_t len   = 1;
            bool   valid = true;
            llama_unicode_decode(text.data() + i, text.size() - i, len, &valid);
            if (valid) {
                emit(text.data() + i, len);
            } else {
                emit("\xEF\xBF\xBD", 3);
            }
            i += len;
        }
        return out;
    }

    void tokenize(const std::string & text, std::vector<llama_token> & out) const override {
        const std::string norm = normalize(text);
        const size_t      n    = norm.size();
        if (n == 0) {
            return;
        }
        struct best {
            llama_token id;
            size_t      from;
            double      score;
        };
        std::vector<best> dp(n + 1, {vocab.unk, 0, -DBL_MAX});
        dp[0] = {vocab.unk, 0, 0.0};
        for (size_t i = 0; i < n;) {
            const size_t char_len = std::min(llama_unicode_len_utf8(norm[i]), n - i);
            if (dp[i].score == -DBL_MAX) {
                i += char_len;  // unreachable position (cannot happen: every character has a path)
                continue;
            }
            bool whole_char = false;
            int  cur        = 0;
            for (size_t j = i; j < n; ++j) {
                cur = tokens.step(cur, norm[j]);
                if (cur < 0) {
                    break;
                }
                const llama_token id = tokens.nodes[cur].value;
                if (id == LLAMA_TOKEN_NULL) {
                    continue;
                }
                if (j + 1 - i == char_len) {
                    whole_char = true;
                }
                // user-defined tokens score 0 so they win over normal tokens (log probabilities, < 0)
                const double s =
                    dp[i].score +
                    ((vocab.id_to_token[id].attr & LLAMA_TOKEN_ATTR_USER_DEFINED) ? 0.0 : vocab.id_to_token[id].score);
                if (s > dp[j + 1].score) {
                    dp[j + 1] = {id, i, s};
                }
            }
            if (!whole_char) {
                const double s = dp[i].score + unk_score;
                if (s > dp[i + char_len].score) {
                    dp[i + char_len] = {vocab.unk, i, s};
                }
            }
            i += char_len;
        }
        // walk back from the end; consecutive unknowns collapse into one
        std::vector<llama_token> rev;
        bool                     prev_unk = false;
        for (size_t pos = n; pos > 0;) {
            const best & b      = dp[pos];
            const bool   is_unk = b.id == vocab.unk;
            if (!(prev_unk && is_unk) && b.id != LLAMA_TOKEN_NULL) {
                rev.push_back(b.id);
            }
            prev_unk = is_unk;
            pos      = b.from;
        }
        out.insert(out.end(), rev.rbegin(), rev.rend());
    }
};

}  // namespace

std::unique_ptr<llama_tokenizer> llama_tokenizer_ugm_init(const llama_vocab::impl & vocab) {
    return std::make_unique<llama_tokenizer_ugm>(vocab);
}
