// Adapters applied on top of a model's weights at graph-build time: LoRA / aLoRA (low-rank deltas
// of projection weights, loaded from an adapter GGUF) and control vectors (a per-layer direction
// added to the residual stream).
#pragma once

#include "ggml-backend.h"
#include "ggml.h"
#include "llama.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

struct llama_model;

// ---- LoRA ----------------------------------------------------------------------------------------

// The two factors of one adapted weight W [n_in, n_out]: a [n_in, r], b [r, n_out], so that
// W x + k * b (a x) is the adapted projection. For token_embd (embd == true) they are flipped:
// a [r, n_vocab] (rows gathered per token), b [r, n_embd].
struct llama_adapter_lora_weight {
    ggml_tensor * a    = nullptr;
    ggml_tensor * b    = nullptr;
    bool          embd = false;

    // k = user_scale * alpha / r, or user_scale when the file gives no alpha
    float scale(float alpha, float user_scale) const {
        const float rank = (float) (embd ? a->ne[0] : a->ne[1]);
        return alpha != 0.0f ? user_scale * alpha / rank : user_scale;
    }
};

struct llama_adapter_lora {
    llama_model *            model = nullptr;  // the model it was loaded for (it registers the adapter)
    float                    alpha = 0.0f;     // adapter.lora.alpha, 0 when absent
    std::vector<llama_token> alora_invocation_tokens;
    std::vector<std::pair<std::string, std::string>> gguf_kv;  // scalar metadata as strings, file order

    std::map<std::string, llama_adapter_lora_weight> ab_map;  // by the base weight's name

    llama_adapter_lora() = default;
    ~llama_adapter_lora();
    llama_adapter_lora(const llama_adapter_lora &)             = delete;
    llama_adapter_lora & operator=(const llama_adapter_lora &) = delete;

    // The factors adapting w, nullptr if this adapter does not touch it.
    const llama_adapter_lora_weight * get_weight(const ggml_tensor * w) const;

    // Graph nodes the adapter adds at most (for sizing the graph).
    size_t n_graph_nodes() const { return ab_map.size() * 6; }

    std::vector<ggml_context *>        ctxs;  // tensor metadata, one per buffer type
    std::vector<ggml_backend_buffer_t> bufs;
};

// Loads path as an adapter for model (not yet registered with it). Throws llama_error.
llama_adapter_lora * llama_adapter_lora_load(llama_model & model, const std::string & path);

// The adapters set on a context with their user scales (zero scales left out).
using llama_adapter_loras = std::vector<std::pair<const llama_adapter_lora *, float>>;

// ---- control vectors -----------------------------------------------------------------------------

// One F32 [n_embd] direction per layer (none for layer 0), placed on the device of its layer.
struct llama_adapter_cvec {
    llama_adapter_cvec() = default;
    ~llama_adapter_cvec();
    llama_adapter_cvec(const llama_adapter_cvec &)             = delete;
    llama_adapter_cvec & operator=(const llama_adapter_cvec &) = delete;

    // Copies data (see llama_set_adapter_cvec); nullptr data disables the vector. Throws llama_error.
    void set(const llama_model & model, const float * data, size_t len, int32_t n_embd, int32_t il_start,
             int32_t il_end);

    bool active() const { return layer_start >= 0; }

    // cur + direction of layer il when il is in range, else cur.
    ggml_tensor * apply_to(ggml_context * ctx, ggml_tensor * cur, int il) const;

private:
    int32_t                            layer_start = -1;
    int32_t                            layer_end   = -1;
    std::vector<ggml_tensor *>         tensors;  // [n_layer], [0] nullptr
    std::vector<bool>                  present;  // the last set() gave layer il a row
    std::vector<ggml_context *>        ctxs;
    std::vector<ggml_backend_buffer_t> bufs;
    void                               alloc(const llama_model & model);
};
