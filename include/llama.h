/*
 * llama.h — the public C API of libllama.
 *
 * libllama loads a GGUF language model and runs it: tokenize text, decode batches of tokens into
 * logits, sample the next token, turn tokens back into text. This header is the whole contract;
 * it is plain C99 so any language can bind it.
 *
 * Compatibility: this header is binary-compatible with llama.cpp's llama.h at commit 4df29be4:
 * every function it declares exists here with the same signature, every struct has the same size
 * and field offsets, every enum the same values, and the same headers are included, so programs
 * and bindings built for it run against libllama unchanged (checked by tests/abi and the golden
 * tables of tests/data/abi; docs/abi.md). Features libllama lacks are declared too and fail as
 * documented at each function (NULL / false / an error code, with llama_last_error()), never abort.
 * Additions of ours are marked "(libllama)".
 *
 * Conventions
 *  - Errors: no function aborts or throws. A failing call returns NULL, false or a documented
 *    error code, sends the reason to the log callback (llama_log_set) and stores it in a
 *    thread-local string readable with llama_last_error().
 *  - Ownership: objects come in pairs (*_init / *_load_* with *_free). Pointers returned by
 *    query functions are owned by the object they were queried from and live as long as it.
 *  - Threads: a loaded model is immutable and may be shared by many contexts on many threads.
 *    A context (and the samplers used with it) must be used by one thread at a time. Everything
 *    else (llama_backend_init, loading models, tokenizing, llama_log_set) may be called from
 *    several threads at once; the log callback may then be called from several threads at once.
 *  - ABI: struct layouts and enum values are llama.cpp's; libllama's own additions are functions,
 *    never fields. Always start from the *_default_params() functions so every field gets its
 *    default.
 *
 * Typical use (see examples/simple):
 *   llama_backend_init();
 *   model = llama_model_load_from_file(path, llama_model_default_params());
 *   ctx   = llama_init_from_model(model, llama_context_default_params());
 *   n     = llama_tokenize(llama_model_get_vocab(model), text, len, toks, max, true, true);
 *   llama_decode(ctx, llama_batch_get_one(toks, n));
 *   tok   = llama_sampler_sample(sampler, ctx, -1);   ... feed tok back, repeat ...
 *   llama_free(ctx); llama_model_free(model); llama_backend_free();
 */
#ifndef LLAMA_H
#define LLAMA_H

/* The same headers as llama.cpp's llama.h, so a client relying on what they declare (FILE and
 * printf from stdio.h, the ggml types) compiles unchanged. */
#include "ggml.h"
#include "ggml-cpu.h"
#include "ggml-backend.h"
#include "ggml-opt.h"
#include "gguf.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdbool.h>

/* LLAMA_SHARED: libllama is a shared library (set by its CMake package for programs linking it). On
 * Windows the DLL exports (LLAMA_BUILD) or imports its functions. */
#if defined(_WIN32)
#    if defined(LLAMA_SHARED) && defined(LLAMA_BUILD)
#        define LLAMA_API __declspec(dllexport)
#    elif defined(LLAMA_SHARED)
#        define LLAMA_API __declspec(dllimport)
#    else
#        define LLAMA_API
#    endif
#else
/* the library is compiled with hidden visibility: only LLAMA_API symbols are exported */
#    define LLAMA_API __attribute__((visibility("default")))
#endif

#if defined(__GNUC__)
#    define LLAMA_DEPRECATED(func, hint) func __attribute__((deprecated(hint)))
#elif defined(_MSC_VER)
#    define LLAMA_DEPRECATED(func, hint) __declspec(deprecated(hint)) func
#else
#    define LLAMA_DEPRECATED(func, hint) func
#endif
/* llama.cpp's name of the same macro */
#ifndef DEPRECATED
#    define DEPRECATED(func, hint) LLAMA_DEPRECATED(func, hint)
#endif

/* (libllama) version of this header; llama_version() gives the library's at run time */
#define LLAMA_VERSION_MAJOR 0
#define LLAMA_VERSION_MINOR 1
#define LLAMA_VERSION_PATCH 0
/* (libllama) bumped whenever a change breaks binary compatibility */
#define LLAMA_ABI_VERSION 1

#define LLAMA_DEFAULT_SEED 0xFFFFFFFF
#define LLAMA_TOKEN_NULL   -1

/* llama.cpp's file magics, declared for source compatibility (LoRA "ggla", session "ggsn",
 * sequence state "ggsq"). libllama does not write files with them. */
#define LLAMA_FILE_MAGIC_GGLA 0x67676c61u
#define LLAMA_FILE_MAGIC_GGSN 0x6767736eu
#define LLAMA_FILE_MAGIC_GGSQ 0x67677371u

/* Session and sequence-state files (llama_state_save_file, llama_state_seq_save_file). The
 * magics are libllama's own: the files are not interchangeable with llama.cpp's (docs/state.md),
 * so these four macros keep libllama's values (the only macros whose values differ from
 * llama.cpp's; docs/abi.md). */
#define LLAMA_FILE_MAGIC_LLSN 0x6e736c6cu /* "llsn" as bytes: a whole-context session */
#define LLAMA_FILE_MAGIC_LLSQ 0x71736c6cu /* "llsq" as bytes: one sequence */
#define LLAMA_SESSION_MAGIC     LLAMA_FILE_MAGIC_LLSN
#define LLAMA_SESSION_VERSION   1
#define LLAMA_STATE_SEQ_MAGIC   LLAMA_FILE_MAGIC_LLSQ
#define LLAMA_STATE_SEQ_VERSION 1

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================
 * Opaque objects and scalar types
 * ========================================================================================== */

struct llama_vocab;   /* the tokenizer of a model; owned by the model */
struct llama_model;   /* weights + hyperparameters + vocab; immutable after load */
struct llama_context; /* per-session state: KV cache, compute buffers, outputs */
struct llama_sampler; /* a token sampler (see the sampler section) */

/* The memory of a context (its KV cache); owned by the context. */
typedef struct llama_memory_i * llama_memory_t;

typedef int32_t llama_pos;    /* position of a token in its sequence */
typedef int32_t llama_token;  /* token id, in [0, llama_vocab_n_tokens) */
typedef int32_t llama_seq_id; /* sequence id, in [0, n_seq_max) */

/* ============================================================================================
 * Enums
 * ========================================================================================== */

enum llama_vocab_type {
    LLAMA_VOCAB_TYPE_NONE = 0, /* no vocab */
    LLAMA_VOCAB_TYPE_SPM  = 1, /* SentencePiece BPE with byte fallback (llama) */
    LLAMA_VOCAB_TYPE_BPE  = 2, /* byte-level BPE (GPT-2) */
    LLAMA_VOCAB_TYPE_WPM  = 3, /* WordPiece (BERT) */
    LLAMA_VOCAB_TYPE_UGM  = 4, /* Unigram (T5) */
    LLAMA_VOCAB_TYPE_RWKV = 5, /* greedy trie (RWKV) */
    LLAMA_VOCAB_TYPE_PLAMO2 = 6, /* PLaMo-2 (not supported by this library: such vocabs fail to load) */
};

/* How positions are rotated into q and k (a property of the architecture). */
enum llama_rope_type {
    LLAMA_ROPE_TYPE_NONE = -1,
    LLAMA_ROPE_TYPE_NORM = 0,
    LLAMA_ROPE_TYPE_NEOX = GGML_ROPE_TYPE_NEOX,
    /* multi-section RoPE variants of vision-language models (no architecture here uses them) */
    LLAMA_ROPE_TYPE_MROPE  = GGML_ROPE_TYPE_MROPE,
    LLAMA_ROPE_TYPE_IMROPE = GGML_ROPE_TYPE_IMROPE,
    LLAMA_ROPE_TYPE_VISION = GGML_ROPE_TYPE_VISION,
};

/* The values of the GGUF key tokenizer.ggml.token_type. */
enum llama_token_type {
    LLAMA_TOKEN_TYPE_UNDEFINED    = 0,
    LLAMA_TOKEN_TYPE_NORMAL       = 1,
    LLAMA_TOKEN_TYPE_UNKNOWN      = 2,
    LLAMA_TOKEN_TYPE_CONTROL      = 3,
    LLAMA_TOKEN_TYPE_USER_DEFINED = 4,
    LLAMA_TOKEN_TYPE_UNUSED       = 5,
    LLAMA_TOKEN_TYPE_BYTE         = 6,
};

/* Per-token attributes (bit flags), derived from the token type and the special-token lists. */
enum llama_token_attr {
    LLAMA_TOKEN_ATTR_UNDEFINED    = 0,
    LLAMA_TOKEN_ATTR_UNKNOWN      = 1 << 0,
    LLAMA_TOKEN_ATTR_UNUSED       = 1 << 1,
    LLAMA_TOKEN_ATTR_NORMAL       = 1 << 2,
    LLAMA_TOKEN_ATTR_CONTROL      = 1 << 3,
    LLAMA_TOKEN_ATTR_USER_DEFINED = 1 << 4,
    LLAMA_TOKEN_ATTR_BYTE         = 1 << 5,
    LLAMA_TOKEN_ATTR_NORMALIZED   = 1 << 6,
    LLAMA_TOKEN_ATTR_LSTRIP       = 1 << 7,
    LLAMA_TOKEN_ATTR_RSTRIP       = 1 << 8,
    LLAMA_TOKEN_ATTR_SINGLE_WORD  = 1 << 9,
};

/* The weight type of a model file (GGUF key general.file_type). */
enum llama_ftype {
    LLAMA_FTYPE_ALL_F32       = 0,
    LLAMA_FTYPE_MOSTLY_F16    = 1,
    LLAMA_FTYPE_MOSTLY_Q4_0   = 2,
    LLAMA_FTYPE_MOSTLY_Q4_1   = 3,
    LLAMA_FTYPE_MOSTLY_Q8_0   = 7,
    LLAMA_FTYPE_MOSTLY_Q5_0   = 8,
    LLAMA_FTYPE_MOSTLY_Q5_1   = 9,
    LLAMA_FTYPE_MOSTLY_Q2_K   = 10,
    LLAMA_FTYPE_MOSTLY_Q3_K_S = 11,
    LLAMA_FTYPE_MOSTLY_Q3_K_M = 12,
    LLAMA_FTYPE_MOSTLY_Q3_K_L = 13,
    LLAMA_FTYPE_MOSTLY_Q4_K_S = 14,
    LLAMA_FTYPE_MOSTLY_Q4_K_M = 15,
    LLAMA_FTYPE_MOSTLY_Q5_K_S = 16,
    LLAMA_FTYPE_MOSTLY_Q5_K_M = 17,
    LLAMA_FTYPE_MOSTLY_Q6_K   = 18,
    /* 19..24, 26..29, 31 and 39..41: mixes this library cannot quantize to (the names exist so
     * files declaring them are described; llama_model_quantize rejects them). The i-quant types
     * themselves load and run on the CPU. */
    LLAMA_FTYPE_MOSTLY_IQ2_XXS = 19,
    LLAMA_FTYPE_MOSTLY_IQ2_XS  = 20,
    LLAMA_FTYPE_MOSTLY_Q2_K_S  = 21,
    LLAMA_FTYPE_MOSTLY_IQ3_XS  = 22,
    LLAMA_FTYPE_MOSTLY_IQ3_XXS = 23,
    LLAMA_FTYPE_MOSTLY_IQ1_S   = 24,
    LLAMA_FTYPE_MOSTLY_IQ4_NL  = 25,
    LLAMA_FTYPE_MOSTLY_IQ3_S   = 26,
    LLAMA_FTYPE_MOSTLY_IQ3_M   = 27,
    LLAMA_FTYPE_MOSTLY_IQ2_S   = 28,
    LLAMA_FTYPE_MOSTLY_IQ2_M   = 29,
    LLAMA_FTYPE_MOSTLY_IQ4_XS  = 30,
    LLAMA_FTYPE_MOSTLY_IQ1_M   = 31,
    LLAMA_FTYPE_MOSTLY_BF16    = 32,
    LLAMA_FTYPE_MOSTLY_TQ1_0   = 36,
    LLAMA_FTYPE_MOSTLY_TQ2_0   = 37,
    LLAMA_FTYPE_MOSTLY_MXFP4_MOE = 38, /* experts in MXFP4, the other weights in Q8_0 */
    LLAMA_FTYPE_MOSTLY_NVFP4     = 39,
    LLAMA_FTYPE_MOSTLY_Q1_0      = 40,
    LLAMA_FTYPE_MOSTLY_Q2_0      = 41,

    LLAMA_FTYPE_GUESSED = 1024, /* not in the file: guessed from the tensor types */
};

/* The name of a file type as llama.cpp prints it ("Q8_0", "Q4_K - Medium", "all F32"; the
 * GUESSED flag adds " (guessed)"). A static string; "unknown, may not work" for other values. */
LLAMA_API const char * llama_ftype_name(enum llama_ftype ftype);

enum llama_rope_scaling_type {
    LLAMA_ROPE_SCALING_TYPE_UNSPECIFIED = -1, /* use the model's */
    LLAMA_ROPE_SCALING_TYPE_NONE        = 0,
    LLAMA_ROPE_SCALING_TYPE_LINEAR      = 1,
    LLAMA_ROPE_SCALING_TYPE_YARN        = 2,
    LLAMA_ROPE_SCALING_TYPE_LONGROPE    = 3,
    LLAMA_ROPE_SCALING_TYPE_MAX_VALUE   = LLAMA_ROPE_SCALING_TYPE_LONGROPE,
};

/* How per-token embeddings are pooled into one per sequence (embeddings mode). */
enum llama_pooling_type {
    LLAMA_POOLING_TYPE_UNSPECIFIED = -1, /* use the model's */
    LLAMA_POOLING_TYPE_NONE        = 0,
    LLAMA_POOLING_TYPE_MEAN        = 1,
    LLAMA_POOLING_TYPE_CLS         = 2,
    LLAMA_POOLING_TYPE_LAST        = 3,
    LLAMA_POOLING_TYPE_RANK        = 4,
};

enum llama_attention_type {
    LLAMA_ATTENTION_TYPE_UNSPECIFIED = -1, /* use the model's (causal for generative models) */
    LLAMA_ATTENTION_TYPE_CAUSAL      = 0,
    LLAMA_ATTENTION_TYPE_NON_CAUSAL  = 1,
};

enum llama_flash_attn_type {
    LLAMA_FLASH_ATTN_TYPE_AUTO     = -1, /* enabled where every backend supports it */
    LLAMA_FLASH_ATTN_TYPE_DISABLED = 0,
    LLAMA_FLASH_ATTN_TYPE_ENABLED  = 1,
};

/* "auto", "disabled" or "enabled" (a static string); "unknown" for other values. */
LLAMA_API const char * llama_flash_attn_type_name(enum llama_flash_attn_type flash_attn_type);

/* How a model is spread over several GPUs. */
enum llama_split_mode {
    LLAMA_SPLIT_MODE_NONE  = 0, /* everything on main_gpu */
    LLAMA_SPLIT_MODE_LAYER = 1, /* whole layers per GPU, in the tensor_split proportions */
    LLAMA_SPLIT_MODE_ROW   = 2, /* rows of each weight split across GPUs (if supported) */
    LLAMA_SPLIT_MODE_TENSOR = 3, /* tensor parallelism (not supported: treated as LAYER) */
};

/* How the weights get from the file into memory (llama_model_params.load_mode). */
enum llama_load_mode {
    LLAMA_LOAD_MODE_AUTO       = -1, /* map the file where possible, falling back to plain reads
                                        where mmap is unavailable or fails (the default) */
    LLAMA_LOAD_MODE_NONE       = 0,  /* plain reads into an allocated buffer */
    LLAMA_LOAD_MODE_MMAP       = 1,  /* map the file; weights are used in place (fails if mmap does) */
    LLAMA_LOAD_MODE_MLOCK      = 2,  /* plain reads, then lock the buffer in RAM */
    LLAMA_LOAD_MODE_MMAP_MLOCK = 3,  /* map the file and lock the mapping in RAM */
    LLAMA_LOAD_MODE_DIRECT_IO  = 4,  /* direct I/O reads bypassing the page cache (best effort:
                                        falls back to plain reads where unsupported) */
};

/* "auto", "none", "mmap", "mlock", "mmap+mlock" or "dio" (a static string; "unknown" for other
 * values), and back: llama_load_mode_from_str returns LLAMA_LOAD_MODE_AUTO for NULL or an
 * unknown name (with the reason in llama_last_error()). */
LLAMA_API const char *         llama_load_mode_name(enum llama_load_mode load_mode);
LLAMA_API enum llama_load_mode llama_load_mode_from_str(const char * str);

/* The kind of context (llama_context_params.ctx_type). Only DEFAULT is supported: a context with
 * MTP (multi-token prediction) fails to be created. */
enum llama_context_type {
    LLAMA_CONTEXT_TYPE_DEFAULT = 0,
    LLAMA_CONTEXT_TYPE_MTP     = 1,
};

/* ============================================================================================
 * Token data, batches, parameters
 * ========================================================================================== */

/* One candidate token: id, raw logit and (after a softmax) probability p. */
typedef struct llama_token_data {
    llama_token id;
    float       logit;
    float       p;
} llama_token_data;

/* The candidates a sampler works on. `selected` is the index in data of the chosen token (-1 if
 * none); `sorted` says whether data is sorted by decreasing logit. The caller owns data. */
typedef struct llama_token_data_array {
    llama_token_data * data;
    size_t             size;
    int64_t            selected;
    bool               sorted;
} llama_token_data_array;

/* Called during model load with progress in [0, 1]; return false to cancel the load (the load
 * function then returns NULL). */
typedef bool (*llama_progress_callback)(float progress, void * user_data);

/*
 * Input of llama_decode: n_tokens tokens (or embedding vectors), each with
 *   token[i]     the token id (when embd is NULL)
 *   embd[i*n_embd ...] the input embedding (when token is NULL)
 *   pos[i]       its position in its sequence(s)              — NULL: filled automatically
 *   n_seq_id[i], seq_id[i][0..n_seq_id[i]) the sequences it belongs to — NULL: sequence 0
 *   logits[i]    non-zero to get its logits (or embeddings)   — NULL: only the last token
 * When pos is NULL, each token continues its sequence after the last position stored in the
 * context's memory (or 0 for an empty sequence).
 */
typedef struct llama_batch {
    int32_t n_tokens;

    llama_token *   token;
    float *         embd;
    llama_pos *     pos;
    int32_t *       n_seq_id;
    llama_seq_id ** seq_id;
    int8_t *        logits; /* named "logits" for compatibility: marks outputs (logits or embeddings) */
} llama_batch;

enum llama_model_kv_override_type {
    LLAMA_KV_OVERRIDE_TYPE_INT,
    LLAMA_KV_OVERRIDE_TYPE_FLOAT,
    LLAMA_KV_OVERRIDE_TYPE_BOOL,
    LLAMA_KV_OVERRIDE_TYPE_STR,
};

/* Sampling settings a model file may recommend (GGUF keys general.sampling.*), for
 * llama_model_meta_key_str. */
enum llama_model_meta_key {
    LLAMA_MODEL_META_KEY_SAMPLING_SEQUENCE,
    LLAMA_MODEL_META_KEY_SAMPLING_TOP_K,
    LLAMA_MODEL_META_KEY_SAMPLING_TOP_P,
    LLAMA_MODEL_META_KEY_SAMPLING_MIN_P,
    LLAMA_MODEL_META_KEY_SAMPLING_XTC_PROBABILITY,
    LLAMA_MODEL_META_KEY_SAMPLING_XTC_THRESHOLD,
    LLAMA_MODEL_META_KEY_SAMPLING_TEMP,
    LLAMA_MODEL_META_KEY_SAMPLING_PENALTY_LAST_N,
    LLAMA_MODEL_META_KEY_SAMPLING_PENALTY_REPEAT,
    LLAMA_MODEL_META_KEY_SAMPLING_MIROSTAT,
    LLAMA_MODEL_META_KEY_SAMPLING_MIROSTAT_TAU,
    LLAMA_MODEL_META_KEY_SAMPLING_MIROSTAT_ETA,
};

/* Replaces a metadata value of the model file at load time. An array of these ends with an
 * element whose key is the empty string. */
struct llama_model_kv_override {
    enum llama_model_kv_override_type tag;

    char key[128];

    /* anonymous for source compatibility with llama.cpp; __extension__ keeps C99 -pedantic quiet */
#if defined(__GNUC__)
    __extension__
#endif
    union {
        int64_t val_i64;
        double  val_f64;
        bool    val_bool;
        char    val_str[128];
    };
};

/* Places tensors whose name matches pattern (a regular expression) in buffer type buft. */
struct llama_model_tensor_buft_override {
    const char *               pattern;
    ggml_backend_buffer_type_t buft;
};

struct llama_model_params {
    /* devices to use, NULL-terminated; NULL = every GPU device found (none: CPU only) */
    ggml_backend_dev_t * devices;

    /* NULL-terminated list of buffer-type overrides (pattern NULL ends it); NULL = none */
    const struct llama_model_tensor_buft_override * tensor_buft_overrides;

    int32_t               n_gpu_layers; /* layers to store in GPU memory (<0 or > n_layer: all) */
    enum llama_split_mode split_mode;   /* how to split the model across several GPUs */
    enum llama_load_mode  load_mode;    /* how the weights are read (AUTO: mmap, else plain reads) */

    /* the GPU used for the whole model when split_mode is LLAMA_SPLIT_MODE_NONE */
    int32_t main_gpu;

    /* proportion of the model (layers or rows) per GPU; NULL = proportional to free memory */
    const float * tensor_split;

    /* called with progress in [0, 1]; returning false cancels the load */
    llama_progress_callback progress_callback;
    void *                  progress_callback_user_data;

    /* metadata overrides, terminated by an element with an empty key; NULL = none */
    const struct llama_model_kv_override * kv_overrides;

    bool vocab_only;      /* load only the vocabulary, no weights */
    bool check_tensors;   /* validate the weight data (NaN/Inf in float tensors) */
    bool use_extra_bufts; /* use extra (repacking) buffer types if available (default true): the CPU
                           * then stores Q4_0/Q8_0 matrices interleaved for its int8 kernels, read
                           * from the file instead of mapped (same memory, not a second copy) */
    bool no_host;         /* accepted and ignored (host buffers are used only where required) */
    bool no_alloc;        /* must be false: metadata-only loads are not supported (the load fails) */
    bool load_mtp;        /* must be false: no multi-token-prediction layers are loaded (fails) */
};

/* Attaches a sampler chain to sequence seq_id of a new context (llama_context_params.samplers). */
struct llama_sampler_seq_config {
    llama_seq_id           seq_id;
    struct llama_sampler * sampler; /* a chain (llama_sampler_chain_init); the caller keeps it alive */
};

struct llama_context_params {
    uint32_t n_ctx;           /* context size in tokens; 0 = the model's training length */
    uint32_t n_batch;         /* max tokens in one llama_decode call */
    uint32_t n_ubatch;        /* max tokens computed at once (a batch is split into ubatches) */
    uint32_t n_seq_max;       /* max distinct sequences (seq ids in [0, n_seq_max)) */
    uint32_t n_rs_seq;        /* recurrent-state snapshots per sequence; must be 0 (no recurrent cache) */
    uint32_t n_outputs_max;   /* accepted and ignored (outputs are sized per batch) */
    uint32_t n_outputs_max_per_seq; /* accepted and ignored */
    int32_t  n_threads;       /* threads for single-token decodes (generation) */
    int32_t  n_threads_batch; /* threads for multi-token decodes (prompt processing) */

    enum llama_context_type      ctx_type;          /* must be LLAMA_CONTEXT_TYPE_DEFAULT */
    enum llama_rope_scaling_type rope_scaling_type; /* UNSPECIFIED = the model's */
    enum llama_pooling_type      pooling_type;      /* embeddings pooling; UNSPECIFIED = the model's;
                                                     * RANK without a classifier head fails */
    enum llama_attention_type    attention_type;    /* UNSPECIFIED = the model's */
    enum llama_flash_attn_type   flash_attn_type;   /* fused attention kernel */

    /* RoPE and YaRN overrides; 0 (or < 0 where noted) = the model's value */
    float    rope_freq_base;
    float    rope_freq_scale;
    float    yarn_ext_factor;  /* < 0 = from the scaling type (1 for YaRN, else 0) */
    float    yarn_attn_factor; /* < 0 = the model's (1) */
    float    yarn_beta_fast;   /* < 0 = the model's (32) */
    float    yarn_beta_slow;   /* < 0 = the model's (1) */
    uint32_t yarn_orig_ctx;    /* 0 = the training context length */
    float    defrag_thold;     /* accepted and ignored (no defragmentation is needed) */

    /* called for graph nodes during compute, as by ggml_backend_sched_set_eval_callback: first
     * with ask = true (return true to see this node), then, after the nodes up to it were
     * computed, with ask = false and the computed tensor (return false to stop the decode, which
     * then returns 2 as if aborted). Per-node calls split the graph: expect slower decodes. */
    ggml_backend_sched_eval_callback cb_eval;
    void *                           cb_eval_user_data;

    enum ggml_type type_k; /* KV cache types (F16 default; F32, BF16, Q8_0 ... where supported) */
    enum ggml_type type_v;

    /* polled during decode (between graph nodes on the CPU, between ubatches everywhere);
     * returning true aborts it (llama_decode returns 2) */
    ggml_abort_callback abort_callback;
    void *              abort_callback_data;

    bool embeddings;  /* also extract embeddings (llama_get_embeddings*) */
    bool offload_kqv; /* keep the KV cache and attention on the GPU */
    bool no_perf;     /* do not measure timings */
    bool op_offload;  /* let GPU backends take host-weight ops for large batches */
    bool swa_full;    /* full-size cache for sliding-window layers (default true) */
    bool kv_unified;  /* accepted: one cache is always shared by all sequences */

    /* Backend sampling: a sampler chain per sequence, run on the logits of that sequence's
     * outputs right after every llama_decode (see llama_get_sampled_token_ith). NULL / 0: none.
     * The chains stay owned by the caller and must outlive the context. */
    struct llama_sampler_seq_config * samplers;
    size_t                            n_samplers;

    /* another context to share results with (llama.cpp's MTP drafts); must be NULL here */
    struct llama_context * ctx_other;
};

/* One chat turn for llama_chat_apply_template. */
typedef struct llama_chat_message {
    const char * role;
    const char * content;
} llama_chat_message;

typedef struct llama_logit_bias {
    llama_token token;
    float       bias;
} llama_logit_bias;

typedef struct llama_sampler_chain_params {
    bool no_perf; /* do not measure sampling time */
} llama_sampler_chain_params;

/* ============================================================================================
 * Defaults, backend, process-wide queries
 * ========================================================================================== */

/* Default parameters. Start from these and change only what you need. */
LLAMA_API struct llama_model_params         llama_model_default_params(void);
LLAMA_API struct llama_context_params       llama_context_default_params(void);
LLAMA_API struct llama_sampler_chain_params llama_sampler_chain_default_params(void);

/* Initializes the backends (registers the compute devices). Call once before anything else;
 * calling it again, also from several threads at once, is harmless. */
LLAMA_API void llama_backend_init(void);
/* Releases process-wide resources. Call once at the end, after freeing every model/context. */
LLAMA_API void llama_backend_free(void);

/* Microseconds from an arbitrary, fixed origin (monotonic). */
LLAMA_API int64_t llama_time_us(void);

LLAMA_API size_t llama_max_devices(void);            /* max GPU devices a model can use */
LLAMA_API size_t llama_max_parallel_sequences(void); /* max n_seq_max of a context */
/* Max entries of llama_model_params.tensor_buft_overrides (4096). */
LLAMA_API size_t llama_max_tensor_buft_overrides(void);

/* NUMA placement of the CPU threads. Accepted for compatibility and without effect: the CPU
 * backend does not pin threads to NUMA nodes (any strategy is fine, nothing fails). */
LLAMA_API void llama_numa_init(enum ggml_numa_strategy numa);

/* Makes the context compute on the CPU with the caller's thread pools (ggml_threadpool_new in
 * ggml-cpu.h): threadpool for single-token decodes, threadpool_batch (NULL: threadpool) for
 * larger batches; the pools' thread counts then replace n_threads / n_threads_batch. The pools
 * stay owned by the caller and must outlive the attachment. llama_detach_threadpool returns the
 * context to its own pools (with the n_threads values set before the attach). NULL ctx: no-op. */
LLAMA_API void llama_attach_threadpool(struct llama_context * ctx, ggml_threadpool_t threadpool,
                                       ggml_threadpool_t threadpool_batch);
LLAMA_API void llama_detach_threadpool(struct llama_context * ctx);

LLAMA_API bool llama_supports_mmap(void);        /* mapping model files is available */
LLAMA_API bool llama_supports_mlock(void);       /* locking memory is available */
LLAMA_API bool llama_supports_gpu_offload(void); /* a GPU device is registered */
LLAMA_API bool llama_supports_rpc(void);         /* always false: no RPC backend */

/* A one-line description of the build and the CPU features in use. Owned by the library; valid
 * until the next call on the same thread (each thread has its own copy). */
LLAMA_API const char * llama_print_system_info(void);

/* Installs the log callback for libllama AND ggml (NULL restores the default, which writes to
 * stderr). Thread-safe. The text passed to the callback usually ends with a newline. */
LLAMA_API void llama_log_set(ggml_log_callback log_callback, void * user_data);
/* The callback and user data installed by llama_log_set (the default callback, which writes to
 * stderr, if none was set). Either pointer may be NULL. */
LLAMA_API void llama_log_get(ggml_log_callback * log_callback, void ** user_data);

/* (libllama) The library version "MAJOR.MINOR.PATCH", and the ABI version (LLAMA_ABI_VERSION of
 * the built library; compare with the header's to detect a mismatched shared library). */
LLAMA_API const char * llama_version(void);
LLAMA_API int32_t      llama_abi_version(void);

/* (libllama) The reason of the last failed call on this thread ("" if none failed yet). The
 * string is owned by the library and valid until the next failing call on the same thread. */
LLAMA_API const char * llama_last_error(void);

/* ============================================================================================
 * Model
 * ========================================================================================== */

/* Loads a model from a GGUF file (the first split of a split model also works: the other parts
 * are found by their names, name-0000K-of-0000N.gguf). Returns NULL on failure (missing or corrupt
 * file, unknown architecture, missing tensor, wrong shape, out of memory, cancelled by the
 * progress callback) with the reason in llama_last_error(). Free with llama_model_free. */
LLAMA_API struct llama_model * llama_model_load_from_file(const char * path_model, struct llama_model_params params);

/* Loads a model split over several files, given in order. NULL on failure, as above. */
LLAMA_API struct llama_model * llama_model_load_from_splits(const char ** paths, size_t n_paths,
                                                           struct llama_model_params params);

/* Loads a model from an open FILE: the whole file it refers to (from its start, whatever the
 * FILE's position) as one GGUF file, with params.load_mode as for a path. The FILE stays the
 * caller's and is not closed or moved. Works where the OS can name the file behind a stream: Linux
 * (through /proc/self/fd, so an unlinked file loads too), macOS and Windows (by its current path);
 * elsewhere, and on any load failure, NULL with the reason in llama_last_error(). */
LLAMA_API struct llama_model * llama_model_load_from_file_ptr(FILE * file, struct llama_model_params params);

/* Called by llama_model_init_from_user for every weight: fill tensor->data (ggml_nbytes(tensor)
 * bytes, host memory) with its values. */
typedef void (*llama_model_set_tensor_data_t)(struct ggml_tensor * tensor, void * userdata);

/* llama.cpp builds a model from GGUF metadata plus a callback filling each weight. Not supported
 * here: always returns NULL with the reason in llama_last_error() (nothing is called back; metadata
 * stays the caller's). Write the GGUF file and load it instead. */
LLAMA_API struct llama_model * llama_model_init_from_user(struct gguf_context * metadata,
                                                         llama_model_set_tensor_data_t set_tensor_data,
                                                         void * set_tensor_data_ud, struct llama_model_params params);

/* Writes the model (metadata after overrides, and every weight in its current type, read back
 * from whichever device holds it) as one GGUF file. Failures (no weights: vocab_only; I/O error)
 * are reported through the log and llama_last_error(); no partial file is left behind. */
LLAMA_API void llama_model_save_to_file(const struct llama_model * model, const char * path_model);

/* Frees a model (NULL is a no-op). Every context created from it must be freed first. */
LLAMA_API void llama_model_free(struct llama_model * model);

/* Deprecated llama.cpp names of llama_model_load_from_file and llama_model_free. */
LLAMA_API LLAMA_DEPRECATED(struct llama_model * llama_load_model_from_file(const char * path_model,
                                                                           struct llama_model_params params),
                           "use llama_model_load_from_file instead");
LLAMA_API LLAMA_DEPRECATED(void llama_free_model(struct llama_model * model), "use llama_model_free instead");

/* The model's vocabulary, owned by the model. */
LLAMA_API const struct llama_vocab * llama_model_get_vocab(const struct llama_model * model);
LLAMA_API enum llama_rope_type       llama_model_rope_type(const struct llama_model * model);

LLAMA_API int32_t llama_model_n_ctx_train(const struct llama_model * model); /* training context length */
LLAMA_API int32_t llama_model_n_embd(const struct llama_model * model);      /* hidden size */
LLAMA_API int32_t llama_model_n_layer(const struct llama_model * model);     /* transformer blocks */
LLAMA_API int32_t llama_model_n_head(const struct llama_model * model);      /* attention heads */
LLAMA_API int32_t llama_model_n_head_kv(const struct llama_model * model);   /* K/V heads (GQA) */
LLAMA_API int32_t llama_model_n_swa(const struct llama_model * model);       /* sliding window, 0 = none */
LLAMA_API int32_t llama_model_n_embd_inp(const struct llama_model * model);  /* input embedding size (= n_embd) */
LLAMA_API int32_t llama_model_n_embd_out(const struct llama_model * model);  /* output embedding size (= n_embd) */
LLAMA_API int32_t llama_model_n_layer_nextn(const struct llama_model * model); /* NextN blocks, not run (glm4moe); else 0 */

/* Deprecated llama.cpp names: llama_model_n_ctx_train, _n_embd, _n_layer, _n_head and
 * llama_vocab_n_tokens. */
LLAMA_API LLAMA_DEPRECATED(int32_t llama_n_ctx_train(const struct llama_model * model), "use llama_model_n_ctx_train instead");
LLAMA_API LLAMA_DEPRECATED(int32_t llama_n_embd(const struct llama_model * model), "use llama_model_n_embd instead");
LLAMA_API LLAMA_DEPRECATED(int32_t llama_n_layer(const struct llama_model * model), "use llama_model_n_layer instead");
LLAMA_API LLAMA_DEPRECATED(int32_t llama_n_head(const struct llama_model * model), "use llama_model_n_head instead");
LLAMA_API LLAMA_DEPRECATED(int32_t llama_n_vocab(const struct llama_vocab * vocab), "use llama_vocab_n_tokens instead");

/* The RoPE frequency scale the model was trained with. */
LLAMA_API float llama_model_rope_freq_scale_train(const struct llama_model * model);

/* Metadata of the model file (after kv overrides). Values are formatted as strings (arrays as
 * "[a, b, ...]", truncated). The *_val_str / key functions copy into buf like snprintf: they
 * return the length of the full string (excluding the NUL), or -1 if the key/index does not
 * exist (buf then holds ""). */
LLAMA_API int32_t llama_model_meta_val_str(const struct llama_model * model, const char * key, char * buf,
                                           size_t buf_size);
LLAMA_API int32_t llama_model_meta_count(const struct llama_model * model);
/* The GGUF key of a llama_model_meta_key ("general.sampling.top_k", ...), a static string; NULL
 * for other values. */
LLAMA_API const char * llama_model_meta_key_str(enum llama_model_meta_key key);
LLAMA_API int32_t llama_model_meta_key_by_index(const struct llama_model * model, int32_t i, char * buf,
                                                size_t buf_size);
LLAMA_API int32_t llama_model_meta_val_str_by_index(const struct llama_model * model, int32_t i, char * buf,
                                                    size_t buf_size);

/* A short description, e.g. "llama 260K F32"; snprintf semantics, returns the full length. */
LLAMA_API int32_t llama_model_desc(const struct llama_model * model, char * buf, size_t buf_size);

/* The file type (general.file_type, else guessed from the weights with LLAMA_FTYPE_GUESSED set). */
LLAMA_API enum llama_ftype llama_model_ftype(const struct llama_model * model);

LLAMA_API uint64_t llama_model_size(const struct llama_model * model);     /* bytes of all weights */
LLAMA_API uint64_t llama_model_n_params(const struct llama_model * model); /* number of weights */

/* The chat template stored in the model (name NULL = the default one, else
 * tokenizer.chat_template.<name>), or NULL if it has none. Owned by the model. */
LLAMA_API const char * llama_model_chat_template(const struct llama_model * model, const char * name);

LLAMA_API bool        llama_model_has_encoder(const struct llama_model * model); /* encoder-decoder */
LLAMA_API bool        llama_model_has_decoder(const struct llama_model * model);
/* For encoder-decoder models, the token that starts decoding; LLAMA_TOKEN_NULL otherwise. */
LLAMA_API llama_token llama_model_decoder_start_token(const struct llama_model * model);
/* Whether every layer of the model carries a recurrent state instead of a KV cache (mamba2): its
 * sequences cannot drop a part of their history (llama_memory_seq_rm). */
LLAMA_API bool        llama_model_is_recurrent(const struct llama_model * model);
/* Whether some layers carry a recurrent state and some a KV cache (lfm2; falcon-h1, where every layer
 * has both); the same limit on llama_memory_seq_rm. */
LLAMA_API bool        llama_model_is_hybrid(const struct llama_model * model);
LLAMA_API bool        llama_model_is_diffusion(const struct llama_model * model); /* always false here */
/* Number of scores a classifier (reranker) model gives per sequence with pooling RANK: the rows
 * of its cls.output head (of cls where the head is cls alone, as jina-bert-v2 rerankers); 0 for a
 * model without a head. */
LLAMA_API uint32_t    llama_model_n_cls_out(const struct llama_model * model);
/* The label of classifier output i (GGUF key <arch>.classifier.output_labels), owned by the
 * model; NULL if i >= the number of labels or the model has none. */
LLAMA_API const char * llama_model_cls_label(const struct llama_model * model, uint32_t i);

/* Builds the path of split number split_no (0-based) of split_count: "<prefix>-%05d-of-%05d.gguf".
 * snprintf semantics; returns the length written, or 0 on bad arguments. */
LLAMA_API int32_t llama_split_path(char * split_path, size_t maxlen, const char * path_prefix, int32_t split_no,
                                   int32_t split_count);
/* Extracts the prefix from a split path if it matches split_no/split_count; returns its length,
 * or 0 if it does not match. */
LLAMA_API int32_t llama_split_prefix(char * split_prefix, size_t maxlen, const char * split_path, int32_t split_no,
                                     int32_t split_count);

/* ============================================================================================
 * Context
 * ========================================================================================== */

/* Creates a context for a model: resolves the parameters (n_ctx 0 = training length, rounded up
 * to a multiple of 256; n_batch and n_ubatch clamped), allocates the KV cache and reserves the
 * compute buffers for the worst-case batch. NULL on failure (reason in llama_last_error()).
 * The model must outlive the context. Free with llama_free. */
LLAMA_API struct llama_context * llama_init_from_model(struct llama_model * model, struct llama_context_params params);

LLAMA_API void llama_free(struct llama_context * ctx); /* NULL is a no-op */

/* Deprecated llama.cpp name of llama_init_from_model. */
LLAMA_API LLAMA_DEPRECATED(struct llama_context * llama_new_context_with_model(struct llama_model * model,
                                                                              struct llama_context_params params),
                           "use llama_init_from_model instead");

LLAMA_API uint32_t llama_n_ctx(const struct llama_context * ctx);     /* resolved context size */
LLAMA_API uint32_t llama_n_batch(const struct llama_context * ctx);   /* resolved max batch */
LLAMA_API uint32_t llama_n_ubatch(const struct llama_context * ctx);  /* resolved max ubatch */
LLAMA_API uint32_t llama_n_seq_max(const struct llama_context * ctx); /* max sequences */
/* The context size one sequence can use: n_ctx (the cache is shared by all sequences). */
LLAMA_API uint32_t llama_n_ctx_seq(const struct llama_context * ctx);
/* Recurrent-state snapshots per sequence: always 0 (no recurrent cache). */
LLAMA_API uint32_t llama_n_rs_seq(const struct llama_context * ctx);

LLAMA_API const struct llama_model * llama_get_model(const struct llama_context * ctx);
LLAMA_API enum llama_pooling_type    llama_pooling_type(const struct llama_context * ctx);

/* The context's memory (KV cache), owned by the context. */
LLAMA_API llama_memory_t llama_get_memory(const struct llama_context * ctx);

/* Threads used for single-token decodes (n_threads) and multi-token ones (n_threads_batch);
 * values < 1 become 1. */
LLAMA_API void    llama_set_n_threads(struct llama_context * ctx, int32_t n_threads, int32_t n_threads_batch);
LLAMA_API int32_t llama_n_threads(struct llama_context * ctx);
LLAMA_API int32_t llama_n_threads_batch(struct llama_context * ctx);

/* Extract embeddings too (or not) from now on. */
LLAMA_API void llama_set_embeddings(struct llama_context * ctx, bool embeddings);
/* Causal (true, default for generative models) or bidirectional attention from now on. */
LLAMA_API void llama_set_causal_attn(struct llama_context * ctx, bool causal_attn);
/* Marks warm-up runs (accepted; no effect on results). */
LLAMA_API void llama_set_warmup(struct llama_context * ctx, bool warmup);

/* The abort callback is polled during llama_decode; returning true aborts it (return code 2). */
LLAMA_API void llama_set_abort_callback(struct llama_context * ctx, ggml_abort_callback abort_callback,
                                        void * abort_callback_data);

/* Waits for pending computation to finish (llama_decode is synchronous here; this is a no-op
 * kept for compatibility). */
LLAMA_API void llama_synchronize(struct llama_context * ctx);

/* ============================================================================================
 * Memory (KV cache, or the recurrent state of a state-space model)
 *
 * A cell of the cache holds one token's K and V, its position and the set of sequences it belongs
 * to. A recurrent model (mamba2) holds instead one state per sequence (n_seq_max of them), the
 * result of all its tokens so far, with the position of its last token; the calls below act on
 * that state as described where they differ.
 * Position ranges are half-open [p0, p1); p0 < 0 means 0 and p1 < 0 means infinity.
 * seq_id < 0 means every sequence where stated. mem may be NULL (every call is then a no-op
 * returning false/-1).
 * ========================================================================================== */

/* Removes every cell; data == true also zeroes the K/V buffers. */
LLAMA_API void llama_memory_clear(llama_memory_t mem, bool data);

/* Removes sequence seq_id (any if < 0) from the cells with positions in [p0, p1). Returns false
 * only if a partial removal is impossible, true otherwise. A KV cache never refuses. A recurrent
 * state cannot be cut: a range covering the whole sequence empties it (its next token starts from
 * a zero state) and a range past its last position removes nothing (both true); a range that would
 * keep only part of the history (from the middle, or a tail starting after position 0) returns
 * false and leaves the state as it was, still usable. seq_id >= n_seq_max: false. */
LLAMA_API bool llama_memory_seq_rm(llama_memory_t mem, llama_seq_id seq_id, llama_pos p0, llama_pos p1);

/* Adds seq_id_dst to the cells of seq_id_src with positions in [p0, p1) (they are shared, not
 * copied). A recurrent model copies seq_id_src's whole state into seq_id_dst (the range is
 * ignored); ids outside [0, n_seq_max) do nothing. */
LLAMA_API void llama_memory_seq_cp(llama_memory_t mem, llama_seq_id seq_id_src, llama_seq_id seq_id_dst,
                                   llama_pos p0, llama_pos p1);

/* Removes every sequence except seq_id. */
LLAMA_API void llama_memory_seq_keep(llama_memory_t mem, llama_seq_id seq_id);

/* Adds delta to the positions of seq_id's cells in [p0, p1) (the K rotations are updated before
 * the next decode). Cells whose position becomes negative are removed. */
LLAMA_API void llama_memory_seq_add(llama_memory_t mem, llama_seq_id seq_id, llama_pos p0, llama_pos p1,
                                    llama_pos delta);

/* Divides the positions of seq_id's cells in [p0, p1) by d (> 1), rounding down. */
LLAMA_API void llama_memory_seq_div(llama_memory_t mem, llama_seq_id seq_id, llama_pos p0, llama_pos p1, int d);

/* Smallest / largest position stored for seq_id; -1 if the sequence is empty. A recurrent state
 * has only its last token's position: both return it. */
LLAMA_API llama_pos llama_memory_seq_pos_min(llama_memory_t mem, llama_seq_id seq_id);
LLAMA_API llama_pos llama_memory_seq_pos_max(llama_memory_t mem, llama_seq_id seq_id);

/* Whether positions can be shifted with seq_add/seq_div. */
LLAMA_API bool llama_memory_can_shift(llama_memory_t mem);

/* ============================================================================================
 * State / sessions
 *
 * The state of a context is what a later llama_decode depends on: the KV cells (positions,
 * sequence sets, pending position shifts) with their K/V data in the cache's own type, read from
 * whichever device holds each layer, and the outputs (logits, embeddings, batch-index map) of the
 * last decode, so llama_get_logits_ith works right after a restore. The context has no random
 * number generator (samplers own theirs). Format: docs/state.md.
 *
 * A state loads only into a context of the same model (architecture, n_layer, n_vocab, n_embd,
 * K/V row sizes) and the same KV cache types (type_k, type_v), whose cache has room for its cells;
 * the flash-attention setting and device placement may differ. Every load checks the whole buffer
 * (sizes, ranges, a checksum) before changing anything: a load that fails returns 0 / false, sets
 * llama_last_error() and leaves the context exactly as it was. A restore keeps the saved cell
 * indices where they fit, so restoring into a context shaped like the source continues with
 * bit-identical results.
 * ========================================================================================== */

/* Exact size in bytes of the whole-context state now (it changes with every decode). 0 on error
 * (ctx NULL). */
LLAMA_API size_t llama_state_get_size(struct llama_context * ctx);

/* Writes the whole-context state into dst (size bytes of room; llama_state_get_size tells how many
 * are needed). Returns the bytes written, or 0 if dst is NULL or too small (nothing usable then). */
LLAMA_API size_t llama_state_get_data(struct llama_context * ctx, uint8_t * dst, size_t size);

/* Restores a whole-context state from src[0, size): replaces every cell and the outputs. src may
 * be longer than the state. Returns the bytes read, 0 on error (truncated, corrupt, another model,
 * another KV type, too many cells for this cache, a sequence id >= n_seq_max): the context is
 * then unchanged. */
LLAMA_API size_t llama_state_set_data(struct llama_context * ctx, const uint8_t * src, size_t size);

/* Saves the whole-context state to a session file, with the n_token_count tokens (may be 0 and
 * tokens NULL) the caller wants back on load, usually the tokens decoded so far. Writes a
 * temporary file renamed into place. Returns true on success, false on error. */
LLAMA_API bool llama_state_save_file(struct llama_context * ctx, const char * path_session, const llama_token * tokens,
                                     size_t n_token_count);

/* Loads a session file: restores the state and copies its tokens to tokens_out (room for
 * n_token_capacity) and their count to *n_token_count_out (may be NULL). Returns false on any
 * error (unreadable file, bad magic/version, more tokens than n_token_capacity, a token outside
 * the vocabulary, any state error, trailing bytes): the context and tokens_out are unchanged. */
LLAMA_API bool llama_state_load_file(struct llama_context * ctx, const char * path_session, llama_token * tokens_out,
                                     size_t n_token_capacity, size_t * n_token_count_out);

/* Flags of the _ext sequence calls. A sequence state records its flags and loads only with the
 * same ones. This cache has no partial part (no sliding-window or recurrent cache), so, as in
 * llama.cpp for a plain KV cache, PARTIAL_ONLY still saves the whole sequence. Other bits are
 * rejected (ON_DEVICE is not supported). */
#define LLAMA_STATE_SEQ_FLAGS_NONE         0
#define LLAMA_STATE_SEQ_FLAGS_SWA_ONLY     1 /* the older name of PARTIAL_ONLY */
#define LLAMA_STATE_SEQ_FLAGS_PARTIAL_ONLY 1
#define LLAMA_STATE_SEQ_FLAGS_ON_DEVICE    2 /* llama.cpp's device-resident states: rejected here */
typedef uint32_t llama_state_seq_flags;

/* Exact size of sequence seq_id's state (its cells and their K/V; no outputs). 0 on error (ctx
 * NULL, seq_id outside [0, n_seq_max)). An empty sequence still has a small state. */
LLAMA_API size_t llama_state_seq_get_size(struct llama_context * ctx, llama_seq_id seq_id);

/* Writes sequence seq_id's state into dst. Returns the bytes written, 0 on error (as above, or
 * dst NULL or too small). */
LLAMA_API size_t llama_state_seq_get_data(struct llama_context * ctx, uint8_t * dst, size_t size,
                                          llama_seq_id seq_id);

/* Restores a sequence state into sequence dest_seq_id of ctx (any context of the same model and
 * KV types): first removes dest_seq_id's cells, then places the saved ones (at their saved indices
 * if those cells are free, else in the first free cells). Other sequences are untouched. Returns
 * the bytes read; 0 on error (as llama_state_set_data, or dest_seq_id outside [0, n_seq_max), or
 * not enough free cells), and then the context is unchanged. */
LLAMA_API size_t llama_state_seq_set_data(struct llama_context * ctx, const uint8_t * src, size_t size,
                                          llama_seq_id dest_seq_id);

/* Saves sequence seq_id's state and n_token_count tokens to a file. Returns the file size in
 * bytes, 0 on error. */
LLAMA_API size_t llama_state_seq_save_file(struct llama_context * ctx, const char * filepath, llama_seq_id seq_id,
                                           const llama_token * tokens, size_t n_token_count);

/* Loads a sequence-state file into dest_seq_id; tokens as llama_state_load_file. Returns the file
 * size in bytes, 0 on error (context and tokens_out unchanged). With tokens_out NULL nothing is
 * restored: only the token count is stored in *n_token_count_out (then required) and 12 (the
 * header size) is returned. */
LLAMA_API size_t llama_state_seq_load_file(struct llama_context * ctx, const char * filepath, llama_seq_id dest_seq_id,
                                           llama_token * tokens_out, size_t n_token_capacity,
                                           size_t * n_token_count_out);

/* The same with flags (LLAMA_STATE_SEQ_FLAGS_*); the calls above pass LLAMA_STATE_SEQ_FLAGS_NONE. */
LLAMA_API size_t llama_state_seq_get_size_ext(struct llama_context * ctx, llama_seq_id seq_id,
                                              llama_state_seq_flags flags);
LLAMA_API size_t llama_state_seq_get_data_ext(struct llama_context * ctx, uint8_t * dst, size_t size,
                                              llama_seq_id seq_id, llama_state_seq_flags flags);
LLAMA_API size_t llama_state_seq_set_data_ext(struct llama_context * ctx, const uint8_t * src, size_t size,
                                              llama_seq_id dest_seq_id, llama_state_seq_flags flags);

/* Deprecated llama.cpp names. llama_copy_state_data / llama_set_state_data take no size: they
 * trust the buffer to be large enough (use the sized calls). */
LLAMA_API LLAMA_DEPRECATED(size_t llama_get_state_size(struct llama_context * ctx), "use llama_state_get_size");
LLAMA_API LLAMA_DEPRECATED(size_t llama_copy_state_data(struct llama_context * ctx, uint8_t * dst),
                           "use llama_state_get_data");
LLAMA_API LLAMA_DEPRECATED(size_t llama_set_state_data(struct llama_context * ctx, const uint8_t * src),
                           "use llama_state_set_data");
LLAMA_API LLAMA_DEPRECATED(bool llama_load_session_file(struct llama_context * ctx, const char * path_session,
                                                        llama_token * tokens_out, size_t n_token_capacity,
                                                        size_t * n_token_count_out),
                           "use llama_state_load_file");
LLAMA_API LLAMA_DEPRECATED(bool llama_save_session_file(struct llama_context * ctx, const char * path_session,
                                                        const llama_token * tokens, size_t n_token_count),
                           "use llama_state_save_file");

/* ============================================================================================
 * Batches and decoding
 * ========================================================================================== */

/* A batch viewing the caller's tokens (not copied, not owned: do NOT llama_batch_free it):
 * sequence 0, positions continuing the sequence, logits for the last token only. */
LLAMA_API struct llama_batch llama_batch_get_one(llama_token * tokens, int32_t n_tokens);

/* Allocates a batch with room for n_tokens tokens (embd == 0) or n_tokens embeddings of embd
 * floats each (embd > 0), each token in up to n_seq_max sequences. n_tokens of the result is 0:
 * fill the arrays and set it. Free with llama_batch_free. On allocation failure every pointer
 * is NULL. */
LLAMA_API struct llama_batch llama_batch_init(int32_t n_tokens, int32_t embd, int32_t n_seq_max);

/* Frees a batch from llama_batch_init (not one from llama_batch_get_one). */
LLAMA_API void llama_batch_free(struct llama_batch batch);

/*
 * Runs an encoder model (BERT family: no LM head, bidirectional attention) over a batch and
 * computes embeddings for every token: per token (llama_get_embeddings_ith) and, when the
 * context's pooling type is not NONE, per sequence (llama_get_embeddings_seq). The batch is
 * computed as a whole, so n_tokens must be <= n_ubatch; each sequence attends to its own tokens
 * in this batch only (nothing carries over between calls: positions start again at 0).
 * llama_decode on such a model does the same.
 * Returns 0 on success; -1 for an invalid batch (token id out of range, position beyond the
 * model's position embeddings, n_tokens > n_ubatch, ...) or a decoder-only model (which has no
 * encoder: use llama_decode); 2 aborted; < -1 fatal. Reason in llama_last_error().
 */
LLAMA_API int32_t llama_encode(struct llama_context * ctx, struct llama_batch batch);

/*
 * Processes a batch: appends its tokens to the context's memory and computes the requested
 * outputs. The batch is validated first (token ids in range, seq ids in [0, n_seq_max), positions
 * consistent with each sequence, n_tokens in [1, n_batch]), then split into ubatches of at most
 * n_ubatch tokens; cache slots are reserved for all of them before any is computed.
 * Batch rules (a batch breaking one returns -1 and changes nothing); each token is stored once,
 * in one cache cell shared by all its sequences, so the cache can only hold batches where:
 *  - Positions: within one sequence, taken in batch order, positions increase by exactly one
 *    per token (no repeats, gaps or decreases). The first token of a sequence continues the
 *    memory (position = llama_memory_seq_pos_max + 1); an empty sequence may start at any
 *    position >= 0. Tokens of different sequences may be interleaved freely.
 *  - Shared tokens: a token with several seq_ids extends all of them with one computation, so
 *    those sequences must have identical histories at that point: the same cells in the memory
 *    (all empty, or made identical with llama_memory_seq_cp over the whole history; sequences
 *    decoded separately do not count, even with equal tokens) and the same earlier tokens of this
 *    batch. Once one of them gets a token of its own they have diverged for good (until
 *    llama_memory_seq_rm/seq_cp make them identical again).
 * Returns
 *    0  success
 *    1  no room in the KV cache for the batch: the cache is left exactly as before the call
 *       (try a smaller batch or a larger context). A recurrent model (mamba2) has a state per
 *       sequence and never returns 1; its batch is split into runs of one sequence (or one token
 *       each of distinct sequences), and a token in several sequences is an invalid batch (-1):
 *       copy a state with llama_memory_seq_cp instead.
 *    2  aborted by the abort callback (the ubatches already computed stay in the cache; in a
 *       recurrent model the sequences of the interrupted ubatch are emptied: their states were
 *       partly updated)
 *   -1  invalid batch (nothing was changed)
 *  < -1 fatal error (allocation or compute failure); the context's memory may be inconsistent
 * On error the reason is in llama_last_error().
 */
LLAMA_API int32_t llama_decode(struct llama_context * ctx, struct llama_batch batch);

/* The logits of the last llama_decode: one row of n_vocab floats per output token, in batch
 * order. Owned by the context, valid until the next decode. NULL if there were no outputs. */
LLAMA_API float * llama_get_logits(struct llama_context * ctx);

/* The logits row of batch token i of the last decode; negative i counts output rows from the end
 * (-1 is the last output). Returns NULL (reason in llama_last_error()) if i is out of range or
 * token i did not request logits. */
LLAMA_API float * llama_get_logits_ith(struct llama_context * ctx, int32_t i);

/* Embeddings (contexts with embeddings enabled, and every encoder model): all output rows of
 * n_embd floats (with embeddings on, every batch token is an output), the row of batch token i
 * (negative: from the end), or the pooled vector of a sequence of the last batch:
 *   MEAN  the mean of the sequence's token rows in the batch
 *   CLS   the row of its lowest position (the first token, [CLS] for BERT)
 *   LAST  the row of its highest position
 *   RANK  the CLS row (modern-bert: the mean row) through the model's classifier head:
 *         llama_model_n_cls_out(model) scores
 * The rows are the model's final hidden states (after the output norm); no normalisation is
 * applied. llama_get_embeddings_seq returns NULL with pooling NONE or for a sequence absent from
 * the last batch. NULL where not available. Owned by the context, valid until the next decode. */
LLAMA_API float * llama_get_embeddings(struct llama_context * ctx);
LLAMA_API float * llama_get_embeddings_ith(struct llama_context * ctx, int32_t i);
LLAMA_API float * llama_get_embeddings_seq(struct llama_context * ctx, llama_seq_id seq_id);

/* ============================================================================================
 * Backend sampling
 *
 * A context can own the sampling of some sequences: give it a sampler chain per sequence
 * (llama_context_params.samplers, or llama_set_sampler later). After every llama_decode, for each
 * output token of such a sequence, the chain is applied on the CPU to that token's logits (all
 * n_vocab candidates, sorted = false), exactly as llama_sampler_apply would. The results are read
 * with the functions below by batch index i (negative: output rows from the end, as
 * llama_get_logits_ith):
 *   token       the token the chain selected (LLAMA_TOKEN_NULL if it selected none, or token i
 *               has no output or no sampler)
 *   candidates  the token ids left after the chain, in the chain's order
 *   logits      their logits after the chain, probs the softmax of those logits
 *                (both in the order of candidates; count = number of candidates)
 * The chain is not told about the chosen token: call llama_sampler_accept on it for the tokens
 * you keep (in output order), as llama_sampler_sample would have. The arrays are owned by the
 * context and valid until the next decode or whole-context state restore (which drops them: they
 * are not part of a state); NULL / 0 where nothing was sampled.
 * ========================================================================================== */

/* Sets (smpl a chain, owned by the caller, alive as long as it is set) or removes (smpl NULL)
 * the sampler of sequence seq_id. False if seq_id is outside [0, n_seq_max) or smpl is not a
 * chain (llama_last_error() says why). Takes effect from the next decode. */
LLAMA_API bool llama_set_sampler(struct llama_context * ctx, llama_seq_id seq_id, struct llama_sampler * smpl);

LLAMA_API llama_token   llama_get_sampled_token_ith(struct llama_context * ctx, int32_t i);
LLAMA_API float *       llama_get_sampled_probs_ith(struct llama_context * ctx, int32_t i);
LLAMA_API uint32_t      llama_get_sampled_probs_count_ith(struct llama_context * ctx, int32_t i);
LLAMA_API float *       llama_get_sampled_logits_ith(struct llama_context * ctx, int32_t i);
LLAMA_API uint32_t      llama_get_sampled_logits_count_ith(struct llama_context * ctx, int32_t i);
LLAMA_API llama_token * llama_get_sampled_candidates_ith(struct llama_context * ctx, int32_t i);
LLAMA_API uint32_t      llama_get_sampled_candidates_count_ith(struct llama_context * ctx, int32_t i);

/* ============================================================================================
 * Vocabulary and tokenization
 * ========================================================================================== */

LLAMA_API enum llama_vocab_type llama_vocab_type(const struct llama_vocab * vocab);
LLAMA_API int32_t               llama_vocab_n_tokens(const struct llama_vocab * vocab);

/* The stored text of a token (SPM uses "▁" for spaces), its score and attributes. Owned by the
 * vocab. Out-of-range tokens give NULL / 0 / LLAMA_TOKEN_ATTR_UNDEFINED. */
LLAMA_API const char *          llama_vocab_get_text(const struct llama_vocab * vocab, llama_token token);
LLAMA_API float                 llama_vocab_get_score(const struct llama_vocab * vocab, llama_token token);
LLAMA_API enum llama_token_attr llama_vocab_get_attr(const struct llama_vocab * vocab, llama_token token);

/* End of generation: EOS, EOT or another token marked as ending a turn. */
LLAMA_API bool llama_vocab_is_eog(const struct llama_vocab * vocab, llama_token token);
/* A control token (BOS, EOS, ... — not text). */
LLAMA_API bool llama_vocab_is_control(const struct llama_vocab * vocab, llama_token token);

/* Special tokens; LLAMA_TOKEN_NULL where the vocab has none. */
LLAMA_API llama_token llama_vocab_bos(const struct llama_vocab * vocab); /* beginning of sentence */
LLAMA_API llama_token llama_vocab_eos(const struct llama_vocab * vocab); /* end of sentence */
LLAMA_API llama_token llama_vocab_eot(const struct llama_vocab * vocab); /* end of turn */
LLAMA_API llama_token llama_vocab_sep(const struct llama_vocab * vocab); /* sentence separator */
LLAMA_API llama_token llama_vocab_nl(const struct llama_vocab * vocab);  /* newline */
LLAMA_API llama_token llama_vocab_pad(const struct llama_vocab * vocab); /* padding */
LLAMA_API llama_token llama_vocab_mask(const struct llama_vocab * vocab);

/* Whether tokenizing with add_special adds BOS / EOS / SEP. */
LLAMA_API bool llama_vocab_get_add_bos(const struct llama_vocab * vocab);
LLAMA_API bool llama_vocab_get_add_eos(const struct llama_vocab * vocab);
LLAMA_API bool llama_vocab_get_add_sep(const struct llama_vocab * vocab);

/* Tokens the model asks never to generate (GGUF key tokenizer.ggml.suppress_tokens), owned by
 * the vocab, their count in *n_suppress_tokens (may be NULL); NULL and 0 if there are none. */
LLAMA_API const llama_token * llama_vocab_get_suppress_tokens(const struct llama_vocab * vocab,
                                                              int32_t * n_suppress_tokens);

/* Fill-in-the-middle tokens; LLAMA_TOKEN_NULL where absent. */
LLAMA_API llama_token llama_vocab_fim_pre(const struct llama_vocab * vocab);
LLAMA_API llama_token llama_vocab_fim_suf(const struct llama_vocab * vocab);
LLAMA_API llama_token llama_vocab_fim_mid(const struct llama_vocab * vocab);
LLAMA_API llama_token llama_vocab_fim_pad(const struct llama_vocab * vocab);
LLAMA_API llama_token llama_vocab_fim_rep(const struct llama_vocab * vocab);
LLAMA_API llama_token llama_vocab_fim_sep(const struct llama_vocab * vocab);

/* Deprecated llama.cpp names of the vocab calls above (llama_token_cls and llama_vocab_cls
 * return the BOS token, as in llama.cpp). */
LLAMA_API LLAMA_DEPRECATED(const char * llama_token_get_text(const struct llama_vocab * vocab, llama_token token), "use llama_vocab_get_text instead");
LLAMA_API LLAMA_DEPRECATED(float llama_token_get_score(const struct llama_vocab * vocab, llama_token token), "use llama_vocab_get_score instead");
LLAMA_API LLAMA_DEPRECATED(enum llama_token_attr llama_token_get_attr(const struct llama_vocab * vocab, llama_token token), "use llama_vocab_get_attr instead");
LLAMA_API LLAMA_DEPRECATED(bool llama_token_is_eog(const struct llama_vocab * vocab, llama_token token), "use llama_vocab_is_eog instead");
LLAMA_API LLAMA_DEPRECATED(bool llama_token_is_control(const struct llama_vocab * vocab, llama_token token), "use llama_vocab_is_control instead");
LLAMA_API LLAMA_DEPRECATED(llama_token llama_token_bos(const struct llama_vocab * vocab), "use llama_vocab_bos instead");
LLAMA_API LLAMA_DEPRECATED(llama_token llama_token_eos(const struct llama_vocab * vocab), "use llama_vocab_eos instead");
LLAMA_API LLAMA_DEPRECATED(llama_token llama_token_eot(const struct llama_vocab * vocab), "use llama_vocab_eot instead");
LLAMA_API LLAMA_DEPRECATED(llama_token llama_token_cls(const struct llama_vocab * vocab), "use llama_vocab_cls instead");
LLAMA_API LLAMA_DEPRECATED(llama_token llama_token_sep(const struct llama_vocab * vocab), "use llama_vocab_sep instead");
LLAMA_API LLAMA_DEPRECATED(llama_token llama_token_nl(const struct llama_vocab * vocab), "use llama_vocab_nl instead");
LLAMA_API LLAMA_DEPRECATED(llama_token llama_token_pad(const struct llama_vocab * vocab), "use llama_vocab_pad instead");
LLAMA_API LLAMA_DEPRECATED(bool llama_add_bos_token(const struct llama_vocab * vocab), "use llama_vocab_get_add_bos instead");
LLAMA_API LLAMA_DEPRECATED(bool llama_add_eos_token(const struct llama_vocab * vocab), "use llama_vocab_get_add_eos instead");
LLAMA_API LLAMA_DEPRECATED(llama_token llama_token_fim_pre(const struct llama_vocab * vocab), "use llama_vocab_fim_pre instead");
LLAMA_API LLAMA_DEPRECATED(llama_token llama_token_fim_suf(const struct llama_vocab * vocab), "use llama_vocab_fim_suf instead");
LLAMA_API LLAMA_DEPRECATED(llama_token llama_token_fim_mid(const struct llama_vocab * vocab), "use llama_vocab_fim_mid instead");
LLAMA_API LLAMA_DEPRECATED(llama_token llama_token_fim_pad(const struct llama_vocab * vocab), "use llama_vocab_fim_pad instead");
LLAMA_API LLAMA_DEPRECATED(llama_token llama_token_fim_rep(const struct llama_vocab * vocab), "use llama_vocab_fim_rep instead");
LLAMA_API LLAMA_DEPRECATED(llama_token llama_token_fim_sep(const struct llama_vocab * vocab), "use llama_vocab_fim_sep instead");
LLAMA_API LLAMA_DEPRECATED(llama_token llama_vocab_cls(const struct llama_vocab * vocab), "use llama_vocab_bos instead");

/*
 * Converts text (text_len bytes, need not be NUL-terminated) into tokens.
 *   add_special:   add BOS/EOS as the vocab specifies
 *   parse_special: match control/user-defined tokens written in the text (e.g. "<s>"); when false
 *                  they are tokenized as plain text
 * Returns the number of tokens written, or, if more than n_tokens_max are needed, the negative of
 * the number needed (nothing useful is written; call again with a larger array). Returns
 * INT32_MIN on overflow or invalid arguments.
 */
LLAMA_API int32_t llama_tokenize(const struct llama_vocab * vocab, const char * text, int32_t text_len,
                                 llama_token * tokens, int32_t n_tokens_max, bool add_special, bool parse_special);

/*
 * Writes the text of one token into buf (not NUL-terminated).
 *   lstrip:  remove up to this many leading spaces
 *   special: render control tokens (e.g. "</s>") instead of writing nothing for them
 * Returns the number of bytes written, or the negative of the length needed if buf is too small.
 */
LLAMA_API int32_t llama_token_to_piece(const struct llama_vocab * vocab, llama_token token, char * buf,
                                       int32_t length, int32_t lstrip, bool special);

/*
 * Converts tokens back into text (the inverse of llama_tokenize).
 *   remove_special:  drop a leading BOS / trailing EOS that add_special would have added
 *   unparse_special: render control tokens as text
 * Returns the number of bytes written (not NUL-terminated), or the negative of the length needed
 * if text_len_max is too small.
 */
LLAMA_API int32_t llama_detokenize(const struct llama_vocab * vocab, const llama_token * tokens, int32_t n_tokens,
                                   char * text, int32_t text_len_max, bool remove_special, bool unparse_special);

/* ============================================================================================
 * Chat templates
 * ========================================================================================== */

/*
 * Formats a conversation with a chat template.
 *   tmpl:    a template string (Jinja source as stored in GGUF files) or the name of a built-in
 *            template (see llama_chat_builtin_templates); NULL = "chatml"
 *   add_ass: end with the prefix of an assistant turn
 * Writes at most length bytes to buf (NUL-terminated if room) and returns the full length of the
 * formatted text: if it is larger than length, call again with a larger buffer. Returns -1 if the
 * template is not supported.
 */
LLAMA_API int32_t llama_chat_apply_template(const char * tmpl, const struct llama_chat_message * chat, size_t n_msg,
                                            bool add_ass, char * buf, int32_t length);

/* Fills output with up to len names of the built-in templates (owned by the library) and returns
 * the total number of built-in templates. */
LLAMA_API int32_t llama_chat_builtin_templates(const char ** output, size_t len);

/* The Jinja chat templates of llama_chat_template_* (a model's own template, executed) are declared
 * in llama-chat-template.h, included at the end of this header. */

/* ============================================================================================
 * Sampling
 *
 * A sampler transforms a llama_token_data_array (filtering, rescaling logits) and/or selects a
 * token in it. A chain applies its samplers in order. Custom samplers implement llama_sampler_i.
 *
 *   struct llama_sampler * smpl = llama_sampler_chain_init(llama_sampler_chain_default_params());
 *   llama_sampler_chain_add(smpl, llama_sampler_init_top_k(40));
 *   llama_sampler_chain_add(smpl, llama_sampler_init_temp(0.8f));
 *   llama_sampler_chain_add(smpl, llama_sampler_init_dist(seed));
 *   ... llama_token tok = llama_sampler_sample(smpl, ctx, -1); ...
 *   llama_sampler_free(smpl);   // frees the samplers added to it too
 * ========================================================================================== */

typedef void * llama_sampler_context_t;

/* The tensors of llama.cpp's graph-side sampling hooks (backend_apply below). */
struct llama_sampler_data {
    struct ggml_tensor * logits;
    struct ggml_tensor * probs;
    struct ggml_tensor * sampled;
    struct ggml_tensor * candidates;
};

/* The interface of a sampler. Every member may be NULL except apply. */
struct llama_sampler_i {
    const char * (*name)(const struct llama_sampler * smpl);                /* static string */
    void (*accept)(struct llama_sampler * smpl, llama_token token);         /* a token was chosen */
    void (*apply)(struct llama_sampler * smpl, llama_token_data_array * cur_p);
    void (*reset)(struct llama_sampler * smpl);                             /* forget history */
    struct llama_sampler * (*clone)(const struct llama_sampler * smpl);    /* deep copy */
    void (*free)(struct llama_sampler * smpl);                              /* free ctx only */

    /* llama.cpp's hooks for sampling inside the compute graph. libllama never calls them
     * (backend sampling runs apply on the CPU, see llama_set_sampler): leave them NULL. */
    bool (*backend_init)(struct llama_sampler * smpl, ggml_backend_buffer_type_t buft, uint32_t n_outputs_max_per_seq);
    void (*backend_accept)(struct llama_sampler * smpl, struct ggml_context * ctx, struct ggml_cgraph * gf,
                           struct ggml_tensor * selected_token);
    void (*backend_apply)(struct llama_sampler * smpl, struct ggml_context * ctx, struct ggml_cgraph * gf,
                          struct llama_sampler_data * data);
    void (*backend_set_input)(struct llama_sampler * smpl);
    void (*backend_reset)(struct llama_sampler * smpl);

    /* copies the state of src into dst (same kind); NULL: not supported (llama_sampler_copy) */
    void (*copy_state)(const struct llama_sampler * src, struct llama_sampler * dst);
};

struct llama_sampler {
    struct llama_sampler_i * iface; /* not const, as in llama.cpp; the library never writes it */
    llama_sampler_context_t  ctx;
};

/* Wraps a custom implementation; the returned sampler is freed with llama_sampler_free (which
 * calls iface->free to release ctx). iface must outlive the sampler. NULL on allocation failure. */
LLAMA_API struct llama_sampler * llama_sampler_init(struct llama_sampler_i * iface, llama_sampler_context_t ctx);

LLAMA_API const char * llama_sampler_name(const struct llama_sampler * smpl);
LLAMA_API void         llama_sampler_accept(struct llama_sampler * smpl, llama_token token);
LLAMA_API void         llama_sampler_apply(struct llama_sampler * smpl, llama_token_data_array * cur_p);
LLAMA_API void         llama_sampler_reset(struct llama_sampler * smpl);
/* A deep copy (with its state), or NULL if the sampler cannot be cloned. */
LLAMA_API struct llama_sampler * llama_sampler_clone(const struct llama_sampler * smpl);
/* Makes dst's mutable state (history, random state, grammar position) a copy of src's, so that dst
 * continues exactly as src would; dst keeps its own identity (and its place in a chain). src and
 * dst must be the same kind of sampler (same iface), else nothing happens and the reason is in
 * llama_last_error(). NULL or src == dst: no-op. A custom sampler needs a clone function. */
LLAMA_API void                   llama_sampler_copy(const struct llama_sampler * src, struct llama_sampler * dst);
/* Frees the sampler (NULL is a no-op). Do not free a sampler that is part of a chain. */
LLAMA_API void                   llama_sampler_free(struct llama_sampler * smpl);

/* A chain applies its samplers in order. It takes ownership of the samplers added to it. */
LLAMA_API struct llama_sampler * llama_sampler_chain_init(struct llama_sampler_chain_params params);
LLAMA_API void                   llama_sampler_chain_add(struct llama_sampler * chain, struct llama_sampler * smpl);
/* The i-th sampler (still owned by the chain), or NULL if out of range. */
LLAMA_API struct llama_sampler * llama_sampler_chain_get(struct llama_sampler * chain, int32_t i);
LLAMA_API int                    llama_sampler_chain_n(const struct llama_sampler * chain);
/* Removes the i-th sampler and returns it (ownership passes to the caller); NULL if out of range. */
LLAMA_API struct llama_sampler * llama_sampler_chain_remove(struct llama_sampler * chain, int32_t i);

/* Selects the token with the largest logit. */
LLAMA_API struct llama_sampler * llama_sampler_init_greedy(void);
/* Selects a token at random from the softmax of the logits. seed LLAMA_DEFAULT_SEED = random. */
LLAMA_API struct llama_sampler * llama_sampler_init_dist(uint32_t seed);
/* Keeps the k most likely tokens (k <= 0: no-op). */
LLAMA_API struct llama_sampler * llama_sampler_init_top_k(int32_t k);
/* Nucleus: keeps the most likely tokens whose probabilities sum to >= p (at least min_keep). */
LLAMA_API struct llama_sampler * llama_sampler_init_top_p(float p, size_t min_keep);
/* Keeps tokens with probability >= p * the largest probability (at least min_keep). */
LLAMA_API struct llama_sampler * llama_sampler_init_min_p(float p, size_t min_keep);
/* Locally typical sampling (at least min_keep tokens). */
LLAMA_API struct llama_sampler * llama_sampler_init_typical(float p, size_t min_keep);
/* Divides logits by t (t <= 0: keep only the most likely token). */
LLAMA_API struct llama_sampler * llama_sampler_init_temp(float t);
/* Dynamic temperature in [t - delta, t + delta] driven by the entropy, with exponent. */
LLAMA_API struct llama_sampler * llama_sampler_init_temp_ext(float t, float delta, float exponent);
/* Repetition penalties over the last penalty_last_n accepted tokens (0: disabled, -1: context).
 * n_vocab (the vocabulary size) is accepted for llama.cpp's signature; any value works. */
LLAMA_API struct llama_sampler * llama_sampler_init_penalties(int32_t n_vocab, int32_t penalty_last_n,
                                                              float penalty_repeat, float penalty_freq,
                                                              float penalty_present);
/* Adds a fixed bias to the logits of chosen tokens (the array is copied). */
LLAMA_API struct llama_sampler * llama_sampler_init_logit_bias(int32_t n_vocab, int32_t n_logit_bias,
                                                               const llama_logit_bias * logit_bias);

/* XTC ("exclude top choices"): with probability p, removes every token whose probability is >= t
 * except the least likely of them, keeping at least min_keep tokens. p <= 0 or t > 0.5: no-op.
 * Draws from its own generator (seed LLAMA_DEFAULT_SEED = random). */
LLAMA_API struct llama_sampler * llama_sampler_init_xtc(float p, float t, size_t min_keep, uint32_t seed);
/* Top-n-sigma: keeps tokens whose logit is >= max - n * stddev (over the finite logits); the
 * others become -inf. n <= 0: no-op. */
LLAMA_API struct llama_sampler * llama_sampler_init_top_n_sigma(float n);
/* Mirostat 1.0 (arXiv 2007.14966, tokens as words): estimates the Zipf exponent from the m most
 * likely tokens, keeps the top k that match the current surprise budget mu (starts at 2 * tau),
 * draws a token (sets selected) and moves mu by eta * (tau - observed surprise). n_vocab is the
 * vocabulary size. A terminal sampler: put it last in a chain. */
LLAMA_API struct llama_sampler * llama_sampler_init_mirostat(int32_t n_vocab, uint32_t seed, float tau, float eta,
                                                             int32_t m);
/* Mirostat 2.0: keeps tokens whose surprise -log2(p) is <= mu (at least one), draws one, then
 * updates mu as mirostat 1.0 does. Terminal sampler. */
LLAMA_API struct llama_sampler * llama_sampler_init_mirostat_v2(uint32_t seed, float tau, float eta);
/* Grammar-constrained sampling with a GBNF grammar (dialect: docs/sampling.md). Candidates whose
 * text cannot continue the grammar get logit -inf; end-of-generation tokens only when the grammar
 * is complete. grammar_root is the start rule ("root" if NULL). grammar_str NULL or "" gives a
 * sampler that constrains nothing. Returns NULL if the grammar is malformed (unbalanced brackets,
 * undefined rule, bad escape, left recursion, invalid UTF-8, too large): the reason is in
 * llama_last_error() and the log. vocab must outlive the sampler. */
LLAMA_API struct llama_sampler * llama_sampler_init_grammar(const struct llama_vocab * vocab, const char * grammar_str,
                                                            const char * grammar_root);
/* Deprecated form of llama_sampler_init_grammar_lazy_patterns: each trigger word is a literal
 * string that activates the grammar where it first appears in the output. */
LLAMA_API LLAMA_DEPRECATED(struct llama_sampler * llama_sampler_init_grammar_lazy(
                               const struct llama_vocab * vocab, const char * grammar_str, const char * grammar_root,
                               const char ** trigger_words, size_t num_trigger_words,
                               const llama_token * trigger_tokens, size_t num_trigger_tokens),
                           "use llama_sampler_init_grammar_lazy_patterns instead");
/* A lazy grammar: it constrains nothing until it is triggered, either by an accepted token listed
 * in trigger_tokens (the grammar then sees the output from that token on, the token included) or
 * by a trigger pattern (ECMAScript regex) matching the whole output generated so far; the grammar
 * then sees the output from the pattern's first capture group (or from the match start if it has
 * none). Errors as llama_sampler_init_grammar; a bad regex also gives NULL. */
LLAMA_API struct llama_sampler * llama_sampler_init_grammar_lazy_patterns(
    const struct llama_vocab * vocab, const char * grammar_str, const char * grammar_root,
    const char ** trigger_patterns, size_t num_trigger_patterns, const llama_token * trigger_tokens,
    size_t num_trigger_tokens);
/* DRY ("don't repeat yourself"): a token that would extend a sequence already repeated in the last
 * dry_penalty_last_n accepted tokens gets logit -= multiplier * base^(len - allowed_length) when
 * the repeated length len >= dry_allowed_length. A sequence breaker (strings, found in the vocab's
 * tokens) stops the matching. multiplier 0, base < 1 or penalty_last_n <= 0: no-op. vocab may be
 * NULL when there are no breakers. */
LLAMA_API struct llama_sampler * llama_sampler_init_dry(const struct llama_vocab * vocab, float dry_multiplier,
                                                        float dry_base, int32_t dry_allowed_length,
                                                        int32_t dry_penalty_last_n, const char ** seq_breakers,
                                                        size_t num_breakers);
/* Adaptive-p: draws tokens whose probability is near target, correcting over time: it keeps an
 * exponential moving average (decay in [0, 0.99]; history about 1/(1-decay) tokens) of the
 * original probabilities of accepted tokens and aims at 2 * target - average. Logits are reshaped
 * to peak at that probability, then a token is drawn (terminal sampler; put min-p before it at
 * most). target < 0: plain draw from the distribution. */
LLAMA_API struct llama_sampler * llama_sampler_init_adaptive_p(float target, float decay, uint32_t seed);
/* For fill-in-the-middle: if end-of-generation tokens carry enough mass (3 * p_eog * n > p_text)
 * keeps only them; otherwise merges the probability of tokens whose text is a prefix of another's
 * into the more likely one, drops non-EOG tokens below 0.2 and then below 1/(n+1); if no text token
 * is left, leaves a single EOT (or EOS) token. Use after top-k/top-p. */
LLAMA_API struct llama_sampler * llama_sampler_init_infill(const struct llama_vocab * vocab);

/* The seed used by a dist sampler (or the first one in a chain); LLAMA_DEFAULT_SEED if none. */
LLAMA_API uint32_t llama_sampler_get_seed(const struct llama_sampler * smpl);

/* Samples from the logits of output idx of the last decode (negative: from the end), then
 * accepts the token. Returns the token, or LLAMA_TOKEN_NULL if there are no such logits. */
LLAMA_API llama_token llama_sampler_sample(struct llama_sampler * smpl, struct llama_context * ctx, int32_t idx);

/* ============================================================================================
 * Performance counters (not measured when no_perf is set)
 * ========================================================================================== */

struct llama_perf_context_data {
    double t_start_ms;  /* creation time of the context */
    double t_load_ms;   /* model load time */
    double t_p_eval_ms; /* time spent in multi-token decodes (prompt processing) */
    double t_eval_ms;   /* time spent in single-token decodes (generation) */

    int32_t n_p_eval; /* tokens processed by multi-token decodes */
    int32_t n_eval;   /* single-token decodes */
    int32_t n_reused; /* ubatches that reused the previous graph instead of building one */
};

struct llama_perf_sampler_data {
    double  t_sample_ms;
    int32_t n_sample;
};

LLAMA_API struct llama_perf_context_data llama_perf_context(const struct llama_context * ctx);
/* Writes a summary through the log callback (INFO level). */
LLAMA_API void                           llama_perf_context_print(const struct llama_context * ctx);
LLAMA_API void                           llama_perf_context_reset(struct llama_context * ctx);

/* Only for chains (llama_sampler_chain_init); zeros for other samplers. */
LLAMA_API struct llama_perf_sampler_data llama_perf_sampler(const struct llama_sampler * chain);
LLAMA_API void                           llama_perf_sampler_print(const struct llama_sampler * chain);
LLAMA_API void                           llama_perf_sampler_reset(struct llama_sampler * chain);

/* ============================================================================================
 * Model quantization (implemented in src/llama-quant.cpp)
 * ========================================================================================== */

/* A per-tensor type override for quantization (pattern: a regular expression on tensor names). */
struct llama_model_tensor_override {
    const char *   pattern;
    enum ggml_type type;
};

/* Importance-matrix data of one tensor for quantization: `size` = ne[0] (times the expert count for
 * 3-D expert tensors) mean squared input activations per column, as llama-imatrix writes them. */
struct llama_model_imatrix_data {
    const char *  name;
    const float * data;
    size_t        size;
};

typedef struct llama_model_quantize_params {
    int32_t          nthread; /* threads for the conversion; <= 0: std::thread::hardware_concurrency() */
    enum llama_ftype ftype;   /* the target mix (LLAMA_FTYPE_MOSTLY_Q4_K_M, ...) */

    /* type of output.weight / token_embd.weight; GGML_TYPE_COUNT = chosen by the ftype's recipe */
    enum ggml_type output_tensor_type;
    enum ggml_type token_embedding_type;

    bool allow_requantize;       /* accept already-quantized input tensors (dequantized first) */
    bool quantize_output_tensor; /* false: output.weight keeps its input type */
    bool only_copy;              /* copy every tensor unchanged (metadata overrides still apply) */
    bool pure;                   /* every 2-D weight gets the ftype's base type, no per-tensor recipe */
    bool keep_split;             /* accepted; split input is not supported (one output file) */
    bool dry_run;                /* must be false (a dry run fails: not supported) */

    /* NULL, or an array of per-tensor importance data ending with an element whose name is NULL
     * (borrowed for the call). The searches minimize the error weighted by it; IQ1_S, IQ1_M, IQ2_XXS,
     * IQ2_XS, IQ2_S, IQ3_XXS weight matrices (and Q2_K in a Q2_K_S mix) fail without it; an entry of
     * the wrong size or with non-finite values fails the call. */
    const struct llama_model_imatrix_data * imatrix;
    /* metadata to set in the output, an array ending with an element whose key is empty; NULL = none */
    const struct llama_model_kv_override * kv_overrides;
    /* must be NULL (per-tensor type overrides are not supported: the call fails) */
    const struct llama_model_tensor_override * tt_overrides;
    /* must be NULL (layer pruning is not supported: the call fails) */
    const int32_t * prune_layers;
} llama_model_quantize_params;

LLAMA_API struct llama_model_quantize_params llama_model_quantize_default_params(void);

/*
 * Converts the GGUF model fname_inp into fname_out with the weight types of params->ftype: 2-D
 * weights are quantized with the ftype's per-tensor recipe (e.g. Q4_K_M keeps attn_v and ffn_down
 * of some layers and output.weight at Q6_K), 1-D tensors (norms, biases) stay F32, and a tensor
 * whose rows are not a multiple of its type's block size falls back to a type whose block fits
 * (Q5_0, Q5_1, Q8_0, IQ4_NL, then F16). All metadata is copied; general.file_type and
 * general.quantization_version are set. Progress goes to the log callback (INFO).
 * Returns 0 on success, non-zero on failure (reason in llama_last_error(); no output file is left).
 */
LLAMA_API uint32_t llama_model_quantize(const char * fname_inp, const char * fname_out,
                                        const struct llama_model_quantize_params * params);

/* ============================================================================================
 * Adapters: LoRA / aLoRA (implemented in src/llama-adapter*.cpp) and control vectors
 *
 * A LoRA adapter is a GGUF file with general.type = "adapter", adapter.type = "lora",
 * general.architecture equal to the model's, adapter.lora.alpha (F32, optional) and, per adapted
 * weight W (name "<W>"), two tensors "<W>.lora_a" (ne = [W.ne0, r]) and "<W>.lora_b"
 * (ne = [r, W.ne1]). With an adapter active at user scale s, every projection y = W x becomes
 * y = W x + k * B (A x), k = s * alpha / r (k = s when alpha is 0 or absent). token_embd.weight
 * pairs are flipped (A: [r, n_vocab], B: [r, n_embd]) and add k * B A[token] to the embeddings.
 * ========================================================================================== */

struct llama_adapter_lora; /* a loaded adapter; owned by its model (see llama_adapter_lora_free) */

/* Loads the LoRA adapter at path_lora for model. Its tensors are placed with the weights they
 * adapt (on the same device / buffer type; weights repacked for the CPU get a plain CPU copy).
 * Returns NULL when the file is not a LoRA adapter GGUF, its architecture differs from the
 * model's, a pair is incomplete, a tensor adapts no weight of the model or has the wrong shape, or
 * the data is truncated (reason in llama_last_error()). The adapter is valid until it is freed or
 * the model is freed, whichever comes first. */
LLAMA_API struct llama_adapter_lora * llama_adapter_lora_init(struct llama_model * model, const char * path_lora);

/* The adapter file's metadata (scalar keys only; array values are skipped), as strings like
 * llama_model_meta_*. Each returns the length of the full string (snprintf semantics: buf holds at
 * most buf_size - 1 bytes plus the NUL), or -1 (buf set to "" when buf_size > 0) for an unknown key,
 * an index out of range or a NULL adapter. */
LLAMA_API int32_t llama_adapter_meta_val_str(const struct llama_adapter_lora * adapter, const char * key, char * buf, size_t buf_size);
/* Number of metadata pairs (0 for NULL). */
LLAMA_API int32_t llama_adapter_meta_count(const struct llama_adapter_lora * adapter);
/* Key of pair i, in [0, llama_adapter_meta_count). */
LLAMA_API int32_t llama_adapter_meta_key_by_index(const struct llama_adapter_lora * adapter, int32_t i, char * buf, size_t buf_size);
/* Value of pair i. */
LLAMA_API int32_t llama_adapter_meta_val_str_by_index(const struct llama_adapter_lora * adapter, int32_t i, char * buf, size_t buf_size);

/* Frees an adapter now (NULL is a no-op); adapters not freed are freed with their model. Contexts
 * that still have it set stop applying it at their next decode. */
LLAMA_API void llama_adapter_lora_free(struct llama_adapter_lora * adapter);

/* aLoRA (activated LoRA): an adapter whose file has adapter.alora.invocation_tokens (array of
 * UINT32) is meant to apply only from the last occurrence of that token sequence in the prompt
 * onwards, so the KV cache of the text before it (computed by the base model) is shared with plain
 * runs. The library applies an adapter to whatever is decoded while it is set: decode the tokens
 * before the invocation start with the adapter off (or scale 0), then set it and decode the rest
 * (see docs/adapters.md). Number of invocation tokens (0 for a plain LoRA or NULL) and the tokens
 * themselves (owned by the adapter; NULL when there are none). */
LLAMA_API uint64_t            llama_adapter_get_alora_n_invocation_tokens(const struct llama_adapter_lora * adapter);
LLAMA_API const llama_token * llama_adapter_get_alora_invocation_tokens  (const struct llama_adapter_lora * adapter);

/* (libllama) Where an aLoRA activates in tokens[0..n_tokens): the index of the first token of the
 * last complete occurrence of its invocation sequence, or -1 if there is none (or the adapter has
 * no invocation tokens, or an argument is NULL / negative). */
LLAMA_API int32_t llama_adapter_alora_invocation_start(const struct llama_adapter_lora * adapter,
                                                       const llama_token * tokens, int32_t n_tokens);

/* Sets the LoRA adapters of ctx to adapters[0..n_adapters) with scales[i] (replacing the previous
 * set; n_adapters 0 removes them all; scales may be NULL when n_adapters is 0). Every adapter must
 * belong to ctx's model. Takes effect at the next llama_decode (outputs already computed are
 * unchanged; K/V already in the cache stay as they were computed). Returns 0 on success, -1 on
 * invalid arguments: NULL ctx, adapters or scales NULL with n_adapters > 0, an adapter freed or of
 * another model (nothing changed; reason in llama_last_error()). An adapter with scale 0 is the same
 * as leaving it out. */
LLAMA_API int32_t llama_set_adapters_lora(struct llama_context * ctx, struct llama_adapter_lora ** adapters,
                                          size_t n_adapters, float * scales);

/* Sets a control vector: after layer il (il_start <= il <= il_end, both inclusive) the residual
 * stream of every token gets data[(il - 1) * n_embd .. il * n_embd) added. data holds one n_embd
 * row per layer starting at layer 1 (layer 0 never has one), len floats in all; layers whose row
 * lies past len get none, and layers outside [il_start, il_end] are left alone. n_embd must be the
 * model's. data NULL clears the vector. Takes effect at the next llama_decode. Returns 0 on
 * success, -1 on failure (n_embd mismatch, NULL ctx, out of memory; reason in llama_last_error()). */
LLAMA_API int32_t llama_set_adapter_cvec(struct llama_context * ctx, const float * data, size_t len, int32_t n_embd,
                                         int32_t il_start, int32_t il_end);

/* ============================================================================================
 * Training (llama.cpp's llama_opt_*): not supported
 *
 * Declared so programs written for llama.cpp compile and link. llama_opt_init and llama_opt_epoch
 * do nothing but report the failure: an error in the log and in llama_last_error() ("training is
 * not supported"); they never abort. The context and the datasets are left unchanged.
 * ========================================================================================== */

typedef bool (*llama_opt_param_filter)(const struct ggml_tensor * tensor, void * userdata);

/* A parameter filter accepting every tensor (returns true). */
LLAMA_API bool llama_opt_param_filter_all(const struct ggml_tensor * tensor, void * userdata);

struct llama_opt_params {
    uint32_t n_ctx_train; /* context size after training; 0 = the context's */

    llama_opt_param_filter param_filter;    /* which tensors are trainable */
    void *                 param_filter_ud;

    ggml_opt_get_optimizer_params get_opt_pars; /* optimizer parameters per step */
    void *                        get_opt_pars_ud;

    enum ggml_opt_optimizer_type optimizer_type;
};

/* Fails (see above): no optimizer is set up. */
LLAMA_API void llama_opt_init(struct llama_context * lctx, struct llama_model * model, struct llama_opt_params lopt_params);

/* Fails (see above): no epoch is run, neither callback is called, the results stay empty. */
LLAMA_API void llama_opt_epoch(struct llama_context * lctx, ggml_opt_dataset_t dataset, ggml_opt_result_t result_train,
                               ggml_opt_result_t result_eval, int64_t idata_split,
                               ggml_opt_epoch_callback callback_train, ggml_opt_epoch_callback callback_eval);

#ifdef __cplusplus
}
#endif

/* libllama's own API beyond llama.cpp's header, one concern per file */
#include "llama-chat-template.h"
#include "llama-speculative.h"

#endif /* LLAMA_H */
