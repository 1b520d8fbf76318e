#include "tool-model.h"

#include "tool-log.h"
#include "tool-progress.h"

namespace tool {

void llama_start(const char * prog, bool verbose) {
    log_init(prog, verbose ? GGML_LOG_LEVEL_DEBUG : GGML_LOG_LEVEL_WARN, llama_last_error);
    llama_log_set(log_callback, nullptr);
    llama_backend_init();
}

llama_model * load_model(const std::string & path, bool progress) {
    return load_model(path, progress, llama_model_default_params());
}

llama_model * load_model(const std::string & path, bool progress, llama_model_params mp) {
    load_progress lp;
    if (progress) {
        lp.attach(mp);
    }
    llama_model * model = llama_model_load_from_file(path.c_str(), mp);
    lp.finish();
    if (!model) {
        report_failure("cannot load model " + path);
    }
    return model;
}

llama_context * new_context(llama_model * model, const llama_context_params & cp) {
    llama_context * ctx = llama_init_from_model(model, cp);
    if (!ctx) {
        // the reason first: freeing the model must not replace the library's last error
        const std::string reason = failure_reason();
        llama_model_free(model);
        report_failure("cannot create the context", reason);
    }
    return ctx;
}

}  // namespace tool
