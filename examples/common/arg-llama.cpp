// tool::params to llama_model_params / llama_context_params and the run's LoRA adapters (arg-llama.h).
#include "arg-llama.h"

#include <algorithm>

#include "ggml-backend.h"

namespace tool {

bool model_params(const params & p, llama_model_params & mp, model_storage & store, std::string & error) {
    mp              = llama_model_default_params();
    mp.n_gpu_layers = p.n_gpu_layers;
    mp.split_mode   = p.split_mode;
    mp.main_gpu     = p.main_gpu;
    mp.load_mode    = p.use_mmap ? (p.use_mlock ? LLAMA_LOAD_MODE_MMAP_MLOCK : LLAMA_LOAD_MODE_AUTO)
                                 : (p.use_mlock ? LLAMA_LOAD_MODE_MLOCK : LLAMA_LOAD_MODE_NONE);
    // MTP drafting runs the model's own NextN block, which is loaded only on request
    mp.load_mtp = p.spec.type == "mtp";
    if (!p.tensor_split.empty()) {
        // llama.h reads llama_max_devices() entries
        store.tensor_split.assign(std::max(llama_max_devices(), p.tensor_split.size()), 0.0f);
        std::copy(p.tensor_split.begin(), p.tensor_split.end(), store.tensor_split.begin());
        mp.tensor_split = store.tensor_split.data();
    }
    if (!p.devices.empty()) {
        store.devices.clear();
        if (!(p.devices.size() == 1 && p.devices[0] == "none")) {
            for (const std::string & name : p.devices) {
                ggml_backend_dev_t dev = ggml_backend_dev_by_name(name.c_str());
                if (!dev) {
                    error = "-dev: no device named " + name;
                    return false;
                }
                store.devices.push_back(dev);
            }
        }
        store.devices.push_back(nullptr);  // NULL-terminated; alone: no GPU at all
        mp.devices = store.devices.data();
    }
    return true;
}

void print_devices(FILE * out) {
    for (size_t i = 0; i < ggml_backend_dev_count(); i++) {
        ggml_backend_dev_t dev   = ggml_backend_dev_get(i);
        size_t             free  = 0;
        size_t             total = 0;
        ggml_backend_dev_memory(dev, &free, &total);
        fprintf(out, "%s: %s (%zu / %zu MiB)\n", ggml_backend_dev_name(dev), ggml_backend_dev_description(dev),
                free >> 20, total >> 20);
    }
}

llama_context_params context_params(const params & p, int n_seq) {
    llama_context_params cp = llama_context_default_params();
    const int            nt = p.n_threads > 0 ? p.n_threads : physical_cores();
    cp.n_ctx                = (uint32_t) p.n_ctx;
    cp.n_batch              = (uint32_t) p.n_batch;
    cp.n_ubatch             = (uint32_t) std::min(p.n_batch, p.n_ubatch);
    cp.n_seq_max            = (uint32_t) n_seq;
    cp.n_threads            = nt;
    cp.n_threads_batch      = p.n_threads_batch > 0 ? p.n_threads_batch : nt;
    cp.flash_attn_type      = p.flash_attn;
    cp.type_k               = p.type_k;
    cp.type_v               = p.type_v;
    cp.kv_unified           = true;  // libllama always shares one cache among sequences
    return cp;
}

bool apply_lora(llama_model * model, llama_context * ctx, const params & p, std::string & error) {
    if (p.lora.empty()) {
        return true;
    }
    std::vector<llama_adapter_lora *> adapters;
    std::vector<float>                scales;
    for (const lora_arg & l : p.lora) {
        llama_adapter_lora * a = llama_adapter_lora_init(model, l.path.c_str());
        if (!a) {
            error = "cannot load LoRA adapter " + l.path + ": " + llama_last_error();
            return false;
        }
        adapters.push_back(a);
        scales.push_back(l.scale);
    }
    if (llama_set_adapters_lora(ctx, adapters.data(), adapters.size(), scales.data()) != 0) {
        error = std::string("cannot apply the LoRA adapters: ") + llama_last_error();
        return false;
    }
    return true;
}

}  // namespace tool
