// Speculative decoding: the MTP drafter. The target's own NextN block (a context of type
// LLAMA_CONTEXT_TYPE_MTP on the target's model) drafts from the target's hidden rows: the pair at
// position p is the token at p and the target's hidden row of p - 1; its logits predict the token at
// p + 1, and a chained draft feeds the head's own hidden row back. The head's cache keeps only pairs
// of kept tokens with the target's rows: drafted positions leave it before the step verifies.
#include "llama-speculative-impl.h"

#include <algorithm>
#include <cstring>

#include "llama-context.h"
#include "llama-log.h"
#include "llama-model.h"

namespace {

// One position of an MTP batch: the token, the hidden row it follows, and the job whose draft its
// logits give (-1: a pending pair of kept tokens, no output).
struct mtp_item {
    llama_token   tok;
    llama_pos     pos;
    llama_seq_id  seq;
    const float * h;
    int           job;
};

// A batch carrying tokens and hidden rows together (llama_batch_init allocates one of the two).
struct mtp_batch {
    std::vector<llama_token>    token;
    std::vector<float>          embd;
    std::vector<llama_pos>      pos;
    std::vector<int32_t>        n_seq_id;
    std::vector<llama_seq_id>   seq;
    std::vector<llama_seq_id *> seq_id;
    std::vector<int8_t>         logits;

    llama_batch fill(const std::vector<mtp_item> & items, size_t n_embd) {
        const size_t n = items.size();
        token.resize(n), embd.resize(n * n_embd), pos.resize(n), n_seq_id.assign(n, 1), seq.resize(n);
        seq_id.resize(n), logits.resize(n);
        for (size_t i = 0; i < n; i++) {
            token[i] = items[i].tok;
            std::memcpy(embd.data() + i * n_embd, items[i].h, n_embd * sizeof(float));
            pos[i]    = items[i].pos;
            seq[i]    = items[i].seq;
            seq_id[i] = &seq[i];
            logits[i] = items[i].job >= 0;
        }
        return {(int32_t) n, token.data(), embd.data(), pos.data(), n_seq_id.data(), seq_id.data(), logits.data()};
    }
};

}  // namespace

llama_spec::~llama_spec() {
    if (ctx_mtp) {
        ctx_tgt->set_keep_hidden(false);
        delete ctx_mtp;
    }
}

void llama_spec_mtp_init(llama_spec & spec) {
    const llama_model & model = spec.ctx_tgt->model;
    if (model.hparams.n_layer_nextn == 0 || !model.ops->build_mtp_graph) {
        throw llama_error(
            llama_format("MTP drafting: the model (%s) has no NextN (multi-token-prediction) block to draft with",
                         model.arch_name.c_str()));
    }
    if (!model.has_mtp()) {
        throw llama_error(
            "MTP drafting: the model's NextN blocks were not loaded (load it with llama_model_params.load_mtp)");
    }
    const llama_cparams & tc = spec.ctx_tgt->cparams;
    llama_context_params  p  = llama_context_default_params();
    p.ctx_type               = LLAMA_CONTEXT_TYPE_MTP;
    p.n_ctx                  = tc.n_ctx;
    p.n_batch                = tc.n_batch;
    p.n_ubatch               = tc.n_ubatch;
    p.n_seq_max              = tc.n_seq_max;
    p.n_threads              = tc.n_threads;
    p.n_threads_batch        = tc.n_threads_batch;
    p.flash_attn_type        = tc.flash_attn ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED;
    p.offload_kqv            = tc.offload_kqv;
    p.no_perf                = true;
    spec.ctx_mtp             = new llama_context(model, p);
    spec.ctx_tgt->set_keep_hidden(true);
}

void llama_spec_draft_mtp(llama_spec & spec, std::vector<llama_spec_job> & jobs) {
    llama_context * ctx     = spec.ctx_mtp;
    const size_t    n_embd  = spec.ctx_tgt->model.hparams.n_embd;
    const size_t    n_batch = llama_n_batch(ctx);
    const size_t    n_ctx   = llama_n_ctx(ctx);

    std::vector<llama_spec_chain_ptr> chains(jobs.size());
    std::vector<mtp_item>             todo;
    for (size_t j = 0; j < jobs.size(); j++) {
        llama_spec_job &             job = jobs[j];
        const llama_spec_seq_state & st  = *job.st;
        const size_t                 n   = st.hist.size();
        // the pending pairs (mtp_from .. n - 1) and id_last's must fit the first round's batch
        const size_t n_pend = n + 1 - st.mtp_from;
        if (job.n_max <= 0 || st.h.empty() || n + (size_t) job.n_max >= n_ctx || todo.size() + n_pend > n_batch) {
            job.n_max = 0;
            continue;
        }
        for (size_t p = st.mtp_from; p <= n; p++) {
            const llama_token tok = p < n ? st.hist[p] : job.io->id_last;
            todo.push_back(
                {tok, (llama_pos) p, job.io->seq_id, st.h.data() + (p - st.mtp_from) * n_embd, p < n ? -1 : (int) j});
        }
        job.mtp_ran = true;
        if (job.io->smpl) {
            chains[j].reset(llama_sampler_clone(job.io->smpl));
        }
    }

    mtp_batch          mb;
    std::vector<float> h_next;  // the head's own hidden rows, the next round's inputs
    for (bool first = true; !todo.empty(); first = false) {
        std::vector<mtp_item> next;
        h_next.resize(jobs.size() * n_embd);
        if (llama_decode(ctx, mb.fill(todo, n_embd)) != 0) {
            // drafting is only a proposal: the drafts so far stand; a failed first round took nothing
            for (const mtp_item & it : todo) {
                llama_spec_job * job = it.job >= 0 ? &jobs[(size_t) it.job] : nullptr;
                if (job) {
                    job->n_max   = (int) job->draft.size();
                    job->mtp_ran = job->mtp_ran && !first;
                }
            }
            if (first) {
                for (const llama_spec_job & job : jobs) {
                    llama_spec_mtp_trim(spec, *job.st, job.io->seq_id);
                }
            }
            break;
        }
        for (size_t i = 0; i < todo.size(); i++) {
            if (todo[i].job < 0) {
                continue;
            }
            llama_spec_job & job = jobs[(size_t) todo[i].job];
            std::string      err;
            const float *    row = llama_get_logits_ith(ctx, (int32_t) i);
            const float *    hid = ctx->hidden_ith((int32_t) i, err);
            if (row == nullptr || hid == nullptr) {
                job.n_max = (int) job.draft.size();
                continue;
            }
            const llama_token x =
                llama_spec_draft_take(spec, job, chains[(size_t) todo[i].job].get(), row, spec.n_vocab_tgt);
            if (x != LLAMA_TOKEN_NULL && (int) job.draft.size() < job.n_max) {
                float * h = h_next.data() + (size_t) todo[i].job * n_embd;
                std::memcpy(h, hid, n_embd * sizeof(float));
                next.push_back({x, todo[i].pos + 1, todo[i].seq, h, todo[i].job});
            }
        }
        // next's rows live in h_next, which the next round's batch copies before it is written again
        todo.swap(next);
    }
    // the drafted positions were decoded from the head's own rows: the cache keeps the kept tokens' pairs
    for (llama_spec_job & job : jobs) {
        if (job.mtp_ran) {
            llama_memory_seq_rm(llama_get_memory(ctx), job.io->seq_id, (llama_pos) job.st->hist.size() + 1, -1);
        }
    }
}

void llama_spec_mtp_keep(llama_spec & spec, llama_spec_job & job, int n_acc) {
    llama_spec_seq_state & st     = *job.st;
    const size_t           n_embd = spec.ctx_tgt->model.hparams.n_embd;
    const size_t           n      = st.hist.size();
    if (job.mtp_ran || st.h.empty()) {
        // the cache holds the pairs up to id_last's (or the sequence starts here): the rows from
        // id_last's position on are pending
        st.mtp_from = n + 1;
        st.h.clear();
    }
    for (int k = 0; k <= n_acc; k++) {
        std::string   err;
        const float * h = spec.ctx_tgt->hidden_ith(job.row0 + k, err);
        if (h == nullptr) {
            st.h.clear();  // no row: drafting waits for the next step's
            return;
        }
        st.h.insert(st.h.end(), h, h + n_embd);
    }
    // a sequence that does not draft for long keeps only the rows half a batch can take; the pairs
    // before them never enter the cache (the head attends over fewer positions)
    const size_t rows = st.h.size() / n_embd;
    const size_t cap  = std::max<size_t>(1, llama_n_batch(spec.ctx_mtp) / 2);
    if (rows > cap) {
        st.h.erase(st.h.begin(), st.h.begin() + (ptrdiff_t) ((rows - cap) * n_embd));
        st.mtp_from += rows - cap;
    }
}

void llama_spec_mtp_begin(llama_spec & spec, llama_spec_seq_state & st, llama_seq_id seq_id) {
    const size_t n      = st.hist.size();
    const size_t n_embd = spec.ctx_tgt->model.hparams.n_embd;
    const size_t cap    = std::max<size_t>(1, llama_n_batch(spec.ctx_mtp) / 2);
    size_t       first  = n;  // the run of kept rows is first .. n - 1
    while (first > 0 && n - first < cap && spec.ctx_tgt->hidden_at(seq_id, (llama_pos) first - 1)) {
        first--;
    }
    st.h.clear();
    st.mtp_from = first + 1;  // the first pair is that of the position after the run's first row
    for (size_t p = first; p < n; p++) {
        const float * h = spec.ctx_tgt->hidden_at(seq_id, (llama_pos) p);
        st.h.insert(st.h.end(), h, h + n_embd);
    }
    if (st.h.empty()) {
        st.mtp_from = n + 1;
    }
}

void llama_spec_mtp_trim(llama_spec & spec, const llama_spec_seq_state & st, llama_seq_id seq_id) {
    llama_memory_seq_rm(llama_get_memory(spec.ctx_mtp), seq_id, (llama_pos) st.mtp_from, -1);
}
