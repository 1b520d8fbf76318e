#include "llama-arch.h"

#include "llama-log.h"

#include <cstring>

namespace {

struct arch_row {
    llm_arch     arch;
    const char * name;  // general.architecture in GGUF files
};

// One row per architecture, in enum order (checked at start-up by llm_arch_name).
constexpr arch_row LLM_ARCH_TABLE[] = {
    {LLM_ARCH_LLAMA, "llama"},
    {LLM_ARCH_QWEN2, "qwen2"},
    {LLM_ARCH_PHI3, "phi3"},
    {LLM_ARCH_GEMMA, "gemma"},
    {LLM_ARCH_GEMMA2, "gemma2"},
    {LLM_ARCH_BERT, "bert"},
    {LLM_ARCH_NOMIC_BERT, "nomic-bert"},
    {LLM_ARCH_QWEN3, "qwen3"},
    {LLM_ARCH_QWEN3MOE, "qwen3moe"},
    {LLM_ARCH_GEMMA3, "gemma3"},
    {LLM_ARCH_GPT_OSS, "gpt-oss"},
    {LLM_ARCH_GRANITE, "granite"},
    {LLM_ARCH_GRANITE_MOE, "granitemoe"},
    {LLM_ARCH_OLMO2, "olmo2"},
    {LLM_ARCH_SMOLLM3, "smollm3"},
    {LLM_ARCH_EXAONE4, "exaone4"},
    {LLM_ARCH_MISTRAL3, "mistral3"},
    {LLM_ARCH_GLM4, "glm4"},
    {LLM_ARCH_MAMBA2, "mamba2"},
    {LLM_ARCH_JINA_BERT_V2, "jina-bert-v2"},
    {LLM_ARCH_MODERN_BERT, "modern-bert"},
    {LLM_ARCH_LFM2, "lfm2"},
    {LLM_ARCH_DEEPSEEK2, "deepseek2"},
    {LLM_ARCH_GRANITE_HYBRID, "granitehybrid"},
    {LLM_ARCH_NEMOTRON_H, "nemotron_h"},
    {LLM_ARCH_GLM4_MOE, "glm4moe"},
    {LLM_ARCH_FALCON_H1, "falcon-h1"},
    {LLM_ARCH_LFM2MOE, "lfm2moe"},
    {LLM_ARCH_QWEN3NEXT, "qwen3next"},
    {LLM_ARCH_QWEN35, "qwen35"},
    {LLM_ARCH_QWEN35MOE, "qwen35moe"},
    {LLM_ARCH_NEMOTRON_H_MOE, "nemotron_h_moe"},
    {LLM_ARCH_GEMMA3N, "gemma3n"},
    {LLM_ARCH_GEMMA_EMBEDDING, "gemma-embedding"},
    {LLM_ARCH_KIMI_LINEAR, "kimi-linear"},
};
static_assert(sizeof(LLM_ARCH_TABLE) / sizeof(LLM_ARCH_TABLE[0]) == LLM_ARCH_COUNT,
              "every llm_arch needs a row in LLM_ARCH_TABLE");

struct kv_row {
    llm_kv       kv;
    const char * name;
};

constexpr kv_row LLM_KV_TABLE[] = {
    {LLM_KV_GENERAL_ARCHITECTURE, "general.architecture"},
    {LLM_KV_GENERAL_NAME, "general.name"},
    {LLM_KV_GENERAL_FILE_TYPE, "general.file_type"},
    {LLM_KV_GENERAL_ALIGNMENT, "general.alignment"},
    {LLM_KV_GENERAL_TYPE, "general.type"},
    {LLM_KV_GENERAL_QUANTIZATION_VERSION, "general.quantization_version"},
    {LLM_KV_GENERAL_SAMPLING_SEQUENCE, "general.sampling.sequence"},
    {LLM_KV_GENERAL_SAMPLING_TOP_K, "general.sampling.top_k"},
    {LLM_KV_GENERAL_SAMPLING_TOP_P, "general.sampling.top_p"},
    {LLM_KV_GENERAL_SAMPLING_MIN_P, "general.sampling.min_p"},
    {LLM_KV_GENERAL_SAMPLING_XTC_PROBABILITY, "general.sampling.xtc_probability"},
    {LLM_KV_GENERAL_SAMPLING_XTC_THRESHOLD, "general.sampling.xtc_threshold"},
    {LLM_KV_GENERAL_SAMPLING_TEMP, "general.sampling.temp"},
    {LLM_KV_GENERAL_SAMPLING_PENALTY_LAST_N, "general.sampling.penalty_last_n"},
    {LLM_KV_GENERAL_SAMPLING_PENALTY_REPEAT, "general.sampling.penalty_repeat"},
    {LLM_KV_GENERAL_SAMPLING_MIROSTAT, "general.sampling.mirostat"},
    {LLM_KV_GENERAL_SAMPLING_MIROSTAT_TAU, "general.sampling.mirostat_tau"},
    {LLM_KV_GENERAL_SAMPLING_MIROSTAT_ETA, "general.sampling.mirostat_eta"},

    {LLM_KV_VOCAB_SIZE, "%s.vocab_size"},
    {LLM_KV_CONTEXT_LENGTH, "%s.context_length"},
    {LLM_KV_EMBEDDING_LENGTH, "%s.embedding_length"},
    {LLM_KV_EMBEDDING_LENGTH_OUT, "%s.embedding_length_out"},
    {LLM_KV_DENSE_2_FEAT_IN, "%s.dense_2_feat_in"},
    {LLM_KV_DENSE_2_FEAT_OUT, "%s.dense_2_feat_out"},
    {LLM_KV_DENSE_3_FEAT_IN, "%s.dense_3_feat_in"},
    {LLM_KV_DENSE_3_FEAT_OUT, "%s.dense_3_feat_out"},
    {LLM_KV_BLOCK_COUNT, "%s.block_count"},
    {LLM_KV_FEED_FORWARD_LENGTH, "%s.feed_forward_length"},
    {LLM_KV_USE_PARALLEL_RESIDUAL, "%s.use_parallel_residual"},
    {LLM_KV_EXPERT_COUNT, "%s.expert_count"},
    {LLM_KV_EXPERT_USED_COUNT, "%s.expert_used_count"},
    {LLM_KV_EXPERT_FEED_FORWARD_LENGTH, "%s.expert_feed_forward_length"},
    {LLM_KV_EXPERT_WEIGHTS_NORM, "%s.expert_weights_norm"},
    {LLM_KV_EXPERT_SHARED_FEED_FORWARD_LENGTH, "%s.expert_shared_feed_forward_length"},
    {LLM_KV_NEXTN_PREDICT_LAYERS, "%s.nextn_predict_layers"},
    {LLM_KV_LEADING_DENSE_BLOCK_COUNT, "%s.leading_dense_block_count"},
    {LLM_KV_EXPERT_SHARED_COUNT, "%s.expert_shared_count"},
    {LLM_KV_EXPERT_WEIGHTS_SCALE, "%s.expert_weights_scale"},
    {LLM_KV_EXPERT_GATING_FUNC, "%s.expert_gating_func"},
    {LLM_KV_EXPERT_GROUP_COUNT, "%s.expert_group_count"},
    {LLM_KV_EXPERT_GROUP_USED_COUNT, "%s.expert_group_used_count"},
    {LLM_KV_MOE_LATENT_SIZE, "%s.moe_latent_size"},
    {LLM_KV_ATTN_LOGIT_SOFTCAPPING, "%s.attn_logit_softcapping"},
    {LLM_KV_FINAL_LOGIT_SOFTCAPPING, "%s.final_logit_softcapping"},
    {LLM_KV_LOGIT_SCALE, "%s.logit_scale"},
    {LLM_KV_RESIDUAL_SCALE, "%s.residual_scale"},
    {LLM_KV_EMBEDDING_SCALE, "%s.embedding_scale"},

    {LLM_KV_ATTENTION_HEAD_COUNT, "%s.attention.head_count"},
    {LLM_KV_ATTENTION_HEAD_COUNT_KV, "%s.attention.head_count_kv"},
    {LLM_KV_ATTENTION_KEY_LENGTH, "%s.attention.key_length"},
    {LLM_KV_ATTENTION_VALUE_LENGTH, "%s.attention.value_length"},
    {LLM_KV_ATTENTION_Q_LORA_RANK, "%s.attention.q_lora_rank"},
    {LLM_KV_ATTENTION_KV_LORA_RANK, "%s.attention.kv_lora_rank"},
    {LLM_KV_ATTENTION_KEY_LENGTH_MLA, "%s.attention.key_length_mla"},
    {LLM_KV_ATTENTION_VALUE_LENGTH_MLA, "%s.attention.value_length_mla"},
    {LLM_KV_ATTENTION_LAYERNORM_EPS, "%s.attention.layer_norm_epsilon"},
    {LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, "%s.attention.layer_norm_rms_epsilon"},
    {LLM_KV_ATTENTION_CAUSAL, "%s.attention.causal"},
    {LLM_KV_ATTENTION_SLIDING_WINDOW, "%s.attention.sliding_window"},
    {LLM_KV_ATTENTION_SLIDING_WINDOW_PATTERN, "%s.attention.sliding_window_pattern"},
    {LLM_KV_ATTENTION_SCALE, "%s.attention.scale"},
    {LLM_KV_ATTENTION_TEMPERATURE_SCALE, "%s.attention.temperature_scale"},
    {LLM_KV_ATTENTION_TEMPERATURE_LENGTH, "%s.attention.temperature_length"},
    {LLM_KV_POOLING_TYPE, "%s.pooling_type"},
    {LLM_KV_CLASSIFIER_OUTPUT_LABELS, "%s.classifier.output_labels"},
    {LLM_KV_HIDDEN_ACT, "%s.hidden_activation"},

    {LLM_KV_ROPE_DIMENSION_COUNT, "%s.rope.dimension_count"},
    {LLM_KV_ROPE_DIMENSION_SECTIONS, "%s.rope.dimension_sections"},
    {LLM_KV_ROPE_FREQ_BASE, "%s.rope.freq_base"},
    {LLM_KV_ROPE_FREQ_BASE_SWA, "%s.rope.freq_base_swa"},
    {LLM_KV_ROPE_SCALE_LINEAR, "%s.rope.scale_linear"},
    {LLM_KV_ROPE_SCALING_TYPE, "%s.rope.scaling.type"},
    {LLM_KV_ROPE_SCALING_FACTOR, "%s.rope.scaling.factor"},
    {LLM_KV_ROPE_SCALING_ORIG_CTX_LEN, "%s.rope.scaling.original_context_length"},
    {LLM_KV_ROPE_SCALING_FINETUNED, "%s.rope.scaling.finetuned"},
    {LLM_KV_ROPE_SCALING_ATTN_FACTOR, "%s.rope.scaling.attn_factor"},
    {LLM_KV_ROPE_SCALING_YARN_LOG_MUL, "%s.rope.scaling.yarn_log_multiplier"},
    {LLM_KV_ROPE_SCALING_YARN_EXT_FACTOR, "%s.rope.scaling.yarn_ext_factor"},
    {LLM_KV_ROPE_SCALING_YARN_ATTN_FACTOR, "%s.rope.scaling.yarn_attn_factor"},
    {LLM_KV_ROPE_SCALING_YARN_BETA_FAST, "%s.rope.scaling.yarn_beta_fast"},
    {LLM_KV_ROPE_SCALING_YARN_BETA_SLOW, "%s.rope.scaling.yarn_beta_slow"},

    {LLM_KV_SSM_CONV_KERNEL, "%s.ssm.conv_kernel"},
    {LLM_KV_SSM_INNER_SIZE, "%s.ssm.inner_size"},
    {LLM_KV_SSM_STATE_SIZE, "%s.ssm.state_size"},
    {LLM_KV_SSM_TIME_STEP_RANK, "%s.ssm.time_step_rank"},
    {LLM_KV_SSM_GROUP_COUNT, "%s.ssm.group_count"},
    {LLM_KV_SHORTCONV_L_CACHE, "%s.shortconv.l_cache"},
    {LLM_KV_FULL_ATTENTION_INTERVAL, "%s.full_attention_interval"},
    {LLM_KV_ATTENTION_RECURRENT_LAYERS, "%s.attention.recurrent_layers"},
    {LLM_KV_KDA_HEAD_DIM, "%s.kda.head_dim"},

    {LLM_KV_SPLIT_NO, "split.no"},
    {LLM_KV_SPLIT_COUNT, "split.count"},
    {LLM_KV_SPLIT_TENSORS_COUNT, "split.tensors.count"},

    {LLM_KV_TOKENIZER_MODEL, "tokenizer.ggml.model"},
    {LLM_KV_TOKENIZER_PRE, "tokenizer.ggml.pre"},
    {LLM_KV_TOKENIZER_LIST, "tokenizer.ggml.tokens"},
    {LLM_KV_TOKENIZER_MERGES, "tokenizer.ggml.merges"},
    {LLM_KV_TOKENIZER_SCORES, "tokenizer.ggml.scores"},
    {LLM_KV_TOKENIZER_TOKEN_TYPE, "tokenizer.ggml.token_type"},
    {LLM_KV_TOKENIZER_PRECOMPILED_CHARSMAP, "tokenizer.ggml.precompiled_charsmap"},
    {LLM_KV_TOKENIZER_BOS_ID, "tokenizer.ggml.bos_token_id"},
    {LLM_KV_TOKENIZER_EOS_ID, "tokenizer.ggml.eos_token_id"},
    {LLM_KV_TOKENIZER_EOT_ID, "tokenizer.ggml.eot_token_id"},
    {LLM_KV_TOKENIZER_EOM_ID, "tokenizer.ggml.eom_token_id"},
    {LLM_KV_TOKENIZER_UNK_ID, "tokenizer.ggml.unknown_token_id"},
    {LLM_KV_TOKENIZER_SEP_ID, "tokenizer.ggml.seperator_token_id"},
    {LLM_KV_TOKENIZER_PAD_ID, "tokenizer.ggml.padding_token_id"},
    {LLM_KV_TOKENIZER_CLS_ID, "tokenizer.ggml.cls_token_id"},
    {LLM_KV_TOKENIZER_MASK_ID, "tokenizer.ggml.mask_token_id"},
    {LLM_KV_TOKENIZER_FIM_PRE_ID, "tokenizer.ggml.fim_pre_token_id"},
    {LLM_KV_TOKENIZER_FIM_SUF_ID, "tokenizer.ggml.fim_suf_token_id"},
    {LLM_KV_TOKENIZER_FIM_MID_ID, "tokenizer.ggml.fim_mid_token_id"},
    {LLM_KV_TOKENIZER_FIM_PAD_ID, "tokenizer.ggml.fim_pad_token_id"},
    {LLM_KV_TOKENIZER_FIM_REP_ID, "tokenizer.ggml.fim_rep_token_id"},
    {LLM_KV_TOKENIZER_FIM_SEP_ID, "tokenizer.ggml.fim_sep_token_id"},
    {LLM_KV_TOKENIZER_PREFIX_ID, "tokenizer.ggml.prefix_token_id"},
    {LLM_KV_TOKENIZER_SUFFIX_ID, "tokenizer.ggml.suffix_token_id"},
    {LLM_KV_TOKENIZER_MIDDLE_ID, "tokenizer.ggml.middle_token_id"},
    {LLM_KV_TOKENIZER_ADD_BOS, "tokenizer.ggml.add_bos_token"},
    {LLM_KV_TOKENIZER_ADD_EOS, "tokenizer.ggml.add_eos_token"},
    {LLM_KV_TOKENIZER_ADD_SEP, "tokenizer.ggml.add_sep_token"},
    {LLM_KV_TOKENIZER_ADD_SPACE_PREFIX, "tokenizer.ggml.add_space_prefix"},
    {LLM_KV_TOKENIZER_REMOVE_EXTRA_WS, "tokenizer.ggml.remove_extra_whitespaces"},
    {LLM_KV_TOKENIZER_NORMALIZER_LOWERCASE, "tokenizer.ggml.normalizer.lowercase"},
    {LLM_KV_TOKENIZER_NORMALIZER_STRIP_ACCENTS, "tokenizer.ggml.normalizer.strip_accents"},
    {LLM_KV_TOKENIZER_SUPPRESS_TOKENS, "tokenizer.ggml.suppress_tokens"},
    {LLM_KV_TOKENIZER_CHAT_TEMPLATE, "tokenizer.chat_template"},
    {LLM_KV_TOKENIZER_CHAT_TEMPLATE_N, "tokenizer.chat_template.%s"},

    {LLM_KV_ADAPTER_TYPE, "adapter.type"},
    {LLM_KV_ADAPTER_LORA_ALPHA, "adapter.lora.alpha"},
    {LLM_KV_ADAPTER_ALORA_INVOCATION_TOKENS, "adapter.alora.invocation_tokens"},
};
static_assert(sizeof(LLM_KV_TABLE) / sizeof(LLM_KV_TABLE[0]) == LLM_KV_COUNT, "every llm_kv needs a row");

struct tensor_row {
    llm_tensor   t;
    const char * name;
};

constexpr tensor_row LLM_TENSOR_TABLE[] = {
    {LLM_TENSOR_TOKEN_EMBD, "token_embd"},
    {LLM_TENSOR_OUTPUT_NORM, "output_norm"},
    {LLM_TENSOR_OUTPUT, "output"},
    {LLM_TENSOR_ROPE_FREQS, "rope_freqs"},
    {LLM_TENSOR_ATTN_NORM, "blk.%d.attn_norm"},
    {LLM_TENSOR_ATTN_Q, "blk.%d.attn_q"},
    {LLM_TENSOR_ATTN_K, "blk.%d.attn_k"},
    {LLM_TENSOR_ATTN_V, "blk.%d.attn_v"},
    {LLM_TENSOR_ATTN_QKV, "blk.%d.attn_qkv"},
    {LLM_TENSOR_ATTN_OUT, "blk.%d.attn_output"},
    {LLM_TENSOR_ATTN_Q_NORM, "blk.%d.attn_q_norm"},
    {LLM_TENSOR_ATTN_K_NORM, "blk.%d.attn_k_norm"},
    {LLM_TENSOR_ATTN_POST_NORM, "blk.%d.post_attention_norm"},
    {LLM_TENSOR_FFN_NORM, "blk.%d.ffn_norm"},
    {LLM_TENSOR_FFN_POST_NORM, "blk.%d.post_ffw_norm"},
    {LLM_TENSOR_FFN_GATE, "blk.%d.ffn_gate"},
    {LLM_TENSOR_FFN_UP, "blk.%d.ffn_up"},
    {LLM_TENSOR_FFN_DOWN, "blk.%d.ffn_down"},
    {LLM_TENSOR_ROPE_FACTORS_LONG, "rope_factors_long"},
    {LLM_TENSOR_ROPE_FACTORS_SHORT, "rope_factors_short"},
    {LLM_TENSOR_TOKEN_TYPES, "token_types"},
    {LLM_TENSOR_POS_EMBD, "position_embd"},
    {LLM_TENSOR_TOKEN_EMBD_NORM, "token_embd_norm"},
    {LLM_TENSOR_ATTN_OUT_NORM, "blk.%d.attn_output_norm"},
    {LLM_TENSOR_LAYER_OUT_NORM, "blk.%d.layer_output_norm"},
    {LLM_TENSOR_CLS, "cls"},
    {LLM_TENSOR_CLS_OUT, "cls.output"},
    {LLM_TENSOR_FFN_GATE_INP, "blk.%d.ffn_gate_inp"},
    {LLM_TENSOR_FFN_GATE_EXPS, "blk.%d.ffn_gate_exps"},
    {LLM_TENSOR_FFN_UP_EXPS, "blk.%d.ffn_up_exps"},
    {LLM_TENSOR_FFN_DOWN_EXPS, "blk.%d.ffn_down_exps"},
    {LLM_TENSOR_ATTN_SINKS, "blk.%d.attn_sinks"},
    {LLM_TENSOR_FFN_GATE_SHEXP, "blk.%d.ffn_gate_shexp"},
    {LLM_TENSOR_FFN_UP_SHEXP, "blk.%d.ffn_up_shexp"},
    {LLM_TENSOR_FFN_DOWN_SHEXP, "blk.%d.ffn_down_shexp"},
    {LLM_TENSOR_SSM_IN, "blk.%d.ssm_in"},
    {LLM_TENSOR_SSM_CONV1D, "blk.%d.ssm_conv1d"},
    {LLM_TENSOR_SSM_DT, "blk.%d.ssm_dt"},
    {LLM_TENSOR_SSM_A, "blk.%d.ssm_a"},
    {LLM_TENSOR_SSM_D, "blk.%d.ssm_d"},
    {LLM_TENSOR_SSM_NORM, "blk.%d.ssm_norm"},
    {LLM_TENSOR_SSM_OUT, "blk.%d.ssm_out"},
    {LLM_TENSOR_ATTN_NORM_2, "blk.%d.attn_norm_2"},
    {LLM_TENSOR_CLS_NORM, "cls.norm"},
    {LLM_TENSOR_SHORTCONV_CONV, "blk.%d.shortconv.conv"},
    {LLM_TENSOR_SHORTCONV_INPROJ, "blk.%d.shortconv.in_proj"},
    {LLM_TENSOR_SHORTCONV_OUTPROJ, "blk.%d.shortconv.out_proj"},
    {LLM_TENSOR_OUTPUT_NORM_LFM2, "token_embd_norm"},
    {LLM_TENSOR_ATTN_Q_A, "blk.%d.attn_q_a"},
    {LLM_TENSOR_ATTN_Q_B, "blk.%d.attn_q_b"},
    {LLM_TENSOR_ATTN_Q_A_NORM, "blk.%d.attn_q_a_norm"},
    {LLM_TENSOR_ATTN_KV_A_MQA, "blk.%d.attn_kv_a_mqa"},
    {LLM_TENSOR_ATTN_KV_A_NORM, "blk.%d.attn_kv_a_norm"},
    {LLM_TENSOR_ATTN_K_B, "blk.%d.attn_k_b"},
    {LLM_TENSOR_ATTN_V_B, "blk.%d.attn_v_b"},
    {LLM_TENSOR_ATTN_KV_B, "blk.%d.attn_kv_b"},
    {LLM_TENSOR_FFN_EXP_PROBS_B, "blk.%d.exp_probs_b"},
    {LLM_TENSOR_NEXTN_EH_PROJ, "blk.%d.nextn.eh_proj"},
    {LLM_TENSOR_NEXTN_EMBED_TOKENS, "blk.%d.nextn.embed_tokens"},
    {LLM_TENSOR_NEXTN_ENORM, "blk.%d.nextn.enorm"},
    {LLM_TENSOR_NEXTN_HNORM, "blk.%d.nextn.hnorm"},
    {LLM_TENSOR_NEXTN_SHARED_HEAD_HEAD, "blk.%d.nextn.shared_head_head"},
    {LLM_TENSOR_NEXTN_SHARED_HEAD_NORM, "blk.%d.nextn.shared_head_norm"},
    {LLM_TENSOR_FFN_GATE_UP_EXPS, "blk.%d.ffn_gate_up_exps"},
    {LLM_TENSOR_ATTN_GATE, "blk.%d.attn_gate"},
    {LLM_TENSOR_SSM_BETA_ALPHA, "blk.%d.ssm_ba"},
    {LLM_TENSOR_FFN_GATE_INP_SHEXP, "blk.%d.ffn_gate_inp_shexp"},
    {LLM_TENSOR_SSM_BETA, "blk.%d.ssm_beta"},
    {LLM_TENSOR_SSM_ALPHA, "blk.%d.ssm_alpha"},
    {LLM_TENSOR_FFN_LATENT_DOWN, "blk.%d.ffn_latent_down"},
    {LLM_TENSOR_FFN_LATENT_UP, "blk.%d.ffn_latent_up"},
    {LLM_TENSOR_PER_LAYER_TOKEN_EMBD, "per_layer_token_embd"},
    {LLM_TENSOR_PER_LAYER_MODEL_PROJ, "per_layer_model_proj"},
    {LLM_TENSOR_PER_LAYER_PROJ_NORM, "per_layer_proj_norm"},
    {LLM_TENSOR_ALTUP_PROJ, "altup_proj"},
    {LLM_TENSOR_ALTUP_UNEMBD_PROJ, "altup_unembd_proj"},
    {LLM_TENSOR_PER_LAYER_INP_GATE, "blk.%d.inp_gate"},
    {LLM_TENSOR_PER_LAYER_PROJ, "blk.%d.proj"},
    {LLM_TENSOR_PER_LAYER_POST_NORM, "blk.%d.post_norm"},
    {LLM_TENSOR_ALTUP_CORRECT_COEF, "blk.%d.altup_correct_coef"},
    {LLM_TENSOR_ALTUP_CORRECT_SCALE, "blk.%d.altup_correct_scale"},
    {LLM_TENSOR_ALTUP_PREDICT_COEF, "blk.%d.altup_predict_coef"},
    {LLM_TENSOR_ALTUP_ROUTER, "blk.%d.altup_router"},
    {LLM_TENSOR_ALTUP_ROUTER_NORM, "blk.%d.altup_router_norm"},
    {LLM_TENSOR_LAUREL_L, "blk.%d.laurel_l"},
    {LLM_TENSOR_LAUREL_R, "blk.%d.laurel_r"},
    {LLM_TENSOR_LAUREL_POST_NORM, "blk.%d.laurel_post_norm"},
    {LLM_TENSOR_DENSE_2_OUT, "dense_2"},
    {LLM_TENSOR_DENSE_3_OUT, "dense_3"},
    {LLM_TENSOR_SSM_CONV1D_Q, "blk.%d.ssm_conv1d_q"},
    {LLM_TENSOR_SSM_CONV1D_K, "blk.%d.ssm_conv1d_k"},
    {LLM_TENSOR_SSM_CONV1D_V, "blk.%d.ssm_conv1d_v"},
    {LLM_TENSOR_SSM_F_A, "blk.%d.ssm_f_a"},
    {LLM_TENSOR_SSM_F_B, "blk.%d.ssm_f_b"},
    {LLM_TENSOR_SSM_G_A, "blk.%d.ssm_g_a"},
    {LLM_TENSOR_SSM_G_B, "blk.%d.ssm_g_b"},
};
static_assert(sizeof(LLM_TENSOR_TABLE) / sizeof(LLM_TENSOR_TABLE[0]) == LLM_TENSOR_COUNT,
              "every llm_tensor needs a row");

// The tables are indexed by enum value; verify the rows are in order once.
constexpr bool tables_in_order() {
    for (int i = 0; i < LLM_ARCH_COUNT; i++) {
        if (LLM_ARCH_TABLE[i].arch != i) {
            return false;
        }
    }
    for (int i = 0; i < LLM_KV_COUNT; i++) {
        if (LLM_KV_TABLE[i].kv != i) {
            return false;
        }
    }
    for (int i = 0; i < LLM_TENSOR_COUNT; i++) {
        if (LLM_TENSOR_TABLE[i].t != i) {
            return false;
        }
    }
    return true;
}
static_assert(tables_in_order(), "arch/kv/tensor table rows must follow enum order");

}  // namespace

const char * llm_arch_name(llm_arch arch) {
    if (arch < 0 || arch >= LLM_ARCH_COUNT) {
        return "(unknown)";
    }
    return LLM_ARCH_TABLE[arch].name;
}

llm_arch llm_arch_from_string(const std::string & name) {
    for (const auto & row : LLM_ARCH_TABLE) {
        if (name == row.name) {
            return row.arch;
        }
    }
    return LLM_ARCH_UNKNOWN;
}

std::string llm_kv_name(llm_kv kv, llm_arch arch) {
    return llm_kv_name(kv, std::string(llm_arch_name(arch)));
}

std::string llm_kv_name(llm_kv kv, const std::string & arch_name) {
    const char * tmpl = LLM_KV_TABLE[kv].name;
    if (strstr(tmpl, "%s") == nullptr) {
        return tmpl;
    }
    std::string out = tmpl;
    out.replace(out.find("%s"), 2, arch_name);
    return out;
}

const char * llm_kv_key(llm_kv kv) {
    const char * key = LLM_KV_TABLE[kv].name;
    if (strchr(key, '%') != nullptr) {
        GGML_ABORT("llm_kv_key: '%s' is templated, use llm_kv_name", key);  // a caller's bug, not input
    }
    return key;
}

std::string llm_arch_names() {
    std::string out;
    for (const auto & row : LLM_ARCH_TABLE) {
        out += out.empty() ? "" : ", ";
        out += row.name;
    }
    return out;
}

std::string llm_tensor_name(llm_tensor t, const char * suffix, int layer) {
    std::string name = LLM_TENSOR_TABLE[t].name;
    const auto  pos  = name.find("%d");
    if (pos != std::string::npos) {
        name.replace(pos, 2, std::to_string(layer));
    }
    if (suffix) {
        name += '.';
        name += suffix;
    }
    return name;
}

bool llm_tensor_is_per_layer(llm_tensor t) {
    return strstr(LLM_TENSOR_TABLE[t].name, "%d") != nullptr;
}
