// Backend sampling (llama.h "Backend sampling"): after each successful decode, the sampler chain
// of a sequence runs on the CPU over the logits of that sequence's output rows; the selected token,
// the surviving candidates and their logits/probabilities are kept per output row.
#include "llama-context.h"
#include "llama-log.h"
#include "llama-model.h"
#include "llama-sampler.h"

#include <algorithm>
#include <cmath>

void llama_context::set_sampler(llama_seq_id seq_id, llama_sampler * smpl) {
    if (seq_id < 0 || (uint32_t) seq_id >= cparams.n_seq_max) {
        throw llama_error(llama_format("seq_id %d is outside [0, %u)", seq_id, cparams.n_seq_max));
    }
    if (smpl && !llama_sampler_is_chain(smpl)) {
        throw llama_error("the sampler must be a chain (llama_sampler_chain_init)");
    }
    if (seq_samplers.empty()) {
        seq_samplers.assign(cparams.n_seq_max, nullptr);
    }
    seq_samplers[seq_id] = smpl;
}

void llama_context::sample_outputs(const llama_batch & batch) {
    sampled.clear();
    const bool any = std::any_of(seq_samplers.begin(), seq_samplers.end(), [](llama_sampler * s) { return s; });
    if (!any || logits.empty() || n_outputs <= 0) {
        return;
    }
    const int32_t n_vocab = (int32_t) model.hparams.n_vocab;
    sampled.resize((size_t) n_outputs);
    std::vector<llama_token_data> cand;
    for (int32_t i = 0; i < batch.n_tokens && (size_t) i < output_ids.size(); i++) {
        const int32_t row = output_ids[i];
        if (row < 0) {
            continue;
        }
        // a token shared by several sequences uses the first of them that has a sampler
        llama_sampler * smpl = nullptr;
        const int32_t   n_id = batch.seq_id ? (batch.n_seq_id ? batch.n_seq_id[i] : 1) : 1;
        for (int32_t k = 0; k < n_id && !smpl; k++) {
            const llama_seq_id s = batch.seq_id ? batch.seq_id[i][k] : 0;
            smpl                 = s >= 0 && (size_t) s < seq_samplers.size() ? seq_samplers[s] : nullptr;
        }
        if (!smpl) {
            continue;
        }
        const float * lg = logits.data() + (size_t) row * n_vocab;
        cand.resize((size_t) n_vocab);
        for (int32_t t = 0; t < n_vocab; t++) {
            cand[t] = llama_token_data{t, lg[t], 0.0f};
        }
        llama_token_data_array arr = {cand.data(), cand.size(), -1, false};
        llama_sampler_apply(smpl, &arr);

        sampled_output & out = sampled[row];
        out.token =
            arr.selected >= 0 && (size_t) arr.selected < arr.size ? arr.data[arr.selected].id : LLAMA_TOKEN_NULL;
        out.candidates.resize(arr.size);
        out.logits.resize(arr.size);
        out.probs.resize(arr.size);
        float max_l = -INFINITY;
        for (size_t k = 0; k < arr.size; k++) {
            out.candidates[k] = arr.data[k].id;
            out.logits[k]     = arr.data[k].logit;
            max_l             = std::max(max_l, arr.data[k].logit);
        }
        // probabilities: the softmax of the surviving logits (-inf logits get 0)
        double sum = 0.0;
        for (size_t k = 0; k < arr.size; k++) {
            const float e = std::isinf(max_l) && max_l < 0 ? 1.0f : std::exp(out.logits[k] - max_l);
            out.probs[k]  = std::isnan(e) ? 0.0f : e;
            sum += out.probs[k];
        }
        for (float & p : out.probs) {
            p = sum > 0.0 ? (float) (p / sum) : 0.0f;
        }
    }
}

const llama_context::sampled_output * llama_context::sampled_ith(int32_t i) const {
    if (sampled.empty() || n_outputs <= 0) {
        return nullptr;
    }
    int32_t row = -1;
    if (i < 0) {
        row = n_outputs + i;
    } else if ((size_t) i < output_ids.size()) {
        row = output_ids[i];
    }
    if (row < 0 || row >= (int32_t) sampled.size()) {
        return nullptr;
    }
    const sampled_output & o = sampled[row];
    return o.candidates.empty() && o.token == LLAMA_TOKEN_NULL ? nullptr : &o;
}

// ---- C API -------------------------------------------------------------------------------------

bool llama_set_sampler(struct llama_context * ctx, llama_seq_id seq_id, struct llama_sampler * smpl) {
    return llama_api_guard(__func__, false, [&]() -> bool {
        if (!ctx) {
            throw llama_error("ctx is NULL");
        }
        ctx->set_sampler(seq_id, smpl);
        return true;
    });
}

llama_token llama_get_sampled_token_ith(struct llama_context * ctx, int32_t i) {
    const auto * o = ctx ? ctx->sampled_ith(i) : nullptr;
    return o ? o->token : LLAMA_TOKEN_NULL;
}

float * llama_get_sampled_probs_ith(struct llama_context * ctx, int32_t i) {
    auto * o = ctx ? const_cast<llama_context::sampled_output *>(ctx->sampled_ith(i)) : nullptr;
    return o && !o->probs.empty() ? o->probs.data() : nullptr;
}

uint32_t llama_get_sampled_probs_count_ith(struct llama_context * ctx, int32_t i) {
    const auto * o = ctx ? ctx->sampled_ith(i) : nullptr;
    return o ? (uint32_t) o->probs.size() : 0;
}

float * llama_get_sampled_logits_ith(struct llama_context * ctx, int32_t i) {
    auto * o = ctx ? const_cast<llama_context::sampled_output *>(ctx->sampled_ith(i)) : nullptr;
    return o && !o->logits.empty() ? o->logits.data() : nullptr;
}

uint32_t llama_get_sampled_logits_count_ith(struct llama_context * ctx, int32_t i) {
    const auto * o = ctx ? ctx->sampled_ith(i) : nullptr;
    return o ? (uint32_t) o->logits.size() : 0;
}

llama_token * llama_get_sampled_candidates_ith(struct llama_context * ctx, int32_t i) {
    auto * o = ctx ? const_cast<llama_context::sampled_output *>(ctx->sampled_ith(i)) : nullptr;
    return o && !o->candidates.empty() ? o->candidates.data() : nullptr;
}

uint32_t llama_get_sampled_candidates_count_ith(struct llama_context * ctx, int32_t i) {
    const auto * o = ctx ? ctx->sampled_ith(i) : nullptr;
    return o ? (uint32_t) o->candidates.size() : 0;
}
