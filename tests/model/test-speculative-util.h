// Helpers of the speculative decoding tests (test-speculative*.cpp): models, contexts, a plain
// greedy reference run and a speculative run of the same prompt.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../../examples/gguf-synth/gguf-synth.h"
#include "llama.h"
#include "test-common.h"
#include "test-llama-util.h"
#include "test-synth-model.h"

namespace spec_test {

using namespace llama_test_util;

struct spec_deleter {
    void operator()(llama_spec * s) const { llama_spec_free(s); }
};
using spec_ptr = std::unique_ptr<llama_spec, spec_deleter>;

struct sampler_deleter {
    void operator()(llama_sampler * s) const { llama_sampler_free(s); }
};
using sampler_ptr = std::unique_ptr<llama_sampler, sampler_deleter>;

inline void quiet_log(ggml_log_level, const char *, void *) {}

inline model_ptr load(const std::string & path) {
    llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers       = 0;
    return model_ptr(llama_model_load_from_file(path.c_str(), mp));
}

inline ctx_ptr make_ctx(llama_model * m, int n_seq = 1, int n_ctx = 512) {
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx                = (uint32_t) n_ctx;
    cp.n_batch              = (uint32_t) n_ctx;
    cp.n_ubatch             = (uint32_t) n_ctx;
    cp.n_seq_max            = (uint32_t) n_seq;
    cp.n_threads            = 2;
    cp.n_threads_batch      = 2;
    return ctx_ptr(llama_init_from_model(m, cp));
}

// A micro synthetic model of arch (seeded as the shared micro models) in weight type t.
inline synth::params micro(const std::string & arch, ggml_type t, uint64_t seed = 42) {
    synth::params p;
    synth::apply_preset("micro", p);
    p.arch      = arch;
    p.type      = t;
    p.seed      = seed;
    p.n_threads = 2;
    return p;
}

inline int argmax_row(llama_context * ctx, int32_t i) {
    const int     nv = llama_vocab_n_tokens(llama_model_get_vocab(llama_get_model(ctx)));
    const float * lg = llama_get_logits_ith(ctx, i);
    return lg ? argmax(lg, nv) : -1;
}

// Decodes toks into seq at positions pos0.. (logits for the last one); false on failure.
inline bool decode(llama_context * ctx, const std::vector<llama_token> & toks, llama_pos pos0, llama_seq_id seq = 0) {
    owned_batch b((int) toks.size());
    for (size_t i = 0; i < toks.size(); i++) {
        b.add(toks[i], pos0 + (llama_pos) i, {seq}, i + 1 == toks.size());
    }
    return llama_decode(ctx, b.b) == 0;
}

// Plain greedy decoding: n tokens after prompt, one decode per token.
inline std::vector<llama_token> plain_greedy(llama_context * ctx, const std::vector<llama_token> & prompt, int n,
                                             llama_seq_id seq = 0) {
    std::vector<llama_token> out;
    EXPECT_TRUE(decode(ctx, prompt, 0, seq));
    llama_pos pos = (llama_pos) prompt.size();
    for (int i = 0; i < n; i++) {
        const llama_token t = argmax_row(ctx, -1);
        out.push_back(t);
        if (i + 1 < n) {
            EXPECT_TRUE(decode(ctx, {t}, pos++, seq));
        }
    }
    return out;
}

// Speculative greedy decoding of the same: prompt prefilled, first token greedy, then steps.
inline std::vector<llama_token> spec_greedy(llama_spec * spec, llama_context * tgt,
                                            const std::vector<llama_token> & prompt, int n, llama_seq_id seq = 0) {
    std::vector<llama_token> out;
    EXPECT_TRUE(decode(tgt, prompt, 0, seq));
    EXPECT_EQ(llama_spec_seq_begin(spec, seq, prompt.data(), (int32_t) prompt.size()), 0) << llama_last_error();
    llama_token              last = argmax_row(tgt, -1);
    std::vector<llama_token> buf(LLAMA_SPEC_DRAFT_MAX + 1);
    out.push_back(last);
    while ((int) out.size() < n) {
        llama_spec_seq s  = {seq, last, nullptr, buf.data(), 0, 0, 0, 0, 0.0f, 0};
        const int32_t  rc = llama_spec_step(spec, &s, 1);
        EXPECT_EQ(rc, 0) << llama_last_error();
        if (rc != 0 || s.n_out < 1) {
            break;
        }
        out.insert(out.end(), buf.begin(), buf.begin() + s.n_out);
        last = buf[(size_t) s.n_out - 1];
    }
    out.resize((size_t) std::min((int) out.size(), n));
    return out;
}

// Prefills prompts[s] into sequence s of tgt and begins it in spec, then steps all sequences together
// (one llama_spec_step each time, greedy) until each has n tokens; returns each sequence's first n
// (the first greedy token included). Failures are recorded.
inline std::vector<std::vector<llama_token>> spec_greedy_seqs(llama_spec * spec, llama_context * tgt,
                                                              const std::vector<std::vector<llama_token>> & prompts,
                                                              size_t                                        n) {
    std::vector<std::vector<llama_token>> got(prompts.size());
    std::vector<llama_token>              last(prompts.size());
    for (size_t s = 0; s < prompts.size(); s++) {
        if (!decode(tgt, prompts[s], 0, (llama_seq_id) s) ||
            llama_spec_seq_begin(spec, (llama_seq_id) s, prompts[s].data(), (int32_t) prompts[s].size()) != 0) {
            ADD_FAILURE() << "sequence " << s << ": " << llama_last_error();
            return got;
        }
        last[s] = argmax_row(tgt, -1);
        got[s].push_back(last[s]);
    }
    std::vector<std::vector<llama_token>> bufs(prompts.size(), std::vector<llama_token>(LLAMA_SPEC_DRAFT_MAX + 1));
    auto                                  short_of = [&]() {
        return std::any_of(got.begin(), got.end(), [&](const std::vector<llama_token> & g) { return g.size() < n; });
    };
    while (short_of()) {
        std::vector<llama_spec_seq> seqs;
        for (size_t s = 0; s < prompts.size(); s++) {
            seqs.push_back({(llama_seq_id) s, last[s], nullptr, bufs[s].data(), 0, 0, 0, 0, 0.0f, 0});
        }
        if (llama_spec_step(spec, seqs.data(), (int32_t) seqs.size()) != 0) {
            ADD_FAILURE() << llama_last_error();
            return got;
        }
        for (size_t s = 0; s < prompts.size(); s++) {
            got[s].insert(got[s].end(), bufs[s].begin(), bufs[s].begin() + seqs[s].n_out);
            last[s] = got[s].back();
        }
    }
    for (auto & g : got) {
        g.resize(n);
    }
    return got;
}

// Parameters that draft n tokens every step: no probability cut and no adaptive length, so that a
// drafter whose tokens get rejected keeps proposing and every step exercises the rollback.
inline llama_spec_params fixed_draft_params(int n, llama_spec_type type = LLAMA_SPEC_TYPE_DRAFT) {
    llama_spec_params sp = llama_spec_default_params();
    sp.type              = type;
    sp.n_draft_max       = n;
    sp.p_min             = 0.0f;
    sp.adaptive          = false;
    return sp;
}

// Prefills prompt into sequence 0 of tgt, begins the sequence in spec and returns the first greedy token
// in last; then runs n_steps greedy steps of sequence 0, appending each step's input token and kept
// drafts to hist (which starts as the prompt) and moving last to the step's last emitted token. After
// each step calls check(step, s, emitted) if given. Returns the number of steps that rejected a draft
// (-1 after a failure, recorded).
inline int spec_run_steps(
    llama_spec * spec, llama_context * tgt, const std::vector<llama_token> & prompt, int n_steps,
    std::vector<llama_token> & hist, llama_token & last,
    const std::function<void(int, const llama_spec_seq &, const std::vector<llama_token> &)> & check = {}) {
    hist = prompt;
    if (!decode(tgt, prompt, 0)) {
        ADD_FAILURE() << "prefill: " << llama_last_error();
        return -1;
    }
    if (llama_spec_seq_begin(spec, 0, prompt.data(), (int32_t) prompt.size()) != 0) {
        ADD_FAILURE() << "seq_begin: " << llama_last_error();
        return -1;
    }
    last = argmax_row(tgt, -1);
    std::vector<llama_token> buf(LLAMA_SPEC_DRAFT_MAX + 1);
    int                      n_rejections = 0;
    for (int step = 0; step < n_steps; step++) {
        llama_spec_seq s = {0, last, nullptr, buf.data(), 0, 0, 0, 0, 0.0f, 0};
        if (llama_spec_step(spec, &s, 1) != 0 || s.n_out < 1) {
            ADD_FAILURE() << "step " << step << ": " << llama_last_error();
            return -1;
        }
        n_rejections += s.n_out - 1 < s.n_drafted;
        hist.push_back(last);
        hist.insert(hist.end(), buf.begin(), buf.begin() + s.n_out - 1);
        last = buf[(size_t) s.n_out - 1];
        if (check) {
            check(step, s, std::vector<llama_token>(buf.begin(), buf.begin() + s.n_out));
        }
    }
    return n_rejections;
}

constexpr int k_n_gen = 48;  // tokens each greedy comparison generates

// Runs plain greedy once, then speculative greedy for each draft length, and compares.
inline void check_lengths(llama_model * tgt, llama_model * dft, llama_spec_type type,
                          const std::vector<llama_token> & prompt, bool expect_accepts) {
    ctx_ptr                        ref        = make_ctx(tgt);
    const std::vector<llama_token> want       = plain_greedy(ref.get(), prompt, k_n_gen);
    int64_t                        n_accepted = 0;
    for (int n_draft = 1; n_draft <= 16; n_draft++) {
        ctx_ptr           ct = make_ctx(tgt);
        ctx_ptr           cd = dft ? make_ctx(dft) : nullptr;
        llama_spec_params sp = fixed_draft_params(n_draft, type);  // the identity must hold whatever is drafted
        sp.ngram_min         = 1;
        spec_ptr spec(llama_spec_init(ct.get(), cd.get(), sp));
        ASSERT_NE(spec, nullptr) << llama_last_error();
        const std::vector<llama_token> got = spec_greedy(spec.get(), ct.get(), prompt, k_n_gen);
        EXPECT_EQ(got, want) << "n_draft_max " << n_draft;
        llama_spec_stats st;
        ASSERT_EQ(llama_spec_stats_get(spec.get(), &st), 0);
        EXPECT_LE(st.n_accepted, st.n_drafted);
        n_accepted += st.n_accepted;
    }
    if (expect_accepts) {
        EXPECT_GT(n_accepted, 0) << "the drafter never had a token accepted";
    }
}

// Decodes last at position hist.size() in ct, and checks that its logits equal those of a fresh
// context of model that decoded hist followed by last (a cache or state rolled back to hist holds
// nothing of what was undone).
inline void expect_continues_like_fresh(llama_context * ct, llama_model * model, const std::vector<llama_token> & hist,
                                        llama_token last) {
    ASSERT_TRUE(decode(ct, {last}, (llama_pos) hist.size()));
    ctx_ptr                  fresh = make_ctx(model);
    std::vector<llama_token> all   = hist;
    all.push_back(last);
    ASSERT_TRUE(decode(fresh.get(), all, 0));
    const int     nv = llama_vocab_n_tokens(llama_model_get_vocab(model));
    const float * a  = llama_get_logits_ith(ct, -1);
    const float * b  = llama_get_logits_ith(fresh.get(), -1);
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_LT(max_err_rel_rms(a, b, nv), 1e-3);
    EXPECT_EQ(argmax(a, nv), argmax(b, nv));
}

}  // namespace spec_test
