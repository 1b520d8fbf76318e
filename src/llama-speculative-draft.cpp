// Speculative decoding: the drafters. The n-gram drafter looks its proposal up in the sequence's
// own history; the draft-model drafter runs a small model sharing the vocabulary in its own context,
// all sequences of a step in one batch per drafted position (llama-speculative-impl.h).
#include <algorithm>
#include <cmath>
#include <memory>

#include "llama-speculative-impl.h"

void llama_spec_draft_ngram(const std::vector<llama_token> & seq, int ngram_min, int ngram_max, int n_max,
                            std::vector<llama_token> & out) {
    out.clear();
    const size_t n_seq = seq.size();
    for (int n = ngram_max; n >= ngram_min && out.empty(); n--) {
        if (n_seq < (size_t) n + 1) {
            continue;
        }
        const llama_token * tail = seq.data() + n_seq - (size_t) n;
        // the latest earlier occurrence: recent text predicts the next tokens best
        for (size_t i = n_seq - (size_t) n; i-- > 0;) {
            bool match = true;
            for (int k = 0; k < n && match; k++) {
                match = seq[i + (size_t) k] == tail[k];
            }
            if (!match) {
                continue;
            }
            // the continuation may run into the tail itself: a periodic text keeps repeating
            for (size_t k = 0; k < (size_t) n_max; k++) {
                const size_t j = i + (size_t) n + k;
                out.push_back(j < n_seq ? seq[j] : out[j - n_seq]);
            }
            break;
        }
    }
}

namespace {

// One token of the draft batch with the job it belongs to (-1: catch-up, no logits needed).
struct pending {
    llama_token  tok;
    llama_pos    pos;
    llama_seq_id seq;
    int          job;
};

// Probability of t under the softmax of a raw logits row (the p_min test of a deterministic chain).
float softmax_prob(const float * logits, int n_vocab, llama_token t) {
    float mx = logits[0];
    for (int i = 1; i < n_vocab; i++) {
        mx = logits[i] > mx ? logits[i] : mx;
    }
    double sum = 0.0;
    for (int i = 0; i < n_vocab; i++) {
        sum += std::exp((double) (logits[i] - mx));
    }
    return (float) (std::exp((double) (logits[t] - mx)) / sum);
}

}  // namespace

llama_token llama_spec_draft_take(llama_spec & spec, llama_spec_job & job, llama_sampler * chain, const float * row,
                                  int n_vocab) {
    const llama_spec_dist q  = llama_spec_apply_chain(chain, row, n_vocab, spec.scratch);
    const llama_token     x  = q.tok;
    const float           px = q.p.empty() ? softmax_prob(row, n_vocab, x) : q.prob(x);
    // a token the target cannot take, or one the drafter itself doubts: the draft ends here
    if (x < 0 || x >= spec.n_vocab_tgt || px < job.p_min) {
        job.n_max = (int) job.draft.size();
        return LLAMA_TOKEN_NULL;
    }
    job.draft.push_back(x);
    job.q.push_back(q);
    if (chain) {
        llama_sampler_accept(chain, x);
    }
    return x;
}

void llama_spec_draft_prefill(llama_spec & spec, llama_seq_id seq_id, llama_spec_seq_state & st) {
    llama_context * ctx     = spec.ctx_dft;
    const size_t    n_batch = llama_n_batch(ctx);
    const size_t    n       = st.hist.size();
    if (st.n_dft >= n || n + 1 >= llama_n_ctx(ctx)) {
        return;  // nothing to do, or too long for the draft context: the steps will not draft
    }
    llama_batch batch = llama_batch_init((int32_t) std::min(n_batch, n - st.n_dft), 0, 1);
    while (st.n_dft < n) {
        const size_t m = std::min(n_batch, n - st.n_dft);
        batch.n_tokens = (int32_t) m;
        for (size_t i = 0; i < m; i++) {
            batch.token[i]     = st.hist[st.n_dft + i];
            batch.pos[i]       = (llama_pos) (st.n_dft + i);
            batch.n_seq_id[i]  = 1;
            batch.seq_id[i][0] = seq_id;
            batch.logits[i]    = i + 1 == m;
        }
        if (llama_decode(ctx, batch) != 0) {
            st.n_dft = llama_spec_draft_trim(spec, seq_id, st.n_dft, nullptr);
            break;
        }
        st.n_dft += m;
    }
    llama_batch_free(batch);
}

void llama_spec_draft_model(llama_spec & spec, std::vector<llama_spec_job> & jobs) {
    llama_context * ctx     = spec.ctx_dft;
    const int       n_batch = (int) llama_n_batch(ctx);
    const int       n_ctx   = (int) llama_n_ctx(ctx);

    // per job: a clone of its chain, so the draft distribution q is the chain's and the drafted
    // tokens move only the clone's state (NULL: greedy, or a chain that cannot be cloned)
    std::vector<llama_spec_chain_ptr> chains(jobs.size());
    std::vector<pending>              todo;
    for (size_t j = 0; j < jobs.size(); j++) {
        llama_spec_job & job  = jobs[j];
        const size_t     past = job.st->hist.size();
        job.n_dft_cached      = job.st->n_dft;
        if (job.n_max <= 0 || (int) past + job.n_max >= n_ctx) {
            job.n_max = 0;
            continue;
        }
        job.model_ran = true;
        if (job.io->smpl) {
            chains[j].reset(llama_sampler_clone(job.io->smpl));
        }
        for (size_t k = job.st->n_dft; k < past; k++) {
            todo.push_back({job.st->hist[k], (llama_pos) k, job.io->seq_id, -1});
        }
        todo.push_back({job.io->id_last, (llama_pos) past, job.io->seq_id, (int) j});
    }

    if (todo.empty()) {
        return;
    }
    // later rounds hold one token per job, never more than the first
    const int   n_alloc = std::min(n_batch, (int) todo.size());
    llama_batch batch   = llama_batch_init(n_alloc, 0, 1);
    while (!todo.empty()) {
        std::vector<pending> next;
        for (size_t b0 = 0; b0 < todo.size(); b0 += (size_t) n_alloc) {
            const size_t b1 = b0 + (size_t) n_alloc < todo.size() ? b0 + (size_t) n_alloc : todo.size();
            batch.n_tokens  = 0;
            for (size_t i = b0; i < b1; i++) {
                const int k        = batch.n_tokens++;
                batch.token[k]     = todo[i].tok;
                batch.pos[k]       = todo[i].pos;
                batch.n_seq_id[k]  = 1;
                batch.seq_id[k][0] = todo[i].seq;
                batch.logits[k]    = todo[i].job >= 0;
            }
            if (llama_decode(ctx, batch) != 0) {
                // drafting is only a proposal: the sequences of this batch stop drafting, and their
                // draft cache is trusted no further than before the batch
                for (size_t i = b0; i < b1; i++) {
                    for (auto & job : jobs) {
                        if (job.io->seq_id != todo[i].seq) {
                            continue;
                        }
                        job.n_max = (int) job.draft.size();
                        if (job.n_dft_cached > (size_t) todo[i].pos) {
                            job.n_dft_cached = (size_t) todo[i].pos;
                        }
                    }
                }
                continue;
            }
            for (size_t i = b0; i < b1; i++) {
                for (auto & job : jobs) {
                    if (job.io->seq_id == todo[i].seq && job.n_dft_cached == (size_t) todo[i].pos) {
                        job.n_dft_cached++;
                    }
                }
                if (todo[i].job < 0) {
                    continue;
                }
                llama_spec_job & job = jobs[(size_t) todo[i].job];
                if ((int) job.draft.size() >= job.n_max) {
                    continue;  // its batch failed earlier in this round
                }
                const float * row = llama_get_logits_ith(ctx, (int32_t) (i - b0));
                if (row == nullptr) {
                    job.n_max = (int) job.draft.size();
                    continue;
                }
                const llama_token x =
                    llama_spec_draft_take(spec, job, chains[(size_t) todo[i].job].get(), row, spec.n_vocab_dft);
                if (x != LLAMA_TOKEN_NULL && (int) job.draft.size() < job.n_max) {
                    next.push_back({x, todo[i].pos + 1, todo[i].seq, todo[i].job});
                }
            }
        }
        if (spec.recr_dft) {
            // a stateful draft model keeps no earlier states: before the drafts move them on, each
            // state is saved at the history and id_last (the round just decoded), where the step
            // puts it back unless the target keeps every drafted token
            for (size_t j = 0; j < jobs.size(); j++) {
                llama_spec_job & job  = jobs[j];
                const size_t     n_at = job.st->hist.size() + 1;
                const bool       more =
                    std::any_of(next.begin(), next.end(), [&](const pending & p) { return p.job == (int) j; });
                if (more && job.dcp_n == 0 && job.n_dft_cached == n_at) {
                    spec.recr_dft->seq_save(job.io->seq_id, *job.dcp);
                    job.dcp_n = n_at;
                }
            }
        }
        todo.swap(next);
    }
    llama_batch_free(batch);
}

size_t llama_spec_draft_trim(llama_spec & spec, llama_seq_id seq_id, size_t n, const llama_spec_job * job) {
    llama_context * ctx = spec.ctx_dft;
    if (!spec.recr_dft) {
        llama_spec_rollback(ctx, seq_id, (llama_pos) n);
        return n;
    }
    const llama_pos held = llama_memory_seq_pos_max(llama_get_memory(ctx), seq_id) + 1;
    if (held >= 0 && (size_t) held == n) {
        return n;
    }
    if (job && job->dcp_n > 0 && job->dcp_n <= n) {
        // the saved state, and a hybrid's attention positions past it removed
        spec.recr_dft->seq_restore(seq_id, *job->dcp);
        llama_spec_rollback(ctx, seq_id, (llama_pos) job->dcp_n);
        return job->dcp_n;
    }
    llama_memory_seq_rm(llama_get_memory(ctx), seq_id, -1, -1);
    return 0;
}
