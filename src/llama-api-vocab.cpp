// The vocab part of the C API (include/llama-api-vocab.h): thin wrappers over llama_vocab (src/llama-vocab.h).
// NULL vocab pointers give the neutral value instead of crashing.
#include <climits>

#include "llama-log.h"
#include "llama-vocab.h"
#include "llama.h"

enum llama_vocab_type llama_vocab_type(const struct llama_vocab * vocab) {
    return vocab ? vocab->get_type() : LLAMA_VOCAB_TYPE_NONE;
}

int32_t llama_vocab_n_tokens(const struct llama_vocab * vocab) {
    return vocab ? vocab->n_tokens() : 0;
}

const char * llama_vocab_get_text(const struct llama_vocab * vocab, llama_token token) {
    return vocab ? vocab->token_get_text(token) : nullptr;
}

float llama_vocab_get_score(const struct llama_vocab * vocab, llama_token token) {
    return vocab ? vocab->token_get_score(token) : 0.0f;
}

enum llama_token_attr llama_vocab_get_attr(const struct llama_vocab * vocab, llama_token token) {
    return vocab ? vocab->token_get_attr(token) : LLAMA_TOKEN_ATTR_UNDEFINED;
}

bool llama_vocab_is_eog(const struct llama_vocab * vocab, llama_token token) {
    return vocab && vocab->is_eog(token);
}

bool llama_vocab_is_control(const struct llama_vocab * vocab, llama_token token) {
    return vocab && vocab->is_control(token);
}

#define LLAMA_VOCAB_TOKEN_GETTER(name, method)             \
    llama_token name(const struct llama_vocab * vocab) {   \
        return vocab ? vocab->method() : LLAMA_TOKEN_NULL; \
    }

LLAMA_VOCAB_TOKEN_GETTER(llama_vocab_bos, token_bos)
LLAMA_VOCAB_TOKEN_GETTER(llama_vocab_eos, token_eos)
LLAMA_VOCAB_TOKEN_GETTER(llama_vocab_eot, token_eot)
LLAMA_VOCAB_TOKEN_GETTER(llama_vocab_sep, token_sep)
LLAMA_VOCAB_TOKEN_GETTER(llama_vocab_nl, token_nl)
LLAMA_VOCAB_TOKEN_GETTER(llama_vocab_pad, token_pad)
LLAMA_VOCAB_TOKEN_GETTER(llama_vocab_mask, token_mask)
LLAMA_VOCAB_TOKEN_GETTER(llama_vocab_fim_pre, token_fim_pre)
LLAMA_VOCAB_TOKEN_GETTER(llama_vocab_fim_suf, token_fim_suf)
LLAMA_VOCAB_TOKEN_GETTER(llama_vocab_fim_mid, token_fim_mid)
LLAMA_VOCAB_TOKEN_GETTER(llama_vocab_fim_pad, token_fim_pad)
LLAMA_VOCAB_TOKEN_GETTER(llama_vocab_fim_rep, token_fim_rep)
LLAMA_VOCAB_TOKEN_GETTER(llama_vocab_fim_sep, token_fim_sep)

bool llama_vocab_get_add_bos(const struct llama_vocab * vocab) {
    return vocab && vocab->get_add_bos();
}

bool llama_vocab_get_add_eos(const struct llama_vocab * vocab) {
    return vocab && vocab->get_add_eos();
}

bool llama_vocab_get_add_sep(const struct llama_vocab * vocab) {
    return vocab && vocab->get_add_sep();
}

int32_t llama_tokenize(const struct llama_vocab * vocab, const char * text, int32_t text_len, llama_token * tokens,
                       int32_t n_tokens_max, bool add_special, bool parse_special) {
    if (!vocab) {
        llama_report_error(__func__, "vocab is NULL");
        return INT32_MIN;
    }
    // the vocab sets llama_last_error() itself, with the precise reason
    return vocab->tokenize(text, text_len, tokens, n_tokens_max, add_special, parse_special);
}

int32_t llama_token_to_piece(const struct llama_vocab * vocab, llama_token token, char * buf, int32_t length,
                             int32_t lstrip, bool special) {
    if (!vocab) {
        llama_report_error(__func__, "vocab is NULL");
        return INT32_MIN;
    }
    return vocab->token_to_piece(token, buf, length, lstrip, special);
}

int32_t llama_detokenize(const struct llama_vocab * vocab, const llama_token * tokens, int32_t n_tokens, char * text,
                         int32_t text_len_max, bool remove_special, bool unparse_special) {
    if (!vocab) {
        llama_report_error(__func__, "vocab is NULL");
        return INT32_MIN;
    }
    return vocab->detokenize(tokens, n_tokens, text, text_len_max, remove_special, unparse_special);
}
