// Infill (fill-in-the-middle): decides between ending the middle part and continuing it, and when
// continuing merges candidates that spell the same text start, so that "hel"/"hell"/"hello" count
// as one choice rather than three weak ones. Steps as documented in llama.h.
#include <algorithm>
#include <cmath>
#include <new>
#include <string>
#include <vector>

#include "llama-sampler.h"

namespace {
struct sampler_infill {
    const llama_vocab * vocab;
};

// Keeps the EOG tokens and the others with p >= thold, renormalised; returns the non-EOG count kept.
size_t keep_above(llama_token_data_array * cur_p, std::vector<char> & eog, float thold) {
    size_t n_text = 0;
    size_t n      = 0;
    double sum    = 0.0;
    for (size_t i = 0; i < cur_p->size; ++i) {
        if (!eog[i] && !(cur_p->data[i].p >= thold)) {
            continue;
        }
        n_text += !eog[i];
        sum += cur_p->data[i].p;
        cur_p->data[n] = cur_p->data[i];
        eog[n]         = eog[i];  // flags stay aligned with the compacted data
        n++;
    }
    cur_p->size = n;
    for (size_t i = 0; i < n && sum > 0.0; ++i) {
        cur_p->data[i].p = (float) (cur_p->data[i].p / sum);
    }
    return n_text;
}
}  // namespace

static const char * infill_name(const llama_sampler *) {
    return "infill";
}

static void infill_apply(llama_sampler * smpl, llama_token_data_array * cur_p) {
    const llama_vocab * vocab = ((const sampler_infill *) smpl->ctx)->vocab;
    if (cur_p->size == 0) {
        return;
    }
    llama_sampler_softmax_impl(cur_p, true);

    std::vector<char> eog(cur_p->size);
    double            p_txt = 0.0;
    double            p_eog = 0.0;
    for (size_t i = 0; i < cur_p->size; ++i) {
        eog[i] = llama_vocab_is_eog(vocab, cur_p->data[i].id);
        (eog[i] ? p_eog : p_txt) += cur_p->data[i].p;
    }

    // 1. enough end-of-generation mass: keep only the EOG tokens
    if (3.0 * p_eog * (double) cur_p->size > p_txt) {
        size_t n = 0;
        for (size_t i = 0; i < cur_p->size; ++i) {
            if (eog[i]) {
                cur_p->data[n++] = cur_p->data[i];
            }
        }
        cur_p->size = n;
        for (size_t i = 0; i < n; ++i) {
            cur_p->data[i].p = (float) (cur_p->data[i].p / p_eog);
        }
        return;
    }

    // 2. a token whose text starts another's: the less likely one gives its mass to the other
    std::vector<std::string> text(cur_p->size);
    for (size_t i = 0; i < cur_p->size; ++i) {
        text[i] = llama_sampler_token_piece(vocab, cur_p->data[i].id, false);
    }
    for (size_t i0 = 0; i0 < cur_p->size; ++i0) {
        for (size_t i1 = 0; i1 < cur_p->size; ++i1) {
            if (cur_p->data[i0].logit == -INFINITY) {
                break;
            }
            if (i0 == i1 || cur_p->data[i1].logit == -INFINITY) {
                continue;
            }
            const std::string & a = text[i0];
            const std::string & b = text[i1];
            if (a.empty() || a.size() > b.size() || b.compare(0, a.size(), a) != 0) {
                continue;
            }
            size_t dst = i0;
            size_t src = i1;
            if (cur_p->data[i1].p > cur_p->data[i0].p) {
                std::swap(dst, src);
            }
            cur_p->data[dst].p += cur_p->data[src].p;
            cur_p->data[src].logit = -INFINITY;
            cur_p->data[src].p     = 0.0f;
        }
    }

    // 3. drop weak text tokens, twice: a fixed floor, then relative to how many are left
    const size_t n_text = keep_above(cur_p, eog, 0.2f);
    if (n_text == 0) {
        // 4. nothing to say: end the middle part
        llama_token end = llama_vocab_eot(vocab);
        if (end == LLAMA_TOKEN_NULL) {
            end = llama_vocab_eos(vocab);
        }
        cur_p->size          = 1;
        cur_p->data[0].id    = end;
        cur_p->data[0].logit = 1.0f;
        cur_p->data[0].p     = 1.0f;
        return;
    }
    keep_above(cur_p, eog, 1.0f / (float) (n_text + 1));
}

static const llama_sampler_i llama_sampler_infill_i = llama_sampler_iface(
    infill_name, nullptr, infill_apply, nullptr, llama_sampler_clone_ctx<sampler_infill, &llama_sampler_infill_i>,
    llama_sampler_free_ctx<sampler_infill>);

struct llama_sampler * llama_sampler_init_infill(const struct llama_vocab * vocab) {
    if (vocab == nullptr) {
        LLAMA_SAMPLER_FAIL("vocab is NULL");
        return nullptr;
    }
    return llama_sampler_make<sampler_infill>(&llama_sampler_infill_i, {vocab});
}
