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
    // false (upstream's swa_full = false): sliding-window layers get a window-sized cache of their own
    bool swa_full = true;
    // a multi-token-prediction context (LLAMA_CONTEXT_TYPE_MTP): the model's NextN block over a KV cache
    // of its own; each batch carries tokens and the target's hidden rows (embd) together
    bool mtp = false;

    enum llama_pooling_type pooling_type;

    ggml_backend_sched_eval_callback cb_eval;
    void *                           cb_eval_user_data;
};
