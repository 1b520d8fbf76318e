// Graph building shared by all architectures: the graph inputs (tokens, positions, KQ mask,
// output ids, KV write indices), the common blocks (norm, rope, attention, feed-forward) and the
// built graph with what decides whether it can be reused for the next ubatch.
#pragma once

#include "llama-batch.h"
#include "llama-cparams.h"
#include "llama-hparams.h"
#include "llama-kv-cache.h"
#include "llama-memory-recurrent.h"

#include "ggml.h"

#include <cstdint>
#include <utility>
#include <vector>

struct llama_layer;

struct llama_model;
struct llama_adapter_lora;
struct llama_adapter_cvec;

// Everything that fixes the topology of a graph: equal params -> the graph can be reused with new
// input values.
struct llm_graph_params {
    uint32_t n_tokens   = 0;
    uint32_t n_outputs  = 0;
    uint32_t n_kv       = 0;
    uint32_t n_kv_swa   = 0;      // cells of the window cache attended over (0: no window cache)
    bool     embd_input = false;  // the batch carries embeddings instead of tokens
    bool     causal     = true;
    bool     flash_attn = false;
    uint32_t n_seqs     = 0;      // recurrent models: sequences in the ubatch (n_tokens / n_seqs tokens each)
    bool     embd_proj  = false;  // the embeddings go through the model's dense output projections
    // recurrent models: keep each conv layer's input (build_rs_rows) and each recurrence's inputs
    // (build_rs_replay) as outputs, so that the state after any token of the ubatch can be had from
    // them (speculative verification)
    bool rs_rows = false;
    // keep the final norm's row of every token (llm_graph_result::t_hidden; what an MTP head reads, set
    // on the target of an MTP drafter): the last layer runs over every token and the outputs are
    // gathered after the final norm, before the LM head. Honoured by the graphs of architectures with an
    // MTP graph (llm_arch_ops::build_mtp_graph); build_output does the gathering.
    bool hidden_all = false;
    // recurrent models: the first state slot when the ubatch's sequences hold consecutive slots (always
    // so for one sequence): the graph then reads the states in place, a view of those rows, instead of
    // gathering them (a copy of every state per token: 18 MiB at Qwen3.5-0.8B); -1: gathered by rs_ids
    int32_t rs_slot0 = -1;

    bool operator==(const llm_graph_params & o) const {
        return n_tokens == o.n_tokens && n_outputs == o.n_outputs && n_kv == o.n_kv && n_kv_swa == o.n_kv_swa &&
               embd_input == o.embd_input && causal == o.causal && flash_attn == o.flash_attn && n_seqs == o.n_seqs &&
               embd_proj == o.embd_proj && rs_rows == o.rs_rows && hidden_all == o.hidden_all && rs_slot0 == o.rs_slot0;
    }
};

// The input tensors of a graph (nullptr where the graph has none).
struct llm_graph_inputs {
    ggml_tensor * tokens  = nullptr;  // I32 [n_tokens]
    ggml_tensor * embd    = nullptr;  // F32 [n_embd, n_tokens]
    ggml_tensor * pos     = nullptr;  // I32 [n_tokens]
    ggml_tensor * kq_mask = nullptr;  // F32 [n_kv, n_tokens padded to GGML_KQ_MASK_PAD]
    // the same for the sliding-window layers (only when the model has some): cells further back than
    // n_swa positions are masked too
    ggml_tensor * kq_mask_swa = nullptr;
    ggml_tensor * out_ids     = nullptr;  // I32 [n_outputs]
    ggml_tensor * k_idxs      = nullptr;  // I64 [n_tokens]
    ggml_tensor * v_idxs      = nullptr;  // I64 [n_tokens] or [n_tokens * n_embd_v_gqa]
    // write indices into the window cache (sliding-window layers, when the cache has one)
    ggml_tensor * k_idxs_swa = nullptr;
    ggml_tensor * v_idxs_swa = nullptr;
    // I32 [max(n_kv, n_kv_swa)] = 0, 1, 2, ...: the rows of a quantized V cache gathered as F32 on the
    // plain attention path (made only by a graph that reads such a cache without flash attention)
    ggml_tensor * v_rows = nullptr;
    // I32 [n_seqs]: the recurrent state slot of each sequence of the ubatch (recurrent models)
    ggml_tensor * rs_ids = nullptr;
    // F32 [1, 1, n_tokens]: the attention temperature of each token's position (llama_hparams'
    // f_attn_temp_*), with the constants it is computed from
    ggml_tensor * attn_scale            = nullptr;
    float         attn_temp_scale       = 0.0f;
    float         attn_temp_offset      = 0.0f;
    uint32_t      attn_temp_floor_scale = 1;
};

enum llm_norm_type { LLM_NORM, LLM_NORM_RMS };
// *_FUSED: no gate weight; up's output holds both halves of the gated unit, act(first) * second
// (jina-bert-v2, modern-bert)
// LLM_FFN_RELU_SQR: relu(x)^2 (nemotron_h's feed-forward, without a gate)
enum llm_ffn_op {
    LLM_FFN_SILU,
    LLM_FFN_GELU,
    LLM_FFN_RELU,
    LLM_FFN_GEGLU_FUSED,
    LLM_FFN_SWIGLU_FUSED,
    LLM_FFN_RELU_SQR
};
enum llm_ffn_gate { LLM_FFN_SEQ, LLM_FFN_PAR };  // gate applied to up's output or to the same input

// A built graph: owns the ggml context that holds its node metadata.
struct llm_graph_result {
    llm_graph_result(size_t max_nodes);
    ~llm_graph_result();
    llm_graph_result(const llm_graph_result &)             = delete;
    llm_graph_result & operator=(const llm_graph_result &) = delete;

    // Forgets the previous graph and prepares an empty one.
    void reset();

    ggml_context *   ctx = nullptr;
    ggml_cgraph *    gf  = nullptr;
    llm_graph_inputs inp;
    llm_graph_params params;
    ggml_tensor *    t_logits = nullptr;  // [n_vocab, n_outputs]
    ggml_tensor *    t_embd   = nullptr;  // [n_embd, n_outputs] (final norm output)
    ggml_tensor *    t_hidden = nullptr;  // with params.hidden_all: [n_embd, n_tokens] (final norm output)
    // with params.rs_rows: per recurrent layer, in layer order, its conv input [d_conv + n_seq_tokens,
    // channels, n_seqs] (llama_memory_recurrent::rows_collect)
    std::vector<ggml_tensor *> t_rs_rows;
    // with params.rs_rows: per SSM / delta-net layer, in layer order, its recurrence's inputs
    std::vector<llama_rs_replay_rec> t_rs_replay;
    bool                             valid = false;

    // Copies the ubatch's values into the input tensors.
    // kv: nullptr for a recurrent model (no attention inputs); hp: the mask rules (sliding window, ALiBi)
    void set_inputs(const llama_ubatch & ub, const llama_kv_slot & slot, const llama_kv_cache * kv, int32_t n_embd,
                    const llama_hparams & hp);

private:
    size_t               max_nodes;
    std::vector<uint8_t> meta;  // arena of ctx
    bool                 mask_pad_done = false;
    void set_mask(ggml_tensor * mask, const llama_ubatch & ub, const llama_kv_cache & kv, const llama_hparams & hp,
                  uint32_t n_swa);
    // scratch reused across decodes (no allocation per token)
    std::vector<int32_t> s_i32;
    std::vector<int64_t> s_i64;
    std::vector<float>   s_f32;
};

// What an architecture's build_graph works with.
struct llm_graph_context {
    const llama_model &            model;
    const llama_hparams &          hparams;
    const llama_cparams &          cparams;
    const llama_kv_cache *         kv;  // nullptr in a recurrent model
    const llama_memory_recurrent * rs;  // the recurrent memory of a recurrent model, else nullptr
    const llm_graph_params         params;
    llm_graph_result &             res;

    ggml_context * ctx0;
    ggml_cgraph *  gf;

    const int64_t n_tokens;
    const int64_t n_outputs;
    const int64_t n_kv;

    // adapters of the context (set after construction; nullptr / empty: none)
    const std::vector<std::pair<const llama_adapter_lora *, float>> * loras = nullptr;
    const llama_adapter_cvec *                                        cvec  = nullptr;

    llm_graph_context(const llama_model & model, const llama_cparams & cparams, const llama_kv_cache * kv,
                      const llm_graph_params & params, llm_graph_result & res,
                      const llama_memory_recurrent * rs = nullptr);

    // Names a node "<name>-<il>" (or "<name>" for il < 0) so eval callbacks can identify it.
    void cb(ggml_tensor * t, const char * name, int il) const;

    // ---- inputs ----
    ggml_tensor * build_inp_embd(ggml_tensor * tok_embd);  // [n_embd, n_tokens]
    ggml_tensor * build_inp_pos();
    // nullptr when every token is an output (no gathering needed)
    ggml_tensor * build_inp_out_ids();
    // The per-token attention temperature (hparams.f_attn_temp_scale must be set).
    ggml_tensor * build_inp_attn_scale();
    void          build_attn_inp();  // mask and KV write indices
    // The state slots of the ubatch's sequences (recurrent models), I32 [n_seqs].
    ggml_tensor * build_inp_rs();
    // Layer il's states of the ubatch's sequences: all [F32 n_embd_{r,s}, n_seqs] rows of `states`
    // (rs->r_layer / s_layer) at the slots, and the write of new ones back into those slots.
    ggml_tensor * build_rs_read(ggml_tensor * states) const;
    void          build_rs_write(ggml_tensor * states, ggml_tensor * rows) const;
    // With params.rs_rows: keeps conv_in (a layer's carried conv inputs followed by the ubatch's, the
    // tensor whose last d_conv columns are its new state) as an output for rows_collect.
    void build_rs_rows(ggml_tensor * conv_in) const;
    // With params.rs_rows: keeps the inputs of a layer's recurrence node (ggml_ssm_scan or
    // ggml_gated_delta_net; all but the state and the slot ids) readable after the compute, so that
    // rows_collect can record them and seq_rewind replay the recurrence over a prefix of the ubatch.
    void build_rs_replay(ggml_tensor * node) const;

    // ---- blocks ----
    ggml_tensor * build_norm(ggml_tensor * cur, ggml_tensor * w, ggml_tensor * b, llm_norm_type type, int il) const;
    // x [head_dim, n_heads, n_tokens]. il >= 0: with that layer's base (sliding-window layers may
    // have their own, hparams.rope_freq_base_train_swa). The K shift (llama_context::apply_k_shift)
    // rotates cached keys through this same step, so the rule is written once.
    ggml_tensor * build_rope(ggml_tensor * x, ggml_tensor * pos, ggml_tensor * freq_factors, int il = -1) const;
    // The KQ mask layer il attends with (the sliding-window one for SWA layers).
    ggml_tensor * kq_mask(int il) const;
    ggml_tensor * v_rows(uint32_t n) const;  // the first n entries of inp.v_rows (made on first use)
    // Whether layer il's K/V live in the window cache; the cells its attention spans.
    bool          in_window_cache(int il) const { return kv && kv->swa_cache() && hparams.is_swa(il); }
    uint32_t      n_kv_of(int il) const { return in_window_cache(il) ? params.n_kv_swa : (uint32_t) n_kv; }
    ggml_tensor * build_ffn(ggml_tensor * cur, ggml_tensor * up, ggml_tensor * up_b, ggml_tensor * gate,
                            ggml_tensor * gate_b, ggml_tensor * down, ggml_tensor * down_b, llm_ffn_op op,
                            llm_ffn_gate gate_type, int il) const;
    // Stores k_cur/v_cur in the cache and attends over it; then the output projection. k_cur = v_cur =
    // nullptr: a KV-sharing layer (hparams.kv_layer) attends over its source layer's cells unchanged.
    //   q_cur [head_dim, n_head, n_tokens], k_cur [head_dim, n_head_kv, n_tokens], v_cur [n_embd_v_gqa, n_tokens]
    //   sinks [n_head] (gpt-oss): one extra logit per head that joins the softmax and is then dropped
    //   (attention may go "nowhere"); such layers take the plain path even with flash attention on.
    //   v_mla [dv, dv_head, n_head] (multi-head latent attention): each head's attention output, a
    //   mix of cached latents, is expanded to the head's value by v_mla before the output projection
    ggml_tensor * build_attn(ggml_tensor * wo, ggml_tensor * wo_b, ggml_tensor * q_cur, ggml_tensor * k_cur,
                             ggml_tensor * v_cur, float kq_scale, int il, ggml_tensor * sinks = nullptr,
                             ggml_tensor * v_mla = nullptr) const;
    // Projection with optional bias: W cur (+ b), plus k * B (A cur) for each active LoRA adapter
    // holding a pair for W (k = its scale, see llama_adapter_lora_weight::scale).
    ggml_tensor * build_lora_mm(ggml_tensor * w, ggml_tensor * cur, ggml_tensor * b = nullptr) const;
    // The residual stream after layer il plus the control vector's direction for il (if any).
    ggml_tensor * build_cvec(ggml_tensor * cur, int il) const;
    // The separate-projection attention input shared by most architectures: Q/K/V = W cur (+ bias when the
    // layer has one), Q and K split into heads, RMS-normed per head when the layer has attn_q_norm /
    // attn_k_norm (qwen3, gemma3), and rotated (with the layer's rope_freqs, if any).
    //   q [head_dim, n_head, n_tokens], k [head_dim, n_head_kv, n_tokens], v [n_embd_v_gqa, n_tokens]
    void build_qkv_rope(const llama_layer & l, ggml_tensor * cur, ggml_tensor * inp_pos, int il, ggml_tensor *& q,
                        ggml_tensor *& k, ggml_tensor *& v) const;

    // The head shared by every architecture: RMS output_norm, the LM head (+ output_b when present) and,
    // when hparams.f_final_logit_softcapping > 0, cap * tanh(logits / cap); then set_result.
    // With params.hidden_all, inpL holds every token's row: the norm's output becomes res.t_hidden and
    // the rows out_ids names (nullptr: every token is an output) go on to t_embd and the LM head.
    void build_output(ggml_tensor * inpL, ggml_tensor * out_ids = nullptr);
    // The output ids a layer loop gathers its last layer's rows by: out_ids, or nullptr under
    // params.hidden_all (every row goes on; build_output gathers after the final norm).
    ggml_tensor * last_layer_out_ids(ggml_tensor * out_ids) const { return params.hidden_all ? nullptr : out_ids; }

    // Final results: marks them as outputs.
    void set_result(ggml_tensor * embd, ggml_tensor * logits);
    // The embedding rows through the model's dense output projections (dense_2 (+ bias), then
    // dense_3): t_embd becomes their result. Applied per row, which equals upstream's projection of
    // the pooled vector for every pooling the library does on the host (mean, CLS, last: averaging
    // and selecting rows commute with an affine map).
    void build_embd_proj();
};
