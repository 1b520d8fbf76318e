#ifndef LLAMA_SPECULATIVE_H
#define LLAMA_SPECULATIVE_H

#include "llama.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * llama-speculative.h - speculative decoding (libllama; part of the public C API: llama.h includes
 * it, so a program includes llama.h only). docs/speculative.md has the semantics in full.
 *
 * A speculative decoder (struct llama_spec) runs over a target context and a drafter. Each step,
 * for every sequence it is given, the drafter proposes up to n_draft_max tokens; the target
 * verifies the sequence's last sampled token and all the drafts in ONE llama_decode (every
 * sequence of the step in the same batch), keeps the longest accepted prefix of the drafts plus one
 * token of its own, and removes the rejected positions from the KV caches of the target and of the
 * draft context (llama_memory_seq_rm), so both caches are as if the rejected tokens had never been
 * decoded.
 *
 * Drafters
 *   LLAMA_SPEC_TYPE_DRAFT  a small draft model sharing the target's vocabulary, in its own context
 *                          (ctx_dft). Checked at init: same vocabulary type, sizes within 128 tokens,
 *                          same BOS/EOS and add-BOS/add-EOS, same text for every token id both have.
 *   LLAMA_SPEC_TYPE_NGRAM  prompt lookup: the longest n-gram (ngram_max down to ngram_min tokens)
 *                          ending the sequence's history that also occurs earlier in it proposes the
 *                          tokens that followed its latest earlier occurrence. No draft context.
 *   LLAMA_SPEC_TYPE_MTP    the target's NextN block (qwen35, qwen35moe, deepseek2; the model
 *                          loaded with llama_model_params.load_mtp): from the target's hidden row of the last
 *                          kept token and the embedding of the next one it predicts the token after;
 *                          chained drafts feed its own hidden row back. The decoder makes and owns the
 *                          MTP context (LLAMA_CONTEXT_TYPE_MTP, the target's n_ctx, n_batch, n_seq_max
 *                          and threads; ctx_dft is ignored) and has the target keep the hidden row of
 *                          every token it decodes from init on (logits are still computed for the
 *                          requested outputs only). The head's KV cache holds the kept tokens' pairs,
 *                          the prompt's last n_batch / 2 included, whatever outputs the prompt's decode
 *                          asked for; with no prompt row kept (the prompt decoded before init), a
 *                          sequence's first step drafts nothing. Drafts end below p_min as a draft
 *                          model's do; under a sampling chain, speculative sampling.
 *
 * Acceptance (the sampler chain given per sequence, or greedy when NULL)
 *   The chain is applied to the target's logits at each verified position, in order, exactly once
 *   per emitted token, and only emitted tokens are accepted into it (llama_sampler_accept): its state
 *   (penalties, grammar, random stream) advances as in plain decoding. A chain whose last sampler
 *   leaves probabilities in the candidates (dist) defines the target distribution p; any other
 *   (greedy, ...) is deterministic at its selected token.
 *   - n-gram drafts, and every draft under a deterministic chain: a draft is accepted when it equals
 *     the token the chain selects. Greedy output is therefore identical to plain decoding (and with
 *     n-gram drafts, sampled output too, for the same chain seed).
 *   - draft-model drafts under a sampling chain: standard speculative sampling. The draft token x
 *     is drawn from q, the draft distribution after a clone of the chain; it is accepted with
 *     probability min(1, p(x) / q(x)); on rejection the emitted token is drawn from
 *     norm(max(0, p - q)). Emitted tokens follow p exactly. The uniform draws come from the
 *     decoder's own generator (params.seed).
 *
 * Flow per sequence: decode the prompt into the target yourself (as for plain decoding), sample
 * its first token, call llama_spec_seq_begin with the prompt tokens that are in the target's cache,
 * then call llama_spec_step with the last sampled token (not yet decoded) until done; each step
 * emits 1 .. n_draft_max + 1 tokens, the last of which is again not yet decoded.
 *
 * Threads: a decoder is used by one thread at a time, with its contexts (llama.h's rule).
 * Recurrent and hybrid targets (llama_model_is_recurrent / _is_hybrid): their states cannot be cut
 * back to a position, so a step saves each sequence's state before verifying and, when any draft of
 * the step is rejected, puts every sequence's state back and decodes its kept tokens again (one
 * more target batch; i_logits then names rows of that batch). Greedy output is unchanged. A
 * recurrent or hybrid draft model's state is saved before each round's drafts and put back when a
 * draft is rejected (the kept tokens are decoded into it at the next drafting round).
 * Limits: positions are those of the sequence's history (0 .. n-1, no gaps).
 */

enum llama_spec_type {
    LLAMA_SPEC_TYPE_DRAFT = 0, /* a draft model context (ctx_dft) */
    LLAMA_SPEC_TYPE_NGRAM = 1, /* n-gram lookup in the sequence's own history */
    LLAMA_SPEC_TYPE_MTP   = 2, /* the target model's own multi-token-prediction (NextN) head */
};

/* The largest n_draft_max accepted. */
#define LLAMA_SPEC_DRAFT_MAX 64

struct llama_spec_params {
    enum llama_spec_type type; /* default LLAMA_SPEC_TYPE_DRAFT */
    int32_t n_draft_max; /* most tokens drafted per sequence and step, 1 .. LLAMA_SPEC_DRAFT_MAX (16) */
    int32_t n_draft_min; /* a shorter draft is dropped (the step verifies no draft), 0 .. n_draft_max (0) */
    float   p_min;       /* draft model: drafting stops at a token whose draft probability is below (0.75) */
    int32_t ngram_min;   /* n-gram drafter: shortest n-gram looked up, 1 .. ngram_max (2) */
    int32_t ngram_max;   /* n-gram drafter: longest n-gram looked up, ngram_min .. 16 (4) */
    bool    adaptive;    /* draft length follows acceptance; failing drafts back off, a failing
                          * draft model rests until the next seq_begin (true) */
    uint32_t seed;       /* generator of the acceptance draws; LLAMA_DEFAULT_SEED: random */
};

/* Counters since init or the last llama_spec_stats_reset. */
struct llama_spec_stats {
    int64_t n_steps;    /* llama_spec_step calls that succeeded, per sequence */
    int64_t n_drafted;  /* tokens proposed and verified */
    int64_t n_accepted; /* of those, accepted */
    int64_t n_emitted;  /* tokens emitted (accepted drafts + one of the target's per step) */
    /* tokens a recurrent or hybrid target decoded a second time after a rejection, because its state
     * after the kept tokens could not be taken from the verification (models with an SSM state) */
    int64_t n_redecoded;
};

/* One sequence of a step. */
struct llama_spec_seq {
    llama_seq_id           seq_id;  /* in: the sequence (begun with llama_spec_seq_begin) */
    llama_token            id_last; /* in: its last sampled token, not yet in the target's cache */
    struct llama_sampler * smpl;    /* in: its sampler chain (owned by the caller), NULL = greedy */
    llama_token *          out;     /* in: room for n_draft_max + 1 tokens (owned by the caller) */
    int32_t                n_out;   /* out: tokens written to out: accepted drafts, then the target's */
    int32_t                n_drafted; /* out: tokens the drafter proposed this step */
    /* Per-sequence limits (a server's per-request settings). With n_draft_max 0 (what a
     * zero-initialised struct has) the decoder's n_draft_max, n_draft_min and p_min apply and the
     * next two fields are ignored; otherwise n_draft_max (1 .. the decoder's n_draft_max, larger is
     * cut to it) caps this sequence's draft, n_draft_min (0 .. n_draft_max, out of range: the
     * decoder's) drops a shorter draft, p_min (in [0, 1], out of range: the decoder's) is the
     * draft model's stopping probability. */
    int32_t n_draft_max; /* in */
    int32_t n_draft_min; /* in */
    float   p_min;       /* in */
    /* out: the target's batch row whose logits gave out[0]; out[j] came from row i_logits + j
     * (llama_get_logits_ith(ctx_tgt, i_logits + j), valid until the target's next decode), so a
     * caller can report log-probabilities of the emitted tokens without decoding again. */
    int32_t i_logits;
};

struct llama_spec; /* a speculative decoder */

LLAMA_API struct llama_spec_params llama_spec_default_params(void);

/* Creates a decoder over ctx_tgt and, for LLAMA_SPEC_TYPE_DRAFT, the draft context ctx_dft (NULL
 * or ignored for LLAMA_SPEC_TYPE_NGRAM and LLAMA_SPEC_TYPE_MTP). Both contexts stay owned by the caller and
 * must outlive the decoder; the decoder owns the cache contents of the sequences it is given in ctx_dft.
 * For LLAMA_SPEC_TYPE_MTP it creates (and frees with itself) an MTP context on the target's model, and
 * has ctx_tgt keep the hidden rows of the tokens it decodes until llama_spec_free. Returns NULL with the
 * reason in llama_last_error() for: ctx_tgt NULL; a draft type without ctx_dft, or ctx_dft equal to
 * ctx_tgt; params out of range; an incompatible draft vocabulary ("draft vocabulary mismatch: ..."
 * naming the difference); the target's n_batch below n_draft_max + 1; ctx_tgt or ctx_dft an MTP context
 * (LLAMA_CONTEXT_TYPE_MTP); for MTP, a model without NextN
 * blocks or an architecture without an MTP graph ("MTP drafting: the model has no NextN ..."), NextN
 * blocks not loaded ("MTP drafting: ... load_mtp"), or an MTP context that cannot be created (its
 * reason). Free with llama_spec_free. */
LLAMA_API struct llama_spec * llama_spec_init(struct llama_context * ctx_tgt, struct llama_context * ctx_dft,
                                              struct llama_spec_params params);

/* Frees the decoder (NULL is a no-op); the caller's contexts are left as they are (an MTP decoder
 * frees its own MTP context and stops the target keeping hidden rows). */
LLAMA_API void llama_spec_free(struct llama_spec * spec);

/* Declares that the target's cache holds tokens[0 .. n_tokens) of sequence seq_id at positions
 * 0 .. n_tokens - 1 (the caller decoded them). The decoder keeps what it can of that sequence in the
 * draft context (the prefix shared with the tokens it had), drops the rest and decodes the missing
 * tokens into the draft context now (a failure there only delays drafting). MTP: the sequence is
 * emptied from the MTP context and takes the target's rows of the last decode's tokens at the end of
 * the history (decode the prompt after llama_spec_init; earlier decodes' rows are gone). tokens may be NULL
 * when n_tokens is 0. Returns 0, or -1 (nothing changed; reason in llama_last_error()) for spec
 * NULL, tokens NULL with n_tokens > 0, n_tokens < 0 or past the target's n_ctx, seq_id outside
 * [0, n_seq_max) of either context. */
LLAMA_API int32_t llama_spec_seq_begin(struct llama_spec * spec, llama_seq_id seq_id, const llama_token * tokens,
                                       int32_t n_tokens);

/* Forgets sequence seq_id and removes it from the draft (or MTP) context's cache (the target's cache
 * is the caller's). Returns 0, or -1 for spec NULL or seq_id out of range (reason in llama_last_error()). */
LLAMA_API int32_t llama_spec_seq_end(struct llama_spec * spec, llama_seq_id seq_id);

/* One speculative step for seqs[0 .. n_seqs), verified in one target batch. If the sequences'
 * tokens do not fit the target's n_batch, each sequence's draft is cut to fit. On success every
 * seqs[i].out holds n_out >= 1 emitted tokens (already accepted into seqs[i].smpl), the sequence's
 * history grows by id_last and the accepted drafts (all in the target's cache; the last emitted
 * token is not), and 0 is returned. Errors:
 *   -1  invalid call: spec or seqs NULL, n_seqs < 1, an out NULL, a seq_id not begun or given twice,
 *       id_last outside the target's vocabulary, no room left in n_ctx; nothing changed
 *    1  the target's cache has no room for the batch (nothing emitted; caches as before the call)
 *    2  the target's decode was aborted (abort callback; nothing emitted, caches as before)
 *  < -1 the target's decode failed (its code; nothing emitted; a recurrent or hybrid target's
 *       states are put back when the step had drafts, else left as llama_decode leaves them)
 * The reason is in llama_last_error(). A draft context that fails to decode only stops drafting. */
LLAMA_API int32_t llama_spec_step(struct llama_spec * spec, struct llama_spec_seq * seqs, int32_t n_seqs);

/* Copies the counters into *stats. Returns 0, or -1 for a NULL argument. */
LLAMA_API int32_t llama_spec_stats_get(const struct llama_spec * spec, struct llama_spec_stats * stats);
/* Zeroes the counters (NULL is a no-op). */
LLAMA_API void    llama_spec_stats_reset(struct llama_spec * spec);

/* The type named name ("draft", "ngram" or "mtp"), written to *type. Returns 0, or -1 for an unknown or
 * NULL name (reason in llama_last_error(), naming it). */
LLAMA_API int32_t llama_spec_type_from_name(const char * name, enum llama_spec_type * type);

#ifdef __cplusplus
}
#endif

#endif /* LLAMA_SPECULATIVE_H */
