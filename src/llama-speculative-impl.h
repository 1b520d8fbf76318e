// Speculative decoding (include/llama-speculative.h): the decoder object and the pieces its step is
// made of. llama-speculative.cpp holds the API boundary, init checks, the step and the rollback;
// llama-speculative-draft.cpp the draft-model and n-gram drafters; llama-speculative-mtp.cpp the MTP
// drafter; llama-speculative-verify.cpp the acceptance rule.
#pragma once

#include "llama-memory-recurrent.h"
#include "llama.h"

#include <cstddef>
#include <map>
#include <memory>
#include <random>
#include <vector>

// What a sampler chain makes of one logits row: the token it selected and, when its last sampler
// left probabilities in the candidates (dist), the distribution as a dense n_vocab vector (empty when
// the chain is deterministic: greedy and the like).
struct llama_spec_dist {
    llama_token        tok = LLAMA_TOKEN_NULL;
    std::vector<float> p;

    // Probability of t under this distribution (one-hot at tok when deterministic).
    float prob(llama_token t) const;
};

// Applies chain (NULL: argmax) to a logits row of n_vocab floats. The chain's state moves as in
// llama_sampler_sample minus the accept. scratch is reused between calls.
llama_spec_dist llama_spec_apply_chain(llama_sampler * chain, const float * logits, int n_vocab,
                                       std::vector<llama_token_data> & scratch);

// A clone of a sampler chain a drafter advances over its drafts (the caller's chain moves only on
// emitted tokens).
struct llama_spec_sampler_free {
    void operator()(llama_sampler * s) const { llama_sampler_free(s); }
};
using llama_spec_chain_ptr = std::unique_ptr<llama_sampler, llama_spec_sampler_free>;

// The decoder's view of one sequence.
struct llama_spec_seq_state {
    std::vector<llama_token> hist;     // tokens in the target's cache, at positions 0 .. size-1
    size_t                   n_dft;    // how many of hist (a prefix) are in the draft context's cache
    int                      skip;     // adaptive: steps left without drafting
    int                      backoff;  // adaptive: the next skip after a step whose drafts all failed
    int                      n_cur;    // adaptive: the draft length allowed now (0: n_draft_max)
    // MTP: the MTP cache holds this sequence's pairs below position mtp_from (those it was given);
    // h holds the target's hidden rows of positions mtp_from - 1 .. hist.size() - 1 (what the next
    // drafting round decodes; empty: none known yet, the sequence cannot draft)
    size_t             mtp_from = 0;
    std::vector<float> h;
};

// One sequence during a step.
struct llama_spec_job {
    llama_spec_seq *             io;
    llama_spec_seq_state *       st;
    int                          n_max;                 // drafts allowed this step
    int                          n_min = 0;             // a shorter draft is dropped
    float                        p_min = 0.0f;          // draft model: stop below this probability
    std::vector<llama_token>     draft;                 // proposed tokens
    std::vector<llama_spec_dist> q;                     // draft-model distributions of draft[i] (empty for n-gram)
    size_t                       n_dft_cached = 0;      // tokens of this sequence in the draft cache after drafting
    int                          row0         = 0;      // target batch index of id_last
    bool                         model_ran    = false;  // the draft model decoded for this job
    // a recurrent or hybrid draft model: its state saved once id_last was decoded (dcp_n tokens: the
    // history and id_last), before the drafts moved it on, into the sequence's llama_spec::dcps entry;
    // 0: nothing saved
    llama_memory_recurrent::checkpoint * dcp     = nullptr;
    size_t                               dcp_n   = 0;
    bool                                 mtp_ran = false;  // MTP: the head took the pending pairs this step
};

struct llama_spec {
    llama_context *                              ctx_tgt = nullptr;
    llama_context *                              ctx_dft = nullptr;
    llama_spec_params                            params{};
    int                                          n_vocab_tgt = 0;
    int                                          n_vocab_dft = 0;
    std::mt19937                                 rng;
    llama_spec_stats                             stats{};
    std::map<llama_seq_id, llama_spec_seq_state> seqs;
    std::vector<llama_token_data>                scratch;
    // A recurrent or hybrid target keeps no earlier states: a step saves each sequence's state
    // before verifying (cps, per sequence) to take rejected drafts back. The checkpoints live as long
    // as their sequence (llama_spec_seq_begin sizes them, llama_spec_seq_end frees them): a fresh one
    // per step would touch tens of MB of new pages.
    llama_memory_recurrent *                                   recr_tgt = nullptr;
    std::map<llama_seq_id, llama_memory_recurrent::checkpoint> cps;
    // The same for a recurrent or hybrid draft model: each drafting round saves the state it had
    // before its drafts (llama_spec_job::dcp, an entry of dcps), and llama_spec_draft_trim goes back to it.
    llama_memory_recurrent *                                   recr_dft = nullptr;
    std::map<llama_seq_id, llama_memory_recurrent::checkpoint> dcps;
    // MTP drafting: the MTP context the decoder made on the target's model (owned)
    llama_context * ctx_mtp = nullptr;

    llama_spec() = default;
    ~llama_spec();
    llama_spec(const llama_spec &)             = delete;
    llama_spec & operator=(const llama_spec &) = delete;
};

// A drafter's next token from its logits row (n_vocab wide) under chain (a clone of the job's, NULL:
// greedy): appended to job.draft and job.q and accepted into chain, or LLAMA_TOKEN_NULL when the draft
// ends there (a token the target cannot take, or below job.p_min; job.n_max is cut to the draft).
llama_token llama_spec_draft_take(llama_spec & spec, llama_spec_job & job, llama_sampler * chain, const float * row,
                                  int n_vocab);

// MTP: checks the target's model and makes spec.ctx_mtp (throws llama_error naming the reason).
void llama_spec_mtp_init(llama_spec & spec);
// MTP drafter: fills the drafts (and, under a sampling chain, q) of every job whose sequence has the
// target's hidden rows, decoding its pending pairs and then one drafted token per job and round in the
// MTP context; the drafted positions leave the MTP cache again before the step verifies. A failing
// MTP decode only ends drafting.
void llama_spec_draft_mtp(llama_spec & spec, std::vector<llama_spec_job> & jobs);
// MTP, after a successful step whose job kept n_acc drafts (the target's rows job.row0 .. + n_acc are
// the last decode's): records those hidden rows as the sequence's pending pairs.
void llama_spec_mtp_keep(llama_spec & spec, llama_spec_job & job, int n_acc);
// MTP, a new history st.hist (the sequence emptied from the MTP cache): the pending pairs are those
// whose target rows the target's last decode kept, the longest run of positions ending the history, at
// most half an MTP batch (the target keeps every decoded token's row, so a prompt decoded in one call
// gives its last n_batch / 2 rows whatever outputs it asked for); none: the first step drafts nothing
// and gives the first row.
void llama_spec_mtp_begin(llama_spec & spec, llama_spec_seq_state & st, llama_seq_id seq_id);
// MTP, after a failed step (or a new history): the MTP cache back to what the sequence's state says.
void llama_spec_mtp_trim(llama_spec & spec, const llama_spec_seq_state & st, llama_seq_id seq_id);

// Cuts sequence seq_id of the draft context back to its first n tokens and returns how many it now
// holds (the caller's new n_dft): n for an attention cache; for a recurrent or hybrid draft model, n
// when its state already ends there, else the saved state of job (if any, and not past n), else 0
// (the sequence emptied: the next drafting round decodes its history again).
size_t llama_spec_draft_trim(llama_spec & spec, llama_seq_id seq_id, size_t n, const llama_spec_job * job);

// n-gram drafter: up to n_max tokens for seq (the history plus id_last) from the latest earlier
// occurrence of its longest matching tail n-gram (ngram_max down to ngram_min tokens).
void llama_spec_draft_ngram(const std::vector<llama_token> & seq, int ngram_min, int ngram_max, int n_max,
                            std::vector<llama_token> & out);

// Decodes the history the draft context lacks (st.hist from st.n_dft on) into it, in n_batch chunks,
// so that the first step does not pay for the prompt; stops quietly at a failing decode (the next
// step catches up).
void llama_spec_draft_prefill(llama_spec & spec, llama_seq_id seq_id, llama_spec_seq_state & st);

// Draft-model drafter: fills every job's draft and q, decoding in the draft context (catch-up of the
// history it lacks, then one token per job and round, all jobs in one batch). A failing draft decode
// ends drafting for the jobs concerned; it never fails the step.
void llama_spec_draft_model(llama_spec & spec, std::vector<llama_spec_job> & jobs);

// Verifies job's drafts against the target's logits rows row0 .. row0 + draft.size() and writes the
// emitted tokens to job.io->out (accepted into the job's chain). Returns the number of drafts accepted.
int llama_spec_verify(llama_spec & spec, llama_spec_job & job);

// Removes positions >= n_keep of seq_id from ctx's cache (attention layers; a recurrent state is put
// back from its checkpoint by the step). False if the memory refused.
bool llama_spec_rollback(llama_context * ctx, llama_seq_id seq_id, llama_pos n_keep);
