// The architectures implemented in src/models/, one file each. Registering a new one: declare its
// ops here and add a row to the registry in llama-model.cpp (plus its llm_arch value and name, and
// its tensor layout in llama-arch-layout.cpp).
#pragma once

#include "llama-model.h"

extern const llm_arch_ops llm_ops_llama;
extern const llm_arch_ops llm_ops_qwen2;
extern const llm_arch_ops llm_ops_phi3;
extern const llm_arch_ops llm_ops_gemma;
extern const llm_arch_ops llm_ops_gemma2;
extern const llm_arch_ops llm_ops_bert;
extern const llm_arch_ops llm_ops_nomic_bert;
extern const llm_arch_ops llm_ops_qwen3;
extern const llm_arch_ops llm_ops_qwen3moe;
extern const llm_arch_ops llm_ops_gemma3;
extern const llm_arch_ops llm_ops_gpt_oss;
extern const llm_arch_ops llm_ops_granite;
extern const llm_arch_ops llm_ops_granitemoe;
extern const llm_arch_ops llm_ops_olmo2;
extern const llm_arch_ops llm_ops_smollm3;
extern const llm_arch_ops llm_ops_exaone4;
extern const llm_arch_ops llm_ops_mistral3;
extern const llm_arch_ops llm_ops_glm4;
extern const llm_arch_ops llm_ops_mamba2;
extern const llm_arch_ops llm_ops_jina_bert_v2;
extern const llm_arch_ops llm_ops_modern_bert;
extern const llm_arch_ops llm_ops_lfm2;
extern const llm_arch_ops llm_ops_deepseek2;
extern const llm_arch_ops llm_ops_qwen3next;
