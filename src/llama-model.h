// The model: hyperparameters, vocab and weights, plus the architecture registry that supplies
// each architecture's hparams loader and graph builder (src/models/<arch>.cpp); its weights come
// from its tensor layout (llama-arch-layout-*.h).
#pragma once

#include "llama-arch-layout.h"
#include "llama-arch.h"
#include "llama-hparams.h"
#include "llama-vocab.h"
#include "llama.h"

#include "gguf.h"

#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

struct llama_model_loader;
struct llm_graph_context;
struct llama_model;

// "Q4_K - Medium", "F16", ...: the file type as llama.cpp names it in model descriptions and logs.
const char * llama_model_ftype_name(llama_ftype ftype);

// Weights of one transformer block. Architectures use the subset they need; absent ones are null.
struct llama_layer {
    ggml_tensor * attn_norm      = nullptr;
    ggml_tensor * attn_norm_b    = nullptr;
    ggml_tensor * wq             = nullptr;
    ggml_tensor * wk             = nullptr;
    ggml_tensor * wv             = nullptr;
    ggml_tensor * wqkv           = nullptr;
    ggml_tensor * wo             = nullptr;
    ggml_tensor * bq             = nullptr;
    ggml_tensor * bk             = nullptr;
    ggml_tensor * bv             = nullptr;
    ggml_tensor * bqkv           = nullptr;
    ggml_tensor * bo             = nullptr;
    ggml_tensor * attn_q_norm    = nullptr;
    ggml_tensor * attn_k_norm    = nullptr;
    ggml_tensor * attn_q_norm_b  = nullptr;  // jina-bert-v2: q/k layer norms over the whole width
    ggml_tensor * attn_k_norm_b  = nullptr;
    ggml_tensor * attn_post_norm = nullptr;

    ggml_tensor * ffn_norm      = nullptr;
    ggml_tensor * ffn_norm_b    = nullptr;
    ggml_tensor * ffn_post_norm = nullptr;
    ggml_tensor * ffn_gate      = nullptr;
    ggml_tensor * ffn_up        = nullptr;
    ggml_tensor * ffn_down      = nullptr;
    ggml_tensor * ffn_gate_b    = nullptr;
    ggml_tensor * ffn_up_b      = nullptr;
    ggml_tensor * ffn_down_b    = nullptr;
    // mixture of experts: router and stacked expert weights
    ggml_tensor * ffn_gate_inp     = nullptr;
    ggml_tensor * ffn_gate_exps    = nullptr;
    ggml_tensor * ffn_up_exps      = nullptr;
    ggml_tensor * ffn_down_exps    = nullptr;
    ggml_tensor * ffn_gate_up_exps = nullptr;  // gate and up fused (deepseek2 files that have it): rows gate, up
    // gpt-oss: router and expert biases ([n_expert], [ff, n_expert], [embd, n_expert]), attention sinks
    ggml_tensor * ffn_gate_inp_b  = nullptr;
    ggml_tensor * ffn_gate_exps_b = nullptr;
    ggml_tensor * ffn_up_exps_b   = nullptr;
    ggml_tensor * ffn_down_exps_b = nullptr;
    ggml_tensor * attn_sinks      = nullptr;
    // granitemoe: the shared expert (SwiGLU) every token runs besides the routed ones
    ggml_tensor * ffn_gate_shexp     = nullptr;
    ggml_tensor * ffn_up_shexp       = nullptr;
    ggml_tensor * ffn_down_shexp     = nullptr;
    ggml_tensor * ffn_exp_probs_b    = nullptr;  // [n_expert] selection bias (deepseek-v3)
    ggml_tensor * ffn_gate_inp_shexp = nullptr;  // [n_embd]: the shared expert's sigmoid gate (qwen3next)
    // nemotron_h_moe (Nemotron 3 Super): into and out of the experts' latent space, [embd, latent] / [latent, embd]
    ggml_tensor * ffn_latent_down = nullptr;
    ggml_tensor * ffn_latent_up   = nullptr;
    // gemma3n: the per-layer input's gate [embd, altup], projection [altup, embd] and post norm; AltUp's
    // router [embd, n_altup] (+ norm), prediction [n_altup, n_altup^2] and correction [n_altup, n_altup]
    // coefficients, correction scale [embd]; LAuReL's pair [embd, rank] / [rank, embd] and post norm
    ggml_tensor * per_layer_inp_gate  = nullptr;
    ggml_tensor * per_layer_proj      = nullptr;
    ggml_tensor * per_layer_post_norm = nullptr;
    ggml_tensor * altup_router        = nullptr;
    ggml_tensor * altup_router_norm   = nullptr;
    ggml_tensor * altup_predict_coef  = nullptr;
    ggml_tensor * altup_correct_coef  = nullptr;
    ggml_tensor * altup_correct_scale = nullptr;
    ggml_tensor * laurel_l            = nullptr;
    ggml_tensor * laurel_r            = nullptr;
    ggml_tensor * laurel_post_norm    = nullptr;

    // multi-head latent attention (deepseek2)
    ggml_tensor * wq_a           = nullptr;  // [n_embd, q_lora_rank]
    ggml_tensor * wq_b           = nullptr;  // [q_lora_rank, n_head * n_embd_head_k_mla]
    ggml_tensor * attn_q_a_norm  = nullptr;
    ggml_tensor * wkv_a_mqa      = nullptr;  // [n_embd, kv_lora_rank + n_rot]
    ggml_tensor * attn_kv_a_norm = nullptr;
    ggml_tensor * wk_b           = nullptr;  // [qk_nope, kv_lora_rank, n_head]
    ggml_tensor * wv_b           = nullptr;  // [kv_lora_rank, n_embd_head_v_mla, n_head]
    ggml_tensor * wkv_b          = nullptr;  // [kv_lora_rank, n_head * (qk_nope + v)]: both, fused (older files)

    // BERT: post-norm blocks (layer norm after the attention and after the FFN residuals)
    ggml_tensor * attn_out_norm    = nullptr;
    ggml_tensor * attn_out_norm_b  = nullptr;
    ggml_tensor * layer_out_norm   = nullptr;
    ggml_tensor * layer_out_norm_b = nullptr;
    ggml_tensor * attn_norm_2      = nullptr;  // jina-bert-v2 (some models): a second post-attention norm
    ggml_tensor * attn_norm_2_b    = nullptr;

    // mamba2 (state-space mixer): ssm_in [embd, 2 inner + 2 groups x state + heads] (z, x, B, C, dt),
    // ssm_conv1d [d_conv, channels] (+ bias), ssm_dt_b [heads], ssm_a / ssm_d [1, heads],
    // ssm_norm [inner / groups, groups], ssm_out [inner, embd]
    ggml_tensor * ssm_in       = nullptr;
    ggml_tensor * ssm_conv1d   = nullptr;
    ggml_tensor * ssm_conv1d_b = nullptr;
    ggml_tensor * ssm_dt_b     = nullptr;
    ggml_tensor * ssm_a        = nullptr;
    ggml_tensor * ssm_d        = nullptr;
    ggml_tensor * ssm_norm     = nullptr;
    ggml_tensor * ssm_out      = nullptr;

    // lfm2 short convolution: in_proj [embd, 3 embd] (B, C, x), conv [l_cache, embd], out_proj [embd, embd]
    ggml_tensor * shortconv_in_proj  = nullptr;
    ggml_tensor * shortconv_conv     = nullptr;
    ggml_tensor * shortconv_out_proj = nullptr;

    // qwen3next gated delta-net: wqkv (above) [embd, 2 k heads x state + inner] feeds the conv;
    // attn_gate [embd, inner] is z; ssm_beta_alpha [embd, 2 heads]; ssm_a, ssm_dt_b [heads]
    ggml_tensor * attn_gate      = nullptr;
    ggml_tensor * ssm_beta_alpha = nullptr;
    // qwen35 / qwen35moe: the same beta and alpha as two projections [embd, heads] each
    ggml_tensor * ssm_beta  = nullptr;
    ggml_tensor * ssm_alpha = nullptr;
    // kimi-linear KDA: wq / wk / wv (above) [embd, inner] each feed their own short conv [d_conv, 1, inner];
    // the per-channel decay from ssm_f_b ssm_f_a x, the output gate from ssm_g_b ssm_g_a x
    ggml_tensor * ssm_conv1d_q = nullptr;
    ggml_tensor * ssm_conv1d_k = nullptr;
    ggml_tensor * ssm_conv1d_v = nullptr;
    ggml_tensor * ssm_f_a      = nullptr;
    ggml_tensor * ssm_f_b      = nullptr;
    ggml_tensor * ssm_g_a      = nullptr;
    ggml_tensor * ssm_g_b      = nullptr;

    // a multi-token-prediction (NextN) block (qwen35, loaded with load_mtp): eh_proj [2 embd, embd] maps
    // [enorm(embedding of the next token); hnorm(the target's hidden state)] into the block; its own
    // token embeddings, head and head norm when the file has them (else the model's)
    ggml_tensor * nextn_eh_proj          = nullptr;
    ggml_tensor * nextn_enorm            = nullptr;
    ggml_tensor * nextn_hnorm            = nullptr;
    ggml_tensor * nextn_embed_tokens     = nullptr;
    ggml_tensor * nextn_shared_head_head = nullptr;
    ggml_tensor * nextn_shared_head_norm = nullptr;

    ggml_tensor * rope_freqs = nullptr;  // per-pair frequency divisors (llama 3.1), may be shared
    // phi3 LongRoPE divisors, shared: long for contexts beyond n_ctx_orig_yarn, short otherwise
    ggml_tensor * rope_long  = nullptr;
    ggml_tensor * rope_short = nullptr;
};

// Used by llm_layout_load_tensors: creates weights declaratively with shape checks, each
// in the buffer type of the device its layer is placed on (llama_model::weight_ctx).
struct llama_tensor_creator {
    llama_model_loader & ml;
    llama_model &        model;

    // name template + layer -> the tensor, its shape checked; flags LLAMA_TENSOR_*. layer < 0: a
    // tensor outside the blocks. place: the device it goes to (llm_tensor_layout::placement()).
    ggml_tensor * create(llm_tensor t, const std::vector<int64_t> & ne, int flags, int layer, const char * suffix,
                         llm_tl_place place);
};

// What an architecture provides besides its tensor layout (llama-arch-layout-*.h). One instance per
// architecture, registered in llama-model.cpp.
struct llm_arch_ops {
    llm_arch arch;
    // Reads architecture-specific hparams (the common ones are read before).
    void (*load_hparams)(llama_model_loader & ml, llama_hparams & hp);
    // Builds the forward graph; returns the logits tensor (also stored in gctx).
    void (*build_graph)(llm_graph_context & gctx);
    // Whether the graph applies per-tensor scales (`<weight>.scale`, ModelOpt/NVFP4-style exports) to
    // the feed-forward weights too; every architecture applies those of the attention projections.
    bool ffn_weight_scales = false;
    // Builds the multi-token-prediction graph over the NextN block (model.layers[hparams.n_layer]):
    // inputs the next tokens and the target's hidden rows, outputs the draft logits and the block's
    // hidden rows (a context of type LLAMA_CONTEXT_TYPE_MTP). nullptr: load_mtp is refused.
    void (*build_mtp_graph)(llm_graph_context & gctx) = nullptr;
};

// The registry: the ops of an architecture, or nullptr if none is implemented.
const llm_arch_ops * llm_arch_get_ops(llm_arch arch);

// Creates the weights of `model` (hparams are known) from its architecture's tensor layout
// (llama-arch-layout.h) and sets the llama_model / llama_layer fields the graph builders read.
void llm_layout_load_tensors(llama_model & model, llama_tensor_creator & tc);

struct llama_model {
    // arch/ops are UNKNOWN/nullptr only for a vocab-only load of an architecture we cannot run;
    // arch_name is general.architecture as the file gives it.
    llm_arch             arch = LLM_ARCH_UNKNOWN;
    const llm_arch_ops * ops  = nullptr;
    std::string          arch_name;
    std::string          name  = "n/a";
    llama_ftype          ftype = LLAMA_FTYPE_ALL_F32;

    llama_hparams      hparams;
    llama_vocab        vocab;
    llama_model_params params;

    ggml_tensor * tok_embd      = nullptr;
    ggml_tensor * output_norm   = nullptr;
    ggml_tensor * output_norm_b = nullptr;
    ggml_tensor * output        = nullptr;  // == tok_embd when the embeddings are tied
    ggml_tensor * output_b      = nullptr;
    // encoders (BERT): input embeddings and the classifier head of rerankers (pooling RANK)
    ggml_tensor * type_embd  = nullptr;  // (n_token_types, embd); type 0 is added to every token
    ggml_tensor * pos_embd   = nullptr;  // (n_ctx_train, embd) absolute positions
    ggml_tensor * tok_norm   = nullptr;
    ggml_tensor * tok_norm_b = nullptr;
    ggml_tensor * cls        = nullptr;  // (embd, embd) dense + tanh; jina-bert-v2: (embd, 1) scores
    ggml_tensor * cls_b      = nullptr;
    ggml_tensor * cls_out    = nullptr;  // (embd, n_cls_out) scores
    ggml_tensor * cls_out_b  = nullptr;
    ggml_tensor * cls_norm   = nullptr;  // modern-bert: layer norm after the dense layer
    // embedding models' dense output projections, applied to every embedding row when embeddings are
    // requested (llm_graph_context::build_embd_proj): dense_2 (embd, n_dense_out) (+ bias), then
    // (gemma-embedding) dense_3 (n_dense_out, embd); hparams.n_embd_out is the resulting width
    ggml_tensor * dense_2   = nullptr;
    ggml_tensor * dense_2_b = nullptr;
    ggml_tensor * dense_3   = nullptr;
    // gemma3n: per-layer token embeddings (n_embd_altup x n_layer, vocab), their projection from the
    // hidden state (embd, n_embd_altup x n_layer) and its norm (n_embd_altup); the AltUp projections
    // into / out of the extra copies (embd, embd, n_altup - 1)
    ggml_tensor * per_layer_tok_embd   = nullptr;
    ggml_tensor * per_layer_model_proj = nullptr;
    ggml_tensor * per_layer_proj_norm  = nullptr;
    ggml_tensor * altup_proj           = nullptr;
    ggml_tensor * altup_unembd_proj    = nullptr;
    // the decoder's blocks (hparams.n_layer), then the NextN blocks when loaded with load_mtp
    std::vector<llama_layer> layers;
    // Whether the NextN (multi-token-prediction) blocks were loaded and can run.
    bool has_mtp() const { return layers.size() > hparams.n_layer && ops && ops->build_mtp_graph; }
    // Per-tensor scales of block matrices ("<name>.scale": FP8 / NVFP4 second-level scales, [1], or
    // [n_expert] for stacked experts): the product with the weight is multiplied by them.
    std::unordered_map<const ggml_tensor *, ggml_tensor *> weight_scales;
    ggml_tensor *                                          scale_of(const ggml_tensor * w) const {
                                                 const auto it = weight_scales.find(w);
                                                 return it == weight_scales.end() ? nullptr : it->second;
    }

    // every key/value of the file, as text (llama_model_meta_*)
    std::vector<std::pair<std::string, std::string>> gguf_kv;
    // the same keys with their GGUF types (kv overrides applied), for llama_model_save_to_file
    std::shared_ptr<gguf_context> meta;
    // <arch>.classifier.output_labels (llama_model_cls_label)
    std::vector<std::string> cls_labels;

    uint64_t n_elements = 0;
    uint64_t n_bytes    = 0;
    int64_t  t_load_us  = 0;
    int64_t  t_start_us = 0;

    // Placement (n_gpu_layers, split_mode, devices): the CPU device, the GPU devices that hold
    // weights (in the order the context gives them to the scheduler), and per layer / for the output
    // layer the device its weights and KV cache go to (dev_cpu when not offloaded). Token
    // embeddings always stay on the CPU (get_rows on the host).
    ggml_backend_dev_t              dev_cpu = nullptr;
    std::vector<ggml_backend_dev_t> devices;
    std::vector<ggml_backend_dev_t> dev_layer;
    ggml_backend_dev_t              dev_output = nullptr;

    ggml_backend_dev_t layer_dev(int il) const {
        return il >= 0 && (size_t) il < dev_layer.size() ? dev_layer[il] : dev_cpu;
    }
    // Bytes of weights held in buffers of buft (llama_model_size counts them all).
    size_t weights_size(ggml_backend_buffer_type_t buft) const;
    // The weights context for a weight of kind t (of shape/type w) placed by `place` (its layout row's
    // placement(); `layer` for LLM_TL_PLACE_LAYER): the device's buffer type when that device can run an
    // op on it, else the CPU's.
    ggml_context * weight_ctx(const struct llama_tensor_weight * w, llm_tensor t, llm_tl_place place, int layer,
                              const char * suffix);

    llama_model() = default;
    ~llama_model();
    llama_model(const llama_model &)             = delete;
    llama_model & operator=(const llama_model &) = delete;

    // The loading phases, in order (throw llama_error on failure).
    void load_hparams(llama_model_loader & ml);
    void load_vocab(llama_model_loader & ml);
    // keeps the typed metadata (for saving), the classifier labels and the suppress tokens
    void load_extra_meta(llama_model_loader & ml);
    void load_tensors(llama_model_loader & ml);
    // hparams.n_embd_proj from the dense output projections' shapes, checked against the width keys
    // the file may carry (throws llama_error on a disagreement)
    void set_embd_proj_width(llama_model_loader & ml);

    // Keeps the loader's mappings/locks alive as long as the model uses them.
    void keep_storage(llama_model_loader & ml);

    // An encoder-only model (BERT): no LM head, llama_encode gives embeddings.
    bool is_encoder() const { return output == nullptr; }

    std::string desc() const;
    // The rope frequency divisors of layer il for a context of n_ctx cells: rope_freqs when the
    // layer has them, else LongRoPE's long factors when n_ctx exceeds n_ctx_orig_yarn, else the short
    // ones (nullptr: none). The graph and the K shift must rotate with the same ones.
    ggml_tensor * rope_factors(uint32_t n_ctx, int il) const {
        const llama_layer & l = layers[il];
        return l.rope_freqs ? l.rope_freqs : n_ctx > hparams.n_ctx_orig_yarn ? l.rope_long : l.rope_short;
    }
    const char * meta_value(const std::string & key) const;  // nullptr if absent

    // The weight named name (the first copy when a weight is duplicated on devices), nullptr if none.
    ggml_tensor * get_tensor(const char * name) const;

    // LoRA adapters loaded for this model (owned; freed with it). lora_gen changes whenever one is
    // freed, so contexts drop it before their next graph.
    std::set<struct llama_adapter_lora *> loras;
    uint64_t                              lora_gen = 0;

    // Writes the metadata and every weight (each name once) as one GGUF file (llama-model-saver.cpp).
    // Throws llama_error.
    void save(const std::string & path) const;

private:
    // weight tensor metadata, one context per buffer type (in creation order)
    std::vector<std::pair<ggml_context *, ggml_backend_buffer_type_t>> ctxs_w;
    std::vector<ggml_backend_buffer_t>                                 bufs;  // weight buffers
    size_t n_ctx_tensors = 0;                                                 // capacity of each context in ctxs_w
    int    n_kept_on_cpu = 0;  // weights of offloaded layers their device cannot use

    void           select_devices();
    ggml_context * ctx_for_buft(ggml_backend_buffer_type_t buft);
    // Second copies of shared weights (tied output, shared rope_freqs) on the devices that use them.
    void                                             duplicate_shared_weights(llama_model_loader & ml);
    std::vector<std::unique_ptr<struct llama_mmap>>  mappings;
    std::vector<std::unique_ptr<struct llama_mlock>> mlocks;
};

// Loads a model from its file(s). Throws llama_error / llama_load_cancelled.
llama_model * llama_model_load_impl(const std::vector<std::string> & paths, const llama_model_params & params);
