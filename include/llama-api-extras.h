/*
 * llama-api-extras.h — the operations around inference: performance counters, model quantization,
 * adapters (LoRA / aLoRA, control vectors) and training (declared for compatibility, unsupported).
 *
 * Part of the public C API of libllama: llama.h includes it, so a program includes llama.h only
 * (including this header alone works too). The conventions of llama.h (errors, ownership, threads,
 * ABI) hold here.
 */
#ifndef LLAMA_API_EXTRAS_H
#define LLAMA_API_EXTRAS_H

/* The declarations below use llama.h's types. llama.h includes this header at its end, after its
 * own declarations, and the include guards make either order of inclusion declare the same. */
#include "llama.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#endif /* LLAMA_API_EXTRAS_H */
