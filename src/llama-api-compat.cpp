// The parts of llama.h kept for compatibility with llama.cpp's API: deprecated names, enum
// names, queries of features this library does not have (answered with their documented value),
// and the training entry points, which fail cleanly. See docs/abi.md.
#include "ggml-os.h"
#include "llama-context.h"
#include "llama-log.h"
#include "llama-model.h"

#include "ggml-cpu.h"

#include <cstdio>
#include <cstring>

// ---- enum names --------------------------------------------------------------------------------

// An enum argument as an int without loading it as the enum type: callers through the C ABI may
// pass any value, and an out-of-range enum load is undefined behaviour.
template <typename E>
static int enum_value(const E & e) {
    int v = 0;
    static_assert(sizeof(E) == sizeof(int), "enum size");
    std::memcpy(&v, &e, sizeof(v));
    return v;
}

const char * llama_ftype_name(enum llama_ftype ftype_arg) {
    const int ftype = enum_value(ftype_arg);
    // the GUESSED flag may be or-ed into a real type
    if (ftype & LLAMA_FTYPE_GUESSED) {
        if (ftype == LLAMA_FTYPE_GUESSED) {
            return "unknown (guessed)";
        }
        static thread_local char buf[64];
        snprintf(buf, sizeof(buf), "%s (guessed)", llama_ftype_name((llama_ftype) (ftype & ~LLAMA_FTYPE_GUESSED)));
        return buf;
    }
    switch (ftype) {
        case LLAMA_FTYPE_ALL_F32:
            return "all F32";
        case LLAMA_FTYPE_MOSTLY_IQ2_XXS:
            return "IQ2_XXS - 2.0625 bpw";
        case LLAMA_FTYPE_MOSTLY_IQ2_XS:
            return "IQ2_XS - 2.3125 bpw";
        case LLAMA_FTYPE_MOSTLY_Q2_K_S:
            return "Q2_K - Small";
        case LLAMA_FTYPE_MOSTLY_IQ3_XS:
            return "IQ3_XS - 3.3 bpw";
        case LLAMA_FTYPE_MOSTLY_IQ3_XXS:
            return "IQ3_XXS - 3.0625 bpw";
        case LLAMA_FTYPE_MOSTLY_IQ1_S:
            return "IQ1_S - 1.5625 bpw";
        case LLAMA_FTYPE_MOSTLY_IQ3_S:
            return "IQ3_S - 3.4375 bpw";
        case LLAMA_FTYPE_MOSTLY_IQ3_M:
            return "IQ3_S mix - 3.66 bpw";
        case LLAMA_FTYPE_MOSTLY_IQ2_S:
            return "IQ2_S - 2.5 bpw";
        case LLAMA_FTYPE_MOSTLY_IQ2_M:
            return "IQ2_M - 2.7 bpw";
        case LLAMA_FTYPE_MOSTLY_IQ1_M:
            return "IQ1_M - 1.75 bpw";
        case LLAMA_FTYPE_MOSTLY_MXFP4_MOE:
            return "MXFP4 MoE";
        case LLAMA_FTYPE_MOSTLY_NVFP4:
            return "NVFP4";
        case LLAMA_FTYPE_MOSTLY_Q1_0:
            return "Q1_0";
        case LLAMA_FTYPE_MOSTLY_Q2_0:
            return "Q2_0";
        default: {
            if (ftype < 0 || ftype > LLAMA_FTYPE_MOSTLY_Q2_0) {
                return "unknown, may not work";
            }
            const char * n = llama_model_ftype_name((llama_ftype) ftype);
            return std::strcmp(n, "unknown") == 0 ? "unknown, may not work" : n;
        }
    }
}

const char * llama_flash_attn_type_name(enum llama_flash_attn_type t) {
    switch (enum_value(t)) {
        case LLAMA_FLASH_ATTN_TYPE_AUTO:
            return "auto";
        case LLAMA_FLASH_ATTN_TYPE_DISABLED:
            return "disabled";
        case LLAMA_FLASH_ATTN_TYPE_ENABLED:
            return "enabled";
    }
    return "unknown";
}

static const struct {
    llama_load_mode mode;
    const char *    name;
} k_load_modes[] = {
    {LLAMA_LOAD_MODE_AUTO, "auto"},
    {LLAMA_LOAD_MODE_NONE, "none"},
    {LLAMA_LOAD_MODE_MMAP, "mmap"},
    {LLAMA_LOAD_MODE_MLOCK, "mlock"},
    {LLAMA_LOAD_MODE_MMAP_MLOCK, "mmap+mlock"},
    {LLAMA_LOAD_MODE_DIRECT_IO, "dio"},
};

const char * llama_load_mode_name(enum llama_load_mode mode) {
    for (const auto & m : k_load_modes) {
        if (m.mode == enum_value(mode)) {
            return m.name;
        }
    }
    return "unknown";
}

enum llama_load_mode llama_load_mode_from_str(const char * str) {
    for (const auto & m : k_load_modes) {
        if (str && std::strcmp(str, m.name) == 0) {
            return m.mode;
        }
    }
    llama_set_last_error(llama_format("llama_load_mode_from_str: unknown load mode '%s'", str ? str : "(null)"));
    return LLAMA_LOAD_MODE_AUTO;
}

const char * llama_model_meta_key_str(enum llama_model_meta_key key) {
    switch (enum_value(key)) {
        case LLAMA_MODEL_META_KEY_SAMPLING_SEQUENCE:
            return llm_kv_key(LLM_KV_GENERAL_SAMPLING_SEQUENCE);
        case LLAMA_MODEL_META_KEY_SAMPLING_TOP_K:
            return llm_kv_key(LLM_KV_GENERAL_SAMPLING_TOP_K);
        case LLAMA_MODEL_META_KEY_SAMPLING_TOP_P:
            return llm_kv_key(LLM_KV_GENERAL_SAMPLING_TOP_P);
        case LLAMA_MODEL_META_KEY_SAMPLING_MIN_P:
            return llm_kv_key(LLM_KV_GENERAL_SAMPLING_MIN_P);
        case LLAMA_MODEL_META_KEY_SAMPLING_XTC_PROBABILITY:
            return llm_kv_key(LLM_KV_GENERAL_SAMPLING_XTC_PROBABILITY);
        case LLAMA_MODEL_META_KEY_SAMPLING_XTC_THRESHOLD:
            return llm_kv_key(LLM_KV_GENERAL_SAMPLING_XTC_THRESHOLD);
        case LLAMA_MODEL_META_KEY_SAMPLING_TEMP:
            return llm_kv_key(LLM_KV_GENERAL_SAMPLING_TEMP);
        case LLAMA_MODEL_META_KEY_SAMPLING_PENALTY_LAST_N:
            return llm_kv_key(LLM_KV_GENERAL_SAMPLING_PENALTY_LAST_N);
        case LLAMA_MODEL_META_KEY_SAMPLING_PENALTY_REPEAT:
            return llm_kv_key(LLM_KV_GENERAL_SAMPLING_PENALTY_REPEAT);
        case LLAMA_MODEL_META_KEY_SAMPLING_MIROSTAT:
            return llm_kv_key(LLM_KV_GENERAL_SAMPLING_MIROSTAT);
        case LLAMA_MODEL_META_KEY_SAMPLING_MIROSTAT_TAU:
            return llm_kv_key(LLM_KV_GENERAL_SAMPLING_MIROSTAT_TAU);
        case LLAMA_MODEL_META_KEY_SAMPLING_MIROSTAT_ETA:
            return llm_kv_key(LLM_KV_GENERAL_SAMPLING_MIROSTAT_ETA);
    }
    return nullptr;
}

// ---- process-wide ------------------------------------------------------------------------------

size_t llama_max_tensor_buft_overrides(void) {
    return 4096;
}

void llama_numa_init(enum ggml_numa_strategy numa) {
    ggml_numa_init(numa);  // accepted; the CPU backend does not place threads per node
}

// ---- model queries -----------------------------------------------------------------------------

int32_t llama_model_n_embd_inp(const struct llama_model * model) {
    return llama_model_n_embd(model);
}
int32_t llama_model_n_embd_out(const struct llama_model * model) {
    return model ? (int32_t) model->hparams.n_embd_out() : 0;
}
int32_t llama_model_n_layer_nextn(const struct llama_model * model) {
    return model ? (int32_t) model->hparams.n_layer_nextn : 0;
}
const char * llama_model_cls_label(const struct llama_model * model, uint32_t i) {
    return model && i < model->cls_labels.size() ? model->cls_labels[i].c_str() : nullptr;
}
enum llama_ftype llama_model_ftype(const struct llama_model * model) {
    return model ? model->ftype : LLAMA_FTYPE_GUESSED;
}
bool llama_model_is_diffusion(const struct llama_model * model) {
    (void) model;
    return false;
}

const llama_token * llama_vocab_get_suppress_tokens(const struct llama_vocab * vocab, int32_t * n_suppress_tokens) {
    const bool any = vocab && !vocab->suppress_tokens.empty();
    if (n_suppress_tokens) {
        *n_suppress_tokens = any ? (int32_t) vocab->suppress_tokens.size() : 0;
    }
    return any ? vocab->suppress_tokens.data() : nullptr;
}

// ---- context queries ---------------------------------------------------------------------------

uint32_t llama_n_ctx_seq(const struct llama_context * ctx) {
    return llama_n_ctx(ctx);  // one cache shared by all sequences: each may use all of it
}
uint32_t llama_n_rs_seq(const struct llama_context * ctx) {
    (void) ctx;
    return 0;
}

// ---- deprecated names --------------------------------------------------------------------------

// the definitions below call the current names; the deprecation warnings are for callers only
#if defined(__GNUC__)
#    pragma GCC diagnostic push
#    pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

struct llama_model * llama_load_model_from_file(const char * path_model, struct llama_model_params params) {
    return llama_model_load_from_file(path_model, params);
}
void llama_free_model(struct llama_model * model) {
    llama_model_free(model);
}
struct llama_context * llama_new_context_with_model(struct llama_model * model, struct llama_context_params params) {
    return llama_init_from_model(model, params);
}
int32_t llama_n_ctx_train(const struct llama_model * model) {
    return llama_model_n_ctx_train(model);
}
int32_t llama_n_embd(const struct llama_model * model) {
    return llama_model_n_embd(model);
}
int32_t llama_n_layer(const struct llama_model * model) {
    return llama_model_n_layer(model);
}
int32_t llama_n_head(const struct llama_model * model) {
    return llama_model_n_head(model);
}
int32_t llama_n_vocab(const struct llama_vocab * vocab) {
    return llama_vocab_n_tokens(vocab);
}

const char * llama_token_get_text(const struct llama_vocab * vocab, llama_token token) {
    return llama_vocab_get_text(vocab, token);
}
float llama_token_get_score(const struct llama_vocab * vocab, llama_token token) {
    return llama_vocab_get_score(vocab, token);
}
enum llama_token_attr llama_token_get_attr(const struct llama_vocab * vocab, llama_token token) {
    return llama_vocab_get_attr(vocab, token);
}
bool llama_token_is_eog(const struct llama_vocab * vocab, llama_token token) {
    return llama_vocab_is_eog(vocab, token);
}
bool llama_token_is_control(const struct llama_vocab * vocab, llama_token token) {
    return llama_vocab_is_control(vocab, token);
}
llama_token llama_token_bos(const struct llama_vocab * vocab) {
    return llama_vocab_bos(vocab);
}
llama_token llama_token_eos(const struct llama_vocab * vocab) {
    return llama_vocab_eos(vocab);
}
llama_token llama_token_eot(const struct llama_vocab * vocab) {
    return llama_vocab_eot(vocab);
}
llama_token llama_token_cls(const struct llama_vocab * vocab) {
    return llama_vocab_bos(vocab);  // llama.cpp: CLS is BOS
}
llama_token llama_vocab_cls(const struct llama_vocab * vocab) {
    return llama_vocab_bos(vocab);
}
llama_token llama_token_sep(const struct llama_vocab * vocab) {
    return llama_vocab_sep(vocab);
}
llama_token llama_token_nl(const struct llama_vocab * vocab) {
    return llama_vocab_nl(vocab);
}
llama_token llama_token_pad(const struct llama_vocab * vocab) {
    return llama_vocab_pad(vocab);
}
bool llama_add_bos_token(const struct llama_vocab * vocab) {
    return llama_vocab_get_add_bos(vocab);
}
bool llama_add_eos_token(const struct llama_vocab * vocab) {
    return llama_vocab_get_add_eos(vocab);
}
llama_token llama_token_fim_pre(const struct llama_vocab * vocab) {
    return llama_vocab_fim_pre(vocab);
}
llama_token llama_token_fim_suf(const struct llama_vocab * vocab) {
    return llama_vocab_fim_suf(vocab);
}
llama_token llama_token_fim_mid(const struct llama_vocab * vocab) {
    return llama_vocab_fim_mid(vocab);
}
llama_token llama_token_fim_pad(const struct llama_vocab * vocab) {
    return llama_vocab_fim_pad(vocab);
}
llama_token llama_token_fim_rep(const struct llama_vocab * vocab) {
    return llama_vocab_fim_rep(vocab);
}
llama_token llama_token_fim_sep(const struct llama_vocab * vocab) {
    return llama_vocab_fim_sep(vocab);
}

#if defined(__GNUC__)
#    pragma GCC diagnostic pop
#endif

// ---- model from other sources ------------------------------------------------------------------

struct llama_model * llama_model_load_from_file_ptr(FILE * file, struct llama_model_params params) {
    if (!file) {
        llama_report_error(__func__, "file is NULL");
        return nullptr;
    }
    // the loader works on paths: the platform layer names the stream's file (Linux /proc/self/fd,
    // macOS F_GETPATH, Windows GetFinalPathNameByHandle)
    char path[4096];
    if (ggml_os_stdio_path(file, path, sizeof(path)) != GGML_OS_OK) {
        llama_report_error(__func__,
                           llama_format("cannot name the file behind the stream: %s", ggml_os_error()).c_str());
        return nullptr;
    }
    return llama_model_load_from_file(path, params);
}

struct llama_model * llama_model_init_from_user(struct gguf_context *         metadata,
                                                llama_model_set_tensor_data_t set_tensor_data,
                                                void * set_tensor_data_ud, struct llama_model_params params) {
    (void) metadata;
    (void) set_tensor_data;
    (void) set_tensor_data_ud;
    (void) params;
    llama_report_error(__func__, "building a model from user metadata is not supported (load a GGUF file)");
    return nullptr;
}

// ---- training: not supported -------------------------------------------------------------------

bool llama_opt_param_filter_all(const struct ggml_tensor * tensor, void * userdata) {
    (void) tensor;
    (void) userdata;
    return true;
}

void llama_opt_init(struct llama_context * lctx, struct llama_model * model, struct llama_opt_params lopt_params) {
    (void) lctx;
    (void) model;
    (void) lopt_params;
    llama_report_error(__func__, "training is not supported by this library");
}

void llama_opt_epoch(struct llama_context * lctx, ggml_opt_dataset_t dataset, ggml_opt_result_t result_train,
                     ggml_opt_result_t result_eval, int64_t idata_split, ggml_opt_epoch_callback callback_train,
                     ggml_opt_epoch_callback callback_eval) {
    (void) lctx;
    (void) dataset;
    (void) result_train;
    (void) result_eval;
    (void) idata_split;
    (void) callback_train;
    (void) callback_eval;
    llama_report_error(__func__, "training is not supported by this library");
}
