// The architectures implemented in src/models/, one file each. Registering a new one: declare its
// ops here and add a row to the registry in llama-model.cpp (plus its llm_arch value and name, and
// its tensor layout in llama-arch-layout-*.h).
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
extern const llm_arch_ops llm_ops_gemma_embedding;
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
extern const llm_arch_ops llm_ops_granitehybrid;
extern const llm_arch_ops llm_ops_nemotron_h;
extern const llm_arch_ops llm_ops_falcon_h1;
extern const llm_arch_ops llm_ops_lfm2moe;
extern const llm_arch_ops llm_ops_glm4moe;
extern const llm_arch_ops llm_ops_qwen3next;
extern const llm_arch_ops llm_ops_qwen35;
extern const llm_arch_ops llm_ops_qwen35moe;
extern const llm_arch_ops llm_ops_nemotron_h_moe;
extern const llm_arch_ops llm_ops_gemma3n;
extern const llm_arch_ops llm_ops_kimi_linear;

// The local/global layers of gemma3 and gemma3n (gemma3.cpp): attention.sliding_window_pattern as one flag
// per layer or a period (default_period when absent), and the local layers' rope base (10000 when absent).
void llm_gemma3_load_swa_hparams(llama_model_loader & ml, llama_hparams & hp, uint32_t default_period);

// DeepSeek-style routing (deepseek2.cpp; used by deepseek2 and kimi-linear). gating: the
// expert_gating_func value (1 softmax, 2 sigmoid; anything else is refused). Then the optional expert
// groups, refused where the groups cannot hold the experts a token uses.
void llm_load_expert_routing(llama_model_loader & ml, llama_hparams & hp, uint32_t gating, const char * arch);

// The Mamba-2 pieces the hybrids share (mamba2.cpp; used by granitehybrid, nemotron_h, falcon-h1).
// Reads the ssm.* shape (conv kernel, inner size, state size, heads, groups) and the RMS norm eps,
// bounded so that no state size or view can go out of range.
void llm_mamba2_load_ssm_hparams(llama_model_loader & ml, llama_hparams & hp);
// One Mamba-2 mixer over cur [n_embd, n_tokens] (params.n_seqs sequences of equal length): its conv
// and SSM states are read from and written to layer il's slots of the recurrent memory (g.rs).
ggml_tensor * llm_build_mamba2_mixer(llm_graph_context & g, ggml_tensor * cur, int il);

// The gated delta-net hybrids' pieces (qwen3next.cpp; used by qwen3next, qwen35, qwen35moe).
// Reads the ssm.* shape (bounded), the RMS norm eps and which layers are delta-net layers
// (attention.recurrent_layers, else full_attention_interval); hp.n_layer excludes NextN blocks.
void llm_delta_net_load_hparams(llama_model_loader & ml, llama_hparams & hp, const char * arch);
// The routed and shared experts' sizes (upstream's defaults when missing); throws without experts.
void llm_delta_net_load_moe_hparams(llama_model_loader & ml, llama_hparams & hp, const char * arch);
// Routed experts plus the shared expert gated by sigmoid(ffn_gate_inp_shexp x), over cur [n_embd, n_tokens].
ggml_tensor * llm_build_delta_net_moe_ffn(llm_graph_context & g, ggml_tensor * cur, int il);
// The whole decoder: per layer pre-norm, gated attention or the delta-net mixer, residual, post-attention
// norm, ffn, residual. k_heads_tiled: v head h reads k head h mod n_k (qwen35) instead of h / (n_v / n_k).
void llm_build_delta_net_hybrid(llm_graph_context & g, bool k_heads_tiled,
                                ggml_tensor * (*ffn)(llm_graph_context & g, ggml_tensor * cur, int il));
// The multi-token-prediction head over the NextN block model.layers[n_layer] (qwen35, qwen35moe): for each
// position, x = eh_proj [enorm(embed(token)); hnorm(h)] with h the hidden row (after the output norm) of
// the position before; a gated full-attention block over the context's one-layer KV cache, then ffn; the
// head norm (shared_head_norm, else output_norm) gives t_embd, the head (shared_head_head, else output)
// the logits. Inputs: inp.tokens and inp.embd (the h rows) together.
void llm_build_delta_net_mtp(llm_graph_context & g,
                             ggml_tensor * (*ffn)(llm_graph_context & g, ggml_tensor * cur, int il));

// The NextN (multi-token-prediction) heads' shared pieces (nextn.cpp): the inputs of an MTP graph
// (inp.tokens and inp.embd, the h rows, together; positions, the attention input, the output ids, set
// through inp_pos / inp_out_ids) and x = eh_proj [enorm(embed(token)); hnorm(h)] of NextN block l (index
// il), returned [n_embd, n_tokens].
ggml_tensor * llm_build_nextn_input(llm_graph_context & g, const llama_layer & l, int il, ggml_tensor *& inp_pos,
                                    ggml_tensor *& inp_out_ids);
// The shared head over the block's output cur: the head norm (shared_head_norm, else output_norm) gives
// t_embd (the row a chained draft feeds back), the head (shared_head_head, else output) the logits.
void llm_build_nextn_head(llm_graph_context & g, const llama_layer & l, ggml_tensor * cur);

// deepseek2's latent attention of layer il over cur [n_embd, n_tokens] (after the attention norm), output
// projection included (deepseek2.cpp); inp_pos nullptr: q_pe / k_pe are not rotated (kimi-linear).
ggml_tensor * llm_build_mla(llm_graph_context & g, const llama_layer & l, ggml_tensor * cur, ggml_tensor * inp_pos,
                            ggml_tensor * inp_attn_scale, float kq_scale, int il);
