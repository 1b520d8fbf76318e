/*
 * ggml.h — the tensor-graph core: tensor types, tensors, ops and graphs.
 *
 * A ggml_context is an arena that holds tensor metadata (and, unless no_alloc is set, tensor
 * data). Op constructors such as ggml_mul_mat() only RECORD an operation: they return a new
 * tensor whose `op` and `src[]` describe how to compute it. A graph (ggml_cgraph) collects the
 * nodes needed for a result in topological order; a backend (ggml-backend.h) computes it.
 *
 * Error policy (never abort on input):
 *   - every constructor validates its arguments up front; on misuse it logs
 *     "[op_name] reason" at GGML_LOG_LEVEL_ERROR and returns NULL;
 *   - every constructor given a NULL source returns NULL without logging again, so a graph
 *     builder can check only its final tensor;
 *   - an exhausted context arena logs an error and returns NULL.
 *
 * Threading: a context is not thread-safe; distinct contexts may be used on distinct threads.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* GGML_SHARED: libggml is a shared library (set by its CMake package for programs linking it). On
 * Windows the DLL exports (GGML_BUILD) or imports its functions; elsewhere the library is compiled
 * with hidden visibility and only GGML_API symbols are exported. */
#if defined(_WIN32)
#    if defined(GGML_SHARED) && defined(GGML_BUILD)
#        define GGML_API __declspec(dllexport)
#    elif defined(GGML_SHARED)
#        define GGML_API __declspec(dllimport)
#    else
#        define GGML_API
#    endif
#else
#    define GGML_API __attribute__((visibility("default")))
#endif

/* printf-style checking of format arguments where the compiler has it. The library formats with a
 * C99 printf on every OS (MinGW's own, not msvcrt's), hence gnu_printf there. */
#if defined(__MINGW32__)
#    define GGML_ATTRIBUTE_FORMAT(fmt, args) __attribute__((format(gnu_printf, fmt, args)))
#elif defined(__GNUC__)
#    define GGML_ATTRIBUTE_FORMAT(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#    define GGML_ATTRIBUTE_FORMAT(fmt, args)
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define GGML_MAX_DIMS        4
#define GGML_MAX_SRC         10
#define GGML_MAX_OP_PARAMS   64 /* bytes */
#define GGML_MAX_NAME        64
#define GGML_DEFAULT_GRAPH_SIZE 2048
#define GGML_MEM_ALIGN       16
/* rows of a KQ mask are padded to a multiple of this so kernels may process whole tiles */
#define GGML_KQ_MASK_PAD     64

/* ------------------------------------------------------------------------------------------
 * Logging. One callback receives everything the library has to say; the default writes to
 * stderr. libllama's llama_log_set() installs the same callback here.
 * ---------------------------------------------------------------------------------------- */
enum ggml_log_level {
    GGML_LOG_LEVEL_NONE  = 0,
    GGML_LOG_LEVEL_DEBUG = 1,
    GGML_LOG_LEVEL_INFO  = 2,
    GGML_LOG_LEVEL_WARN  = 3,
    GGML_LOG_LEVEL_ERROR = 4,
    GGML_LOG_LEVEL_CONT  = 5, /* continues the previous message */
};

typedef void (*ggml_log_callback)(enum ggml_log_level level, const char * text, void * user_data);

/* Installs the log callback (NULL restores the default, which prints to stderr). Thread-safe. */
GGML_API void ggml_log_set(ggml_log_callback callback, void * user_data);

/* Logs "file:line: internal error: ..." and aborts the process. The library itself uses it only for
 * broken internal invariants, never for input; it is public because applications written for
 * llama.cpp call GGML_ABORT for their own fatal errors. */
#if defined(__GNUC__)
GGML_API void ggml_abort(const char * file, int line, const char * fmt, ...) __attribute__((noreturn))
    GGML_ATTRIBUTE_FORMAT(3, 4);
#elif defined(_MSC_VER)
GGML_API __declspec(noreturn) void ggml_abort(const char * file, int line, const char * fmt, ...);
#else
GGML_API void ggml_abort(const char * file, int line, const char * fmt, ...);
#endif
#define GGML_ABORT(...) ggml_abort(__FILE__, __LINE__, __VA_ARGS__)

/* Monotonic wall-clock time. ggml_time_init is a no-op kept for source compatibility. */
GGML_API void    ggml_time_init(void);
GGML_API int64_t ggml_time_ms(void);
GGML_API int64_t ggml_time_us(void);

/* fopen with a UTF-8 path on every OS (on Windows the path goes to the wide-char API, so names in any
 * script open). mode as for fopen. Returns the stream (close it with fclose) or NULL. */
GGML_API FILE * ggml_fopen(const char * path, const char * mode);

/* ------------------------------------------------------------------------------------------
 * Scalar types
 * ---------------------------------------------------------------------------------------- */
typedef uint16_t ggml_fp16_t;                 /* IEEE 754 half, stored as bits */
typedef struct { uint16_t bits; } ggml_bf16_t; /* bfloat16, stored as bits */

GGML_API float       ggml_fp16_to_fp32(ggml_fp16_t h);
GGML_API ggml_fp16_t ggml_fp32_to_fp16(float f); /* round to nearest even */
GGML_API float       ggml_bf16_to_fp32(ggml_bf16_t h);
GGML_API ggml_bf16_t ggml_fp32_to_bf16(float f); /* round to nearest even, NaN kept quiet */

GGML_API void ggml_fp16_to_fp32_row(const ggml_fp16_t * x, float * y, int64_t n);
GGML_API void ggml_fp32_to_fp16_row(const float * x, ggml_fp16_t * y, int64_t n);
GGML_API void ggml_bf16_to_fp32_row(const ggml_bf16_t * x, float * y, int64_t n);
GGML_API void ggml_fp32_to_bf16_row(const float * x, ggml_bf16_t * y, int64_t n);

/* ------------------------------------------------------------------------------------------
 * Tensor types. The numeric values are part of the GGUF file format and never change;
 * gaps are ids of types that were removed from the format.
 * ---------------------------------------------------------------------------------------- */
enum ggml_type {
    GGML_TYPE_F32     = 0,
    GGML_TYPE_F16     = 1,
    GGML_TYPE_Q4_0    = 2,
    GGML_TYPE_Q4_1    = 3,
    /* 4, 5: removed (Q4_2, Q4_3) */
    GGML_TYPE_Q5_0    = 6,
    GGML_TYPE_Q5_1    = 7,
    GGML_TYPE_Q8_0    = 8,
    GGML_TYPE_Q8_1    = 9,
    GGML_TYPE_Q2_K    = 10,
    GGML_TYPE_Q3_K    = 11,
    GGML_TYPE_Q4_K    = 12,
    GGML_TYPE_Q5_K    = 13,
    GGML_TYPE_Q6_K    = 14,
    GGML_TYPE_Q8_K    = 15,
    GGML_TYPE_IQ2_XXS = 16,
    GGML_TYPE_IQ2_XS  = 17,
    GGML_TYPE_IQ3_XXS = 18,
    GGML_TYPE_IQ1_S   = 19,
    GGML_TYPE_IQ4_NL  = 20,
    GGML_TYPE_IQ3_S   = 21,
    GGML_TYPE_IQ2_S   = 22,
    GGML_TYPE_IQ4_XS  = 23,
    GGML_TYPE_I8      = 24,
    GGML_TYPE_I16     = 25,
    GGML_TYPE_I32     = 26,
    GGML_TYPE_I64     = 27,
    GGML_TYPE_F64     = 28,
    GGML_TYPE_IQ1_M   = 29,
    GGML_TYPE_BF16    = 30,
    /* 31, 32, 33: removed (Q4_0_4_4, Q4_0_4_8, Q4_0_8_8) */
    GGML_TYPE_TQ1_0   = 34,
    GGML_TYPE_TQ2_0   = 35,
    /* 36, 37, 38: removed (IQ4_NL_4_4, IQ4_NL_4_8, IQ4_NL_8_8) */
    GGML_TYPE_MXFP4   = 39,
    /* 40..42: ids of upstream ggml's NVFP4, Q1_0 and Q2_0, reserved so GGML_TYPE_COUNT (the
     * "default type" marker of llama_model_quantize_params) has ggml's value; not valid types here */
    GGML_TYPE_NVFP4   = 40,
    GGML_TYPE_Q1_0    = 41,
    GGML_TYPE_Q2_0    = 42,
    GGML_TYPE_COUNT   = 43,
};

/* True for ids that name a type of the current format (false for gaps and out-of-range). */
GGML_API bool        ggml_type_is_valid(enum ggml_type type);
/* "f32", "q4_0", ...; "invalid" for an invalid id. Never NULL. */
GGML_API const char * ggml_type_name(enum ggml_type type);
/* Elements per block (1 for plain types, 32 or 256 for quantized); 0 for an invalid id. */
GGML_API int64_t     ggml_blck_size(enum ggml_type type);
/* Bytes per block; 0 for an invalid id. */
GGML_API size_t      ggml_type_size(enum ggml_type type);
/* Bytes of a row of ne elements; ne must be a multiple of the block size. */
GGML_API size_t      ggml_row_size(enum ggml_type type, int64_t ne);
GGML_API bool        ggml_is_quantized(enum ggml_type type);
/* True for the types a KV cache may hold: F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL (every
 * backend writes them and reads them in attention, natively or through the CPU fallback). */
GGML_API bool        ggml_type_is_kv_cache(enum ggml_type type);

/* ------------------------------------------------------------------------------------------
 * Ops
 * ---------------------------------------------------------------------------------------- */
enum ggml_op {
    GGML_OP_NONE = 0,

    GGML_OP_DUP,
    GGML_OP_ADD,
    GGML_OP_SUB,
    GGML_OP_MUL,
    GGML_OP_DIV,
    GGML_OP_SQR,
    GGML_OP_SQRT,
    GGML_OP_SUM_ROWS,
    GGML_OP_MEAN,
    GGML_OP_ARGMAX,
    GGML_OP_SCALE,
    GGML_OP_CLAMP,
    GGML_OP_NORM,
    GGML_OP_RMS_NORM,
    GGML_OP_MUL_MAT,
    GGML_OP_MUL_MAT_ID,
    GGML_OP_GET_ROWS,
    GGML_OP_SET_ROWS,
    GGML_OP_CPY,
    GGML_OP_CONT,
    GGML_OP_RESHAPE,
    GGML_OP_VIEW,
    GGML_OP_PERMUTE,
    GGML_OP_TRANSPOSE,
    GGML_OP_CONCAT,
    GGML_OP_ROPE,
    GGML_OP_SOFT_MAX,
    GGML_OP_FLASH_ATTN_EXT,
    GGML_OP_ARGSORT,
    GGML_OP_UNARY,
    GGML_OP_GLU,
    GGML_OP_L2_NORM,
    GGML_OP_SSM_CONV,
    GGML_OP_SSM_SCAN,
    GGML_OP_GATED_DELTA_NET,

    GGML_OP_COUNT,
};

enum ggml_unary_op {
    GGML_UNARY_OP_RELU,
    GGML_UNARY_OP_TANH,
    GGML_UNARY_OP_SIGMOID,
    GGML_UNARY_OP_SILU,     /* x * sigmoid(x) */
    GGML_UNARY_OP_GELU,     /* tanh approximation */
    GGML_UNARY_OP_GELU_ERF, /* exact: 0.5 x (1 + erf(x / sqrt 2)) */
    GGML_UNARY_OP_NEG,
    GGML_UNARY_OP_EXP,
    GGML_UNARY_OP_SOFTPLUS, /* log(1 + exp(x)); x itself above 20 (as upstream ggml) */

    GGML_UNARY_OP_COUNT,
};

enum ggml_glu_op {
    GGML_GLU_OP_SWIGLU,   /* silu(a) * b */
    GGML_GLU_OP_GEGLU,    /* gelu(a) * b (tanh approximation) */
    GGML_GLU_OP_GEGLU_ERF,

    GGML_GLU_OP_COUNT,
};

enum ggml_sort_order {
    GGML_SORT_ORDER_ASC,
    GGML_SORT_ORDER_DESC,
};

/* rope modes (op param "mode") */
#define GGML_ROPE_TYPE_NORMAL 0 /* rotate pairs (x[2i], x[2i+1]) — llama */
#define GGML_ROPE_TYPE_NEOX   2 /* rotate pairs (x[i], x[i + n_dims/2]) — neox, qwen2, phi3, gemma */
/* multi-section modes of upstream ggml (declared for llama.h; the rope ops here reject them) */
#define GGML_ROPE_TYPE_MROPE  8
#define GGML_ROPE_TYPE_VISION 24
#define GGML_ROPE_TYPE_IMROPE 40

/* op/unary/glu names ("MUL_MAT", "silu", ...); "invalid" for an unknown value */
GGML_API const char * ggml_op_name(enum ggml_op op);
GGML_API const char * ggml_unary_op_name(enum ggml_unary_op op);
GGML_API const char * ggml_glu_op_name(enum ggml_glu_op op);

/* ------------------------------------------------------------------------------------------
 * Tensors
 * ---------------------------------------------------------------------------------------- */
enum ggml_tensor_flag {
    GGML_TENSOR_FLAG_INPUT  = 1, /* set by the caller before compute (the allocator never reuses it early) */
    GGML_TENSOR_FLAG_OUTPUT = 2, /* read by the caller after compute (its memory is never reused) */
    GGML_TENSOR_FLAG_PARAM  = 4, /* a weight */
};

struct ggml_backend_buffer;

/*
 * ne[i] is the number of elements along dimension i (ne[0] is the innermost, contiguous one);
 * nb[i] is the stride in bytes: nb[0] = type size, nb[1] = row size (ne[0]/blck * type size) for a
 * contiguous tensor, nb[i] = nb[i-1] * ne[i-1] above that. Views and permutes change nb only.
 */
struct ggml_tensor {
    enum ggml_type type;

    struct ggml_backend_buffer * buffer; /* where data lives; NULL until allocated */

    int64_t ne[GGML_MAX_DIMS];
    size_t  nb[GGML_MAX_DIMS];

    enum ggml_op op;
    /* op parameters; the layout of each op is documented at its constructor */
    int32_t op_params[GGML_MAX_OP_PARAMS / sizeof(int32_t)];

    int32_t flags; /* enum ggml_tensor_flag */

    struct ggml_tensor * src[GGML_MAX_SRC];

    /* a view shares the memory of view_src starting view_offs bytes into it */
    struct ggml_tensor * view_src;
    size_t               view_offs;

    void * data;

    char name[GGML_MAX_NAME];

    void * extra; /* backend-specific */

    char padding[8];
};

GGML_API int64_t ggml_nelements(const struct ggml_tensor * t);
GGML_API int64_t ggml_nrows(const struct ggml_tensor * t); /* ne[1]*ne[2]*ne[3] */
GGML_API size_t  ggml_nbytes(const struct ggml_tensor * t); /* bytes spanned, honouring strides */
GGML_API size_t  ggml_element_size(const struct ggml_tensor * t);
GGML_API int     ggml_n_dims(const struct ggml_tensor * t); /* 1 + index of the last dim with ne > 1 */
GGML_API bool    ggml_is_contiguous(const struct ggml_tensor * t);
GGML_API bool    ggml_is_contiguous_rows(const struct ggml_tensor * t); /* each row contiguous (nb[0] == type size) */
GGML_API bool    ggml_is_transposed(const struct ggml_tensor * t);
GGML_API bool    ggml_is_permuted(const struct ggml_tensor * t);
GGML_API bool    ggml_is_empty(const struct ggml_tensor * t);
GGML_API bool    ggml_are_same_shape(const struct ggml_tensor * a, const struct ggml_tensor * b);
/* b can be broadcast to a: a->ne[i] % b->ne[i] == 0 for every i */
GGML_API bool    ggml_can_repeat(const struct ggml_tensor * b, const struct ggml_tensor * a);

GGML_API const char *          ggml_get_name(const struct ggml_tensor * t);
GGML_API struct ggml_tensor *  ggml_set_name(struct ggml_tensor * t, const char * name); /* truncates */
GGML_API struct ggml_tensor *  ggml_format_name(struct ggml_tensor * t, const char * fmt, ...);
GGML_API void                  ggml_set_input(struct ggml_tensor * t);
GGML_API void                  ggml_set_output(struct ggml_tensor * t);
GGML_API void                  ggml_set_param(struct ggml_tensor * t);

/* ------------------------------------------------------------------------------------------
 * Contexts (arenas)
 * ---------------------------------------------------------------------------------------- */
struct ggml_context;

struct ggml_init_params {
    size_t mem_size;   /* arena bytes (metadata, plus data unless no_alloc) */
    void * mem_buffer; /* caller-owned memory of mem_size bytes, or NULL to let ggml allocate it */
    bool   no_alloc;   /* true: tensors get no data (it will live in a backend buffer) */
};

/* Per-tensor and per-graph arena overhead, to size mem_size for no_alloc contexts. */
GGML_API size_t ggml_tensor_overhead(void);
GGML_API size_t ggml_graph_overhead(void);
GGML_API size_t ggml_graph_overhead_custom(size_t size, bool grads);

/* Returns NULL (and logs) if the arena cannot be allocated. Free with ggml_free(). */
GGML_API struct ggml_context * ggml_init(struct ggml_init_params params);
GGML_API void                  ggml_free(struct ggml_context * ctx); /* NULL is a no-op */
GGML_API void                  ggml_reset(struct ggml_context * ctx); /* forget every object */
GGML_API size_t                ggml_used_mem(const struct ggml_context * ctx);
GGML_API bool                  ggml_get_no_alloc(const struct ggml_context * ctx);
GGML_API void                  ggml_set_no_alloc(struct ggml_context * ctx, bool no_alloc);

/* Iterate over the tensors of a context in creation order; NULL at the end. */
GGML_API struct ggml_tensor * ggml_get_first_tensor(const struct ggml_context * ctx);
GGML_API struct ggml_tensor * ggml_get_next_tensor(const struct ggml_context * ctx, struct ggml_tensor * t);
GGML_API struct ggml_tensor * ggml_get_tensor(struct ggml_context * ctx, const char * name);

/* New tensors; dims must be >= 0 and their product must not overflow. NULL on failure. */
GGML_API struct ggml_tensor * ggml_new_tensor(struct ggml_context * ctx, enum ggml_type type, int n_dims,
                                              const int64_t * ne);
GGML_API struct ggml_tensor * ggml_new_tensor_1d(struct ggml_context * ctx, enum ggml_type type, int64_t ne0);
GGML_API struct ggml_tensor * ggml_new_tensor_2d(struct ggml_context * ctx, enum ggml_type type, int64_t ne0,
                                                 int64_t ne1);
GGML_API struct ggml_tensor * ggml_new_tensor_3d(struct ggml_context * ctx, enum ggml_type type, int64_t ne0,
                                                 int64_t ne1, int64_t ne2);
GGML_API struct ggml_tensor * ggml_new_tensor_4d(struct ggml_context * ctx, enum ggml_type type, int64_t ne0,
                                                 int64_t ne1, int64_t ne2, int64_t ne3);
/* Same type and shape as src, contiguous, op NONE. */
GGML_API struct ggml_tensor * ggml_dup_tensor(struct ggml_context * ctx, const struct ggml_tensor * src);
/* A view of src with the same shape and strides (op VIEW). */
GGML_API struct ggml_tensor * ggml_view_tensor(struct ggml_context * ctx, struct ggml_tensor * src);

/* Host data access (only for tensors whose data is in host memory). */
GGML_API void *  ggml_get_data(const struct ggml_tensor * t);
GGML_API float * ggml_get_data_f32(const struct ggml_tensor * t);

/* ------------------------------------------------------------------------------------------
 * Op constructors. Shapes below are written [ne0, ne1, ne2, ne3]. Unless stated, inputs and
 * results are F32. "a" is src[0], "b" src[1], "c" src[2], ...
 * ---------------------------------------------------------------------------------------- */

/* DUP: contiguous copy of a (same type). */
GGML_API struct ggml_tensor * ggml_dup(struct ggml_context * ctx, struct ggml_tensor * a);

/* ADD/SUB/MUL/DIV: a op b, b broadcast to a (ggml_can_repeat(b, a)); result has a's shape.
 * a, b F32 (ADD also accepts a of F16 with b F32, result F16). */
GGML_API struct ggml_tensor * ggml_add(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
GGML_API struct ggml_tensor * ggml_sub(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
GGML_API struct ggml_tensor * ggml_mul(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
GGML_API struct ggml_tensor * ggml_div(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);

/* SQR, SQRT: elementwise. */
GGML_API struct ggml_tensor * ggml_sqr(struct ggml_context * ctx, struct ggml_tensor * a);
GGML_API struct ggml_tensor * ggml_sqrt(struct ggml_context * ctx, struct ggml_tensor * a);

/* SUM_ROWS / MEAN: [n, r1, r2, r3] -> [1, r1, r2, r3]. */
GGML_API struct ggml_tensor * ggml_sum_rows(struct ggml_context * ctx, struct ggml_tensor * a);
GGML_API struct ggml_tensor * ggml_mean(struct ggml_context * ctx, struct ggml_tensor * a);

/* ARGMAX: a [n, r] (2-D) -> I32 [r]: index of the largest value of each row (first on ties). */
GGML_API struct ggml_tensor * ggml_argmax(struct ggml_context * ctx, struct ggml_tensor * a);

/* SCALE: a * s + b.  op_params: f32[0] = s, f32[1] = b. */
GGML_API struct ggml_tensor * ggml_scale(struct ggml_context * ctx, struct ggml_tensor * a, float s);
GGML_API struct ggml_tensor * ggml_scale_bias(struct ggml_context * ctx, struct ggml_tensor * a, float s, float b);

/* CLAMP: min(max(a, lo), hi).  op_params: f32[0] = lo, f32[1] = hi. */
GGML_API struct ggml_tensor * ggml_clamp(struct ggml_context * ctx, struct ggml_tensor * a, float lo, float hi);

/* NORM: (x - mean) / sqrt(var + eps) per row; RMS_NORM: x / sqrt(mean(x^2) + eps) per row.
 * op_params: f32[0] = eps. eps must be >= 0. */
GGML_API struct ggml_tensor * ggml_norm(struct ggml_context * ctx, struct ggml_tensor * a, float eps);
GGML_API struct ggml_tensor * ggml_rms_norm(struct ggml_context * ctx, struct ggml_tensor * a, float eps);
/* L2_NORM: x / max(sqrt(sum(x^2)), eps) per row (unit rows, as linear-attention layers normalise q and k).
 * op_params: f32[0] = eps. eps must be >= 0. Returns NULL (and logs) on a bad argument. */
GGML_API struct ggml_tensor * ggml_l2_norm(struct ggml_context * ctx, struct ggml_tensor * a, float eps);

/* MUL_MAT: a [K, M, A2, A3] (weights: any type with a CPU dot product), b [K, N, B2, B3] F32
 * -> [M, N, B2, B3] F32, result[m, n] = dot(row m of a, row n of b).  a is broadcast over dims
 * 2 and 3: B2 % A2 == 0 and B3 % A3 == 0 (grouped-query attention uses this).
 * a must have contiguous rows (nb[0] == type size); b may be any view. */
GGML_API struct ggml_tensor * ggml_mul_mat(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);

/* MUL_MAT_ID (mixture of experts): as [K, M, n_expert] (weights), b [K, n_b, n_tokens] F32 with
 * n_b == 1 or n_b == n_used, ids I32 [n_used, n_tokens] (expert index per slot, each in
 * [0, n_expert)) -> [M, n_used, n_tokens]: result[:, e, t] = as[ids[e, t]] * b[:, e % n_b, t].
 * An out-of-range id makes the compute fail, never read out of bounds. */
GGML_API struct ggml_tensor * ggml_mul_mat_id(struct ggml_context * ctx, struct ggml_tensor * as,
                                              struct ggml_tensor * b, struct ggml_tensor * ids);

/* GET_ROWS: a [K, R, A2, A3] (any type), ids I32 [n, A2, A3] -> [K, n, A2, A3], F32 (I32 if a is I32);
 * quantized rows are dequantized. An out-of-range id makes the compute fail. */
GGML_API struct ggml_tensor * ggml_get_rows(struct ggml_context * ctx, struct ggml_tensor * a,
                                            struct ggml_tensor * ids);

/* SET_ROWS (the KV-cache write): dst [K, R, D2, D3] (F32/F16/BF16/quantized), src [K, n, S2, S3] F32,
 * ids I64 or I32 [n, S2, S3]: dst row ids[i] := convert(src row i). Broadcast: D2 % S2 == 0 is not
 * allowed; S2 == D2, S3 == D3 or S2 == S3 == 1. Returns a view of dst whose computation writes into
 * dst; expand it into the graph. */
GGML_API struct ggml_tensor * ggml_set_rows(struct ggml_context * ctx, struct ggml_tensor * dst,
                                            struct ggml_tensor * src, struct ggml_tensor * ids);

/* CPY: copies a into b (same number of elements; F32/F16/BF16 in any combination, F32 -> quantized
 * where the type supports quantization, quantized -> F32). A quantized side must be rows of whole
 * blocks (nb[0] the block size, ne[0] a multiple of the block length; rows may be a strided view, as
 * the rope part of a latent K cache row); anything else returns NULL and logs why. Returns a view of
 * b; b may itself be a view. The Vulkan and CUDA backends decline quantized -> F32 (their
 * supports_op says so and the scheduler runs it on the CPU). */
GGML_API struct ggml_tensor * ggml_cpy(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);

/* CONT: contiguous copy of a (any view). */
GGML_API struct ggml_tensor * ggml_cont(struct ggml_context * ctx, struct ggml_tensor * a);
GGML_API struct ggml_tensor * ggml_cont_2d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1);
GGML_API struct ggml_tensor * ggml_cont_4d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0,
                                           int64_t ne1, int64_t ne2, int64_t ne3);

/* RESHAPE: a must be contiguous; element counts must match. The result is a view of a. */
GGML_API struct ggml_tensor * ggml_reshape_1d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0);
GGML_API struct ggml_tensor * ggml_reshape_2d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0,
                                              int64_t ne1);
GGML_API struct ggml_tensor * ggml_reshape_3d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0,
                                              int64_t ne1, int64_t ne2);
GGML_API struct ggml_tensor * ggml_reshape_4d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0,
                                              int64_t ne1, int64_t ne2, int64_t ne3);

/* VIEW: a window into a with the given shape, strides (nb1..nb3 in bytes) and byte offset.
 * The window must lie inside a. op_params: the offset as a size_t in bytes 0..7. */
GGML_API struct ggml_tensor * ggml_view_1d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0,
                                           size_t offset);
GGML_API struct ggml_tensor * ggml_view_2d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0,
                                           int64_t ne1, size_t nb1, size_t offset);
GGML_API struct ggml_tensor * ggml_view_3d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0,
                                           int64_t ne1, int64_t ne2, size_t nb1, size_t nb2, size_t offset);
GGML_API struct ggml_tensor * ggml_view_4d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0,
                                           int64_t ne1, int64_t ne2, int64_t ne3, size_t nb1, size_t nb2,
                                           size_t nb3, size_t offset);

/* PERMUTE: dimension i of a becomes dimension axis_i of the result (a permutation of 0..3).
 * op_params: i32[0..3] = axis0..axis3. TRANSPOSE swaps dims 0 and 1. Both are views. */
GGML_API struct ggml_tensor * ggml_permute(struct ggml_context * ctx, struct ggml_tensor * a, int axis0, int axis1,
                                           int axis2, int axis3);
GGML_API struct ggml_tensor * ggml_transpose(struct ggml_context * ctx, struct ggml_tensor * a);

/* CONCAT: a and b joined along dim (0..3); other dims must match; same type (F32, F16, I32).
 * op_params: i32[0] = dim. */
GGML_API struct ggml_tensor * ggml_concat(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                          int dim);

/* ROPE: rotary position embedding.
 *   a   [head_dim, n_head, n_tokens, 1] F32 (or F16)
 *   pos I32 [n_tokens]: the position of each token
 *   freq_factors F32 [n_dims/2] or NULL: per-pair divisor of the rotation frequency
 * Rotates only the first n_dims (even, <= head_dim) values of each head; the rest pass through.
 * mode: GGML_ROPE_TYPE_NORMAL or GGML_ROPE_TYPE_NEOX. theta_i = pos * freq_base^(-2i/n_dims) / ff_i,
 * with YaRN (ext_factor != 0) blending interpolated and extrapolated theta between beta_fast and
 * beta_slow and scaling the magnitude by attn_factor (and the YaRN mscale).
 * op_params: i32[0] = 0, i32[1] = n_dims, i32[2] = mode, i32[3] = 0, i32[4] = n_ctx_orig,
 *            f32[5] = freq_base, f32[6] = freq_scale, f32[7] = ext_factor, f32[8] = attn_factor,
 *            f32[9] = beta_fast, f32[10] = beta_slow. */
GGML_API struct ggml_tensor * ggml_rope_ext(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * pos,
                                            struct ggml_tensor * freq_factors, int n_dims, int mode, int n_ctx_orig,
                                            float freq_base, float freq_scale, float ext_factor, float attn_factor,
                                            float beta_fast, float beta_slow);
/* Plain rope: no YaRN, freq_scale 1, attn_factor 1, base 10000. */
GGML_API struct ggml_tensor * ggml_rope(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * pos,
                                        int n_dims, int mode);

/* SOFT_MAX: softmax over each row of (a * scale + slope * mask).
 *   mask: NULL or F16/F32 [ne0 of a, >= ne1 of a, M2, M3], broadcast over dims 2, 3
 *         (a->ne[2] % M2 == 0, a->ne[3] % M3 == 0); -INFINITY entries are excluded.
 *   max_bias > 0 enables ALiBi: slope for head h (dim 2) follows the standard ALiBi schedule.
 * A row whose entries are all -INFINITY yields zeros.
 * op_params: f32[0] = scale, f32[1] = max_bias. */
GGML_API struct ggml_tensor * ggml_soft_max(struct ggml_context * ctx, struct ggml_tensor * a);
GGML_API struct ggml_tensor * ggml_soft_max_ext(struct ggml_context * ctx, struct ggml_tensor * a,
                                                struct ggml_tensor * mask, float scale, float max_bias);

/* FLASH_ATTN_EXT: fused attention softmax(scale * q k^T + mask) v, with optional tanh softcap:
 * s = softcap * tanh(s / softcap) when softcap > 0, applied before the mask.
 *   q [D, n_q, n_head, ne3] F32
 *   k [D, n_kv, n_head_kv, ne3] F16/F32 (or Q8_0/Q4_0 where the backend supports it)
 *   v [Dv, n_kv, n_head_kv, ne3] F16/F32 (idem), n_head % n_head_kv == 0
 *   mask NULL or F16/F32 [n_kv, >= n_q, 1 or n_head, 1 or ne3]
 * -> [Dv, n_head, n_q, ne3] F32 (note the order: heads before tokens).
 * op_params: f32[0] = scale, f32[1] = max_bias, f32[2] = softcap. */
GGML_API struct ggml_tensor * ggml_flash_attn_ext(struct ggml_context * ctx, struct ggml_tensor * q,
                                                  struct ggml_tensor * k, struct ggml_tensor * v,
                                                  struct ggml_tensor * mask, float scale, float max_bias,
                                                  float softcap);

/* ARGSORT: a [n, r...] F32 -> I32 of the same shape: the indices that sort each row (stable).
 * op_params: i32[0] = order. TOP_K: the first k columns of a descending argsort (a view). */
GGML_API struct ggml_tensor * ggml_argsort(struct ggml_context * ctx, struct ggml_tensor * a,
                                           enum ggml_sort_order order);
GGML_API struct ggml_tensor * ggml_top_k(struct ggml_context * ctx, struct ggml_tensor * a, int k);

/* ---- recurrent layers (Mamba / Mamba-2, LFM2 short convolutions, gated delta-net) ----------
 * Same signatures, shapes, parameter order and output layouts as upstream ggml, so graphs ported
 * from llama.cpp build unchanged. All inputs F32 (ids I32). Each returns NULL (and logs
 * "[op] reason") on a bad argument. */

/* SSM_CONV: depthwise causal 1-D convolution over a sequence whose carried conv state is already
 * prepended (Mamba's conv1d, LFM2's short conv).
 *   sx [d_conv - 1 + n_t, d_inner, n_s] (rows contiguous), c [d_conv, d_inner] (rows contiguous)
 *   -> [d_inner, n_t, n_s] F32,  res[r, t, s] = sum_k sx[t + k, r, s] * c[k, r]. */
GGML_API struct ggml_tensor * ggml_ssm_conv(struct ggml_context * ctx, struct ggml_tensor * sx,
                                            struct ggml_tensor * c);

/* SSM_SCAN: the selective scan of Mamba-2 (A a scalar per head) or Mamba-1 (A per state element).
 *   s   [d_state, head_dim, n_head, n_rs] contiguous: the states; sequence i starts from s[..., ids[i]]
 *   x   [head_dim, n_head, n_t, n_seqs]   (dims 0 and 1 contiguous)
 *   dt  [n_head, n_t, n_seqs] contiguous  (softplus is applied inside: dt' = log(1 + exp(dt)))
 *   A   [1, n_head] (Mamba-2) or [d_state, n_head] (Mamba-1, K must be 1), contiguous
 *   B,C [d_state, n_group, n_t, n_seqs]   (dims 0 and 1 contiguous), n_head % n_group == 0: head h
 *       reads group h / (n_head / n_group)
 *   ids [n_seqs] I32, each in [0, n_rs) (checked when the node runs: a bad id fails the compute)
 *   K   snapshot slots, >= 1
 * Per token: state = state * exp(dt' * A) + B * (x * dt'); y = dot(state, C) over d_state.
 * -> 1-D F32 of n(x) + K * d_state * head_dim * n_head * n_seqs elements: y laid out as x
 * (contiguous), then K state blocks [d_state, head_dim, n_head, n_seqs], slot 0 the final state,
 * slot j the state j tokens before the end; with n_t < K only slots 0..n_t-1 are written (the rest
 * is left as it was). op_params: i32[0] = K. */
GGML_API struct ggml_tensor * ggml_ssm_scan(struct ggml_context * ctx, struct ggml_tensor * s, struct ggml_tensor * x,
                                            struct ggml_tensor * dt, struct ggml_tensor * A, struct ggml_tensor * B,
                                            struct ggml_tensor * C, struct ggml_tensor * ids, int64_t K);

/* GATED_DELTA_NET: the gated delta rule over a sequence, recurrent form (Qwen3-Next / Qwen3.5;
 * Kimi's KDA with a per-channel gate).
 *   q, k  [S, H_k, n_t, n_seqs_k] rows contiguous; H % H_k == 0 (head h reads q/k head h % H_k),
 *         n_seqs % n_seqs_k == 0 (sequence i reads i / (n_seqs / n_seqs_k))
 *   v     [S, H, n_t, n_seqs] rows contiguous
 *   g     [1, H, n_t, n_seqs] (scalar gate) or [S, H, n_t, n_seqs] (per-channel), contiguous
 *   beta  [1, H, n_t, n_seqs] contiguous
 *   state [S, S, H, n_seqs] contiguous: the initial state; element (i, j) holds M[j][i] (row j of M
 *         is column j of the state matrix), per head
 *   K     snapshot slots, >= 1
 * Per token, per head: M[j][i] *= exp(g) (exp(g[i]) per channel); d[j] = (v[j] - sum_i M[j][i] k[i])
 * * beta; M[j][i] += d[j] * k[i]; out[j] = sum_i M[j][i] q[i] / sqrt(S).
 * -> [S * H, n_t * n_seqs + K * S * n_seqs] F32: out [S, H, n_t, n_seqs] first, then K state blocks
 * [S, S, H, n_seqs], slot 0 the final state, slot j the state j tokens before the end; with n_t < K
 * only slots 0..n_t-1 are written. op_params: i32[0] = K. */
GGML_API struct ggml_tensor * ggml_gated_delta_net(struct ggml_context * ctx, struct ggml_tensor * q,
                                                   struct ggml_tensor * k, struct ggml_tensor * v,
                                                   struct ggml_tensor * g, struct ggml_tensor * beta,
                                                   struct ggml_tensor * state, int64_t K);

/* UNARY: elementwise activation; F32 (and F16). op_params: i32[0] = enum ggml_unary_op. */
GGML_API struct ggml_tensor * ggml_unary(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_unary_op op);
GGML_API struct ggml_tensor * ggml_relu(struct ggml_context * ctx, struct ggml_tensor * a);
GGML_API struct ggml_tensor * ggml_tanh(struct ggml_context * ctx, struct ggml_tensor * a);
GGML_API struct ggml_tensor * ggml_sigmoid(struct ggml_context * ctx, struct ggml_tensor * a);
GGML_API struct ggml_tensor * ggml_silu(struct ggml_context * ctx, struct ggml_tensor * a);
GGML_API struct ggml_tensor * ggml_gelu(struct ggml_context * ctx, struct ggml_tensor * a);
GGML_API struct ggml_tensor * ggml_gelu_erf(struct ggml_context * ctx, struct ggml_tensor * a);
GGML_API struct ggml_tensor * ggml_neg(struct ggml_context * ctx, struct ggml_tensor * a);
GGML_API struct ggml_tensor * ggml_exp(struct ggml_context * ctx, struct ggml_tensor * a);
GGML_API struct ggml_tensor * ggml_softplus(struct ggml_context * ctx, struct ggml_tensor * a);

/* GLU: gated linear units, act(a) * b.
 *   split form: a, b same shape -> same shape
 *   fused form (b == NULL): a [2n, ...] -> [n, ...], the first half gated by the second
 *   (swapped: the second half is activated and gates the first).
 * op_params: i32[0] = enum ggml_glu_op, i32[1] = swapped. */
GGML_API struct ggml_tensor * ggml_glu(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_glu_op op,
                                       bool swapped);
GGML_API struct ggml_tensor * ggml_glu_split(struct ggml_context * ctx, struct ggml_tensor * a,
                                             struct ggml_tensor * b, enum ggml_glu_op op);
GGML_API struct ggml_tensor * ggml_swiglu_split(struct ggml_context * ctx, struct ggml_tensor * a,
                                                struct ggml_tensor * b);
GGML_API struct ggml_tensor * ggml_geglu_split(struct ggml_context * ctx, struct ggml_tensor * a,
                                               struct ggml_tensor * b);

/* ------------------------------------------------------------------------------------------
 * Graphs
 * ---------------------------------------------------------------------------------------- */
struct ggml_cgraph;

/* A graph with room for `size` nodes + leafs, allocated in ctx. NULL if ctx is out of memory. */
GGML_API struct ggml_cgraph * ggml_new_graph(struct ggml_context * ctx); /* size GGML_DEFAULT_GRAPH_SIZE */
GGML_API struct ggml_cgraph * ggml_new_graph_custom(struct ggml_context * ctx, size_t size, bool grads);

/* Adds t and everything it depends on, sources before users, each node once. Leafs (tensors with
 * op NONE: weights and inputs) are recorded separately. A NULL t, or a graph that runs out of room,
 * marks the graph as failed (logged); see ggml_graph_is_ok. */
GGML_API void ggml_build_forward_expand(struct ggml_cgraph * gf, struct ggml_tensor * t);
GGML_API bool ggml_graph_is_ok(const struct ggml_cgraph * gf);

GGML_API int                  ggml_graph_size(const struct ggml_cgraph * gf);
GGML_API int                  ggml_graph_n_nodes(const struct ggml_cgraph * gf);
/* i may be negative: -1 is the last node. NULL out of range. */
GGML_API struct ggml_tensor * ggml_graph_node(const struct ggml_cgraph * gf, int i);
GGML_API int                  ggml_graph_n_leafs(const struct ggml_cgraph * gf);
GGML_API struct ggml_tensor * ggml_graph_leaf(const struct ggml_cgraph * gf, int i);
GGML_API struct ggml_tensor * ggml_graph_get_tensor(const struct ggml_cgraph * gf, const char * name);
/* Forgets all nodes and leafs (the tensors themselves stay in their context). */
GGML_API void                 ggml_graph_clear(struct ggml_cgraph * gf);

/* ------------------------------------------------------------------------------------------
 * Row quantization (added for llama_model_quantize and the tools; implemented in ggml-quantize.c)
 * ---------------------------------------------------------------------------------------- */

/* Converts nrows rows of n_per_row floats, starting at element `start` of src (a multiple of
 * n_per_row), into dst at the byte offset of that row, with the reference quantizer of `type`
 * (also F32, F16, BF16). n_per_row must be a multiple of ggml_blck_size(type). imatrix: NULL,
 * or n_per_row importance weights (the mean squared activation of each input column, as llama.cpp's
 * imatrix files hold them, applied to every row; the caller keeps ownership): Q4_0, Q4_1, Q5_0,
 * Q5_1, IQ4_NL, Q2_K..Q6_K, IQ4_XS and the grid i-quants (IQ1_S..IQ3_S) then minimize the weighted
 * error sum w*(x - q)^2 (same block format); other types ignore it. With NULL the bytes are those of
 * the plain reference. Returns the bytes written, or 0 (logged) for an unsupported type, bad
 * arguments or a missing required imatrix (ggml_quantize_requires_imatrix). Thread-safe: different
 * row ranges may be converted concurrently. */
GGML_API size_t ggml_quantize_chunk(enum ggml_type type, const float * src, void * dst, int64_t start, int64_t nrows,
                                    int64_t n_per_row, const float * imatrix);
/* True for types that cannot be quantized well without an importance matrix (IQ2_XXS, IQ2_XS,
 * IQ1_S, as llama.cpp): ggml_quantize_chunk refuses them when imatrix is NULL. */
GGML_API bool   ggml_quantize_requires_imatrix(enum ggml_type type);
/* (libllama) Converts n values of `type` (F32, F16, BF16 or a supported quantized type; n a
 * multiple of its block size) to floats. False (logged) if unsupported. */
GGML_API bool   ggml_dequantize_row(enum ggml_type type, const void * src, float * dst, int64_t n);

/* ----------------------------------------------------------------------------------------
 * Thread pools (the CPU backend computes with them; ggml_threadpool_new is in ggml-cpu.h)
 * ---------------------------------------------------------------------------------------- */

#define GGML_MAX_N_THREADS 512

enum ggml_sched_priority {
    GGML_SCHED_PRIO_LOW = -1,
    GGML_SCHED_PRIO_NORMAL,
    GGML_SCHED_PRIO_MEDIUM,
    GGML_SCHED_PRIO_HIGH,
    GGML_SCHED_PRIO_REALTIME
};

/* Parameters of a pool. Only n_threads is used: the workers are neither pinned (cpumask,
 * strict_cpu), re-prioritised (prio) nor tuned (poll); paused pools still compute (a compute
 * resumes them). */
struct ggml_threadpool_params {
    bool                     cpumask[GGML_MAX_N_THREADS];
    int                      n_threads;
    enum ggml_sched_priority prio;
    uint32_t                 poll;
    bool                     strict_cpu;
    bool                     paused;
};

struct ggml_threadpool;
typedef struct ggml_threadpool * ggml_threadpool_t;

/* Defaults for n_threads threads (no mask, normal priority, poll 50). */
GGML_API struct ggml_threadpool_params ggml_threadpool_params_default(int n_threads);
GGML_API void ggml_threadpool_params_init(struct ggml_threadpool_params * p, int n_threads);
/* True if both describe the same pool (every field equal). */
GGML_API bool ggml_threadpool_params_match(const struct ggml_threadpool_params * p0,
                                           const struct ggml_threadpool_params * p1);

#ifdef __cplusplus
}
#endif
