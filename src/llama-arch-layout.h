// The tensor layout of every architecture: which weights a model file holds, their shapes as
// functions of the hyperparameters, which are optional and why, which device they go to when layers
// are offloaded, one table per architecture in file order. The one statement of it: libllama creates
// its weights from these tables (llama-model-layout.cpp) and the synthetic model writer
// (examples/gguf-synth) writes them, so a new architecture is a table here and nothing in the writer.
// Self-contained on llama-arch (enum and tensor names): compiled into libllama and, on its own, into
// the llama-arch-layout archive that llama-gguf-synth links.
#pragma once

#include "llama-arch.h"

#include <cstddef>
#include <cstdint>

// A dimension of a weight, named by the hyperparameter it is.
enum llm_dim : uint8_t {
    LLM_DIM_NONE,         // no such dimension (a 1-D or 2-D tensor)
    LLM_DIM_EMBD,         // n_embd
    LLM_DIM_VOCAB,        // n_vocab
    LLM_DIM_FF,           // n_ff
    LLM_DIM_FF_X2,        // 2 n_ff: gate and up fused in one matrix (phi3)
    LLM_DIM_FF_EXP,       // an expert's n_ff (expert_feed_forward_length; n_ff without it)
    LLM_DIM_EXPERT,       // n_expert
    LLM_DIM_HEAD,         // n_head (one value per head: attention sinks)
    LLM_DIM_HEAD_K,       // n_embd_head_k (per-head q/k norms)
    LLM_DIM_Q,            // n_head x n_embd_head_k
    LLM_DIM_K,            // n_head_kv x n_embd_head_k
    LLM_DIM_V,            // n_head_kv x n_embd_head_v
    LLM_DIM_QKV,          // Q + K + V: q, k and v fused in one matrix, rows in that order
    LLM_DIM_ROT_HALF,     // n_rot / 2 (per-pair rope factors)
    LLM_DIM_CTX,          // n_ctx_train (absolute position embeddings)
    LLM_DIM_TOKEN_TYPES,  // rows of token_types: the file decides (2 in BERT)
    LLM_DIM_CLS_OUT,      // scores of a classifier head: the file decides
    LLM_DIM_FF_SHEXP,     // the shared expert's n_ff (expert_shared_feed_forward_length)
    // state-space layers (mamba2): ssm.conv_kernel, ssm.inner_size, ssm.time_step_rank (heads),
    // ssm.group_count, the conv channels (inner + 2 groups x state) and ssm_in's rows
    // (z, x, B, C, dt: 2 inner + 2 groups x state + heads); a group's width (inner / groups)
    LLM_DIM_ONE,  // a dimension of size 1 (mamba2's [1, heads] A and D)
    LLM_DIM_SSM_CONV,
    LLM_DIM_SSM_INNER,
    LLM_DIM_SSM_HEADS,
    LLM_DIM_SSM_GROUPS,
    LLM_DIM_SSM_CONV_CH,
    LLM_DIM_SSM_IN,
    LLM_DIM_SSM_GROUP_W,
    LLM_DIM_FF_UP,        // rows of ffn_up where the file decides: n_ff, or 2 n_ff with the gate fused in
                          // (jina-bert-v2: the released embedding models fuse it, rows: gate, up)
    LLM_DIM_SHORTCONV_L,  // lfm2: shortconv.l_cache (the conv kernel width)
    LLM_DIM_EMBD_X3,      // lfm2: 3 n_embd (in_proj's B, C, x)
    // multi-head latent attention (deepseek2)
    LLM_DIM_Q_LORA,        // q_lora_rank
    LLM_DIM_KV_LORA,       // kv_lora_rank
    LLM_DIM_KV_A_MQA,      // kv_lora_rank + n_rot: the latent and the shared rope part
    LLM_DIM_Q_MLA,         // n_head x n_embd_head_k_mla
    LLM_DIM_HEAD_QK_NOPE,  // n_embd_head_k_mla - n_rot: the unrotated part of a head
    LLM_DIM_HEAD_V_MLA,    // n_embd_head_v_mla
    LLM_DIM_O_MLA,         // n_head x n_embd_head_v_mla
    LLM_DIM_KV_B,          // n_head x (n_embd_head_k_mla - n_rot + n_embd_head_v_mla): fused attn_kv_b
    LLM_DIM_EMBD_X2,       // 2 n_embd: a NextN block's eh_proj input (embedding and hidden state)
    LLM_DIM_FF_EXP_X2,     // 2 n_ff_exp: the experts' gate and up fused in one stack
    // qwen3next: attn_q's rows (each head's query, then its output gate: 2 n_head x n_embd_head_k);
    // ssm_ba's rows (a beta and an alpha per delta-net head); a delta-net head's width (ssm.state_size)
    LLM_DIM_Q_GATED,
    LLM_DIM_SSM_HEADS_X2,
    LLM_DIM_SSM_STATE,
    // nemotron_h_moe: the experts' width of the hidden state (moe_latent_size, else n_embd) and the
    // latent width itself
    LLM_DIM_MOE_EMBD,
    LLM_DIM_MOE_LATENT,
    // gemma3n: the per-layer input width (n_embd_altup) and all layers' together (x n_layer); the AltUp
    // copies (n_altup), the extra ones (n_altup - 1), n_altup^2 prediction coefficients; LAuReL's rank
    LLM_DIM_ALTUP,
    LLM_DIM_ALTUP_ALL,
    LLM_DIM_N_ALTUP,
    LLM_DIM_N_ALTUP_M1,
    LLM_DIM_N_ALTUP_SQ,
    LLM_DIM_LAUREL,
    // an embedding model's dense output projection (dense_2): its out features, the file decides
    // (LFM2-ColBERT: embedding_length_out; EmbeddingGemma: dense_2_feat_out, which dense_3 takes back)
    LLM_DIM_DENSE_OUT,
};

// The values of the dimensions for one model.
struct llm_layout_dims {
    int64_t n_embd             = 0;
    int64_t n_vocab            = 0;
    int64_t n_ff               = 0;
    int64_t n_ff_exp           = 0;  // 0: n_ff
    int64_t n_expert           = 0;
    int64_t n_head             = 0;
    int64_t n_head_kv          = 0;
    int64_t n_embd_head_k      = 0;
    int64_t n_embd_head_v      = 0;
    int64_t n_rot              = 0;
    int64_t n_ctx_train        = 0;
    int64_t n_token_types      = 1;
    int64_t n_cls_out          = 1;
    int64_t n_dense_out        = 0;  // dense_2's rows (0: the model has no dense projection)
    int64_t n_ff_shexp         = 0;
    int64_t n_lora_q           = 0;
    int64_t n_lora_kv          = 0;
    int64_t n_embd_head_k_mla  = 0;
    int64_t n_embd_head_v_mla  = 0;
    int64_t n_layer_dense_lead = 0;      // the first layers take the DENSE rows even with experts
    bool    mla_kv_fused       = false;  // latent attention with one attn_kv_b (older files)
    bool    exps_gate_up_fused = false;  // the experts' gate and up in one ffn_gate_up_exps (the file says)
    int64_t ssm_d_conv         = 0;
    int64_t ssm_d_inner        = 0;
    int64_t ssm_d_state        = 0;
    int64_t ssm_n_head         = 0;  // ssm.time_step_rank
    int64_t ssm_n_group        = 0;
    int64_t n_ff_up            = 0;  // 0: n_ff
    int64_t shortconv_l        = 0;
    int64_t n_moe_latent       = 0;  // moe_latent_size (0: the experts read n_embd wide)
    int64_t n_layer            = 0;  // blocks (gemma3n's per-layer embeddings span all of them)
    int64_t n_embd_altup       = 0;  // gemma3n
    int64_t n_altup            = 0;
    int64_t laurel_rank        = 0;
    // the blocks the decoder runs; the file's blocks from this one on are NextN blocks (0: none are)
    int64_t n_layer_main = 0;

    // 1 for LLM_DIM_NONE.
    int64_t value(llm_dim d) const;
};

// What a weight is; the writer initialises by kind, libllama's loader reads the suffix from it.
enum llm_tl_kind : uint8_t {
    LLM_TL_MATRIX,     // a projection or an embedding table (quantizable)
    LLM_TL_ROUTER,     // the MoE router: a matrix kept in F32
    LLM_TL_NORM,       // the weight (scale) of an RMS or layer norm
    LLM_TL_BIAS,       // a bias, also a layer norm's (suffix "bias", always F32)
    LLM_TL_PARAM,      // other learned vectors: attention sinks, rope factors
    LLM_TL_CONV,       // a convolution kernel: a small matrix kept in F32 (ssm_conv reads F32)
    LLM_TL_DECAY,      // a learned negative decay rate without a name suffix (mamba2's A = -exp(A_log))
    LLM_TL_BARE,       // another vector without a name suffix (mamba2's D)
    LLM_TL_NORM_BARE,  // a norm weight without a name suffix (falcon-h1's ffn_norm, as its converter names it)
};

// Whether a file has the weight. Everything but REQUIRED is optional for libllama; the rest says
// when a model has it, which is what the writer follows.
enum llm_tl_presence : uint8_t {
    LLM_TL_REQUIRED,
    LLM_TL_USUAL,         // the released models have it (BERT biases, token types)
    LLM_TL_EXTRA,         // some finetunes or conversions have it (llama biases, rope_freqs)
    LLM_TL_UNTIED,        // output.weight where the head may be the token embeddings (absent: tied)
    LLM_TL_ROPE_FACTORS,  // LongRoPE models (phi3 128k)
    LLM_TL_CLS_HEAD,      // rerankers: the classifier head
    LLM_TL_DENSE_PROJ,    // embedding models converted with their sentence-transformers dense modules
};

// Which models of the architecture have the row at all.
enum llm_tl_when : uint8_t {
    LLM_TL_ALWAYS,
    LLM_TL_DENSE,  // n_expert == 0 (or a leading dense layer): the plain feed-forward
    LLM_TL_MOE,    // n_expert > 0 (past the leading dense layers): router and stacked experts
    // two spellings of the same weights (BERT: q/k/v or fused qkv): a model has the first ALT_A row
    // (then all ALT_A rows) or else the ALT_B rows; the first spelling is the architecture's usual one
    LLM_TL_ALT_A,
    LLM_TL_ALT_B,
    LLM_TL_SHEXP,     // a MOE layer with a shared expert (n_ff_shexp > 0)
    LLM_TL_Q_LORA,    // q through the low-rank pair (q_lora_rank > 0)
    LLM_TL_Q_FULL,    // q_lora_rank == 0: one attn_q
    LLM_TL_KV_SPLIT,  // latent attention with attn_k_b / attn_v_b (the current converter)
    LLM_TL_KV_FUSED,  // latent attention with one attn_kv_b (older conversions)
    // every layer but the first, where the weight is optional (modern-bert: the first block's
    // attention norm is the identity, and converted files leave it out)
    LLM_TL_NOT_FIRST,
    // hybrid models (lfm2): only on the attention layers / only on the recurrent layers / only on
    // the feed-forward-only blocks (nemotron_h)
    LLM_TL_ATTN_LAYER,
    LLM_TL_RECR_LAYER,
    LLM_TL_FFN_LAYER,
    // the multi-token-prediction blocks after the decoder's (glm4moe's nextn_predict_layers): the
    // file has them, libllama does not run them (so never creates them; the writer writes them)
    LLM_TL_NEXTN,
    // a MOE layer whose experts' gate and up are separate stacks / one fused stack (ffn_gate_up_exps)
    LLM_TL_MOE_SPLIT,
    LLM_TL_MOE_FUSED,
    // a feed-forward-only block (as FFN_LAYER) of a model with experts / without (nemotron_h_moe, which
    // upstream runs dense when expert_count is 0) / whose experts run in a latent space (moe_latent_size
    // > 0: nemotron_h_moe's ffn_latent_down / ffn_latent_up)
    LLM_TL_FFN_MOE,
    LLM_TL_FFN_DENSE,
    LLM_TL_FFN_LATENT,
};

// Where a weight lives when layers are offloaded (llama_model::weight_ctx places it on that device).
enum llm_tl_place : uint8_t {
    // by the row: a per-layer row with its block; a global row serving as the output head (output,
    // output_norm) with the output layer; any other global row in host memory (token embeddings and
    // other lookup tables, classifier heads)
    LLM_TL_PLACE_DEFAULT,
    LLM_TL_PLACE_LAYER,   // with its block (the device of the row's layer)
    LLM_TL_PLACE_HOST,    // in host memory whatever the offload
    LLM_TL_PLACE_INPUT,   // with the first block: it turns the embeddings into that block's input
    LLM_TL_PLACE_OUTPUT,  // with the output layer: it runs right before or as the LM head
};

// Whether rows of condition w are only on the feed-forward-only blocks (which the caller knows).
inline bool llm_tl_ffn_layer_only(llm_tl_when w) {
    return w == LLM_TL_FFN_LAYER || w == LLM_TL_FFN_MOE || w == LLM_TL_FFN_DENSE || w == LLM_TL_FFN_LATENT;
}

// Whether layer il (-1: a global tensor) of a model with dims d has the rows of condition w (the
// ALT_A / ALT_B spellings are decided by the file, not by the dims: true for both).
bool llm_tl_applies(llm_tl_when w, const llm_layout_dims & d, int il);

// One weight: per layer when the tensor's name has a block number (llm_tensor_is_per_layer).
struct llm_tensor_layout {
    llm_tensor      t;
    llm_tl_kind     kind;
    llm_dim         ne[3];
    llm_tl_presence presence = LLM_TL_REQUIRED;
    llm_tl_when     when     = LLM_TL_ALWAYS;
    llm_tensor      role     = LLM_TENSOR_COUNT;      // the weight it serves as, if not t (gpt-oss's ffn_norm)
    llm_tl_place    place    = LLM_TL_PLACE_DEFAULT;  // see placement()

    const char * suffix() const {
        return kind == LLM_TL_BIAS                                                       ? "bias"
               : kind == LLM_TL_DECAY || kind == LLM_TL_BARE || kind == LLM_TL_NORM_BARE ? nullptr
                                                                                         : "weight";
    }
    int        n_dims() const { return ne[2] != LLM_DIM_NONE ? 3 : ne[1] != LLM_DIM_NONE ? 2 : 1; }
    llm_tensor serves_as() const { return role == LLM_TENSOR_COUNT ? t : role; }
    // The row's placement, DEFAULT resolved (never DEFAULT): LAYER for a per-layer row, else as above.
    llm_tl_place placement() const;
};

// A row placed on purpose, for rows written as brace lists: `input_side({LLM_TENSOR_..., MAT, {E, E}})`.
constexpr llm_tensor_layout input_side(llm_tensor_layout r) {
    r.place = LLM_TL_PLACE_INPUT;
    return r;
}
constexpr llm_tensor_layout output_side(llm_tensor_layout r) {
    r.place = LLM_TL_PLACE_OUTPUT;
    return r;
}

struct llm_arch_layout {
    llm_arch                  arch;
    bool                      encoder;  // BERT family: no LM head; a decoder without output.weight is tied
    const llm_tensor_layout * rows;     // file order; a run of per-layer rows repeats for every block
    size_t                    n_rows;

    bool has(llm_tl_presence p) const;  // a row with this presence
    bool has(llm_tl_when w) const;      // a row with this condition
};

// The layout of a registered architecture (arch < LLM_ARCH_COUNT).
const llm_arch_layout & llm_arch_get_layout(llm_arch arch);
