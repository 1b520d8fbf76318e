// The engine's speculative step (server-engine.h, docs/server.md): generating slots that may
// speculate advance together through one llama_spec_step (one verification batch), and every token
// a step emits goes through the slot's normal token path (process_token), so stop strings, EOS,
// max_tokens, streaming and log-probabilities behave as in plain decoding.
#include <algorithm>

#include "server-engine-slot.h"
#include "server-engine.h"
#include "tool-spec.h"

namespace server {

// The sampler a slot's speculative steps use: its chain, or its grammar and chain together.
llama_sampler * engine::spec_sampler(slot & s) {
    if (s.grmr == nullptr) {
        return s.smpl;
    }
    if (s.spec_smpl == nullptr) {
        s.spec_smpl = tool::grammar_chain_sampler(s.grmr, s.smpl);
    }
    return s.spec_smpl;
}

// The decoder forgets the slot's sequence (and the draft context its cache): the slot's cache was
// cleared or replaced.
void engine::spec_forget(slot & s) {
    s.spec_synced = false;
    if (spec_.spec != nullptr) {
        llama_spec_seq_end(spec_.spec, s.id);
    }
}

// The draft length slot s may use this step; 0: it decodes its next token without speculating
// (speculation off, off for its task, a grammar, or no room left for a draft).
int engine::spec_draft_max(const slot & s) const {
    if (spec_.spec == nullptr || (s.grmr == nullptr && !s.t.sampling.grammar.empty())) {
        return 0;  // (a grammar that could not be made fails the task on the plain path)
    }
    int n = s.t.sampling.spec_n_max >= 0 ? std::min(s.t.sampling.spec_n_max, spec_.n_max) : spec_.n_max;
    // a step emits up to n + 1 tokens: no draft past max_tokens or past the slot's room (the
    // last token of a full slot is never decoded, see process_token)
    n = std::min(n, s.t.max_tokens - s.n_gen - 1);
    n = std::min(n, n_ctx_slot_ - (int) s.cache.size() - 2);
    return std::max(n, 0);
}

void engine::spec_step(const std::vector<float> * lora) {
    std::vector<slot *> stepped;
    spec_seqs_.clear();
    for (auto & sp : slots_) {
        slot & s    = *sp;
        s.spec_done = false;
        if (!s.busy || s.next == LLAMA_TOKEN_NULL || (lora != nullptr && s.t.lora != *lora)) {
            continue;
        }
        const int n_max = spec_draft_max(s);
        if (n_max < 1) {
            continue;
        }
        if (!s.spec_synced) {
            // the decoder learns what the cache holds (prompt reuse, a restored slot, plain steps)
            if (llama_spec_seq_begin(spec_.spec, s.id, s.cache.data(), (int32_t) s.cache.size()) != 0) {
                continue;  // cannot happen for a valid slot; it decodes plainly
            }
            s.spec_synced = true;
        }
        const int n_min = std::min(s.t.sampling.spec_n_min >= 0 ? s.t.sampling.spec_n_min : spec_.n_min, n_max);
        s.spec_out.resize((size_t) spec_.n_max + 1);
        llama_spec_seq q{};
        q.seq_id      = s.id;
        q.id_last     = s.next;
        q.smpl        = spec_sampler(s);
        q.out         = s.spec_out.data();
        q.n_draft_max = n_max;
        q.n_draft_min = n_min;
        q.p_min       = s.t.sampling.spec_p_min >= 0.0f ? s.t.sampling.spec_p_min : spec_.p_min;
        spec_seqs_.push_back(q);
        stepped.push_back(&s);
    }
    if (stepped.empty()) {
        return;
    }
    apply_lora(lora);
    const int64_t t0     = llama_time_us();
    const int     rc     = llama_spec_step(spec_.spec, spec_seqs_.data(), (int32_t) spec_seqs_.size());
    int           n_rows = 0;
    for (const auto & q : spec_seqs_) {
        n_rows += 1 + q.n_drafted;
    }
    metrics_.record_decode(0, rc == 0 ? n_rows : 0, (int) stepped.size(), (uint64_t) (llama_time_us() - t0));
    if (rc == 1) {
        // no room in the cache for the drafts (caches as before): these slots decode plainly
        for (slot * s : stepped) {
            s->spec_synced = false;
        }
        return;
    }
    if (rc != 0) {
        const std::string err = std::string("decode failed: ") + llama_last_error();
        for (slot * s : stepped) {
            llama_memory_seq_rm(mem_, s->id, -1, -1);
            s->cache.clear();
            spec_forget(*s);
            s->spec_done = true;
            finish(*s, "", err);
        }
        return;
    }
    for (size_t k = 0; k < stepped.size(); k++) {
        slot &                 s = *stepped[k];
        const llama_spec_seq & q = spec_seqs_[k];
        s.spec_done              = true;
        s.n_draft += q.n_drafted;
        s.n_draft_acc += q.n_out - 1;  // every emitted token but the target's own last one
        metrics_.observe_sequence((int64_t) s.cache.size() + q.n_out);
        // the target's cache now holds id_last and the accepted drafts; `cache` follows token by
        // token, so that when a token ends the task (finish trims the KV cache to `cache`) the slot
        // holds exactly what plain decoding would
        s.cache.push_back(s.next);
        s.next = LLAMA_TOKEN_NULL;
        for (int j = 0; j < q.n_out && s.busy; j++) {
            if (j > 0) {
                s.cache.push_back(q.out[j - 1]);
            }
            process_token(s, q.out[j], q.i_logits + j);
        }
        if (!s.busy) {
            s.next = LLAMA_TOKEN_NULL;  // the tokens after the one that ended the task are dropped
        }
    }
}

}  // namespace server
