#include "server-spec.h"

#include "arg-llama.h"
#include "tool-model.h"

namespace server {

speculative::~speculative() {
    close();
}

void speculative::close() {
    llama_spec_free(cfg_.spec);
    llama_free(ctx_);
    llama_model_free(model_);
    cfg_.spec = nullptr;
    ctx_      = nullptr;
    model_    = nullptr;
}

bool speculative::start(const tool::params & p, llama_context * tgt, int n_slots, std::string & why) {
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
        tool::model_storage store;
        llama_model_params  mp;
        if (!tool::model_params(p, mp, store, why)) {
            return false;
        }
        mp.n_gpu_layers = p.spec.n_gpu_layers;
        model_          = tool::load_model(p.spec.model, false, mp);
        if (!model_) {
            why = "cannot load the draft model " + p.spec.model;
            return false;
        }
        // one draft sequence per slot, laid out as the target's (unified or split by -np)
        llama_context_params cp = tool::context_params(p, n_slots);
        cp.n_ctx                = p.spec.n_ctx > 0 ? (uint32_t) p.spec.n_ctx : llama_n_ctx(tgt);
        ctx_                    = tool::new_context(model_, cp);
        if (!ctx_) {
            why = "cannot create the draft context";
            return false;
        }
    }
    cfg_.spec = llama_spec_init(tgt, ctx_, sp);
    if (!cfg_.spec) {
        why = llama_last_error();
        return false;
    }
    cfg_.n_max = sp.n_draft_max;
    cfg_.n_min = sp.n_draft_min;
    cfg_.p_min = sp.p_min;
    cfg_.type  = type;
    return true;
}

}  // namespace server
