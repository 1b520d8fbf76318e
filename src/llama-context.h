// The context: resolved parameters, the KV cache, the backends and scheduler, llama_decode and
// its outputs (logits/embeddings rows), perf counters.
#pragma once

#include "llama-adapter.h"
#include "llama-batch.h"
#include "llama-cparams.h"
#include "llama-graph.h"
#include "llama-hidden-rows.h"
#include "llama-kv-cache.h"
#include "llama-memory-hybrid.h"
#include "llama-memory-recurrent.h"
#include "llama-pooling.h"
#include "llama.h"

#include "ggml-backend.h"

#include <functional>
#include <memory>
#include <vector>

struct llama_model;
namespace llama_state_io {
class writer;
}  // namespace llama_state_io

struct llama_context {
    // Throws llama_error on invalid parameters or allocation failure. adjust (tests, tools): called
    // on the resolved cparams before the cache and the scheduler are made.
    llama_context(const llama_model & model, const llama_context_params & params,
                  const std::function<void(llama_cparams &)> & adjust = nullptr);
    ~llama_context();
    llama_context(const llama_context &)             = delete;
    llama_context & operator=(const llama_context &) = delete;

    const llama_model & model;
    llama_cparams       cparams;

    // Returns the llama_decode codes (0, 1, 2, -1, < -1); the reason of a failure is in err.
    // On an encoder (a model without an LM head) it is encode().
    int32_t decode(const llama_batch & batch, std::string & err);
    // Runs an encoder over a batch as a whole (n_tokens <= n_ubatch), each sequence attending to its
    // tokens in this batch only. Same codes; -1 for a model without an encoder.
    int32_t encode(const llama_batch & batch, std::string & err);

    // Output row of batch index i (negative: from the end), or nullptr with the reason in err.
    float * logits_ith(int32_t i, std::string & err);
    float * embd_ith(int32_t i, std::string & err);
    float * logits_all() { return n_outputs > 0 && !logits.empty() ? logits.data() : nullptr; }
    // Takes now the logits memory of decodes with up to n outputs (its pages touched; the current rows
    // stay), so that the first such decode does not pay for fresh pages (a speculative verification:
    // n_draft_max + 1 rows of n_vocab floats, 1 MB each for a 248K vocabulary).
    void reserve_outputs(uint32_t n);
    // The pooled vector of a sequence of the last decode (pooling other than NONE), or nullptr.
    float * embd_seq(llama_seq_id seq_id) { return pooling.seq(seq_id); }
    float * embd_all() { return n_outputs > 0 && !embd.empty() ? embd.data() : nullptr; }
    // While on, every decode keeps the final norm's row (n_embd wide, before the LM head) of each output:
    // what a multi-token-prediction head reads. A model with an MTP graph (qwen35, qwen35moe, deepseek2) keeps the
    // row of every token of the batch instead (its graph gathers the outputs after the final norm, so
    // logits are still computed for the outputs only). An MTP context always keeps its own outputs' rows
    // (a chained draft's input). hidden_ith: the row of batch index i (negative: from the end of the
    // kept rows), or nullptr with err.
    void          set_keep_hidden(bool on) { keep_hidden = on; }
    const float * hidden_ith(int32_t i, std::string & err) const;
    // The kept row of the last decode's token at position pos of sequence seq_id, or nullptr. O(log n).
    const float * hidden_at(llama_seq_id seq_id, llama_pos pos) const { return hidden.at(seq_id, pos); }
    bool          is_mtp() const { return cparams.mtp; }

    void set_n_threads(int32_t n_threads, int32_t n_threads_batch);
    // Computes with the caller's CPU thread pools (NULL tp: the context's own, as before).
    void attach_threadpool(ggml_threadpool_t tp, ggml_threadpool_t tp_batch);
    void detach_threadpool() { attach_threadpool(nullptr, nullptr); }

    // ---- backend sampling (llama-context-sampling.cpp) ----
    // The result of running a sequence's sampler chain on one output row.
    struct sampled_output {
        llama_token              token = LLAMA_TOKEN_NULL;
        std::vector<llama_token> candidates;
        std::vector<float>       logits;
        std::vector<float>       probs;
    };
    // Sets (chain) or removes (nullptr) the sampler of seq_id; throws llama_error on bad input.
    void set_sampler(llama_seq_id seq_id, llama_sampler * smpl);
    // The sampled output of batch index i (negative: from the end), or nullptr if none.
    const sampled_output * sampled_ith(int32_t i) const;
    void                   set_abort_callback(ggml_abort_callback cb, void * data);
    bool                   has_abort_callback() const { return abort_cb != nullptr; }

    // The memory the llama_memory_* calls act on: the KV cache, or the recurrent state of a
    // recurrent model (then kv_cache() is nullptr).
    // A hybrid model (both parts): the two together.
    llama_memory_i * memory() const {
        return hybrid ? (llama_memory_i *) hybrid.get() : kv ? (llama_memory_i *) kv.get() : rs.get();
    }
    llama_kv_cache *         kv_cache() const { return kv.get(); }
    llama_memory_recurrent * recurrent() const { return rs.get(); }
    // While on, decodes record what gives each sequence's state after every token of its last ubatch
    // (llama_memory_recurrent::rows_collect; only where rows_supported()), for speculative verification.
    void set_rs_rows(bool on) { rs_rows = on && rs && rs->rows_supported(); }

    // The scheduler and its backends ([GPU devices holding weights..., CPU]); for tests and tools.
    ggml_backend_sched_t                get_sched() const { return sched; }
    const std::vector<ggml_backend_t> & get_backends() const { return backends; }

    // ---- state (llama-state.cpp, format in docs/state.md) ----
    // Writes the whole context (seq_id < 0: outputs and every cell) or one sequence's cells.
    void state_write(llama_state_io::writer & w, llama_seq_id seq_id, uint32_t flags) const;
    // Parses and validates src, then restores the whole context (dest < 0) or sequence dest.
    // exact: the state must fill src[0, size) (a file). Returns the bytes read. Throws
    // llama_error, and then the context is unchanged.
    size_t state_read(const uint8_t * src, size_t size, llama_seq_id dest, uint32_t flags, bool exact = false);

    llama_perf_context_data perf() const;
    void                    perf_reset();

    // ---- adapters (llama-adapter-api.cpp) ----
    // Replaces the LoRA set (adapters already validated: of this model, scales != 0).
    void set_adapters_lora(const llama_adapter_loras & l);
    // See llama_set_adapter_cvec. Throws llama_error.
    void set_adapter_cvec(const float * data, size_t len, int32_t n_embd, int32_t il_start, int32_t il_end);

private:
    std::unique_ptr<llama_kv_cache>         kv;      // attention models
    std::unique_ptr<llama_memory_recurrent> rs;      // recurrent and hybrid models
    std::unique_ptr<llama_memory_hybrid>    hybrid;  // both of the above in a hybrid model

    std::vector<ggml_backend_t> backends;  // owned; the last one is backend_cpu
    ggml_backend_t              backend_cpu = nullptr;
    ggml_backend_sched_t        sched       = nullptr;
    size_t                      max_nodes   = 0;

    std::unique_ptr<llm_graph_result> gres;  // the graph of the last ubatch (reused when possible)
    llama_batch_allocr                balloc;

    // adapters: the active LoRA set, the control vector, and model.lora_gen when loras was checked
    llama_adapter_loras                 loras;
    std::unique_ptr<llama_adapter_cvec> cvec;
    uint64_t                            lora_gen       = 0;
    size_t                              max_nodes_base = 0;  // graph size without adapters
    // Drops adapters freed since the last check and sizes the graph for what is set.
    void sync_adapters();

    ggml_abort_callback abort_cb      = nullptr;
    bool                rs_rows       = false;  // set_rs_rows
    void *              abort_cb_data = nullptr;
    int32_t             n_threads_cur = 0;

    // outputs of the last decode
    std::vector<float>   logits;  // [n_outputs][n_vocab]
    std::vector<float>   embd;    // [n_outputs][n_embd] when embeddings are on
    llama_hidden_rows    hidden;  // with keep_hidden or in an MTP context (llama-hidden-rows.h)
    bool                 keep_hidden = false;
    std::vector<int32_t> output_ids;  // batch index -> row, -1 when none
    int32_t              n_outputs = 0;
    llama_pooling        pooling;  // per-sequence vectors (llama-pooling.cpp)
    // Whether this context's graphs keep the final norm's row of every token (hidden_all).
    bool hidden_all() const;
    // Copies ubatch ub's hidden rows (rows of every token, or of its outputs from row n_out_done on).
    void keep_hidden_rows(const llama_ubatch & ub, int32_t n_out_done);

    // the batch loop of decode/encode
    int32_t run(const llama_batch & batch, std::string & err);

    ggml_threadpool_t tp_gen   = nullptr;  // attached pools (llama_attach_threadpool), not owned
    ggml_threadpool_t tp_batch = nullptr;

    std::vector<llama_sampler *> seq_samplers;  // per sequence, not owned; empty: none set
    std::vector<sampled_output>  sampled;       // per output row of the last decode
    // Runs the sequences' chains on the output rows of the last decode (after run() succeeded).
    void sample_outputs(const llama_batch & batch);

    // perf
    int64_t t_start_us  = 0;
    int64_t t_p_eval_us = 0;
    int64_t t_eval_us   = 0;
    int32_t n_p_eval    = 0;
    int32_t n_eval      = 0;
    int32_t n_reused    = 0;

    llm_graph_params graph_params(const llama_ubatch & ub, const llama_kv_slot & slot) const;
    // Builds the graph for params into gres (not allocated). Throws on failure.
    void build_graph(const llm_graph_params & p);
    // Applies pending position shifts to the cached K (seq_add/seq_div). False on failure.
    bool apply_k_shift(std::string & err);
    void set_threads_for(uint32_t n_tokens);
    // Frees the graph, scheduler, KV cache and backends (destructor, failed construction).
    void release();
};
