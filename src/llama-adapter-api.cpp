// The C entry points of the adapters (LoRA / aLoRA, control vectors) and the context's side of them.
#include "llama-adapter.h"
#include "llama-context.h"
#include "llama-log.h"
#include "llama-model.h"

#include <cstdio>

// ---- context -------------------------------------------------------------------------------------

void llama_context::sync_adapters() {
    if (lora_gen != model.lora_gen) {
        llama_adapter_loras kept;
        for (const auto & l : loras) {
            if (model.loras.count(const_cast<llama_adapter_lora *>(l.first))) {
                kept.push_back(l);
            }
        }
        loras.swap(kept);
        lora_gen    = model.lora_gen;
        gres->valid = false;  // the last graph may reference a freed adapter's tensors
    }
    size_t need = max_nodes_base;
    for (const auto & l : loras) {
        need += l.first->n_graph_nodes();
    }
    if (cvec && cvec->active()) {
        need += 2 * model.hparams.n_layer;
    }
    if (need > max_nodes) {
        gres.reset(new llm_graph_result(need));
        max_nodes = need;
    }
}

void llama_context::set_adapters_lora(const llama_adapter_loras & l) {
    if (l == loras) {
        return;  // same set, same scales: the graph stays valid
    }
    loras       = l;
    gres->valid = false;  // scales and extra matmuls are part of the graph
    sync_adapters();
}

void llama_context::set_adapter_cvec(const float * data, size_t len, int32_t n_embd, int32_t il_start, int32_t il_end) {
    if (!cvec) {
        cvec.reset(new llama_adapter_cvec());
    }
    cvec->set(model, data, len, n_embd, il_start, il_end);
    gres->valid = false;
    sync_adapters();
}

// ---- C API ---------------------------------------------------------------------------------------

static int32_t adapter_copy_str(char * buf, size_t buf_size, const std::string & s) {
    if (buf && buf_size > 0) {
        snprintf(buf, buf_size, "%s", s.c_str());
    }
    return (int32_t) s.size();
}

static int32_t adapter_fail_str(char * buf, size_t buf_size) {
    if (buf && buf_size > 0) {
        buf[0] = '\0';
    }
    return -1;
}

llama_adapter_lora * llama_adapter_lora_init(llama_model * model, const char * path_lora) {
    return llama_api_guard(__func__, (llama_adapter_lora *) nullptr, [&]() -> llama_adapter_lora * {
        if (!model || !path_lora) {
            throw llama_error("model and path_lora must not be NULL");
        }
        if (!model->ops) {
            throw llama_error("the model was loaded without weights (vocab only)");
        }
        llama_adapter_lora * ad = llama_adapter_lora_load(*model, path_lora);
        model->loras.insert(ad);
        return ad;
    });
}

void llama_adapter_lora_free(llama_adapter_lora * adapter) {
    if (!adapter) {
        return;
    }
    if (adapter->model) {
        adapter->model->loras.erase(adapter);
        adapter->model->lora_gen++;  // contexts drop it before their next graph
    }
    delete adapter;
}

int32_t llama_adapter_meta_val_str(const llama_adapter_lora * adapter, const char * key, char * buf, size_t buf_size) {
    if (adapter && key) {
        for (const auto & kv : adapter->gguf_kv) {
            if (kv.first == key) {
                return adapter_copy_str(buf, buf_size, kv.second);
            }
        }
    }
    return adapter_fail_str(buf, buf_size);
}

int32_t llama_adapter_meta_count(const llama_adapter_lora * adapter) {
    return adapter ? (int32_t) adapter->gguf_kv.size() : 0;
}

int32_t llama_adapter_meta_key_by_index(const llama_adapter_lora * adapter, int32_t i, char * buf, size_t buf_size) {
    if (!adapter || i < 0 || (size_t) i >= adapter->gguf_kv.size()) {
        return adapter_fail_str(buf, buf_size);
    }
    return adapter_copy_str(buf, buf_size, adapter->gguf_kv[i].first);
}

int32_t llama_adapter_meta_val_str_by_index(const llama_adapter_lora * adapter, int32_t i, char * buf,
                                            size_t buf_size) {
    if (!adapter || i < 0 || (size_t) i >= adapter->gguf_kv.size()) {
        return adapter_fail_str(buf, buf_size);
    }
    return adapter_copy_str(buf, buf_size, adapter->gguf_kv[i].second);
}

uint64_t llama_adapter_get_alora_n_invocation_tokens(const llama_adapter_lora * adapter) {
    return adapter ? adapter->alora_invocation_tokens.size() : 0;
}

const llama_token * llama_adapter_get_alora_invocation_tokens(const llama_adapter_lora * adapter) {
    if (!adapter || adapter->alora_invocation_tokens.empty()) {
        return nullptr;
    }
    return adapter->alora_invocation_tokens.data();
}

int32_t llama_adapter_alora_invocation_start(const llama_adapter_lora * adapter, const llama_token * tokens,
                                             int32_t n_tokens) {
    if (!adapter || !tokens || n_tokens <= 0) {
        return -1;
    }
    const std::vector<llama_token> & inv = adapter->alora_invocation_tokens;
    const int32_t                    n   = (int32_t) inv.size();
    if (n == 0 || n > n_tokens) {
        return -1;
    }
    // the last complete occurrence wins: scan candidate starts from the end
    for (int32_t s = n_tokens - n; s >= 0; s--) {
        int32_t j = 0;
        while (j < n && tokens[s + j] == inv[j]) {
            j++;
        }
        if (j == n) {
            return s;
        }
    }
    return -1;
}

int32_t llama_set_adapters_lora(llama_context * ctx, llama_adapter_lora ** adapters, size_t n_adapters,
                                float * scales) {
    return llama_api_guard(__func__, (int32_t) -1, [&]() -> int32_t {
        if (!ctx) {
            throw llama_error("ctx must not be NULL");
        }
        if (n_adapters > 0 && (!adapters || !scales)) {
            throw llama_error("adapters and scales must not be NULL when n_adapters > 0");
        }
        llama_adapter_loras l;
        for (size_t i = 0; i < n_adapters; i++) {
            llama_adapter_lora * a = adapters[i];
            if (!a || !ctx->model.loras.count(a)) {
                throw llama_error(llama_format("adapter %zu is NULL, freed, or was loaded for another model", i));
            }
            if (scales[i] == 0.0f) {
                continue;  // as if it were not given
            }
            bool dup = false;
            for (auto & e : l) {
                if (e.first == a) {
                    e.second = scales[i];  // the last scale given for an adapter wins
                    dup      = true;
                }
            }
            if (!dup) {
                l.emplace_back(a, scales[i]);
            }
        }
        ctx->set_adapters_lora(l);
        return 0;
    });
}

int32_t llama_set_adapter_cvec(llama_context * ctx, const float * data, size_t len, int32_t n_embd, int32_t il_start,
                               int32_t il_end) {
    return llama_api_guard(__func__, (int32_t) -1, [&]() -> int32_t {
        if (!ctx) {
            throw llama_error("ctx must not be NULL");
        }
        ctx->set_adapter_cvec(data, len, n_embd, il_start, il_end);
        return 0;
    });
}
