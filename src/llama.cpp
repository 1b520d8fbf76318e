// Entry points of libllama: backend init, default parameters, model loading, process-wide
// queries. Logging and the last-error string live in llama-log.cpp, below every other file.
#include "llama.h"
#include "llama-cparams.h"
#include "llama-log.h"
#include "llama-mmap.h"
#include "llama-model-loader.h"
#include "llama-model.h"

#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

// ---- defaults ----------------------------------------------------------------------------------

struct llama_model_params llama_model_default_params(void) {
    llama_model_params p          = {};
    p.devices                     = nullptr;
    p.tensor_buft_overrides       = nullptr;
    p.n_gpu_layers                = -1;
    p.split_mode                  = LLAMA_SPLIT_MODE_LAYER;
    p.load_mode                   = LLAMA_LOAD_MODE_AUTO;
    p.main_gpu                    = 0;
    p.tensor_split                = nullptr;
    p.progress_callback           = nullptr;
    p.progress_callback_user_data = nullptr;
    p.kv_overrides                = nullptr;
    p.vocab_only                  = false;
    p.check_tensors               = false;
    p.use_extra_bufts             = true;
    p.no_host                     = false;
    p.no_alloc                    = false;
    p.load_mtp                    = false;
    return p;
}

struct llama_context_params llama_context_default_params(void) {
    const int32_t        n_threads = ggml_cpu_default_n_threads();
    llama_context_params p         = {};
    p.n_ctx                        = 512;
    p.n_batch                      = 2048;
    p.n_ubatch                     = 512;
    p.n_seq_max                    = 1;
    p.n_rs_seq                     = 0;
    p.n_outputs_max                = 0;
    p.n_outputs_max_per_seq        = 1;
    p.n_threads                    = n_threads;
    p.n_threads_batch              = n_threads;
    p.ctx_type                     = LLAMA_CONTEXT_TYPE_DEFAULT;
    p.rope_scaling_type            = LLAMA_ROPE_SCALING_TYPE_UNSPECIFIED;
    p.pooling_type                 = LLAMA_POOLING_TYPE_UNSPECIFIED;
    p.attention_type               = LLAMA_ATTENTION_TYPE_UNSPECIFIED;
    p.flash_attn_type              = LLAMA_FLASH_ATTN_TYPE_AUTO;
    p.rope_freq_base               = 0.0f;
    p.rope_freq_scale              = 0.0f;
    p.yarn_ext_factor              = -1.0f;
    p.yarn_attn_factor             = -1.0f;
    p.yarn_beta_fast               = -1.0f;
    p.yarn_beta_slow               = -1.0f;
    p.yarn_orig_ctx                = 0;
    p.defrag_thold                 = -1.0f;
    p.cb_eval                      = nullptr;
    p.cb_eval_user_data            = nullptr;
    p.type_k                       = GGML_TYPE_F16;
    p.type_v                       = GGML_TYPE_F16;
    p.abort_callback               = nullptr;
    p.abort_callback_data          = nullptr;
    p.embeddings                   = false;
    p.offload_kqv                  = true;
    p.no_perf                      = true;
    p.op_offload                   = true;
    p.swa_full                     = true;
    p.kv_unified                   = false;
    p.samplers                     = nullptr;
    p.n_samplers                   = 0;
    p.ctx_other                    = nullptr;
    return p;
}

// ---- backend and process-wide queries --------------------------------------------------------------

void llama_backend_init(void) {
    // the registry registers the compiled-in backends on first use; touching it here makes that
    // happen at a predictable time rather than inside the first model load
    (void) ggml_backend_reg_count();
}

void llama_backend_free(void) {}

int64_t llama_time_us(void) {
    using namespace std::chrono;
    return duration_cast<microseconds>(steady_clock::now().time_since_epoch()).count();
}

size_t llama_max_devices(void) {
    return 16;
}

size_t llama_max_parallel_sequences(void) {
    return LLAMA_MAX_SEQ;
}

bool llama_supports_mmap(void) {
    return llama_mmap::supported();
}

bool llama_supports_mlock(void) {
    return llama_mlock::supported();
}

bool llama_supports_gpu_offload(void) {
    for (size_t i = 0; i < ggml_backend_dev_count(); i++) {
        const enum ggml_backend_dev_type t = ggml_backend_dev_type(ggml_backend_dev_get(i));
        if (t == GGML_BACKEND_DEVICE_TYPE_GPU || t == GGML_BACKEND_DEVICE_TYPE_IGPU) {
            return true;
        }
    }
    return false;
}

bool llama_supports_rpc(void) {
    return false;
}

const char * llama_print_system_info(void) {
    thread_local std::string s;  // per thread: concurrent callers must not rebuild one string
    s = llama_format(
        "libllama %s | CPU : AVX2 = %d | FMA = %d | F16C = %d | AVX512 = %d | AVX512_VNNI = %d | "
        "AVX512_BF16 = %d | NEON = %d | DOTPROD = %d | FP16_VA = %d | MATMUL_INT8 = %d | SVE = %d | threads = %u "
        "(default %d) | backends =",
        llama_version(), ggml_cpu_has_avx2(), ggml_cpu_has_fma(), ggml_cpu_has_f16c(), ggml_cpu_has_avx512(),
        ggml_cpu_has_avx512_vnni(), ggml_cpu_has_avx512_bf16(), ggml_cpu_has_neon(), ggml_cpu_has_dotprod(),
        ggml_cpu_has_fp16_va(), ggml_cpu_has_matmul_int8(), ggml_cpu_has_sve(), std::thread::hardware_concurrency(),
        ggml_cpu_default_n_threads());
    for (size_t i = 0; i < ggml_backend_reg_count(); i++) {
        s += " ";
        s += ggml_backend_reg_name(ggml_backend_reg_get(i));
    }
    return s.c_str();
}

#define LLAMA_STR2(x) #x
#define LLAMA_STR(x)  LLAMA_STR2(x)

const char * llama_version(void) {
    return LLAMA_STR(LLAMA_VERSION_MAJOR) "." LLAMA_STR(LLAMA_VERSION_MINOR) "." LLAMA_STR(LLAMA_VERSION_PATCH);
}

int32_t llama_abi_version(void) {
    return LLAMA_ABI_VERSION;
}

// ---- model loading -----------------------------------------------------------------------------

static llama_model * load_guarded(const char * fn, const std::vector<std::string> & paths,
                                  const llama_model_params & params) {
    return llama_api_guard(fn, (llama_model *) nullptr,
                           [&]() -> llama_model * { return llama_model_load_impl(paths, params); });
}

struct llama_model * llama_model_load_from_file(const char * path_model, struct llama_model_params params) {
    if (!path_model) {
        llama_report_error(__func__, "path is NULL");
        return nullptr;
    }
    return load_guarded(__func__, {path_model}, params);
}

struct llama_model * llama_model_load_from_splits(const char ** paths, size_t n_paths,
                                                  struct llama_model_params params) {
    if (!paths || n_paths == 0) {
        llama_report_error(__func__, "no paths given");
        return nullptr;
    }
    std::vector<std::string> v;
    for (size_t i = 0; i < n_paths; i++) {
        if (!paths[i]) {
            llama_report_error(__func__, "a path is NULL");
            return nullptr;
        }
        v.emplace_back(paths[i]);
    }
    return load_guarded(__func__, v, params);
}

void llama_model_free(struct llama_model * model) {
    delete model;
}

int32_t llama_split_path(char * split_path, size_t maxlen, const char * path_prefix, int32_t split_no,
                         int32_t split_count) {
    if (!split_path || !path_prefix || split_no < 0 || split_count <= 0 || split_no >= split_count) {
        return 0;
    }
    const int n = snprintf(split_path, maxlen, "%s-%05d-of-%05d.gguf", path_prefix, split_no + 1, split_count);
    return n > 0 ? (int32_t) n : 0;
}

int32_t llama_split_prefix(char * split_prefix, size_t maxlen, const char * split_path, int32_t split_no,
                           int32_t split_count) {
    if (!split_prefix || !split_path || split_no < 0 || split_count <= 0) {
        return 0;
    }
    char tail[64];
    snprintf(tail, sizeof(tail), "-%05d-of-%05d.gguf", split_no + 1, split_count);
    const size_t n = strlen(split_path), tl = strlen(tail);
    if (n <= tl || strcmp(split_path + n - tl, tail) != 0) {
        return 0;
    }
    const size_t plen = n - tl;
    if (maxlen > 0) {
        snprintf(split_prefix, std::min(maxlen, plen + 1), "%s", split_path);
    }
    return (int32_t) plen;
}
