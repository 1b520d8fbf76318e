/*
 * ggml-opt.h — the types of upstream ggml's training API, as far as llama.h uses them.
 *
 * libllama does not train: there is no optimizer here. This header declares the types so that
 * llama.h (llama_opt_params, llama_opt_epoch) keeps upstream's declarations; the llama_opt_*
 * functions report failure (docs/abi.md). No ggml_opt_* function is provided.
 */
#pragma once

#include "ggml-backend.h"
#include "ggml.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ggml_opt_dataset; /* never created by this library */
struct ggml_opt_context;
struct ggml_opt_result;

typedef struct ggml_opt_dataset * ggml_opt_dataset_t;
typedef struct ggml_opt_context * ggml_opt_context_t;
typedef struct ggml_opt_result *  ggml_opt_result_t;

enum ggml_opt_optimizer_type {
    GGML_OPT_OPTIMIZER_TYPE_ADAMW,
    GGML_OPT_OPTIMIZER_TYPE_SGD,

    GGML_OPT_OPTIMIZER_TYPE_COUNT
};

/* Per-step optimizer settings. */
struct ggml_opt_optimizer_params {
    struct {
        float alpha; /* learning rate */
        float beta1;
        float beta2;
        float eps;
        float wd; /* weight decay */
    } adamw;
    struct {
        float alpha;
        float wd;
    } sgd;
};

typedef struct ggml_opt_optimizer_params (*ggml_opt_get_optimizer_params)(void * userdata);

/* Called after each evaluated batch of an epoch (train: training part, else validation). */
typedef void (*ggml_opt_epoch_callback)(bool train, ggml_opt_context_t opt_ctx, ggml_opt_dataset_t dataset,
                                        ggml_opt_result_t result, int64_t ibatch, int64_t ibatch_max,
                                        int64_t t_start_us);

#ifdef __cplusplus
}
#endif
