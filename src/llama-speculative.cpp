// Speculative decoding (include/llama-speculative.h): the C boundary, the checks at init, the step
// (draft, verify in one target batch, keep the accepted prefix) and the rollback of both caches.
#include "llama-speculative-impl.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <memory>
#include <set>

#include "llama-context.h"
#include "llama-log.h"

namespace {

// Most tokens by which the draft's vocabulary may differ in size from the target's (added special
// tokens at the end, as fine-tunes of one base model often have).
constexpr int k_vocab_size_tolerance = 128;
constexpr int k_ngram_limit          = 16;
constexpr int k_backoff_max          = 16;  // steps a failing sequence waits before drafting again
constexpr int k_model_give_up        = 8;   // a draft model failing after this back-off rests

void check_params(const llama_spec_params & p) {
    if (p.type != LLAMA_SPEC_TYPE_DRAFT && p.type != LLAMA_SPEC_TYPE_NGRAM && p.type != LLAMA_SPEC_TYPE_MTP) {
        throw llama_error(llama_format("unknown speculative type %d", (int) p.type));
    }
    if (p.n_draft_max < 1 || p.n_draft_max > LLAMA_SPEC_DRAFT_MAX) {
        throw llama_error(llama_format("n_draft_max %d outside 1 .. %d", p.n_draft_max, LLAMA_SPEC_DRAFT_MAX));
    }
    if (p.n_draft_min < 0 || p.n_draft_min > p.n_draft_max) {
        throw llama_error(llama_format("n_draft_min %d outside 0 .. n_draft_max (%d)", p.n_draft_min, p.n_draft_max));
    }
    if (!(p.p_min >= 0.0f && p.p_min <= 1.0f)) {
        throw llama_error(llama_format("p_min %g outside [0, 1]", (double) p.p_min));
    }
    if (p.ngram_min < 1 || p.ngram_max > k_ngram_limit || p.ngram_min > p.ngram_max) {
        throw llama_error(llama_format("ngram sizes %d .. %d: need 1 <= ngram_min <= ngram_max <= %d", p.ngram_min,
                                       p.ngram_max, k_ngram_limit));
    }
}

// The draft must speak the target's vocabulary: the same ids must mean the same text.
void check_vocab(const llama_vocab * vt, const llama_vocab * vd) {
    auto fail = [](const std::string & what) { throw llama_error("draft vocabulary mismatch: " + what); };
    if (llama_vocab_type(vt) != llama_vocab_type(vd)) {
        fail(llama_format("vocabulary type %d (target) vs %d (draft)", (int) llama_vocab_type(vt),
                          (int) llama_vocab_type(vd)));
    }
    const int nt = llama_vocab_n_tokens(vt);
    const int nd = llama_vocab_n_tokens(vd);
    if (std::abs(nt - nd) > k_vocab_size_tolerance) {
        fail(llama_format("%d tokens (target) vs %d (draft), more than %d apart", nt, nd, k_vocab_size_tolerance));
    }
    if (llama_vocab_bos(vt) != llama_vocab_bos(vd) || llama_vocab_eos(vt) != llama_vocab_eos(vd)) {
        fail(llama_format("BOS/EOS %d/%d (target) vs %d/%d (draft)", llama_vocab_bos(vt), llama_vocab_eos(vt),
                          llama_vocab_bos(vd), llama_vocab_eos(vd)));
    }
    if (llama_vocab_get_add_bos(vt) != llama_vocab_get_add_bos(vd) ||
        llama_vocab_get_add_eos(vt) != llama_vocab_get_add_eos(vd)) {
        fail("add-BOS/add-EOS settings differ");
    }
    const int n = nt < nd ? nt : nd;
    for (int i = 0; i < n; i++) {
        const char * a = llama_vocab_get_text(vt, i);
        const char * b = llama_vocab_get_text(vd, i);
        if (std::strcmp(a ? a : "", b ? b : "") != 0) {
            fail(llama_format("token %d is '%s' (target) vs '%s' (draft)", i, a ? a : "", b ? b : ""));
        }
    }
}

void check_seq_id(const llama_spec & s, llama_seq_id seq_id) {
    const bool ok = seq_id >= 0 && (uint32_t) seq_id < llama_n_seq_max(s.ctx_tgt) &&
                    (s.ctx_dft == nullptr || (uint32_t) seq_id < llama_n_seq_max(s.ctx_dft));
    if (!ok) {
        throw llama_error(llama_format("seq_id %d outside the contexts' sequences", seq_id));
    }
}

// Refuses a step before anything changes.
void check_step(const llama_spec & s, const llama_spec_seq * seqs, int32_t n_seqs) {
    if (seqs == nullptr || n_seqs < 1) {
        throw llama_error(llama_format("seqs NULL or n_seqs %d < 1", n_seqs));
    }
    if ((uint32_t) n_seqs > llama_n_batch(s.ctx_tgt)) {
        throw llama_error(llama_format("%d sequences do not fit n_batch %u", n_seqs, llama_n_batch(s.ctx_tgt)));
    }
    std::set<llama_seq_id> seen;
    for (int32_t i = 0; i < n_seqs; i++) {
        const llama_spec_seq & q = seqs[i];
        if (q.out == nullptr) {
            throw llama_error(llama_format("seqs[%d].out is NULL", i));
        }
        if (!seen.insert(q.seq_id).second) {
            throw llama_error(llama_format("seq_id %d given twice", q.seq_id));
        }
        const auto it = s.seqs.find(q.seq_id);
        if (it == s.seqs.end()) {
            throw llama_error(llama_format("seq_id %d was not begun (llama_spec_seq_begin)", q.seq_id));
        }
        if (q.id_last < 0 || q.id_last >= s.n_vocab_tgt) {
            throw llama_error(llama_format("id_last %d outside the vocabulary", q.id_last));
        }
        if (it->second.hist.size() + 1 > llama_n_ctx(s.ctx_tgt)) {
            throw llama_error(llama_format("seq_id %d: no room left in n_ctx %u", q.seq_id, llama_n_ctx(s.ctx_tgt)));
        }
    }
}

// Proposals of a step: how many each sequence may draft, then the drafter.
void draft(llama_spec & s, std::vector<llama_spec_job> & jobs) {
    const int n_batch = (int) llama_n_batch(s.ctx_tgt);
    const int n_ctx   = (int) llama_n_ctx(s.ctx_tgt);
    const int per_seq = n_batch / (int) jobs.size() - 1;  // the target batch must hold every sequence
    for (auto & job : jobs) {
        const int room = n_ctx - (int) job.st->hist.size() - 1;
        // the sequence's own limits (llama_spec_seq), when it gives them
        const llama_spec_seq & io    = *job.io;
        const bool             own   = io.n_draft_max > 0;
        const int              n_cap = own ? std::min(io.n_draft_max, s.params.n_draft_max) : s.params.n_draft_max;
        job.n_min = own && io.n_draft_min >= 0 && io.n_draft_min <= n_cap ? io.n_draft_min : s.params.n_draft_min;
        job.p_min = own && io.p_min >= 0.0f && io.p_min <= 1.0f ? io.p_min : s.params.p_min;
        job.n_max = std::min(std::min(n_cap, per_seq), room);
        if (s.params.adaptive && job.st->n_cur > 0) {
            job.n_max = std::min(job.n_max, job.st->n_cur);
        }
        if (s.params.adaptive && job.st->skip > 0) {
            job.st->skip--;
            job.n_max = 0;
        }
    }
    if (s.params.type == LLAMA_SPEC_TYPE_DRAFT) {
        llama_spec_draft_model(s, jobs);
    } else if (s.params.type == LLAMA_SPEC_TYPE_MTP) {
        llama_spec_draft_mtp(s, jobs);
    } else {
        std::vector<llama_token> seq;
        for (auto & job : jobs) {
            if (job.n_max <= 0) {
                continue;
            }
            seq = job.st->hist;
            seq.push_back(job.io->id_last);
            llama_spec_draft_ngram(seq, s.params.ngram_min, s.params.ngram_max, job.n_max, job.draft);
        }
    }
    for (auto & job : jobs) {
        if ((int) job.draft.size() < job.n_min) {
            job.draft.clear();
            job.q.clear();
        }
    }
}

// After a step, the adaptive policy: verifying a rejected token costs a batch row (and a draft
// model a decode), so the draft length follows the acceptance (one more than the accepted prefix,
// doubled after a fully accepted draft), and a sequence whose drafts all fail drafts again only
// after 1, 2, 4 .. 16 steps; one accepted token resets the back-off. A draft model that ran and
// proposed nothing (p_min) failed too: its decode was spent for nothing; failing again after a
// back-off of 8 steps (5 tries in a row), it rests until the next llama_spec_seq_begin.
void adapt(llama_spec_seq_state & st, int n_draft_max, bool model_ran, size_t n_drafted, int n_acc) {
    if (n_drafted == 0 && !model_ran) {
        return;
    }
    const int n_cur = st.n_cur > 0 ? st.n_cur : n_draft_max;
    if (n_drafted > 0 && (size_t) n_acc == n_drafted) {
        st.n_cur = std::min(n_draft_max, 2 * n_cur);
    } else {
        st.n_cur = std::min(n_draft_max, n_acc + 1);
    }
    if (n_acc > 0) {
        st.backoff = 0;
        return;
    }
    if (model_ran && st.backoff >= k_model_give_up) {
        // a draft model that failed at every try also has to decode every token to stay caught up,
        // batched but not free on a CPU: it rests until the next llama_spec_seq_begin
        st.skip = INT_MAX;
        return;
    }
    st.backoff = st.backoff == 0 ? 1 : std::min(st.backoff * 2, k_backoff_max);
    st.skip    = st.backoff;
}

// Decodes, in one target batch with logits for every token, each job's id_last followed by its
// drafts (n_keep NULL: all of them, the verification) or by its first (*n_keep)[i] drafts (the kept
// tokens of a stateful target, decoded again); sets each job's row0.
int32_t decode_rows(llama_spec & s, std::vector<llama_spec_job> & jobs, const std::vector<int> * n_keep) {
    auto n_of     = [&](size_t i) { return n_keep ? (size_t) (*n_keep)[i] : jobs[i].draft.size(); };
    int  n_tokens = 0;
    for (size_t i = 0; i < jobs.size(); i++) {
        n_tokens += 1 + (int) n_of(i);
    }
    llama_batch batch = llama_batch_init(n_tokens, 0, 1);
    batch.n_tokens    = 0;
    for (size_t j = 0; j < jobs.size(); j++) {
        llama_spec_job & job = jobs[j];
        job.row0             = batch.n_tokens;
        const size_t past    = job.st->hist.size();
        for (size_t k = 0; k <= n_of(j); k++) {
            const int i        = batch.n_tokens++;
            batch.token[i]     = k == 0 ? job.io->id_last : job.draft[k - 1];
            batch.pos[i]       = (llama_pos) (past + k);
            batch.n_seq_id[i]  = 1;
            batch.seq_id[i][0] = job.io->seq_id;
            batch.logits[i]    = 1;
        }
    }
    const int32_t rc = llama_decode(s.ctx_tgt, batch);
    llama_batch_free(batch);
    return rc;
}

// A stateful target's sequence of job back to where the step began: its saved recurrent state,
// and its attention layers' positions from the history's end on removed (a hybrid's KV cache; the
// recurrent part accepts that range, as it lies past the restored state's position).
void restore_target(llama_spec & s, const llama_spec_job & job) {
    s.recr_tgt->seq_restore(job.io->seq_id, s.cps[job.io->seq_id]);
    llama_spec_rollback(s.ctx_tgt, job.io->seq_id, (llama_pos) job.st->hist.size());
}

int32_t step(llama_spec & s, llama_spec_seq * seqs, int32_t n_seqs) {
    check_step(s, seqs, n_seqs);
    std::vector<llama_spec_job> jobs((size_t) n_seqs);
    for (int32_t i = 0; i < n_seqs; i++) {
        jobs[(size_t) i].io = &seqs[i];
        jobs[(size_t) i].st = &s.seqs[seqs[i].seq_id];
        if (s.recr_dft) {
            jobs[(size_t) i].dcp = &s.dcps[seqs[i].seq_id];
        }
    }
    draft(s, jobs);

    // verification: id_last and the drafts of every sequence, one batch, logits for each token.
    // A stateful target's states are saved first when the step may have to undo this decode: a draft
    // may be rejected, or an abort callback may stop the compute half-way (the contract is "caches
    // as before"). A step without drafts and without an abort callback is a plain decode: the copy
    // (tens of MB per sequence for a Mamba-2 model) would cost as much as the decode saves.
    bool any_draft = false;
    for (const llama_spec_job & job : jobs) {
        any_draft = any_draft || !job.draft.empty();
    }
    const bool saved = s.recr_tgt && (any_draft || s.ctx_tgt->has_abort_callback());
    if (saved) {
        for (size_t i = 0; i < jobs.size(); i++) {
            s.recr_tgt->seq_save(jobs[i].io->seq_id, s.cps[jobs[i].io->seq_id]);
        }
    }
    // a stateful target records its conv and recurrence inputs per verified token, from which the
    // state after the accepted prefix is had: a rejection then costs no second decode
    s.ctx_tgt->set_rs_rows(saved && any_draft);
    const int32_t rc = decode_rows(s, jobs, nullptr);
    s.ctx_tgt->set_rs_rows(false);
    if (rc != 0) {
        const std::string why = llama_last_error();
        // the target's history is unchanged; the draft cache keeps only what matches it
        for (size_t i = 0; i < jobs.size(); i++) {
            llama_spec_job & job  = jobs[i];
            const size_t     past = job.st->hist.size();
            job.st->n_dft         = std::min(job.n_dft_cached, past);
            if (s.ctx_dft) {
                job.st->n_dft = llama_spec_draft_trim(s, job.io->seq_id, job.st->n_dft, &job);
            }
            if (s.ctx_mtp) {
                llama_spec_mtp_trim(s, *job.st, job.io->seq_id);
            }
            if (saved) {
                // an aborted or failed ubatch empties its recurrent states: the saved ones go back
                restore_target(s, job);
            } else if (rc != 1 && rc != 2) {
                // a failed decode may have written part of the batch
                llama_spec_rollback(s.ctx_tgt, job.io->seq_id, (llama_pos) past);
            }
        }
        llama_set_last_error(llama_format("llama_spec_step: target decode returned %d: %s", rc, why.c_str()));
        return rc;
    }

    std::vector<int> n_acc(jobs.size());
    bool             rejected = false;
    for (size_t i = 0; i < jobs.size(); i++) {
        n_acc[i] = llama_spec_verify(s, jobs[i]);
        rejected = rejected || (size_t) n_acc[i] < jobs[i].draft.size();
    }
    // the states now include the rejected drafts. Where the verification recorded each sequence's
    // inputs, the state after its last kept token is set (conv windows; SSM / delta-net states replayed
    // from the saved ones) and the rejected positions leave the attention layers; the logits rows stay
    // the verification's.
    bool rewound = rejected && s.recr_tgt;
    for (size_t i = 0; rewound && i < jobs.size(); i++) {
        const llama_pos last = (llama_pos) (jobs[i].st->hist.size() + (size_t) n_acc[i]);
        rewound              = (size_t) n_acc[i] == jobs[i].draft.size() ||
                  s.recr_tgt->seq_can_rewind(jobs[i].io->seq_id, last, &s.cps[jobs[i].io->seq_id]);
    }
    if (rewound) {
        for (size_t i = 0; i < jobs.size(); i++) {
            const llama_spec_job & job  = jobs[i];
            const llama_pos        last = (llama_pos) (job.st->hist.size() + (size_t) n_acc[i]);
            if ((size_t) n_acc[i] < job.draft.size()) {
                s.recr_tgt->seq_rewind(job.io->seq_id, last, &s.cps[job.io->seq_id]);
                llama_spec_rollback(s.ctx_tgt, job.io->seq_id, last + 1);
            }
        }
    } else if (rejected && s.recr_tgt) {
        // otherwise back to the saved states, and the kept tokens
        // (id_last and the accepted drafts) decoded again, every sequence in one batch so that the
        // logits rows the step reports all come from that decode
        for (size_t i = 0; i < jobs.size(); i++) {
            restore_target(s, jobs[i]);
        }
        const int32_t rc2 = decode_rows(s, jobs, &n_acc);
        if (rc2 != 0) {
            const std::string why = llama_last_error();
            for (size_t i = 0; i < jobs.size(); i++) {
                restore_target(s, jobs[i]);
                jobs[i].st->n_dft = std::min(jobs[i].n_dft_cached, jobs[i].st->hist.size());
                if (s.ctx_dft) {
                    jobs[i].st->n_dft = llama_spec_draft_trim(s, jobs[i].io->seq_id, jobs[i].st->n_dft, &jobs[i]);
                }
                if (s.ctx_mtp) {
                    llama_spec_mtp_trim(s, *jobs[i].st, jobs[i].io->seq_id);
                }
            }
            llama_set_last_error(
                llama_format("llama_spec_step: target decode of the kept tokens returned %d: %s", rc2, why.c_str()));
            return rc2;
        }
        for (size_t i = 0; i < jobs.size(); i++) {
            s.stats.n_redecoded += 1 + n_acc[i];
        }
    }

    for (size_t i = 0; i < jobs.size(); i++) {
        llama_spec_job & job  = jobs[i];
        const size_t     past = job.st->hist.size();
        // kept: id_last and the accepted drafts; the last emitted token is decoded by the next step
        const size_t n_keep = past + 1 + (size_t) n_acc[i];
        if ((size_t) n_acc[i] < job.draft.size() && !s.recr_tgt) {
            llama_spec_rollback(s.ctx_tgt, job.io->seq_id, (llama_pos) n_keep);
        }
        if (s.ctx_mtp) {
            llama_spec_mtp_keep(s, job, n_acc[i]);  // before the history grows: rows from its end on
        }
        job.st->hist.push_back(job.io->id_last);
        job.st->hist.insert(job.st->hist.end(), job.draft.begin(), job.draft.begin() + n_acc[i]);
        job.st->n_dft = std::min(job.n_dft_cached, n_keep);
        if (s.ctx_dft && job.model_ran) {  // only a drafting pass added to the draft cache
            job.st->n_dft = llama_spec_draft_trim(s, job.io->seq_id, job.st->n_dft, &job);
        }
        job.io->n_drafted = (int32_t) job.draft.size();
        job.io->i_logits  = job.row0;
        adapt(*job.st, s.params.n_draft_max, job.model_ran || job.mtp_ran, job.draft.size(), n_acc[i]);
        s.stats.n_steps++;
        s.stats.n_drafted += (int64_t) job.draft.size();
        s.stats.n_accepted += n_acc[i];
        s.stats.n_emitted += job.io->n_out;
    }
    return 0;
}

}  // namespace

bool llama_spec_rollback(llama_context * ctx, llama_seq_id seq_id, llama_pos n_keep) {
    // attention caches drop the positions; a recurrent state refuses a cut inside its history (the
    // step restores a stateful target's checkpoints before calling this)
    return llama_memory_seq_rm(llama_get_memory(ctx), seq_id, n_keep, -1);
}

llama_spec_params llama_spec_default_params(void) {
    llama_spec_params p;
    p.type        = LLAMA_SPEC_TYPE_DRAFT;
    p.n_draft_max = 16;
    p.n_draft_min = 0;
    p.p_min       = 0.75f;
    p.ngram_min   = 2;
    p.ngram_max   = 4;
    p.adaptive    = true;
    p.seed        = LLAMA_DEFAULT_SEED;
    return p;
}

llama_spec * llama_spec_init(llama_context * ctx_tgt, llama_context * ctx_dft, llama_spec_params params) {
    return llama_api_guard("llama_spec_init", (llama_spec *) nullptr, [&]() -> llama_spec * {
        if (ctx_tgt == nullptr) {
            throw llama_error("ctx_tgt is NULL");
        }
        check_params(params);
        if (params.type == LLAMA_SPEC_TYPE_DRAFT && ctx_dft == nullptr) {
            throw llama_error("the draft type needs a draft context (ctx_dft NULL)");
        }
        if (params.type != LLAMA_SPEC_TYPE_DRAFT) {
            ctx_dft = nullptr;  // n-gram and MTP drafting never touch a caller's draft context
        }
        if (ctx_dft == ctx_tgt) {
            throw llama_error("ctx_dft is the target context");
        }
        if (ctx_tgt->is_mtp() || (ctx_dft && ctx_dft->is_mtp())) {
            // its batches carry hidden rows: only the MTP drafter feeds it, from a context it makes itself
            throw llama_error("an MTP context (LLAMA_CONTEXT_TYPE_MTP) is neither a target nor a draft context");
        }
        const llama_model * mt = llama_get_model(ctx_tgt);
        // a recurrent state cannot be cut back to a position (llama_memory_seq_rm fails): the target's
        // states are saved each step and put back (see step), a draft model's around its drafting
        // rounds (llama_spec_draft_model, llama_spec_draft_trim)
        if (llama_n_batch(ctx_tgt) < (uint32_t) params.n_draft_max + 1) {
            throw llama_error(llama_format("target n_batch %u below n_draft_max + 1 (%d)", llama_n_batch(ctx_tgt),
                                           params.n_draft_max + 1));
        }
        auto s         = std::make_unique<llama_spec>();
        s->ctx_tgt     = ctx_tgt;
        s->ctx_dft     = ctx_dft;
        s->params      = params;
        s->n_vocab_tgt = llama_vocab_n_tokens(llama_model_get_vocab(mt));
        s->recr_tgt    = ctx_tgt->recurrent();
        s->recr_dft    = ctx_dft ? ctx_dft->recurrent() : nullptr;
        if (ctx_dft) {
            const llama_model * md = llama_get_model(ctx_dft);
            check_vocab(llama_model_get_vocab(mt), llama_model_get_vocab(md));
            s->n_vocab_dft = llama_vocab_n_tokens(llama_model_get_vocab(md));
        }
        if (params.type == LLAMA_SPEC_TYPE_MTP) {
            llama_spec_mtp_init(*s);  // the head shares the target's model and vocabulary
            s->n_vocab_dft = s->n_vocab_tgt;
        }
        s->rng.seed(params.seed == LLAMA_DEFAULT_SEED ? std::random_device{}() : params.seed);
        return s.release();
    });
}

void llama_spec_free(llama_spec * spec) {
    delete spec;
}

int32_t llama_spec_seq_begin(llama_spec * spec, llama_seq_id seq_id, const llama_token * tokens, int32_t n_tokens) {
    return llama_api_guard("llama_spec_seq_begin", (int32_t) -1, [&]() -> int32_t {
        if (spec == nullptr) {
            throw llama_error("spec is NULL");
        }
        check_seq_id(*spec, seq_id);
        if (n_tokens < 0 || (n_tokens > 0 && tokens == nullptr) || (uint32_t) n_tokens > llama_n_ctx(spec->ctx_tgt)) {
            throw llama_error(llama_format("n_tokens %d (tokens %s) invalid", n_tokens, tokens ? "set" : "NULL"));
        }
        for (int32_t i = 0; i < n_tokens; i++) {
            if (tokens[i] < 0 || tokens[i] >= spec->n_vocab_tgt) {
                throw llama_error(llama_format("tokens[%d] = %d outside the vocabulary", i, tokens[i]));
            }
        }
        llama_spec_seq_state fresh{{}, 0, 0, 0, 0, 0, {}};
        const auto           it = spec->seqs.find(seq_id);
        llama_spec_seq_state st = it == spec->seqs.end() ? fresh : it->second;
        // the draft cache keeps the prefix it shares with the new history
        size_t n_common = 0;
        while (n_common < st.n_dft && n_common < (size_t) n_tokens && st.hist[n_common] == tokens[n_common]) {
            n_common++;
        }
        if (spec->ctx_dft) {
            n_common = llama_spec_draft_trim(*spec, seq_id, n_common, nullptr);
        }
        st.hist.assign(tokens, tokens + n_tokens);
        st.n_dft   = n_common;
        st.skip    = 0;
        st.backoff = 0;
        st.n_cur   = 0;
        if (spec->ctx_dft) {
            llama_spec_draft_prefill(*spec, seq_id, st);
        }
        if (spec->ctx_mtp) {
            llama_memory_seq_rm(llama_get_memory(spec->ctx_mtp), seq_id, -1, -1);
            llama_spec_mtp_begin(*spec, st, seq_id);
        }
        // the memory a verification's logits take, and a stateful target's checkpoints, recordings and
        // rewinds, taken now rather than in the first steps
        spec->ctx_tgt->reserve_outputs((uint32_t) spec->params.n_draft_max + 1);
        if (spec->recr_tgt) {
            spec->recr_tgt->rewind_reserve(seq_id, (uint32_t) spec->params.n_draft_max + 1, spec->cps[seq_id]);
        }
        if (spec->recr_dft) {
            spec->recr_dft->checkpoint_reserve(spec->dcps[seq_id]);
        }
        spec->seqs[seq_id] = std::move(st);
        return 0;
    });
}

int32_t llama_spec_seq_end(llama_spec * spec, llama_seq_id seq_id) {
    return llama_api_guard("llama_spec_seq_end", (int32_t) -1, [&]() -> int32_t {
        if (spec == nullptr) {
            throw llama_error("spec is NULL");
        }
        check_seq_id(*spec, seq_id);
        if (spec->ctx_dft) {
            llama_spec_rollback(spec->ctx_dft, seq_id, 0);
        }
        if (spec->ctx_mtp) {
            llama_spec_rollback(spec->ctx_mtp, seq_id, 0);
        }
        spec->seqs.erase(seq_id);
        spec->cps.erase(seq_id);
        spec->dcps.erase(seq_id);
        return 0;
    });
}

int32_t llama_spec_step(llama_spec * spec, llama_spec_seq * seqs, int32_t n_seqs) {
    return llama_api_guard("llama_spec_step", (int32_t) -1, [&]() -> int32_t {
        if (spec == nullptr) {
            throw llama_error("spec is NULL");
        }
        return step(*spec, seqs, n_seqs);
    });
}

int32_t llama_spec_stats_get(const llama_spec * spec, llama_spec_stats * stats) {
    if (spec == nullptr || stats == nullptr) {
        llama_report_error("llama_spec_stats_get", "spec or stats is NULL");
        return -1;
    }
    *stats = spec->stats;
    return 0;
}

void llama_spec_stats_reset(llama_spec * spec) {
    if (spec) {
        spec->stats = llama_spec_stats{};
    }
}

int32_t llama_spec_type_from_name(const char * name, llama_spec_type * type) {
    if (name == nullptr || type == nullptr) {
        llama_report_error("llama_spec_type_from_name", "name or type is NULL");
        return -1;
    }
    if (std::strcmp(name, "draft") == 0) {
        *type = LLAMA_SPEC_TYPE_DRAFT;
        return 0;
    }
    if (std::strcmp(name, "ngram") == 0) {
        *type = LLAMA_SPEC_TYPE_NGRAM;
        return 0;
    }
    if (std::strcmp(name, "mtp") == 0) {
        *type = LLAMA_SPEC_TYPE_MTP;
        return 0;
    }
    llama_report_error("llama_spec_type_from_name",
                       llama_format("unknown speculative type '%s' (known: draft, ngram, mtp)", name).c_str());
    return -1;
}
