// RWKV: token texts are Python-style escaped byte strings ("\\n", "\\x00", ...). Tokenization is a
// greedy longest match over a byte trie of the unescaped tokens; a byte no token starts with is <unk>.
#include "llama-vocab-impl.h"

#include <map>

std::string llama_rwkv_unescape(const std::string & escaped) {
    std::string out;
    out.reserve(escaped.size());
    auto hex = [](char c) -> int {
        if (c >= '0' && c <= '9')
            return c - '0';
        if (c >= 'a' && c <= 'f')
            return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
            return c - 'A' + 10;
        return -1;
    };
    for (size_t i = 0; i < escaped.size(); ++i) {
        const char c = escaped[i];
        if (c != '\\' || i + 1 >= escaped.size()) {
            out.push_back(c);
            continue;
        }
        const char e = escaped[++i];
        switch (e) {
            case 't':
                out.push_back('\t');
                break;
            case 'n':
                out.push_back('\n');
                break;
            case 'r':
                out.push_back('\r');
                break;
            case 'x': {
                const int h = i + 1 < escaped.size() ? hex(escaped[i + 1]) : -1;
                const int l = i + 2 < escaped.size() ? hex(escaped[i + 2]) : -1;
                if (h < 0 || l < 0) {
                    out.push_back('x');  // malformed escape: keep it literally
                } else {
                    out.push_back(static_cast<char>(h * 16 + l));
                    i += 2;
                }
                break;
            }
            default:
                out.push_back(e);
                break;  // \\ \' \" and anything else: the character itself
        }
    }
    return out;
}

namespace {

struct llama_tokenizer_rwkv : llama_tokenizer {
    const llama_vocab::impl & vocab;
    struct node {
        std::map<uint8_t, int> next;
        llama_token            value = LLAMA_TOKEN_NULL;
    };
    std::vector<node> nodes = std::vector<node>(1);

    explicit llama_tokenizer_rwkv(const llama_vocab::impl & v) : vocab(v) {
        for (size_t id = 0; id < v.id_to_token.size(); ++id) {
            const std::string bytes = llama_rwkv_unescape(v.id_to_token[id].text);
            int               cur   = 0;
            for (char ch : bytes) {
                auto it = nodes[cur].next.find(static_cast<uint8_t>(ch));
                if (it == nodes[cur].next.end()) {
                    nodes.emplace_back();
                    it = nodes[cur].next.emplace(static_cast<uint8_t>(ch), static_cast<int>(nodes.size() - 1)).first;
                }
                cur = it->second;
            }
            if (cur != 0 && nodes[cur].value == LLAMA_TOKEN_NULL) {
                nodes[cur].value = static_cast<llama_token>(id);  // first id wins for duplicate texts
            }
        }
    }

    void tokenize(const std::string & text, std::vector<llama_token> & out) const override {
        for (size_t pos = 0; pos < text.size();) {
            llama_token best     = LLAMA_TOKEN_NULL;
            size_t      best_len = 0;
            int         cur      = 0;
            for (size_t j = pos; j < text.size(); ++j) {
                const auto it = nodes[cur].next.find(static_cast<uint8_t>(text[j]));
                if (it == nodes[cur].next.end()) {
                    break;
                }
                cur = it->second;
                if (nodes[cur].value != LLAMA_TOKEN_NULL) {
                    best     = nodes[cur].value;
                    best_len = j + 1 - pos;
                }
            }
            if (best == LLAMA_TOKEN_NULL) {
                if (vocab.unk != LLAMA_TOKEN_NULL) {
                    out.push_back(vocab.unk);
                }
                pos += 1;
                continue;
            }
            out.push_back(best);
            pos += best_len;
        }
    }
};

}  // namespace

std::unique_ptr<llama_tokenizer> llama_tokenizer_rwkv_init(const llama_vocab::impl & vocab) {
    return std::make_unique<llama_tokenizer_rwkv>(vocab);
}
