// Context parameters after resolution against the model (what the graph and the cache use).
#pragma once

#include "llama.h"

#include <cstdint>

// Sequences per context are tracked in a fixed-size bit set per KV cell.
#define LLAMA_MAX_SEQ 64

struct llama_cparams {
    uint32_t n_ctx;  // KV cache size in cells (multiple of 256)
    uint32_t n_batch;
    uint32_t n_ubatch;
    uint32_t n_seq_max;
    int32_t  n_threads;        // single-token decodes
    int32_t  n_threads_batch;  // multi-token decodes

    float    rope_freq_base;
    float    rope_freq_scale;
    uint32_t n_ctx_orig_yarn;
    float    yarn_ext_factor;
    float    yarn_attn_factor;
    float    yarn_beta_fast;
    float    yarn_beta_slow;

    bool embeddings;
    bool causal_attn;
    bool offload_kqv;
    bool flash_attn;
    bool no_perf;
    bool warmup;
    bool swa_full;  // full-size cache for sliding-window layers (llama_context_params.swa_full)

    enum llama_pooling_type pooling_type;

    ggml_backend_sched_eval_callback cb_eval;
    void *                           cb_eval_user_data;
};
