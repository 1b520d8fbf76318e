// Internal state of llama_vocab shared by the per-type tokenizers (llama-vocab-{spm,bpe,wpm,ugm,rwkv}.cpp).
#pragma once

#include "llama-vocab-pretok.h"
#include "llama-vocab.h"

#include <array>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

// One tokenizer algorithm, built once per vocab from its tables. tokenize() appends the tokens of a
// piece of plain text (no special tokens in it) and must be const: vocabs are shared across threads.
struct llama_tokenizer {
    virtual ~llama_tokenizer()                                                            = default;
    virtual void tokenize(const std::string & text, std::vector<llama_token> & out) const = 0;
};

struct llama_vocab::impl {
    struct token_data {
        std::string      text;
        float            score;
        llama_token_attr attr;
    };

    enum llama_vocab_type type     = LLAMA_VOCAB_TYPE_NONE;
    llama_pretok_type     pre_type = llama_pretok_type::DEFAULT;
    std::string           pre_name;

    std::vector<token_data>                           id_to_token;
    std::unordered_map<std::string_view, llama_token> token_to_id;  // views into id_to_token texts
    std::vector<std::string>                          merges;       // BPE, "left right" in rank order
    std::vector<uint8_t>                              charsmap;     // UGM precompiled charsmap
    size_t                                            max_token_len = 0;

    llama_token bos = LLAMA_TOKEN_NULL, eos = LLAMA_TOKEN_NULL, eot = LLAMA_TOKEN_NULL, eom = LLAMA_TOKEN_NULL;
    llama_token unk = LLAMA_TOKEN_NULL, sep = LLAMA_TOKEN_NULL, pad = LLAMA_TOKEN_NULL, nl = LLAMA_TOKEN_NULL;
    llama_token cls = LLAMA_TOKEN_NULL, mask = LLAMA_TOKEN_NULL;
    llama_token fim_pre = LLAMA_TOKEN_NULL, fim_suf = LLAMA_TOKEN_NULL, fim_mid = LLAMA_TOKEN_NULL;
    llama_token fim_pad = LLAMA_TOKEN_NULL, fim_rep = LLAMA_TOKEN_NULL, fim_sep = LLAMA_TOKEN_NULL;

    bool add_bos           = false;
    bool add_eos           = false;
    bool add_sep           = false;
    bool add_space_prefix  = false;
    bool remove_extra_ws   = false;
    bool wpm_lowercase     = true;  // WPM: lowercase; strip accents (NFD, drop marks)
    bool wpm_strip_accents = true;
    bool escape_ws         = true;   // UGM, raw-UTF-8 BPE (gemma4, sarvam-moe): spaces become U+2581
    bool ignore_merges     = false;  // BPE: a piece that is a whole token is not merged (llama 3)
    bool byte_encode       = true;   // BPE: merges over the GPT-2 byte alphabet, else over raw UTF-8
    bool newline_words     = false;  // BPE (gemma4): a newline run that is a token is taken whole
    bool drop_ws           = false;  // BPE (model "whitespace"): whitespace dropped, each run apart
    bool drop_ws_lowercase = false;  // with drop_ws: lowercase first (the BertNormalizer option)
    bool clean_spaces      = false;  // detokenize: drop spaces before punctuation (WordPiece, most BPE)

    std::unordered_set<llama_token> eog;
    std::array<llama_token, 256>    byte_tokens{};  // SPM byte fallback (LLAMA_TOKEN_NULL when absent)
    std::vector<std::string>        pieces;         // token_to_piece(id, special = true) for every id

    // special-token matching: candidates per first byte, longest first
    std::array<std::vector<llama_token>, 256> special_by_byte;

    std::unique_ptr<llama_tokenizer> tokenizer;

    bool valid(llama_token id) const { return id >= 0 && static_cast<size_t>(id) < id_to_token.size(); }

    llama_token find(std::string_view text) const {
        const auto it = token_to_id.find(text);
        return it == token_to_id.end() ? LLAMA_TOKEN_NULL : it->second;
    }

    bool has_attr(llama_token id, int attr) const { return valid(id) && (id_to_token[id].attr & attr); }
};

std::unique_ptr<llama_tokenizer> llama_tokenizer_spm_init(const llama_vocab::impl & vocab);
std::unique_ptr<llama_tokenizer> llama_tokenizer_bpe_init(const llama_vocab::impl & vocab);
std::unique_ptr<llama_tokenizer> llama_tokenizer_wpm_init(const llama_vocab::impl & vocab);
std::unique_ptr<llama_tokenizer> llama_tokenizer_ugm_init(const llama_vocab::impl & vocab);
std::unique_ptr<llama_tokenizer> llama_tokenizer_rwkv_init(const llama_vocab::impl & vocab);

// "\\n", "\\x0a", ... of RWKV token texts to bytes
std::string llama_rwkv_unescape(const std::string & escaped);
