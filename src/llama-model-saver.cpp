// llama_model_save_to_file: the model's metadata (as loaded, overrides applied) and every weight,
// read back from whichever buffer holds it (repacked CPU weights convert back to their GGUF
// layout on read), written as one GGUF file through a temporary name.
#include "llama-log.h"
#include "llama-model.h"

#include "ggml-backend.h"
#include "ggml-os.h"
#include "gguf.h"

#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

void llama_model::save(const std::string & path) const {
    const llama_model & model = *this;
    if (model.params.vocab_only || model.layers.empty()) {
        throw llama_error("the model was loaded with vocab_only: it has no weights to save");
    }
    if (!model.meta) {
        throw llama_error("the model has no metadata to save");
    }
    std::unique_ptr<gguf_context, void (*)(gguf_context *)> out(gguf_init_empty(), gguf_free);
    if (!out || !gguf_set_kv(out.get(), model.meta.get())) {
        throw llama_error("cannot copy the metadata");
    }
    // each file tensor once (shared weights may have per-device copies with the same name)
    std::set<std::string> seen;
    std::vector<uint8_t>  data;
    for (const auto & c : model.ctxs_w) {
        for (ggml_tensor * t = ggml_get_first_tensor(c.first); t; t = ggml_get_next_tensor(c.first, t)) {
            if (!seen.insert(ggml_get_name(t)).second) {
                continue;
            }
            if (!t->buffer) {
                throw llama_error(llama_format("weight %s has no data", ggml_get_name(t)));
            }
            data.resize(ggml_nbytes(t));
            ggml_backend_tensor_get(t, data.data(), 0, data.size());
            if (!gguf_add_tensor_info(out.get(), ggml_get_name(t), t->type, ggml_n_dims(t), t->ne, data.data())) {
                throw llama_error(llama_format("cannot add weight %s", ggml_get_name(t)));
            }
        }
    }
    const std::string tmp = path + ".tmp";
    if (!gguf_write_to_file(out.get(), tmp.c_str(), false)) {
        ggml_os_remove(tmp.c_str());
        throw llama_error(llama_format("cannot write %s: %s", tmp.c_str(), gguf_last_error()));
    }
    if (!ggml_os_rename_replace(tmp.c_str(), path.c_str())) {
        const std::string why = ggml_os_error();
        ggml_os_remove(tmp.c_str());
        throw llama_error(why);
    }
}

void llama_model_save_to_file(const struct llama_model * model, const char * path_model) {
    llama_api_guard_void(__func__, [&]() {
        if (!model || !path_model) {
            throw llama_error(!model ? "model is NULL" : "path is NULL");
        }
        model->save(path_model);
    });
}
