/*
 * llama-api-sampling.h — token sampling: the samplers and sampler chains (llama_sampler_*), and
 * the results of samplers run inside the context's graph (backend sampling).
 *
 * Part of the public C API of libllama: llama.h includes it, so a program includes llama.h only
 * (including this header alone works too). The conventions of llama.h (errors, ownership, threads,
 * ABI) hold here.
 */
#ifndef LLAMA_API_SAMPLING_H
#define LLAMA_API_SAMPLING_H

/* The declarations below use llama.h's types. llama.h includes this header at its end, after its
 * own declarations, and the include guards make either order of inclusion declare the same. */
#include "llama.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================
 * Backend sampling
 *
 * A context can own the sampling of some sequences: give it a sampler chain per sequence
 * (llama_context_params.samplers, or llama_set_sampler later). After every llama_decode, for each
 * output token of such a sequence, the chain is applied on the CPU to that token's logits (all
 * n_vocab candidates, sorted = false), exactly as llama_sampler_apply would. The results are read
 * with the functions below by batch index i (negative: output rows from the end, as
 * llama_get_logits_ith):
 *   token       the token the chain selected (LLAMA_TOKEN_NULL if it selected none, or token i
 *               has no output or no sampler)
 *   candidates  the token ids left after the chain, in the chain's order
 *   logits      their logits after the chain, probs the softmax of those logits
 *                (both in the order of candidates; count = number of candidates)
 * The chain is not told about the chosen token: call llama_sampler_accept on it for the tokens
 * you keep (in output order), as llama_sampler_sample would have. The arrays are owned by the
 * context and valid until the next decode or whole-context state restore (which drops them: they
 * are not part of a state); NULL / 0 where nothing was sampled.
 * ========================================================================================== */

/* Sets (smpl a chain, owned by the caller, alive as long as it is set) or removes (smpl NULL)
 * the sampler of sequence seq_id. False if seq_id is outside [0, n_seq_max) or smpl is not a
 * chain (llama_last_error() says why). Takes effect from the next decode. */
LLAMA_API bool llama_set_sampler(struct llama_context * ctx, llama_seq_id seq_id, struct llama_sampler * smpl);

LLAMA_API llama_token   llama_get_sampled_token_ith(struct llama_context * ctx, int32_t i);
LLAMA_API float *       llama_get_sampled_probs_ith(struct llama_context * ctx, int32_t i);
LLAMA_API uint32_t      llama_get_sampled_probs_count_ith(struct llama_context * ctx, int32_t i);
LLAMA_API float *       llama_get_sampled_logits_ith(struct llama_context * ctx, int32_t i);
LLAMA_API uint32_t      llama_get_sampled_logits_count_ith(struct llama_context * ctx, int32_t i);
LLAMA_API llama_token * llama_get_sampled_candidates_ith(struct llama_context * ctx, int32_t i);
LLAMA_API uint32_t      llama_get_sampled_candidates_count_ith(struct llama_context * ctx, int32_t i);

/* ============================================================================================
 * Sampling
 *
 * A sampler transforms a llama_token_data_array (filtering, rescaling logits) and/or selects a
 * token in it. A chain applies its samplers in order. Custom samplers implement llama_sampler_i.
 *
 *   struct llama_sampler * smpl = llama_sampler_chain_init(llama_sampler_chain_default_params());
 *   llama_sampler_chain_add(smpl, llama_sampler_init_top_k(40));
 *   llama_sampler_chain_add(smpl, llama_sampler_init_temp(0.8f));
 *   llama_sampler_chain_add(smpl, llama_sampler_init_dist(seed));
 *   ... llama_token tok = llama_sampler_sample(smpl, ctx, -1); ...
 *   llama_sampler_free(smpl);   // frees the samplers added to it too
 * ========================================================================================== */

typedef void * llama_sampler_context_t;

/* The tensors of llama.cpp's graph-side sampling hooks (backend_apply below). */
struct llama_sampler_data {
    struct ggml_tensor * logits;
    struct ggml_tensor * probs;
    struct ggml_tensor * sampled;
    struct ggml_tensor * candidates;
};

/* The interface of a sampler. Every member may be NULL except apply. */
struct llama_sampler_i {
    const char * (*name)(const struct llama_sampler * smpl);                /* static string */
    void (*accept)(struct llama_sampler * smpl, llama_token token);         /* a token was chosen */
    void (*apply)(struct llama_sampler * smpl, llama_token_data_array * cur_p);
    void (*reset)(struct llama_sampler * smpl);                             /* forget history */
    struct llama_sampler * (*clone)(const struct llama_sampler * smpl);    /* deep copy */
    void (*free)(struct llama_sampler * smpl);                              /* free ctx only */

    /* llama.cpp's hooks for sampling inside the compute graph. libllama never calls them
     * (backend sampling runs apply on the CPU, see llama_set_sampler): leave them NULL. */
    bool (*backend_init)(struct llama_sampler * smpl, ggml_backend_buffer_type_t buft, uint32_t n_outputs_max_per_seq);
    void (*backend_accept)(struct llama_sampler * smpl, struct ggml_context * ctx, struct ggml_cgraph * gf,
                           struct ggml_tensor * selected_token);
    void (*backend_apply)(struct llama_sampler * smpl, struct ggml_context * ctx, struct ggml_cgraph * gf,
                          struct llama_sampler_data * data);
    void (*backend_set_input)(struct llama_sampler * smpl);
    void (*backend_reset)(struct llama_sampler * smpl);

    /* copies the state of src into dst (same kind); NULL: not supported (llama_sampler_copy) */
    void (*copy_state)(const struct llama_sampler * src, struct llama_sampler * dst);
};

struct llama_sampler {
    struct llama_sampler_i * iface; /* not const, as in llama.cpp; the library never writes it */
    llama_sampler_context_t  ctx;
};

/* Wraps a custom implementation; the returned sampler is freed with llama_sampler_free (which
 * calls iface->free to release ctx). iface must outlive the sampler. NULL on allocation failure. */
LLAMA_API struct llama_sampler * llama_sampler_init(struct llama_sampler_i * iface, llama_sampler_context_t ctx);

LLAMA_API const char * llama_sampler_name(const struct llama_sampler * smpl);
LLAMA_API void         llama_sampler_accept(struct llama_sampler * smpl, llama_token token);
LLAMA_API void         llama_sampler_apply(struct llama_sampler * smpl, llama_token_data_array * cur_p);
LLAMA_API void         llama_sampler_reset(struct llama_sampler * smpl);
/* A deep copy (with its state), or NULL if the sampler cannot be cloned. */
LLAMA_API struct llama_sampler * llama_sampler_clone(const struct llama_sampler * smpl);
/* Makes dst's mutable state (history, random state, grammar position) a copy of src's, so that dst
 * continues exactly as src would; dst keeps its own identity (and its place in a chain). src and
 * dst must be the same kind of sampler (same iface), else nothing happens and the reason is in
 * llama_last_error(). NULL or src == dst: no-op. A custom sampler needs a clone function. */
LLAMA_API void                   llama_sampler_copy(const struct llama_sampler * src, struct llama_sampler * dst);
/* Frees the sampler (NULL is a no-op). Do not free a sampler that is part of a chain. */
LLAMA_API void                   llama_sampler_free(struct llama_sampler * smpl);

/* A chain applies its samplers in order. It takes ownership of the samplers added to it. */
LLAMA_API struct llama_sampler * llama_sampler_chain_init(struct llama_sampler_chain_params params);
LLAMA_API void                   llama_sampler_chain_add(struct llama_sampler * chain, struct llama_sampler * smpl);
/* The i-th sampler (still owned by the chain), or NULL if out of range. */
LLAMA_API struct llama_sampler * llama_sampler_chain_get(struct llama_sampler * chain, int32_t i);
LLAMA_API int                    llama_sampler_chain_n(const struct llama_sampler * chain);
/* Removes the i-th sampler and returns it (ownership passes to the caller); NULL if out of range. */
LLAMA_API struct llama_sampler * llama_sampler_chain_remove(struct llama_sampler * chain, int32_t i);

/* Selects the token with the largest logit. */
LLAMA_API struct llama_sampler * llama_sampler_init_greedy(void);
/* Selects a token at random from the softmax of the logits. seed LLAMA_DEFAULT_SEED = random. */
LLAMA_API struct llama_sampler * llama_sampler_init_dist(uint32_t seed);
/* Keeps the k most likely tokens (k <= 0: no-op). */
LLAMA_API struct llama_sampler * llama_sampler_init_top_k(int32_t k);
/* Nucleus: keeps the most likely tokens whose probabilities sum to >= p (at least min_keep). */
LLAMA_API struct llama_sampler * llama_sampler_init_top_p(float p, size_t min_keep);
/* Keeps tokens with probability >= p * the largest probability (at least min_keep). */
LLAMA_API struct llama_sampler * llama_sampler_init_min_p(float p, size_t min_keep);
/* Locally typical sampling (at least min_keep tokens). */
LLAMA_API struct llama_sampler * llama_sampler_init_typical(float p, size_t min_keep);
/* Divides logits by t (t <= 0: keep only the most likely token). */
LLAMA_API struct llama_sampler * llama_sampler_init_temp(float t);
/* Dynamic temperature in [t - delta, t + delta] driven by the entropy, with exponent. */
LLAMA_API struct llama_sampler * llama_sampler_init_temp_ext(float t, float delta, float exponent);
/* Repetition penalties over the last penalty_last_n accepted tokens (0: disabled, -1: context).
 * n_vocab (the vocabulary size) is accepted for llama.cpp's signature; any value works. */
LLAMA_API struct llama_sampler * llama_sampler_init_penalties(int32_t n_vocab, int32_t penalty_last_n,
                                                              float penalty_repeat, float penalty_freq,
                                                              float penalty_present);
/* Adds a fixed bias to the logits of chosen tokens (the array is copied). */
LLAMA_API struct llama_sampler * llama_sampler_init_logit_bias(int32_t n_vocab, int32_t n_logit_bias,
                                                               const llama_logit_bias * logit_bias);

/* XTC ("exclude top choices"): with probability p, removes every token whose probability is >= t
 * except the least likely of them, keeping at least min_keep tokens. p <= 0 or t > 0.5: no-op.
 * Draws from its own generator (seed LLAMA_DEFAULT_SEED = random). */
LLAMA_API struct llama_sampler * llama_sampler_init_xtc(float p, float t, size_t min_keep, uint32_t seed);
/* Top-n-sigma: keeps tokens whose logit is >= max - n * stddev (over the finite logits); the
 * others become -inf. n <= 0: no-op. */
LLAMA_API struct llama_sampler * llama_sampler_init_top_n_sigma(float n);
/* Mirostat 1.0 (arXiv 2007.14966, tokens as words): estimates the Zipf exponent from the m most
 * likely tokens, keeps the top k that match the current surprise budget mu (starts at 2 * tau),
 * draws a token (sets selected) and moves mu by eta * (tau - observed surprise). n_vocab is the
 * vocabulary size. A terminal sampler: put it last in a chain. */
LLAMA_API struct llama_sampler * llama_sampler_init_mirostat(int32_t n_vocab, uint32_t seed, float tau, float eta,
                                                             int32_t m);
/* Mirostat 2.0: keeps tokens whose surprise -log2(p) is <= mu (at least one), draws one, then
 * updates mu as mirostat 1.0 does. Terminal sampler. */
LLAMA_API struct llama_sampler * llama_sampler_init_mirostat_v2(uint32_t seed, float tau, float eta);
/* Grammar-constrained sampling with a GBNF grammar (dialect: docs/sampling.md). Candidates whose
 * text cannot continue the grammar get logit -inf; end-of-generation tokens only when the grammar
 * is complete. grammar_root is the start rule ("root" if NULL). grammar_str NULL or "" gives a
 * sampler that constrains nothing. Returns NULL if the grammar is malformed (unbalanced brackets,
 * undefined rule, bad escape, left recursion, invalid UTF-8, too large): the reason is in
 * llama_last_error() and the log. vocab must outlive the sampler. */
LLAMA_API struct llama_sampler * llama_sampler_init_grammar(const struct llama_vocab * vocab, const char * grammar_str,
                                                            const char * grammar_root);
/* Deprecated form of llama_sampler_init_grammar_lazy_patterns: each trigger word is a literal
 * string that activates the grammar where it first appears in the output. */
LLAMA_API LLAMA_DEPRECATED(struct llama_sampler * llama_sampler_init_grammar_lazy(
                               const struct llama_vocab * vocab, const char * grammar_str, const char * grammar_root,
                               const char ** trigger_words, size_t num_trigger_words,
                               const llama_token * trigger_tokens, size_t num_trigger_tokens),
                           "use llama_sampler_init_grammar_lazy_patterns instead");
/* A lazy grammar: it constrains nothing until it is triggered, either by an accepted token listed
 * in trigger_tokens (the grammar then sees the output from that token on, the token included) or
 * by a trigger pattern (ECMAScript regex) matching the whole output generated so far; the grammar
 * then sees the output from the pattern's first capture group (or from the match start if it has
 * none). Errors as llama_sampler_init_grammar; a bad regex also gives NULL. */
LLAMA_API struct llama_sampler * llama_sampler_init_grammar_lazy_patterns(
    const struct llama_vocab * vocab, const char * grammar_str, const char * grammar_root,
    const char ** trigger_patterns, size_t num_trigger_patterns, const llama_token * trigger_tokens,
    size_t num_trigger_tokens);
/* DRY ("don't repeat yourself"): a token that would extend a sequence already repeated in the last
 * dry_penalty_last_n accepted tokens gets logit -= multiplier * base^(len - allowed_length) when
 * the repeated length len >= dry_allowed_length. A sequence breaker (strings, found in the vocab's
 * tokens) stops the matching. multiplier 0, base < 1 or penalty_last_n <= 0: no-op. vocab may be
 * NULL when there are no breakers. */
LLAMA_API struct llama_sampler * llama_sampler_init_dry(const struct llama_vocab * vocab, float dry_multiplier,
                                                        float dry_base, int32_t dry_allowed_length,
                                                        int32_t dry_penalty_last_n, const char ** seq_breakers,
                                                        size_t num_breakers);
/* Adaptive-p: draws tokens whose probability is near target, correcting over time: it keeps an
 * exponential moving average (decay in [0, 0.99]; history about 1/(1-decay) tokens) of the
 * original probabilities of accepted tokens and aims at 2 * target - average. Logits are reshaped
 * to peak at that probability, then a token is drawn (terminal sampler; put min-p before it at
 * most). target < 0: plain draw from the distribution. */
LLAMA_API struct llama_sampler * llama_sampler_init_adaptive_p(float target, float decay, uint32_t seed);
/* For fill-in-the-middle: if end-of-generation tokens carry enough mass (3 * p_eog * n > p_text)
 * keeps only them; otherwise merges the probability of tokens whose text is a prefix of another's
 * into the more likely one, drops non-EOG tokens below 0.2 and then below 1/(n+1); if no text token
 * is left, leaves a single EOT (or EOS) token. Use after top-k/top-p. */
LLAMA_API struct llama_sampler * llama_sampler_init_infill(const struct llama_vocab * vocab);

/* The seed used by a dist sampler (or the first one in a chain); LLAMA_DEFAULT_SEED if none. */
LLAMA_API uint32_t llama_sampler_get_seed(const struct llama_sampler * smpl);

/* Samples from the logits of output idx of the last decode (negative: from the end), then
 * accepts the token. Returns the token, or LLAMA_TOKEN_NULL if there are no such logits. */
LLAMA_API llama_token llama_sampler_sample(struct llama_sampler * smpl, struct llama_context * ctx, int32_t idx);

#ifdef __cplusplus
}
#endif

#endif /* LLAMA_API_SAMPLING_H */
