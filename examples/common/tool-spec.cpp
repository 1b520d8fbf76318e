#include "tool-spec.h"

#include "arg-llama.h"
#include "tool-model.h"

namespace tool {

namespace {

// The pair behind grammar_chain_sampler: it refers to the caller's grammar and chain; its clones (the
// draft model drafts with one) own theirs.
struct grammar_chain {
    llama_sampler * grmr;
    llama_sampler * chain;
    bool            owned;
};

grammar_chain & gc_of(const llama_sampler * s) {
    return *static_cast<grammar_chain *>(s->ctx);
}

llama_sampler * gc_make(llama_sampler * grmr, llama_sampler * chain, bool owned);

llama_sampler_i gc_iface() {
    llama_sampler_i i{};
    i.name   = [](const llama_sampler *) { return "grammar+chain"; };
    i.accept = [](llama_sampler * s, llama_token t) {
        llama_sampler_accept(gc_of(s).grmr, t);
        llama_sampler_accept(gc_of(s).chain, t);
    };
    i.apply = [](llama_sampler * s, llama_token_data_array * cur) {
        llama_sampler_apply(gc_of(s).grmr, cur);
        llama_sampler_apply(gc_of(s).chain, cur);
    };
    i.reset = [](llama_sampler * s) {
        llama_sampler_reset(gc_of(s).grmr);
        llama_sampler_reset(gc_of(s).chain);
    };
    i.clone = [](const llama_sampler * s) -> llama_sampler * {
        llama_sampler * g = llama_sampler_clone(gc_of(s).grmr);
        llama_sampler * c = llama_sampler_clone(gc_of(s).chain);
        if (g == nullptr || c == nullptr) {
            llama_sampler_free(g);
            llama_sampler_free(c);
            return nullptr;  // the drafter then drafts greedily
        }
        return gc_make(g, c, true);
    };
    i.free = [](llama_sampler * s) {
        grammar_chain * g = static_cast<grammar_chain *>(s->ctx);
        if (g->owned) {
            llama_sampler_free(g->grmr);
            llama_sampler_free(g->chain);
        }
        delete g;
    };
    return i;
}

llama_sampler_i k_gc_iface = gc_iface();

llama_sampler * gc_make(llama_sampler * grmr, llama_sampler * chain, bool owned) {
    return llama_sampler_init(&k_gc_iface, new grammar_chain{grmr, chain, owned});
}

}  // namespace

llama_sampler * grammar_chain_sampler(llama_sampler * grmr, llama_sampler * chain) {
    return gc_make(grmr, chain, false);
}

speculative::~speculative() {
    close();
}

void speculative::close() {
    llama_spec_free(spec_);
    llama_free(ctx_);
    llama_model_free(model_);
    spec_  = nullptr;
    ctx_   = nullptr;
    model_ = nullptr;
}

bool speculative::start(const params & p, llama_context * tgt, int n_seq, std::string & why) {
    const std::string type = p.spec.type.empty() ? (p.spec.model.empty() ? "none" : "draft") : p.spec.type;
    if (type == "none") {
        return true;
    }
    llama_spec_params sp = llama_spec_default_params();
    if (llama_spec_type_from_name(type.c_str(), &sp.type) != 0) {
        why = llama_last_error();
        return false;
    }
    sp.n_draft_max = p.spec.n_max;
    sp.n_draft_min = p.spec.n_min;
    sp.p_min       = p.spec.p_min;
    sp.seed        = p.sampling.seed;
    if (sp.n_draft_min > sp.n_draft_max) {
        why =
            "--draft-min " + std::to_string(sp.n_draft_min) + " is above --draft-max " + std::to_string(sp.n_draft_max);
        return false;
    }
    if (sp.type == LLAMA_SPEC_TYPE_DRAFT) {
        if (p.spec.model.empty()) {
            why = "--spec-type draft-simple needs a draft model (-md FNAME)";
            return false;
        }
        // the target's options with the draft's own where given
        params dp = p;
        if (!p.spec.devices.empty()) {
            dp.devices = p.spec.devices;
        }
        dp.type_k          = p.spec.type_k != GGML_TYPE_COUNT ? p.spec.type_k : p.type_k;
        dp.type_v          = p.spec.type_v != GGML_TYPE_COUNT ? p.spec.type_v : p.type_v;
        dp.n_threads       = p.spec.n_threads > 0 ? p.spec.n_threads : p.n_threads;
        dp.n_threads_batch = p.spec.n_threads_batch > 0 ? p.spec.n_threads_batch
                             : p.spec.n_threads > 0     ? p.spec.n_threads
                                                        : p.n_threads_batch;
        model_storage      store;
        llama_model_params mp;
        if (!model_params(dp, mp, store, why)) {
            if (!p.spec.devices.empty() && why.rfind("-dev:", 0) == 0) {
                why = "-devd" + why.substr(4);
            }
            return false;
        }
        mp.n_gpu_layers = p.spec.n_gpu_layers;
        model_          = load_model(p.spec.model, false, mp);
        if (!model_) {
            why = "cannot load the draft model " + p.spec.model;
            return false;
        }
        llama_context_params cp = context_params(dp, n_seq);
        cp.n_ctx                = p.spec.n_ctx > 0 ? (uint32_t) p.spec.n_ctx : llama_n_ctx(tgt);
        ctx_                    = new_context(model_, cp);
        if (!ctx_) {
            why = "cannot create the draft context";
            return false;
        }
    }
    spec_ = llama_spec_init(tgt, ctx_, sp);
    if (!spec_) {
        why = llama_last_error();
        return false;
    }
    sp_   = sp;
    type_ = type;
    return true;
}

void speculative::print_stats(FILE * out) const {
    llama_spec_stats st;
    if (spec_ == nullptr || llama_spec_stats_get(spec_, &st) != 0) {
        return;
    }
    const double rate = st.n_drafted > 0 ? 100.0 * (double) st.n_accepted / (double) st.n_drafted : 0.0;
    fprintf(out, "speculative: %lld drafted, %lld accepted (%.1f%%), %lld steps, %lld tokens emitted\n",
            (long long) st.n_drafted, (long long) st.n_accepted, rate, (long long) st.n_steps,
            (long long) st.n_emitted);
}

}  // namespace tool
