// llama_sampler_sample: logits row of a context -> candidates -> sampler -> token.
// Kept apart from the samplers so that they (and their tests) do not depend on llama_context;
// it reaches the context only through the public API.
#include <exception>
#include <vector>

#include "llama-sampler.h"

llama_token llama_sampler_sample(struct llama_sampler * smpl, struct llama_context * ctx, int32_t idx) {
    if (smpl == nullptr || ctx == nullptr) {
        LLAMA_SAMPLER_FAIL("NULL %s", smpl == nullptr ? "sampler" : "context");
        return LLAMA_TOKEN_NULL;
    }
    try {
        const float * logits = llama_get_logits_ith(ctx, idx);
        if (logits == nullptr) {
            LLAMA_SAMPLER_FAIL("no logits for output %d", idx);
            return LLAMA_TOKEN_NULL;
        }
        const llama_model * model   = llama_get_model(ctx);
        const llama_vocab * vocab   = model != nullptr ? llama_model_get_vocab(model) : nullptr;
        const int32_t       n_vocab = vocab != nullptr ? llama_vocab_n_tokens(vocab) : 0;
        if (n_vocab <= 0) {
            LLAMA_SAMPLER_FAIL("the context's model has no vocab");
            return LLAMA_TOKEN_NULL;
        }

        std::vector<llama_token_data> cur((size_t) n_vocab);
        for (int32_t id = 0; id < n_vocab; ++id) {
            cur[id] = llama_token_data{id, logits[id], 0.0f};
        }
        llama_token_data_array cur_p = {cur.data(), cur.size(), -1, false};

        llama_sampler_apply(smpl, &cur_p);

        if (cur_p.selected < 0 || (size_t) cur_p.selected >= cur_p.size) {
            LLAMA_SAMPLER_FAIL(
                "the sampler selected no token (selected = %lld of %zu); does the chain end in "
                "greedy or dist?",
                (long long) cur_p.selected, cur_p.size);
            return LLAMA_TOKEN_NULL;
        }
        const llama_token token = cur_p.data[cur_p.selected].id;
        llama_sampler_accept(smpl, token);
        return token;
    } catch (const std::exception & e) {
        LLAMA_SAMPLER_FAIL("%s", e.what());
        return LLAMA_TOKEN_NULL;
    }
}
