// Model quantization (llama_model_quantize): the per-tensor type recipes of each llama_ftype mix and
// the GGUF-to-GGUF conversion. The recipe functions are exposed here so tests can check them alone.
#pragma once

#include "llama.h"

#include <cstdint>
#include <string>

// What the recipe needs to know about the model as a whole.
struct llama_quant_model_info {
    int32_t n_layer    = 0;      // transformer blocks (max "blk.N." index + 1 when the key is absent)
    int32_t n_gqa      = 1;      // n_head / n_head_kv
    bool    has_output = false;  // output.weight exists (otherwise token_embd is the tied LM head)
    int32_t n_expert   = 0;      // <arch>.expert_count (0 for dense models)
};

// The base weight type of a mix (Q4_K for Q4_K_M, F16 for MOSTLY_F16, ...); GGML_TYPE_COUNT if the
// ftype is not supported by the quantizer.
ggml_type llama_quant_base_type(llama_ftype ftype);

// Whether a tensor is a weight matrix that the mix converts (name ends in "weight", 2-D or more,
// not a norm). Other tensors are copied with their input type.
bool llama_quant_is_weight_matrix(const std::string & name, int n_dims);

// The type a weight matrix gets under the mix: the base type adjusted by the recipe (unless pure)
// and the output/token-embedding overrides, before the block-size fallback. ne0: the row length
// (the i-quant mixes give an LM head whose rows do not fit 256-element blocks Q8_0); 0 = unknown.
// params.imatrix only matters as present or not (IQ3_XXS spends more bits without one).
// Implemented in llama-quant-mix.cpp, like the two functions above and the fallback below.
ggml_type llama_quant_recipe_type(const std::string & name, const llama_quant_model_info & info,
                                  const llama_model_quantize_params & params, int64_t ne0 = 0);

// The block-size fallback: `type` if ne0 is a multiple of its block size, otherwise the type the
// quantizer uses instead (Q4_K -> Q5_0, Q5_K -> Q5_1, Q6_K -> Q8_0, Q2_K/Q3_K/IQ4_XS and the grid
// i-quants -> IQ4_NL, then F16 when even 32-element blocks do not fit).
ggml_type llama_quant_fallback_type(ggml_type type, int64_t ne0);

// Whether quantizing tensor `name` to `type` under `ftype` needs importance-matrix data (as
// llama.cpp: the 1-3 bit i-quants IQ1_S/IQ1_M/IQ2_XXS/IQ2_XS/IQ2_S/IQ3_XXS, and Q2_K inside a
// Q2_K_S mix; never token_embd.weight or output.weight). Without it the result is unusable.
bool llama_quant_requires_imatrix(const std::string & name, ggml_type type, llama_ftype ftype);
