// From tool::params (arg-table.h) to llama.h: the model and context parameters and the LoRA
// adapters applied for the whole run. Call after tool::llama_start (devices are looked up by name).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "arg-table.h"
#include "llama.h"

namespace tool {

// What llama_model_params points into; keep it alive until the model is loaded.
struct model_storage {
    std::vector<ggml_backend_dev_t> devices;
    std::vector<float>              tensor_split;
};

// The model parameters of p. False with `error` set when a -dev name is no device.
bool model_params(const params & p, llama_model_params & mp, model_storage & store, std::string & error);

// Writes one line per device (the names -dev takes): "NAME: DESCRIPTION (FREE / TOTAL MiB)".
void print_devices(FILE * out);

// The context parameters of p for n_seq sequences (threads resolved: -1 = physical cores).
llama_context_params context_params(const params & p, int n_seq);

// Loads p.lora and sets them on ctx with their scales. False with `error` naming the adapter that
// failed (what was loaded stays with the model, which frees it).
bool apply_lora(llama_model * model, llama_context * ctx, const params & p, std::string & error);

}  // namespace tool
