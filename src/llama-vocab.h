// llama_vocab: the tokenizer of a model. Loads the tokenizer.ggml.* keys of a GGUF file and implements
// tokenize / token_to_piece / detokenize with the semantics of llama.h for every vocab type:
//   SPM  (tokenizer.ggml.model "llama")  SentencePiece BPE: score-driven merges, byte fallback <0xNN>
//   BPE  ("gpt2")                        byte-level BPE with a pre-tokenizer chosen by tokenizer.ggml.pre
//                                        (raw-UTF-8 BPE for gemma4, sarvam-moe, granite-embed-multi-311m,
//                                        whitespace; "gemma4" and "whitespace" models are BPE variants)
//   WPM  ("bert")                        WordPiece: lowercase, strip accents, split punctuation, greedy
//   UGM  ("t5")                          Unigram: Viterbi over token scores, precompiled charsmap
//   RWKV ("rwkv")                        greedy longest match over a byte trie
// A loaded vocab is immutable; every const method is safe to call from many threads at once.
#pragma once

#include "llama.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct gguf_context;

// Returned by tokenize/detokenize/token_to_piece for invalid arguments (negative length, NULL text
// with a positive length, NULL output with a positive capacity, a token id out of range). It can never
// be a "negated required size": no text or token count reaches INT32_MAX here.
#define LLAMA_VOCAB_ERR_INVALID INT32_MIN

// The content of the tokenizer.ggml.* keys, for building a vocab without a GGUF file (tests, tools).
// Unset optionals take the vocab type's defaults, exactly as absent GGUF keys do.
struct llama_vocab_data {
    std::string model;              // tokenizer.ggml.model: "llama", "gpt2", "gemma4", "whitespace", "bert",
                                    // "t5", "rwkv", "no_vocab"
    std::string              pre;   // tokenizer.ggml.pre ("" = absent)
    std::string              name;  // general.name (a few vocabs need per-model token attributes)
    std::vector<std::string> tokens;
    std::vector<float>       scores;                // empty = all 0
    std::vector<int32_t>     token_types;           // llama_token_type values; empty = all NORMAL
    std::vector<std::string> merges;                // "left right", BPE only
    std::vector<uint8_t>     precompiled_charsmap;  // UGM only

    std::optional<int64_t> bos, eos, eot, eom, unk, sep, pad, cls, mask;
    std::optional<int64_t> fim_pre, fim_suf, fim_mid, fim_pad, fim_rep, fim_sep;
    std::optional<bool>    add_bos, add_eos, add_sep, add_space_prefix, remove_extra_whitespaces;
    // WordPiece (BertNormalizer): lowercase (default true), strip_accents (default: lowercase); lowercase
    // also applies to the "whitespace" model (default false with the "whitespace" pre-tokenizer)
    std::optional<bool> normalizer_lowercase, normalizer_strip_accents;
};

struct llama_vocab {
    struct impl;

    llama_vocab();
    ~llama_vocab();
    llama_vocab(const llama_vocab &)             = delete;
    llama_vocab & operator=(const llama_vocab &) = delete;

    // Loads the tokenizer.ggml.* keys of an opened GGUF (metadata only). Throws std::runtime_error with a
    // clear message on missing or malformed data or an unknown model / pre-tokenizer name.
    void load(const gguf_context * gguf);
    // The same from arrays; throws likewise.
    void load(const llama_vocab_data & data);
    // Reads the keys of a GGUF into a llama_vocab_data (throws on wrong types or bad sizes).
    static llama_vocab_data read_gguf(const gguf_context * gguf);

    // tokenizer.ggml.suppress_tokens (llama_vocab_get_suppress_tokens), filled by the model loader
    std::vector<llama_token> suppress_tokens;

    enum llama_vocab_type get_type() const;
    bool                  get_clean_spaces() const;  // detokenize cleans spaces (upstream's clean_spaces)
    std::string           type_name() const;         // "SPM", "BPE", "WPM", "UGM", "RWKV", "NONE"
    std::string           pre_name() const;          // the pre-tokenizer in use ("" unless BPE)
    int32_t               n_tokens() const;
    // A vocab without a tokenizer ("no_vocab") counts the model's vocab_size as tokens with no text, as
    // upstream does, so that llama_vocab_n_tokens gives the width of a logits row. No-op for other types.
    void set_n_dummy_tokens(uint32_t n);

    // llama_tokenize: number of tokens written, or -(required count) when n_tokens_max is too small;
    // LLAMA_VOCAB_ERR_INVALID for invalid arguments. Never throws.
    int32_t tokenize(const char * text, int32_t text_len, llama_token * tokens, int32_t n_tokens_max, bool add_special,
                     bool parse_special) const;
    std::vector<llama_token> tokenize(const std::string & text, bool add_special, bool parse_special) const;

    // llama_token_to_piece: bytes written (no terminator), or -(required size) when length is too small;
    // LLAMA_VOCAB_ERR_INVALID for an invalid token or buffer. Skips up to lstrip leading spaces.
    // special: render control/unknown tokens as their text (otherwise they render as nothing).
    int32_t     token_to_piece(llama_token token, char * buf, int32_t length, int32_t lstrip, bool special) const;
    std::string token_to_piece(llama_token token, bool special = true) const;

    // llama_detokenize: bytes written, or -(required size); LLAMA_VOCAB_ERR_INVALID for invalid arguments.
    // remove_special drops a leading BOS / trailing EOS the vocab would add; unparse_special renders
    // control tokens as text. SPM: the space the tokenizer prefixed to the text is removed again.
    int32_t     detokenize(const llama_token * tokens, int32_t n_tokens, char * text, int32_t text_len_max,
                           bool remove_special, bool unparse_special) const;
    std::string detokenize(const std::vector<llama_token> & tokens, bool remove_special, bool unparse_special) const;

    // out-of-range ids give NULL / 0 / LLAMA_TOKEN_ATTR_UNDEFINED (logged)
    const char *     token_get_text(llama_token id) const;
    float            token_get_score(llama_token id) const;
    llama_token_attr token_get_attr(llama_token id) const;
    llama_token      text_to_token(const std::string & text) const;  // LLAMA_TOKEN_NULL if absent

    // LLAMA_TOKEN_NULL (-1) when the vocab has no such token
    llama_token token_bos() const;
    llama_token token_eos() const;
    llama_token token_eot() const;
    llama_token token_eom() const;
    llama_token token_unk() const;
    llama_token token_sep() const;
    llama_token token_nl() const;
    llama_token token_pad() const;
    llama_token token_cls() const;
    llama_token token_mask() const;
    llama_token token_fim_pre() const;
    llama_token token_fim_suf() const;
    llama_token token_fim_mid() const;
    llama_token token_fim_pad() const;
    llama_token token_fim_rep() const;
    llama_token token_fim_sep() const;

    bool get_add_bos() const;
    bool get_add_eos() const;
    bool get_add_sep() const;
    bool get_add_space_prefix() const;

    bool is_eog(llama_token id) const;      // end of generation: EOS, EOT, EOM and the like
    bool is_control(llama_token id) const;  // CONTROL attribute
    bool is_byte(llama_token id) const;

    const impl & get_impl() const { return *pimpl; }

private:
    std::unique_ptr<impl> pimpl;
};
