// Speculative decoding: what a sampler chain makes of a logits row, and the acceptance rule that
// keeps emitted tokens distributed as the target's chain would draw them (llama-speculative-impl.h).
#include <cmath>
#include <stdexcept>

#include "llama-log.h"
#include "llama-speculative-impl.h"

float llama_spec_dist::prob(llama_token t) const {
    if (p.empty()) {
        return t == tok ? 1.0f : 0.0f;
    }
    return t >= 0 && (size_t) t < p.size() ? p[(size_t) t] : 0.0f;
}

llama_spec_dist llama_spec_apply_chain(llama_sampler * chain, const float * logits, int n_vocab,
                                       std::vector<llama_token_data> & scratch) {
    llama_spec_dist d;
    scratch.resize((size_t) n_vocab);
    size_t best = 0;
    for (int i = 0; i < n_vocab; i++) {
        // p = 0 before the chain: a deterministic chain leaves it so, which tells it from dist
        scratch[(size_t) i] = llama_token_data{i, logits[i], 0.0f};
        if (logits[i] > logits[best]) {
            best = (size_t) i;
        }
    }
    if (chain == nullptr) {
        d.tok = (llama_token) best;
        return d;
    }
    llama_token_data_array cur = {scratch.data(), scratch.size(), -1, false};
    llama_sampler_apply(chain, &cur);
    if (cur.selected < 0 || (size_t) cur.selected >= cur.size) {
        // a chain that selects nothing: fall back to its best remaining candidate
        d.tok = (llama_token) best;
        return d;
    }
    d.tok      = cur.data[cur.selected].id;
    double sum = 0.0;
    for (size_t i = 0; i < cur.size; i++) {
        sum += cur.data[i].p > 0.0f ? cur.data[i].p : 0.0f;
    }
    // probabilities summing to one: the chain ends in a draw from a distribution
    if (std::fabs(sum - 1.0) < 1e-3) {
        d.p.assign((size_t) n_vocab, 0.0f);
        for (size_t i = 0; i < cur.size; i++) {
            const llama_token id = cur.data[i].id;
            if (id >= 0 && id < n_vocab && cur.data[i].p > 0.0f) {
                d.p[(size_t) id] = (float) (cur.data[i].p / sum);
            }
        }
    }
    return d;
}

// A uniform draw in [0, 1) from 32 bits, the same stream on every standard library.
static double uniform01(std::mt19937 & rng) {
    return (double) rng() * (1.0 / 4294967296.0);
}

// Draws from norm(max(0, p - q)); the chain's own choice if rounding left no mass.
static llama_token sample_residual(const llama_spec_dist & p, const llama_spec_dist & q, std::mt19937 & rng) {
    double sum = 0.0;
    for (size_t t = 0; t < p.p.size(); t++) {
        const double r = (double) p.p[t] - q.prob((llama_token) t);
        sum += r > 0.0 ? r : 0.0;
    }
    if (!(sum > 0.0)) {
        return p.tok;
    }
    const double u    = uniform01(rng) * sum;
    double       cum  = 0.0;
    llama_token  last = p.tok;
    for (size_t t = 0; t < p.p.size(); t++) {
        const double r = (double) p.p[t] - q.prob((llama_token) t);
        if (r <= 0.0) {
            continue;
        }
        last = (llama_token) t;
        cum += r;
        if (u < cum) {
            break;
        }
    }
    return last;
}

int llama_spec_verify(llama_spec & spec, llama_spec_job & job) {
    llama_sampler * chain = job.io->smpl;
    const bool      use_q = !job.q.empty();
    int             n_out = 0;
    int             n_acc = 0;
    for (size_t i = 0;; i++) {
        const float * row = llama_get_logits_ith(spec.ctx_tgt, job.row0 + (int32_t) i);
        if (row == nullptr) {
            // every token of the batch asked for logits: a missing row is a broken invariant
            throw std::logic_error(llama_format("no logits for batch row %d", job.row0 + (int32_t) i));
        }
        const llama_spec_dist p = llama_spec_apply_chain(chain, row, spec.n_vocab_tgt, spec.scratch);
        if (i == job.draft.size()) {
            // every draft accepted: the target's own next token
            job.io->out[n_out++] = p.tok;
            break;
        }
        const llama_token x = job.draft[i];
        if (!use_q || p.p.empty()) {
            // n-gram drafts and deterministic chains: accepted when the chain chose the same token
            if (p.tok == x) {
                job.io->out[n_out++] = x;
                n_acc++;
                if (chain) {
                    llama_sampler_accept(chain, x);
                }
                continue;
            }
            job.io->out[n_out++] = p.tok;
            break;
        }
        // speculative sampling: x ~ q is kept with probability min(1, p(x) / q(x)), which with the
        // residual draw below makes the emitted token exactly p-distributed
        const float px = p.prob(x);
        const float qx = job.q[i].prob(x);
        if (qx > 0.0f && (px >= qx || uniform01(spec.rng) < (double) (px / qx))) {
            job.io->out[n_out++] = x;
            n_acc++;
            llama_sampler_accept(chain, x);
            continue;
        }
        job.io->out[n_out++] = sample_residual(p, job.q[i], spec.rng);
        break;
    }
    const llama_token last = job.io->out[n_out - 1];
    if (chain && last != LLAMA_TOKEN_NULL) {
        llama_sampler_accept(chain, last);
    }
    job.io->n_out = n_out;
    return n_acc;
}
