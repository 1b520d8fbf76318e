// Architecture registry: the enum of model architectures and their GGUF names, the GGUF metadata
// key templates, and the tensor-name table. Table-driven so a missing row breaks the build.
#pragma once

#include <string>

// Model architectures. Adding one: a value here, a row in LLM_ARCH_TABLE (llama-arch.cpp), its tensor
// layout (llama-arch-layout-*.h) and its implementation file in src/models/.
enum llm_arch {
    LLM_ARCH_LLAMA,
    LLM_ARCH_QWEN2,
    LLM_ARCH_PHI3,
    LLM_ARCH_GEMMA,
    LLM_ARCH_GEMMA2,
    LLM_ARCH_BERT,
    LLM_ARCH_NOMIC_BERT,
    LLM_ARCH_QWEN3,
    LLM_ARCH_QWEN3MOE,
    LLM_ARCH_GEMMA3,
    LLM_ARCH_GPT_OSS,
    LLM_ARCH_GRANITE,
    LLM_ARCH_GRANITE_MOE,
    LLM_ARCH_OLMO2,
    LLM_ARCH_SMOLLM3,
    LLM_ARCH_EXAONE4,
    LLM_ARCH_MISTRAL3,
    LLM_ARCH_GLM4,
    LLM_ARCH_MAMBA2,
    LLM_ARCH_JINA_BERT_V2,
    LLM_ARCH_MODERN_BERT,
    LLM_ARCH_LFM2,
    LLM_ARCH_DEEPSEEK2,
    LLM_ARCH_GRANITE_HYBRID,
    LLM_ARCH_NEMOTRON_H,
    LLM_ARCH_GLM4_MOE,
    LLM_ARCH_FALCON_H1,
    LLM_ARCH_LFM2MOE,
    LLM_ARCH_QWEN3NEXT,
    LLM_ARCH_QWEN35,
    LLM_ARCH_QWEN35MOE,
    LLM_ARCH_NEMOTRON_H_MOE,
    LLM_ARCH_GEMMA3N,
    LLM_ARCH_GEMMA_EMBEDDING,
    LLM_ARCH_KIMI_LINEAR,
    LLM_ARCH_COUNT,
    LLM_ARCH_UNKNOWN = LLM_ARCH_COUNT,
};

// "llama", ...; "(unknown)" for LLM_ARCH_UNKNOWN.
const char * llm_arch_name(llm_arch arch);
// LLM_ARCH_UNKNOWN if the name is not registered.
llm_arch llm_arch_from_string(const std::string & name);

// GGUF metadata keys. Names containing "%s" are templated with the architecture name. Every key the
// library reads or writes has a row here, so each key string is written once (LLM_KV_TABLE).
enum llm_kv {
    LLM_KV_GENERAL_ARCHITECTURE,
    LLM_KV_GENERAL_NAME,
    LLM_KV_GENERAL_FILE_TYPE,
    LLM_KV_GENERAL_ALIGNMENT,
    LLM_KV_GENERAL_TYPE,
    LLM_KV_GENERAL_QUANTIZATION_VERSION,
    LLM_KV_GENERAL_SAMPLING_SEQUENCE,
    LLM_KV_GENERAL_SAMPLING_TOP_K,
    LLM_KV_GENERAL_SAMPLING_TOP_P,
    LLM_KV_GENERAL_SAMPLING_MIN_P,
    LLM_KV_GENERAL_SAMPLING_XTC_PROBABILITY,
    LLM_KV_GENERAL_SAMPLING_XTC_THRESHOLD,
    LLM_KV_GENERAL_SAMPLING_TEMP,
    LLM_KV_GENERAL_SAMPLING_PENALTY_LAST_N,
    LLM_KV_GENERAL_SAMPLING_PENALTY_REPEAT,
    LLM_KV_GENERAL_SAMPLING_MIROSTAT,
    LLM_KV_GENERAL_SAMPLING_MIROSTAT_TAU,
    LLM_KV_GENERAL_SAMPLING_MIROSTAT_ETA,

    LLM_KV_VOCAB_SIZE,
    LLM_KV_CONTEXT_LENGTH,
    LLM_KV_EMBEDDING_LENGTH,
    // sentence-transformers dense modules after the pooling (embedding models): the width of the
    // embeddings they give, and (gemma-embedding) each projection's in / out features
    LLM_KV_EMBEDDING_LENGTH_OUT,
    LLM_KV_DENSE_2_FEAT_IN,
    LLM_KV_DENSE_2_FEAT_OUT,
    LLM_KV_DENSE_3_FEAT_IN,
    LLM_KV_DENSE_3_FEAT_OUT,
    LLM_KV_BLOCK_COUNT,
    LLM_KV_FEED_FORWARD_LENGTH,
    LLM_KV_USE_PARALLEL_RESIDUAL,
    LLM_KV_EXPERT_COUNT,
    LLM_KV_EXPERT_USED_COUNT,
    LLM_KV_EXPERT_FEED_FORWARD_LENGTH,
    LLM_KV_EXPERT_WEIGHTS_NORM,
    LLM_KV_EXPERT_SHARED_FEED_FORWARD_LENGTH,
    LLM_KV_NEXTN_PREDICT_LAYERS,       // multi-token-prediction layers after the decoder's (counted in block_count)
    LLM_KV_LEADING_DENSE_BLOCK_COUNT,  // deepseek2: the first layers have a plain feed-forward
    LLM_KV_EXPERT_SHARED_COUNT,        // deepseek2: shared experts, each expert_feed_forward_length wide
    LLM_KV_EXPERT_WEIGHTS_SCALE,       // deepseek2: routed expert weights * scale
    LLM_KV_EXPERT_GATING_FUNC,         // 1 softmax, 2 sigmoid (llama_expert_gating_func_type)
    LLM_KV_EXPERT_GROUP_COUNT,         // experts in groups: top expert_group_used_count groups first
    LLM_KV_EXPERT_GROUP_USED_COUNT,
    LLM_KV_MOE_LATENT_SIZE,  // nemotron_h_moe: the experts' latent width (0 / absent: n_embd, no latent)
    LLM_KV_ATTN_LOGIT_SOFTCAPPING,
    LLM_KV_FINAL_LOGIT_SOFTCAPPING,
    LLM_KV_LOGIT_SCALE,      // granite: logits / logit_scale
    LLM_KV_RESIDUAL_SCALE,   // granite: attention and feed-forward outputs * residual_scale
    LLM_KV_EMBEDDING_SCALE,  // granite: token embeddings * embedding_scale

    LLM_KV_ATTENTION_HEAD_COUNT,
    LLM_KV_ATTENTION_HEAD_COUNT_KV,
    LLM_KV_ATTENTION_KEY_LENGTH,
    LLM_KV_ATTENTION_VALUE_LENGTH,
    LLM_KV_ATTENTION_Q_LORA_RANK,  // multi-head latent attention (deepseek2)
    LLM_KV_ATTENTION_KV_LORA_RANK,
    LLM_KV_ATTENTION_KEY_LENGTH_MLA,  // the per-head q/k size before absorption (nope + rope)
    LLM_KV_ATTENTION_VALUE_LENGTH_MLA,
    LLM_KV_ATTENTION_LAYERNORM_EPS,
    LLM_KV_ATTENTION_LAYERNORM_RMS_EPS,
    LLM_KV_ATTENTION_CAUSAL,
    LLM_KV_ATTENTION_SLIDING_WINDOW,
    LLM_KV_ATTENTION_SLIDING_WINDOW_PATTERN,
    LLM_KV_ATTENTION_SCALE,
    LLM_KV_ATTENTION_TEMPERATURE_SCALE,
    LLM_KV_ATTENTION_TEMPERATURE_LENGTH,  // deepseek2 (Mistral-Large 3): the temperature's position step
    LLM_KV_POOLING_TYPE,
    LLM_KV_CLASSIFIER_OUTPUT_LABELS,
    LLM_KV_HIDDEN_ACT,  // modern-bert: the feed-forward activation ("gelu": GeGLU, "silu": SwiGLU)

    LLM_KV_ROPE_DIMENSION_COUNT,
    LLM_KV_ROPE_DIMENSION_SECTIONS,  // multi-section RoPE (GLM-4V, Qwen2-VL): not supported
    LLM_KV_ROPE_FREQ_BASE,
    LLM_KV_ROPE_FREQ_BASE_SWA,
    LLM_KV_ROPE_SCALE_LINEAR,
    LLM_KV_ROPE_SCALING_TYPE,
    LLM_KV_ROPE_SCALING_FACTOR,
    LLM_KV_ROPE_SCALING_ORIG_CTX_LEN,
    LLM_KV_ROPE_SCALING_FINETUNED,
    LLM_KV_ROPE_SCALING_ATTN_FACTOR,
    LLM_KV_ROPE_SCALING_YARN_LOG_MUL,
    LLM_KV_ROPE_SCALING_YARN_EXT_FACTOR,
    LLM_KV_ROPE_SCALING_YARN_ATTN_FACTOR,
    LLM_KV_ROPE_SCALING_YARN_BETA_FAST,
    LLM_KV_ROPE_SCALING_YARN_BETA_SLOW,
    LLM_KV_SSM_CONV_KERNEL,  // state-space layers (mamba2)
    LLM_KV_SSM_INNER_SIZE,
    LLM_KV_SSM_STATE_SIZE,
    LLM_KV_SSM_TIME_STEP_RANK,
    LLM_KV_SSM_GROUP_COUNT,
    LLM_KV_SHORTCONV_L_CACHE,           // lfm2's short-convolution kernel width
    LLM_KV_FULL_ATTENTION_INTERVAL,     // qwen3next: every n-th layer attends, the others are delta-net layers
    LLM_KV_ATTENTION_RECURRENT_LAYERS,  // qwen3next: per-layer recurrent flags instead (upstream's saver)
    LLM_KV_KDA_HEAD_DIM,                // kimi-linear: the width of a KDA (delta-net) head

    LLM_KV_SPLIT_NO,
    LLM_KV_SPLIT_COUNT,
    LLM_KV_SPLIT_TENSORS_COUNT,

    LLM_KV_TOKENIZER_MODEL,
    LLM_KV_TOKENIZER_PRE,
    LLM_KV_TOKENIZER_LIST,
    LLM_KV_TOKENIZER_MERGES,
    LLM_KV_TOKENIZER_SCORES,
    LLM_KV_TOKENIZER_TOKEN_TYPE,
    LLM_KV_TOKENIZER_PRECOMPILED_CHARSMAP,
    LLM_KV_TOKENIZER_BOS_ID,
    LLM_KV_TOKENIZER_EOS_ID,
    LLM_KV_TOKENIZER_EOT_ID,
    LLM_KV_TOKENIZER_EOM_ID,
    LLM_KV_TOKENIZER_UNK_ID,
    LLM_KV_TOKENIZER_SEP_ID,
    LLM_KV_TOKENIZER_PAD_ID,
    LLM_KV_TOKENIZER_CLS_ID,
    LLM_KV_TOKENIZER_MASK_ID,
    LLM_KV_TOKENIZER_FIM_PRE_ID,
    LLM_KV_TOKENIZER_FIM_SUF_ID,
    LLM_KV_TOKENIZER_FIM_MID_ID,
    LLM_KV_TOKENIZER_FIM_PAD_ID,
    LLM_KV_TOKENIZER_FIM_REP_ID,
    LLM_KV_TOKENIZER_FIM_SEP_ID,
    LLM_KV_TOKENIZER_PREFIX_ID,  // older names of the first three FIM tokens
    LLM_KV_TOKENIZER_SUFFIX_ID,
    LLM_KV_TOKENIZER_MIDDLE_ID,
    LLM_KV_TOKENIZER_ADD_BOS,
    LLM_KV_TOKENIZER_ADD_EOS,
    LLM_KV_TOKENIZER_ADD_SEP,
    LLM_KV_TOKENIZER_ADD_SPACE_PREFIX,
    LLM_KV_TOKENIZER_REMOVE_EXTRA_WS,
    LLM_KV_TOKENIZER_NORMALIZER_LOWERCASE,
    LLM_KV_TOKENIZER_NORMALIZER_STRIP_ACCENTS,
    LLM_KV_TOKENIZER_SUPPRESS_TOKENS,
    LLM_KV_TOKENIZER_CHAT_TEMPLATE,
    LLM_KV_TOKENIZER_CHAT_TEMPLATE_N,  // "tokenizer.chat_template.%s" with a template name

    LLM_KV_ADAPTER_TYPE,
    LLM_KV_ADAPTER_LORA_ALPHA,
    LLM_KV_ADAPTER_ALORA_INVOCATION_TOKENS,

    LLM_KV_COUNT,
};

// The full key for the architecture: LLM_KV_CONTEXT_LENGTH + llama -> "llama.context_length".
std::string llm_kv_name(llm_kv kv, llm_arch arch);
// The same for an architecture named by its file (it need not be registered: a vocab-only load of
// "gpt2" reads "gpt2.vocab_size").
std::string llm_kv_name(llm_kv kv, const std::string & arch_name);
// The key of a row without an architecture part (general.*, tokenizer.*, split.*, adapter.*), as a
// string with static storage; calling it on a templated row is a programming error (aborts).
const char * llm_kv_key(llm_kv kv);
// The registered architecture names, comma-separated ("llama, qwen2, ..."), for error messages.
std::string llm_arch_names();

// Weight tensors. Names containing "%d" are per layer ("blk.%d.attn_q").
enum llm_tensor {
    LLM_TENSOR_TOKEN_EMBD,
    LLM_TENSOR_OUTPUT_NORM,
    LLM_TENSOR_OUTPUT,
    LLM_TENSOR_ROPE_FREQS,
    LLM_TENSOR_ATTN_NORM,
    LLM_TENSOR_ATTN_Q,
    LLM_TENSOR_ATTN_K,
    LLM_TENSOR_ATTN_V,
    LLM_TENSOR_ATTN_QKV,
    LLM_TENSOR_ATTN_OUT,
    LLM_TENSOR_ATTN_Q_NORM,
    LLM_TENSOR_ATTN_K_NORM,
    LLM_TENSOR_ATTN_POST_NORM,
    LLM_TENSOR_FFN_NORM,
    LLM_TENSOR_FFN_POST_NORM,
    LLM_TENSOR_FFN_GATE,
    LLM_TENSOR_FFN_UP,
    LLM_TENSOR_FFN_DOWN,
    LLM_TENSOR_ROPE_FACTORS_LONG,
    LLM_TENSOR_ROPE_FACTORS_SHORT,
    LLM_TENSOR_TOKEN_TYPES,      // BERT: token type (segment) embeddings
    LLM_TENSOR_POS_EMBD,         // absolute position embeddings
    LLM_TENSOR_TOKEN_EMBD_NORM,  // layer norm after the input embeddings
    LLM_TENSOR_ATTN_OUT_NORM,    // BERT post-attention layer norm
    LLM_TENSOR_LAYER_OUT_NORM,   // BERT post-FFN layer norm
    LLM_TENSOR_CLS,              // classifier (reranker) dense layer
    LLM_TENSOR_CLS_OUT,          // classifier output projection
    LLM_TENSOR_FFN_GATE_INP,     // MoE router (embd, n_expert)
    LLM_TENSOR_FFN_GATE_EXPS,    // MoE expert weights, stacked (embd, ff, n_expert)
    LLM_TENSOR_FFN_UP_EXPS,
    LLM_TENSOR_FFN_DOWN_EXPS,
    LLM_TENSOR_ATTN_SINKS,      // gpt-oss: per-head sink logits
    LLM_TENSOR_FFN_GATE_SHEXP,  // the shared expert of a mixture (granitemoe), a plain SwiGLU
    LLM_TENSOR_FFN_UP_SHEXP,
    LLM_TENSOR_FFN_DOWN_SHEXP,
    LLM_TENSOR_SSM_IN,  // state-space layers (mamba2)
    LLM_TENSOR_SSM_CONV1D,
    LLM_TENSOR_SSM_DT,
    LLM_TENSOR_SSM_A,
    LLM_TENSOR_SSM_D,
    LLM_TENSOR_SSM_NORM,
    LLM_TENSOR_SSM_OUT,
    LLM_TENSOR_ATTN_NORM_2,     // jina-bert-v2: a second post-attention layer norm (some models)
    LLM_TENSOR_CLS_NORM,        // modern-bert: the classifier head's layer norm
    LLM_TENSOR_SHORTCONV_CONV,  // lfm2's short-convolution layers
    LLM_TENSOR_SHORTCONV_INPROJ,
    LLM_TENSOR_SHORTCONV_OUTPROJ,
    LLM_TENSOR_OUTPUT_NORM_LFM2,  // lfm2's final norm, stored as token_embd_norm
    // multi-head latent attention (deepseek2): q through a low-rank pair (q_a, its norm, q_b) or one
    // attn_q; kv_a_mqa gives the compressed latent and the shared rope part; k_b / v_b expand the
    // latent per head (attn_kv_b: both fused, older files)
    LLM_TENSOR_ATTN_Q_A,
    LLM_TENSOR_ATTN_Q_B,
    LLM_TENSOR_ATTN_Q_A_NORM,
    LLM_TENSOR_ATTN_KV_A_MQA,
    LLM_TENSOR_ATTN_KV_A_NORM,
    LLM_TENSOR_ATTN_K_B,
    LLM_TENSOR_ATTN_V_B,
    LLM_TENSOR_ATTN_KV_B,
    LLM_TENSOR_FFN_EXP_PROBS_B,  // deepseek-v3: per-expert bias added to the router scores for selection only
    // the multi-token-prediction (NextN) blocks after the decoder's (glm4moe): in the file, not run
    LLM_TENSOR_NEXTN_EH_PROJ,
    LLM_TENSOR_NEXTN_EMBED_TOKENS,
    LLM_TENSOR_NEXTN_ENORM,
    LLM_TENSOR_NEXTN_HNORM,
    LLM_TENSOR_NEXTN_SHARED_HEAD_HEAD,
    LLM_TENSOR_NEXTN_SHARED_HEAD_NORM,
    LLM_TENSOR_FFN_GATE_UP_EXPS,  // the experts' gate and up fused (embd, 2 ff, n_expert; rows: gate, up)
    // qwen3next's gated delta-net layers: the output gate z (attn_gate) and the fused beta / alpha
    // projection (ssm_ba); the shared expert's sigmoid gate (ffn_gate_inp_shexp, one row)
    LLM_TENSOR_ATTN_GATE,
    LLM_TENSOR_SSM_BETA_ALPHA,
    LLM_TENSOR_FFN_GATE_INP_SHEXP,
    // qwen35 / qwen35moe: beta and alpha of the delta-net layers as two projections (not ssm_ba)
    LLM_TENSOR_SSM_BETA,
    LLM_TENSOR_SSM_ALPHA,
    // nemotron_h_moe (Nemotron 3 Super): the experts run in a narrower latent space, entered through
    // ffn_latent_down [embd, latent] and left through ffn_latent_up [latent, embd]
    LLM_TENSOR_FFN_LATENT_DOWN,
    LLM_TENSOR_FFN_LATENT_UP,
    // gemma3n: per-layer token embeddings ([n_embd_altup x n_layer, vocab]) and their projection from
    // the hidden state (per_layer_model_proj, per_layer_proj_norm); the AltUp stack's projections into
    // and out of the n_altup - 1 extra copies ([embd, embd, n_altup - 1]); per block the per-layer input
    // gate / projection / post norm, the AltUp router (+ norm), prediction and correction coefficients
    // and correction scale, and LAuReL's low-rank pair and post norm
    LLM_TENSOR_PER_LAYER_TOKEN_EMBD,
    LLM_TENSOR_PER_LAYER_MODEL_PROJ,
    LLM_TENSOR_PER_LAYER_PROJ_NORM,
    LLM_TENSOR_ALTUP_PROJ,
    LLM_TENSOR_ALTUP_UNEMBD_PROJ,
    LLM_TENSOR_PER_LAYER_INP_GATE,
    LLM_TENSOR_PER_LAYER_PROJ,
    LLM_TENSOR_PER_LAYER_POST_NORM,
    LLM_TENSOR_ALTUP_CORRECT_COEF,
    LLM_TENSOR_ALTUP_CORRECT_SCALE,
    LLM_TENSOR_ALTUP_PREDICT_COEF,
    LLM_TENSOR_ALTUP_ROUTER,
    LLM_TENSOR_ALTUP_ROUTER_NORM,
    LLM_TENSOR_LAUREL_L,
    LLM_TENSOR_LAUREL_R,
    LLM_TENSOR_LAUREL_POST_NORM,
    // embedding models converted with their sentence-transformers dense modules: projections of the
    // final hidden state (dense_2, with an optional bias; gemma-embedding: dense_3 after it)
    LLM_TENSOR_DENSE_2_OUT,
    LLM_TENSOR_DENSE_3_OUT,
    // kimi-linear's KDA layers: a short conv each over q, k and v ([d_conv, 1, inner]); the per-channel
    // decay's low-rank pair (ssm_f_a [embd, head], ssm_f_b [head, inner]) and the output gate's (ssm_g_a,
    // ssm_g_b)
    LLM_TENSOR_SSM_CONV1D_Q,
    LLM_TENSOR_SSM_CONV1D_K,
    LLM_TENSOR_SSM_CONV1D_V,
    LLM_TENSOR_SSM_F_A,
    LLM_TENSOR_SSM_F_B,
    LLM_TENSOR_SSM_G_A,
    LLM_TENSOR_SSM_G_B,
    LLM_TENSOR_COUNT,
};

// Full tensor name: ("blk.%d.attn_q", suffix "weight", layer 3) -> "blk.3.attn_q.weight".
// suffix may be nullptr (no suffix); layer is ignored for global tensors.
std::string llm_tensor_name(llm_tensor t, const char * suffix = "weight", int layer = -1);
// True for the tensors of a block (a "%d" in the name): one per layer.
bool llm_tensor_is_per_layer(llm_tensor t);
