/*
 * llama-api-vocab.h — the vocabulary: token queries, tokenization and detokenization, and the
 * built-in chat templates (llama_chat_apply_template).
 *
 * Part of the public C API of libllama: llama.h includes it, so a program includes llama.h only
 * (including this header alone works too). The conventions of llama.h (errors, ownership, threads,
 * ABI) hold here.
 */
#ifndef LLAMA_API_VOCAB_H
#define LLAMA_API_VOCAB_H

/* The declarations below use llama.h's types. llama.h includes this header at its end, after its
 * own declarations, and the include guards make either order of inclusion declare the same. */
#include "llama.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================
 * Vocabulary and tokenization
 * ========================================================================================== */

LLAMA_API enum llama_vocab_type llama_vocab_type(const struct llama_vocab * vocab);
LLAMA_API int32_t               llama_vocab_n_tokens(const struct llama_vocab * vocab);

/* The stored text of a token (SPM uses "▁" for spaces), its score and attributes. Owned by the
 * vocab. Out-of-range tokens give NULL / 0 / LLAMA_TOKEN_ATTR_UNDEFINED. */
LLAMA_API const char *          llama_vocab_get_text(const struct llama_vocab * vocab, llama_token token);
LLAMA_API float                 llama_vocab_get_score(const struct llama_vocab * vocab, llama_token token);
LLAMA_API enum llama_token_attr llama_vocab_get_attr(const struct llama_vocab * vocab, llama_token token);

/* End of generation: EOS, EOT or another token marked as ending a turn. */
LLAMA_API bool llama_vocab_is_eog(const struct llama_vocab * vocab, llama_token token);
/* A control token (BOS, EOS, ... — not text). */
LLAMA_API bool llama_vocab_is_control(const struct llama_vocab * vocab, llama_token token);

/* Special tokens; LLAMA_TOKEN_NULL where the vocab has none. */
LLAMA_API llama_token llama_vocab_bos(const struct llama_vocab * vocab); /* beginning of sentence */
LLAMA_API llama_token llama_vocab_eos(const struct llama_vocab * vocab); /* end of sentence */
LLAMA_API llama_token llama_vocab_eot(const struct llama_vocab * vocab); /* end of turn */
LLAMA_API llama_token llama_vocab_sep(const struct llama_vocab * vocab); /* sentence separator */
LLAMA_API llama_token llama_vocab_nl(const struct llama_vocab * vocab);  /* newline */
LLAMA_API llama_token llama_vocab_pad(const struct llama_vocab * vocab); /* padding */
LLAMA_API llama_token llama_vocab_mask(const struct llama_vocab * vocab);

/* Whether tokenizing with add_special adds BOS / EOS / SEP. */
LLAMA_API bool llama_vocab_get_add_bos(const struct llama_vocab * vocab);
LLAMA_API bool llama_vocab_get_add_eos(const struct llama_vocab * vocab);
LLAMA_API bool llama_vocab_get_add_sep(const struct llama_vocab * vocab);

/* Tokens the model asks never to generate (GGUF key tokenizer.ggml.suppress_tokens), owned by
 * the vocab, their count in *n_suppress_tokens (may be NULL); NULL and 0 if there are none. */
LLAMA_API const llama_token * llama_vocab_get_suppress_tokens(const struct llama_vocab * vocab,
                                                              int32_t * n_suppress_tokens);

/* Fill-in-the-middle tokens; LLAMA_TOKEN_NULL where absent. */
LLAMA_API llama_token llama_vocab_fim_pre(const struct llama_vocab * vocab);
LLAMA_API llama_token llama_vocab_fim_suf(const struct llama_vocab * vocab);
LLAMA_API llama_token llama_vocab_fim_mid(const struct llama_vocab * vocab);
LLAMA_API llama_token llama_vocab_fim_pad(const struct llama_vocab * vocab);
LLAMA_API llama_token llama_vocab_fim_rep(const struct llama_vocab * vocab);
LLAMA_API llama_token llama_vocab_fim_sep(const struct llama_vocab * vocab);

/* Deprecated llama.cpp names of the vocab calls above (llama_token_cls and llama_vocab_cls
 * return the BOS token, as in llama.cpp). */
LLAMA_API LLAMA_DEPRECATED(const char * llama_token_get_text(const struct llama_vocab * vocab, llama_token token), "use llama_vocab_get_text instead");
LLAMA_API LLAMA_DEPRECATED(float llama_token_get_score(const struct llama_vocab * vocab, llama_token token), "use llama_vocab_get_score instead");
LLAMA_API LLAMA_DEPRECATED(enum llama_token_attr llama_token_get_attr(const struct llama_vocab * vocab, llama_token token), "use llama_vocab_get_attr instead");
LLAMA_API LLAMA_DEPRECATED(bool llama_token_is_eog(const struct llama_vocab * vocab, llama_token token), "use llama_vocab_is_eog instead");
LLAMA_API LLAMA_DEPRECATED(bool llama_token_is_control(const struct llama_vocab * vocab, llama_token token), "use llama_vocab_is_control instead");
LLAMA_API LLAMA_DEPRECATED(llama_token llama_token_bos(const struct llama_vocab * vocab), "use llama_vocab_bos instead");
LLAMA_API LLAMA_DEPRECATED(llama_token llama_token_eos(const struct llama_vocab * vocab), "use llama_vocab_eos instead");
LLAMA_API LLAMA_DEPRECATED(llama_token llama_token_eot(const struct llama_vocab * vocab), "use llama_vocab_eot instead");
LLAMA_API LLAMA_DEPRECATED(llama_token llama_token_cls(const struct llama_vocab * vocab), "use llama_vocab_cls instead");
LLAMA_API LLAMA_DEPRECATED(llama_token llama_token_sep(const struct llama_vocab * vocab), "use llama_vocab_sep instead");
LLAMA_API LLAMA_DEPRECATED(llama_token llama_token_nl(const struct llama_vocab * vocab), "use llama_vocab_nl instead");
LLAMA_API LLAMA_DEPRECATED(llama_token llama_token_pad(const struct llama_vocab * vocab), "use llama_vocab_pad instead");
LLAMA_API LLAMA_DEPRECATED(bool llama_add_bos_token(const struct llama_vocab * vocab), "use llama_vocab_get_add_bos instead");
LLAMA_API LLAMA_DEPRECATED(bool llama_add_eos_token(const struct llama_vocab * vocab), "use llama_vocab_get_add_eos instead");
LLAMA_API LLAMA_DEPRECATED(llama_token llama_token_fim_pre(const struct llama_vocab * vocab), "use llama_vocab_fim_pre instead");
LLAMA_API LLAMA_DEPRECATED(llama_token llama_token_fim_suf(const struct llama_vocab * vocab), "use llama_vocab_fim_suf instead");
LLAMA_API LLAMA_DEPRECATED(llama_token llama_token_fim_mid(const struct llama_vocab * vocab), "use llama_vocab_fim_mid instead");
LLAMA_API LLAMA_DEPRECATED(llama_token llama_token_fim_pad(const struct llama_vocab * vocab), "use llama_vocab_fim_pad instead");
LLAMA_API LLAMA_DEPRECATED(llama_token llama_token_fim_rep(const struct llama_vocab * vocab), "use llama_vocab_fim_rep instead");
LLAMA_API LLAMA_DEPRECATED(llama_token llama_token_fim_sep(const struct llama_vocab * vocab), "use llama_vocab_fim_sep instead");
LLAMA_API LLAMA_DEPRECATED(llama_token llama_vocab_cls(const struct llama_vocab * vocab), "use llama_vocab_bos instead");

/*
 * Converts text (text_len bytes, need not be NUL-terminated) into tokens.
 *   add_special:   add BOS/EOS as the vocab specifies
 *   parse_special: match control/user-defined tokens written in the text (e.g. "<s>"); when false
 *                  they are tokenized as plain text
 * Returns the number of tokens written, or, if more than n_tokens_max are needed, the negative of
 * the number needed (nothing useful is written; call again with a larger array). Returns
 * INT32_MIN on overflow or invalid arguments.
 */
LLAMA_API int32_t llama_tokenize(const struct llama_vocab * vocab, const char * text, int32_t text_len,
                                 llama_token * tokens, int32_t n_tokens_max, bool add_special, bool parse_special);

/*
 * Writes the text of one token into buf (not NUL-terminated).
 *   lstrip:  remove up to this many leading spaces
 *   special: render control tokens (e.g. "</s>") instead of writing nothing for them
 * Returns the number of bytes written, or the negative of the length needed if buf is too small.
 */
LLAMA_API int32_t llama_token_to_piece(const struct llama_vocab * vocab, llama_token token, char * buf,
                                       int32_t length, int32_t lstrip, bool special);

/*
 * Converts tokens back into text (the inverse of llama_tokenize).
 *   remove_special:  drop a leading BOS / trailing EOS that add_special would have added
 *   unparse_special: render control tokens as text
 * Returns the number of bytes written (not NUL-terminated), or the negative of the length needed
 * if text_len_max is too small.
 */
LLAMA_API int32_t llama_detokenize(const struct llama_vocab * vocab, const llama_token * tokens, int32_t n_tokens,
                                   char * text, int32_t text_len_max, bool remove_special, bool unparse_special);

/* ============================================================================================
 * Chat templates
 * ========================================================================================== */

/*
 * Formats a conversation with a chat template.
 *   tmpl:    a template string (Jinja source as stored in GGUF files) or the name of a built-in
 *            template (see llama_chat_builtin_templates); NULL = "chatml"
 *   add_ass: end with the prefix of an assistant turn
 * Writes at most length bytes to buf (NUL-terminated if room) and returns the full length of the
 * formatted text: if it is larger than length, call again with a larger buffer. Returns -1 if the
 * template is not supported.
 */
LLAMA_API int32_t llama_chat_apply_template(const char * tmpl, const struct llama_chat_message * chat, size_t n_msg,
                                            bool add_ass, char * buf, int32_t length);

/* Fills output with up to len names of the built-in templates (owned by the library) and returns
 * the total number of built-in templates. */
LLAMA_API int32_t llama_chat_builtin_templates(const char ** output, size_t len);

/* The Jinja chat templates of llama_chat_template_* (a model's own template, executed) are declared
 * in llama-chat-template.h, included at the end of llama.h. */

#ifdef __cplusplus
}
#endif

#endif /* LLAMA_API_VOCAB_H */
