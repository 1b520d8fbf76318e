/*
 * llama.h — the public C API of libllama.
 *
 * libllama loads a GGUF language model and runs it: tokenize text, decode batches of tokens into
 * logits, sample the next token, turn tokens back into text. This header, with the headers it
 * includes at its end, is the whole contract; it is plain C99 so any language can bind it.
 *
 * Compatibility: this header is binary-compatible with llama.cpp's llama.h at commit 4df29be4:
 * every function it declares exists here with the same signature, every struct has the same size
 * and field offsets, every enum the same values, and the same headers are included, so programs
 * and bindings built for it run against libllama unchanged (checked by tests/abi and the golden
 * tables of tests/data/abi; docs/abi.md). Features libllama lacks are declared too and fail as
 * documented at each function (NULL / false / an error code, with llama_last_error()), never abort.
 * Additions of ours are marked "(libllama)".
 *
 * Layout: this file holds the types, enums, parameter structs, defaults and backend, model, context,
 * batches and decoding; the rest is in headers it includes at its end (each may also be included
 * alone; it includes this one first):
 *   llama-api-memory.h    memory (KV cache / recurrent state), state and session files
 *   llama-api-vocab.h     vocabulary, tokenization, built-in chat templates
 *   llama-api-sampling.h  samplers and chains, backend sampling
 *   llama-api-extras.h    performance counters, quantization, adapters, training
 *   llama-chat-template.h Jinja chat templates (libllama)
 *   llama-speculative.h   speculative decoding (libllama)
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
struct llama_sampler; /* a token sampler (see llama-api-sampling.h) */

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

/* The kind of context (llama_context_params.ctx_type). MTP (multi-token prediction): a context that
 * runs the model's NextN block as a draft head (qwen35, qwen35moe, deepseek2 loaded with load_mtp; else creation
 * fails). Its KV cache holds that block only, and every batch carries both token[i] (the token at
 * pos[i]) and embd[i * n_embd ..] (the target's hidden row of position pos[i] - 1: its final norm's
 * output, llama_get_embeddings_ith of a target with embeddings on); a batch without both returns -1.
 * Its logits predict the token at pos[i] + 2. The llama-speculative.h MTP drafter makes and drives one. */
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
    bool load_mtp;        /* also load the NextN (multi-token-prediction) blocks, for an MTP context
                           * (qwen35, qwen35moe, deepseek2; other architectures refuse it; without NextN blocks
                           * in the file it loads nothing more) */
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

    enum llama_context_type      ctx_type;          /* DEFAULT, or MTP (see llama_context_type) */
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
LLAMA_API int32_t llama_model_n_embd_out(const struct llama_model * model);  /* width of an embedding row: n_embd, or a dense output projection's width (LFM2-ColBERT) */
LLAMA_API int32_t llama_model_n_layer_nextn(const struct llama_model * model); /* NextN (MTP) blocks in the file (run only by an MTP context); else 0 */

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

#ifdef __cplusplus
}
#endif

/* The rest of the API, one concern per file; each includes this header first, and the include
 * guards make any order of inclusion give the same declarations. */
#include "llama-api-memory.h"
#include "llama-api-vocab.h"
#include "llama-api-sampling.h"
#include "llama-api-extras.h"

/* libllama's own API beyond llama.cpp's header, one concern per file */
#include "llama-chat-template.h"
#include "llama-speculative.h"

#endif /* LLAMA_H */
