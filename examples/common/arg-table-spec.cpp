// The rows of the option table (arg-table.h) for speculative decoding, taken by llama-cli and llama-server: the draft
// model and its placement, draft lengths, the draft probability cut-off and the drafter type (docs/speculative.md).
// Spellings and LLAMA_ARG_* names are upstream's.
#include <cstdlib>
#include <stdexcept>

#include "arg-table.h"

namespace tool {

namespace {

using names_t = std::vector<std::string>;

// both tools speculate (llama-server with one draft context shared by its slots)
option spec_row(names_t names, const char * vn, const char * env, value_kind kind, double lo, double hi,
                const char * help, void (*set)(params &, const arg_value &)) {
    return {std::move(names), {}, vn, env, TOOL_BOTH, kind, lo, hi, help, set};
}

// upstream's --spec-type names (common/speculative.cpp) that this build does not implement
const char * const k_unsupported_types[] = {"draft-eagle3",  "draft-dflash", "draft-dspark", "ngram-map-k",
                                            "ngram-map-k4v", "ngram-mod",    "ngram-cache"};

// One --spec-type name to ours ("none", "draft", "ngram", "mtp"); upstream accepts a comma-separated list,
// of which this build takes one drafter.
std::string spec_type(const std::string & v) {
    if (v.find(',') != std::string::npos) {
        throw std::invalid_argument("one type only (this build runs one drafter): " + v);
    }
    if (v == "none") {
        return "none";
    }
    if (v == "draft-simple" || v == "draft") {
        return "draft";
    }
    if (v == "ngram" || v == "ngram-simple") {
        return "ngram";
    }
    if (v == "mtp" || v == "draft-mtp") {
        return "mtp";
    }
    for (const char * u : k_unsupported_types) {
        if (v == u) {
            throw std::invalid_argument("'" + v +
                                        "' is a llama.cpp type this build does not support "
                                        "(supported: none, draft-simple, ngram, mtp)");
        }
    }
    throw std::invalid_argument("unknown type '" + v + "' (supported: none, draft-simple, ngram, mtp)");
}

}  // namespace

std::vector<option> build_spec_rows() {
    std::vector<option> t;
    t.push_back(spec_row({"-md", "--model-draft", "--spec-draft-model"}, "FNAME", "LLAMA_ARG_SPEC_DRAFT_MODEL",
                         value_kind::text, 0, 0,
                         "draft model for speculative decoding, sharing the model's vocabulary (default: unused)",
                         [](params & p, const arg_value & v) { p.spec.model = v.text; }));
    t.push_back(spec_row({"--spec-type"}, "{none,draft-simple,ngram,mtp}", "LLAMA_ARG_SPEC_TYPE", value_kind::text, 0,
                         0,
                         "drafter: draft-simple (the -md model; the default with -md), ngram (lookup in the "
                         "text so far; also ngram-simple), mtp (the model's own NextN head, qwen35; also "
                         "draft-mtp; loads it) or none",
                         [](params & p, const arg_value & v) { p.spec.type = spec_type(v.text); }));
    t.push_back(spec_row({"--draft-max", "--draft", "--draft-n", "--spec-draft-n-max"}, "N", "LLAMA_ARG_DRAFT_MAX",
                         value_kind::integer, 1, LLAMA_SPEC_DRAFT_MAX, "most tokens drafted per step (default 16)",
                         [](params & p, const arg_value & v) { p.spec.n_max = (int32_t) v.i; }));
    t.push_back(spec_row({"--draft-min", "--draft-n-min", "--spec-draft-n-min"}, "N", "LLAMA_ARG_DRAFT_MIN",
                         value_kind::integer, 0, LLAMA_SPEC_DRAFT_MAX, "a shorter draft is not verified (default 0)",
                         [](params & p, const arg_value & v) { p.spec.n_min = (int32_t) v.i; }));
    t.push_back(spec_row({"--draft-p-min", "--spec-draft-p-min"}, "P", "LLAMA_ARG_SPEC_DRAFT_P_MIN", value_kind::number,
                         0, 1, "drafting stops at a token the draft model gives less than P (default 0.75)",
                         [](params & p, const arg_value & v) { p.spec.p_min = (float) v.f; }));
    t.push_back(spec_row({"-ngld", "--gpu-layers-draft", "--n-gpu-layers-draft", "--spec-draft-ngl"}, "N",
                         "LLAMA_ARG_N_GPU_LAYERS_DRAFT", value_kind::text, 0, 0,
                         "draft model layers to store in GPU memory: a number, 'auto' or 'all' (default: auto)",
                         [](params & p, const arg_value & v) {
                             if (v.text == "auto" || v.text == "all") {
                                 p.spec.n_gpu_layers = -1;
                                 return;
                             }
                             char *     end = nullptr;
                             const long n   = strtol(v.text.c_str(), &end, 10);
                             if (v.text.empty() || *end != '\0' || n < -1 || n > (1 << 20)) {
                                 throw std::invalid_argument("expected a number in [-1, 1048576], 'auto' or 'all'");
                             }
                             p.spec.n_gpu_layers = (int32_t) n;
                         }));
    t.push_back(spec_row({"-cd", "--ctx-size-draft"}, "N", "LLAMA_ARG_CTX_SIZE_DRAFT", value_kind::integer, 0, 1 << 22,
                         "context size of the draft model, 0 = the model's context size (default 0)",
                         [](params & p, const arg_value & v) {
                             if (v.i != 0 && v.i < 16) {
                                 throw std::invalid_argument("expected 0 (the model's) or at least 16");
                             }
                             p.spec.n_ctx = (int32_t) v.i;
                         }));
    t.push_back(spec_row({"-devd", "--device-draft"}, "DEV1,DEV2,...", "LLAMA_ARG_DEVICE_DRAFT", value_kind::text, 0, 0,
                         "devices the draft model offloads to, as -dev (default: the model's)",
                         [](params & p, const arg_value & v) {
                             p.spec.devices = split(v.text, ",");
                             if (p.spec.devices.empty()) {
                                 throw std::invalid_argument("expected device names or none");
                             }
                         }));
    t.push_back(spec_row({"-ctkd", "--cache-type-k-draft"}, "TYPE", "LLAMA_ARG_CACHE_TYPE_K_DRAFT", value_kind::text, 0,
                         0, "KV cache type of the draft model's K, as -ctk (default: -ctk's)",
                         [](params & p, const arg_value & v) { p.spec.type_k = cache_type(v.text); }));
    t.push_back(spec_row({"-ctvd", "--cache-type-v-draft"}, "TYPE", "LLAMA_ARG_CACHE_TYPE_V_DRAFT", value_kind::text, 0,
                         0, "KV cache type of the draft model's V, as -ctv (default: -ctv's)",
                         [](params & p, const arg_value & v) { p.spec.type_v = cache_type(v.text); }));
    t.push_back(spec_row({"-td", "--threads-draft"}, "N", "", value_kind::integer, -1, 512,
                         "CPU threads of the draft model; <= 0 = as -t (default)",
                         [](params & p, const arg_value & v) { p.spec.n_threads = v.i <= 0 ? 0 : (int32_t) v.i; }));
    t.push_back(
        spec_row({"-tbd", "--threads-batch-draft"}, "N", "", value_kind::integer, -1, 512,
                 "CPU threads of the draft model for prompts; <= 0 = as -td (default)",
                 [](params & p, const arg_value & v) { p.spec.n_threads_batch = v.i <= 0 ? 0 : (int32_t) v.i; }));
    return t;
}

}  // namespace tool
