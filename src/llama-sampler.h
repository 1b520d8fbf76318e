// Sampler chain and the built-in samplers (internal view).
//
// A sampler is a C vtable (llama_sampler_i) plus an opaque ctx, exactly as in llama.h, so user
// samplers and built-in ones mix freely in a chain. The code is split in three files:
//   llama-sampler.cpp          the generic calls, the chain, perf counters, greedy and dist
//   llama-sampler-filters.cpp  top-k, top-p, min-p, typical, temp, temp-ext, penalties, logit-bias
//   llama-sampler-sample.cpp   llama_sampler_sample (the only part that needs a llama_context)
//   llama-sampler-mirostat.cpp xtc, top-n-sigma, mirostat v1/v2, adaptive-p
//   llama-sampler-dry.cpp      DRY;  llama-sampler-infill.cpp  infill
//   llama-sampler-grammar.cpp  grammar and lazy grammar (on llama-grammar*.cpp)
// The helpers below are shared by those files and reachable by tests through llama-internal.
#pragma once

#include <cstdint>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "llama-log.h"
#include "llama.h"

// A failed call: sets the last-error string and logs "<function>: <message>" (no trailing newline).
#define LLAMA_SAMPLER_FAIL(...) llama_report_error(__func__, llama_format(__VA_ARGS__).c_str())

// The chain owns its members: it frees them when it is freed, and clones them when it is cloned.
struct llama_sampler_chain {
    llama_sampler_chain_params params;

    std::vector<llama_sampler *> samplers;

    // perf counters (kept only when !params.no_perf): time spent in apply/accept, and accepted tokens
    int64_t t_sample_us = 0;
    int32_t n_sample    = 0;
};

// llama_sampler_init for the library's own vtables, which are const (llama.h takes a non-const
// iface, as llama.cpp does; the library never writes through it).
inline llama_sampler * llama_sampler_init(const llama_sampler_i * iface, llama_sampler_context_t ctx) {
    return llama_sampler_init(const_cast<llama_sampler_i *>(iface), ctx);
}

// The vtable of a built-in sampler: the six calls given; the graph-side hooks and copy_state NULL.
constexpr llama_sampler_i llama_sampler_iface(const char * (*name_fn)(const llama_sampler *),
                                              void (*accept_fn)(llama_sampler *, llama_token),
                                              void (*apply_fn)(llama_sampler *, llama_token_data_array *),
                                              void (*reset_fn)(llama_sampler *),
                                              llama_sampler * (*clone_fn)(const llama_sampler *),
                                              void (*free_fn)(llama_sampler *)) {
    return {name_fn, accept_fn, apply_fn, reset_fn, clone_fn, free_fn,
            nullptr, nullptr,   nullptr,  nullptr,  nullptr,  nullptr};
}

// Wraps ctx (allocated with new) in a sampler on iface; deletes ctx when that fails.
template <typename CTX>
llama_sampler * llama_sampler_wrap(const llama_sampler_i * iface, CTX * ctx) {
    llama_sampler * smpl = llama_sampler_init(iface, ctx);
    if (smpl == nullptr) {
        delete ctx;
    }
    return smpl;
}

// A new sampler on iface whose ctx is a heap copy of value; nullptr (error set) when out of memory.
template <typename CTX>
llama_sampler * llama_sampler_make(const llama_sampler_i * iface, const CTX & value) {
    CTX * ctx = new (std::nothrow) CTX(value);
    if (ctx == nullptr) {
        LLAMA_SAMPLER_FAIL("out of memory");
        return nullptr;
    }
    return llama_sampler_wrap(iface, ctx);
}

// free and clone for a sampler whose ctx is one copyable struct CTX: clone copy-constructs the whole
// ctx (rng and running values included), so clones are independent.
template <typename CTX>
void llama_sampler_free_ctx(llama_sampler * smpl) {
    delete (CTX *) smpl->ctx;
}

template <typename CTX, const llama_sampler_i * IFACE>
llama_sampler * llama_sampler_clone_ctx(const llama_sampler * smpl) {
    return llama_sampler_make<CTX>(IFACE, *(const CTX *) smpl->ctx);
}

// True when smpl is a chain created by llama_sampler_chain_init.
bool llama_sampler_is_chain(const llama_sampler * smpl);

// Orders candidates by logit, highest first; NaN sorts as -inf and ties break on the lower token id,
// so every sort in the samplers is a strict weak order and deterministic.
bool llama_token_data_greater(const llama_token_data & a, const llama_token_data & b);

// Fills p with softmax(logit); sorts first (highest logit first) when do_sort and not yet sorted.
// NaN logits count as -inf; all -inf gives a uniform distribution; +inf logits share all the mass.
void llama_sampler_softmax_impl(llama_token_data_array * cur_p, bool do_sort);

// Index of the highest logit (first on ties, NaN never wins unless all are NaN); -1 if empty.
int64_t llama_sampler_argmax_impl(const llama_token_data_array * cur_p);

// temperature <= 0 (or NaN) keeps only the highest logit (the others become -inf); else logit /= t.
void llama_sampler_temp_impl(llama_token_data_array * cur_p, float temp);

// Draws an index with probability proportional to data[i].p (p <= 0 never wins unless all are);
// -1 if empty. One 32-bit draw from rng, so streams are identical on every standard library.
int64_t llama_sampler_draw_impl(const llama_token_data_array * cur_p, std::mt19937 & rng);

// The seed as given by the caller; LLAMA_DEFAULT_SEED becomes a random one.
uint32_t llama_sampler_resolve_seed(uint32_t seed);

// The seed in use if smpl is one of the seeded samplers of llama-sampler-mirostat.cpp (xtc,
// mirostat v1/v2, adaptive-p): sets *seed and returns true.
bool llama_sampler_seed_of(const llama_sampler * smpl, uint32_t * seed);

// The text of token id (llama_token_to_piece with no lstrip, of any length); "" when it fails.
std::string llama_sampler_token_piece(const llama_vocab * vocab, llama_token id, bool special);

// Microseconds from a monotonic clock (perf counters).
int64_t llama_sampler_time_us();
